"""Strict `{{variable}}` rendering for prompt sections.

Strict because a prompt with a silently empty hole is worse than an error: an unknown name, a
name whose provider has no value, or a malformed `{{...}}` group fails with the section and the
variable named. A lone `{{` with no `}}` after it is ordinary text; values are never re-scanned,
so a value containing `{{x}}` reaches the model as written.
"""

from __future__ import annotations

from collections.abc import Callable

from astro_cli.prompt.layers import VARIABLE_NAME


class PromptRenderError(Exception):
    """A section cannot be rendered; the message names the section and the variable."""


def render(text: str, lookup: Callable[[str], str | None], known: Callable[[str], bool], section: str) -> str:
    """Fill `{{name}}` groups in `text` using `lookup`; `known` tells registered names apart."""
    out: list[str] = []
    pos = 0
    while True:
        start = text.find("{{", pos)
        if start < 0:
            out.append(text[pos:])
            break
        end = text.find("}}", start + 2)
        if end < 0:  # a lone "{{": plain text
            out.append(text[pos:])
            break
        out.append(text[pos:start])
        inner = text[start + 2 : end].strip()
        if not VARIABLE_NAME.match(inner):
            raise PromptRenderError(
                f"section '{section}': malformed variable group {text[start : end + 2]!r} "
                "(expected {{name}} with letters, digits, '_', '.' or '-')."
            )
        if not known(inner):
            raise PromptRenderError(f"section '{section}': unknown variable '{inner}'.")
        value = lookup(inner)
        if value is None:
            raise PromptRenderError(f"section '{section}': variable '{inner}' has no value.")
        out.append(str(value))
        pos = end + 2
    return "".join(out)
