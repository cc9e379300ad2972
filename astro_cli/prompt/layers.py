"""Layers (scopes) of the prompt registry and the checks every registration passes.

An entry (a section, a variable, a runtime-context source, an assemble listener) belongs to the
global layer or to one agent's scope; a scoped entry shadows or joins the global layer for that
agent only. Registration fails at once, naming the entry, when it could never work: a name used
twice in one layer, an order that is not a finite number (NaN sorts nowhere, ±inf hides a
section's band), a variable name that `{{name}}` cannot spell.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from astro_cli.config import ConfigError

GLOBAL = "global"

# What `{{name}}` may spell (render.py fills only these): letters, digits, '_', '.', '-'.
VARIABLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")

Dispose = Callable[[], None]


def covers(layer: str, scope: str) -> bool:
    """Does a listener or suppressor of `layer` apply to an assembly for `scope`? The global layer
    covers every scope, and 'agent:NAME' covers each run of that agent ('agent:NAME#<session>')."""
    return layer in (GLOBAL, scope) or scope.startswith(layer + "#")


def layers_of(scope: str) -> list[str]:
    """The layers an assembly for `scope` reads, most general first: the global layer, then
    'agent:NAME' for a run scoped 'agent:NAME#<session>', then the scope itself. One rule for every
    kind of entry: what is registered for an agent reaches each of its runs, a run's own entries
    shadow the agent's, and the agent's shadow the global ones."""
    layers = [GLOBAL]
    if scope != GLOBAL:
        base = scope.split("#", 1)[0]
        if base not in layers:
            layers.append(base)
        if scope not in layers:
            layers.append(scope)
    return layers


class PromptRegistryError(ConfigError):
    """A registration or assembly that cannot work; the message says which section or variable."""


def check_order(order: object, what: str) -> float:
    """`order` as a finite number, else an error naming `what` (a bool is not an order)."""
    if isinstance(order, bool) or not isinstance(order, (int, float)) or not math.isfinite(order):
        raise PromptRegistryError(f"{what} needs a finite number as its order, not {order!r}.")
    return order


def check_label(name: object, what: str) -> str:
    """A section or source name: non-empty text on one line (it is shown in `astro prompt show`)."""
    if not isinstance(name, str) or not name.strip() or "\n" in name or "\r" in name:
        raise PromptRegistryError(f"{what} needs a non-empty one-line name, not {name!r}.")
    return name


def check_variable_name(name: object) -> str:
    if not isinstance(name, str) or not VARIABLE_NAME.match(name):
        raise PromptRegistryError(
            f"the prompt variable {name!r} cannot be referenced as {{{{name}}}}: a name starts with a letter "
            "or '_' and holds only letters, digits, '_', '.' or '-'."
        )
    return name
