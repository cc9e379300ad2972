"""The assemble waterfall (000's `system-prompt/assemble`): listeners that change an assembly before it is final.

Each assembly's sections (produced, not yet filled with variables), its tool schemas and its runtime
context pass through the listeners of the global layer and of the assembly's scope, in
registration order; each listener changes the draft in place or returns a new one. Only then are
the complete-section rule, the runtime-context switch and strict variable rendering applied, so a
listener can neither get two complete sections past the check nor bring back a suppressed
environment message.

A listener decides what the model is shown, not what may run: a tool schema it removes can still
be called by name if the model guesses it (`permissions.deny` stops that), and one it adds has
no implementation behind it. Listeners must be deterministic: whatever they return on one step
they must return on the next, or the provider's prompt cache is lost.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from astro_cli.prompt.context import ContextEntry
from astro_cli.prompt.layers import GLOBAL, Dispose, PromptRegistryError, check_label, check_order, covers
from astro_cli.tools.registry import UNLISTED

log = logging.getLogger(__name__)


@dataclass
class DraftSection:
    """A section as produced: `variables` says whether its `{{name}}` groups are filled in."""

    name: str
    order: float
    text: str
    complete: bool = False
    variables: bool = True


@dataclass
class Draft:
    """What a listener sees and may change: `scope` and `question` say whom the assembly is for."""

    scope: str
    question: str
    sections: list[DraftSection]
    tools: list[dict[str, Any]]
    context: list[ContextEntry] = field(default_factory=list)

    def section(self, name: str) -> DraftSection | None:
        return next((s for s in self.sections if s.name == name), None)


AssembleListener = Callable[[Draft], "Draft | None"]


class Waterfall:
    def __init__(self) -> None:
        self._listeners: list[tuple[str, AssembleListener]] = []

    def add(self, listener: AssembleListener, scope: str = GLOBAL) -> Dispose:
        entry = (scope, listener)
        self._listeners.append(entry)
        return lambda: self._listeners.remove(entry) if entry in self._listeners else None

    def listeners(self, scope: str) -> list[tuple[str, AssembleListener]]:
        """(layer, listener) of every listener that applies to `scope`, in registration order."""
        return [(layer, listener) for layer, listener in self._listeners if covers(layer, scope)]

    def __len__(self) -> int:
        return len(self._listeners)

    def run(self, draft: Draft, listeners: list[tuple[str, AssembleListener]],
            inherit: frozenset[str] | None = None) -> Draft:
        """Run the listeners in order. In an isolated scope (`inherit` not None) a section a
        global-layer listener adds stays only when its name is inherited, as a registered one would."""
        for layer, listener in listeners:
            before = {section.name for section in draft.sections}
            name = getattr(listener, "__qualname__", repr(listener))
            try:
                result = listener(draft)
            except Exception as exc:
                log.debug("assemble listener %s failed", name, exc_info=True)
                raise PromptRegistryError(
                    f"the prompt's assemble listener {name} failed: {type(exc).__name__}: {exc}"
                ) from None
            if result is not None:
                draft = result
            _check(draft, name)
            if layer == GLOBAL and inherit is not None:
                draft.sections = [s for s in draft.sections if s.name in before or s.name in inherit]
        return draft


def _check(draft: Draft, listener: str) -> None:
    """A listener's output in the shape the rest of assembly relies on, else one sentence naming it."""
    if not isinstance(draft, Draft):
        raise PromptRegistryError(f"the prompt's assemble listener {listener} returned {type(draft).__name__}, "
                                  "not a Draft.")
    for section in draft.sections:
        if not isinstance(section, DraftSection) or not isinstance(section.text, str):
            raise PromptRegistryError(f"the prompt's assemble listener {listener} left {section!r} among the "
                                      "sections (each must be a DraftSection with text).")
        check_label(section.name, f"a section from the assemble listener {listener}")
        check_order(section.order, f"the section '{section.name}' from the assemble listener {listener}")
    for schema in draft.tools:
        name = schema.get("function", {}).get("name") if isinstance(schema, dict) else None
        if not isinstance(name, str) or not name:
            raise PromptRegistryError(f"the prompt's assemble listener {listener} left a tool schema without "
                                      "a function name.")
        if name == UNLISTED:
            raise PromptRegistryError(f"the prompt's assemble listener {listener} added a tool named '{UNLISTED}', "
                                      "the reserved marker of 'tool_order'.")
