"""Runtime context: the per-step facts of the trailing environment message, each labelled with its source.

000's registry keeps the dynamic context apart from the system prompt's sections and delivers it
as a user-role snapshot in which every contribution names what contributed it; 002 puts that
message last so the provider's prompt cache keeps everything before it. A source is a name, an
order and a provider called at each assembly that wants runtime context (a model request, `astro
prompt show`); the loop adds the session's own sources (date, workspace, steps, tokens) and each
loop extension's facts to the registered ones.

Config `prompt.include_runtime_context: false` or a suppressor for a scope removes the whole
snapshot, listener additions included, and then no provider is called at all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from astro_cli.prompt.layers import (
    GLOBAL,
    Dispose,
    PromptRegistryError,
    check_label,
    check_order,
    covers,
    layers_of,
)

if TYPE_CHECKING:
    from astro_cli.prompt.assembly_input import AssemblyInput

ContextProvider = Callable[["AssemblyInput"], "Mapping[str, object] | None"]


@dataclass(frozen=True)
class ContextSource:
    """One contributor to the environment message: `provider` returns its facts, or None for none."""

    source: str
    order: float
    provider: ContextProvider

    def __post_init__(self) -> None:
        check_label(self.source, "a runtime-context source")
        check_order(self.order, f"the runtime-context source '{self.source}'")


@dataclass
class ContextEntry:
    """One source's facts in this assembly, as the model will read them."""

    source: str
    order: float
    facts: dict[str, str] = field(default_factory=dict)


def evaluate(sources: Sequence[ContextSource], data: AssemblyInput) -> list[ContextEntry]:
    """Call each source in order; a source with nothing to say (None, only empty values) is left out."""
    entries: list[ContextEntry] = []
    for source in sorted(sources, key=lambda s: s.order):  # stable: ties keep registration order
        facts = {str(k): str(v) for k, v in (source.provider(data) or {}).items() if v not in (None, "")}
        if facts:
            entries.append(ContextEntry(source.source, source.order, facts))
    return entries


class RuntimeContext:
    """The registered sources per layer and the suppressors per scope."""

    def __init__(self) -> None:
        self._sources: dict[tuple[str, str], ContextSource] = {}
        self._suppressors: Counter[str] = Counter()

    def add(self, source: ContextSource, scope: str = GLOBAL) -> Dispose:
        key = (scope, source.source)
        if key in self._sources:
            raise PromptRegistryError(
                f"a runtime-context source named '{source.source}' is already registered in scope '{scope}'."
            )
        self._sources[key] = source
        return lambda: self._remove(key, source)

    def _remove(self, key: tuple[str, str], source: ContextSource) -> None:
        if self._sources.get(key) is source:
            del self._sources[key]

    def suppress(self, scope: str = GLOBAL) -> Dispose:
        """Leave the runtime context out of `scope`'s assemblies (GLOBAL: out of every assembly;
        'agent:NAME': out of every run of that agent) until the returned function is called.
        Suppressors combine: the context returns only when every one of them is disposed."""
        self._suppressors[scope] += 1
        done = False

        def dispose() -> None:
            nonlocal done
            if not done:
                done = True
                self._suppressors[scope] -= 1
                if self._suppressors[scope] <= 0:
                    del self._suppressors[scope]

        return dispose

    def suppressed(self, scope: str) -> bool:
        return any(covers(layer, scope) for layer in self._suppressors)

    def sources(self, scope: str) -> list[ContextSource]:
        """The sources of every layer `scope` reads (layers_of), a narrower layer's shadowing a wider one's."""
        chosen: dict[str, ContextSource] = {}
        for layer in layers_of(scope):
            chosen.update({n: s for (sc, n), s in self._sources.items() if sc == layer})
        return list(chosen.values())

    def __len__(self) -> int:
        return len(self._sources) + sum(self._suppressors.values())
