"""The prompt-section registry: named, ordered sections assembled into the system prompt each step.

Sections carry a numeric order and either fixed text or a provider called at each assembly; they
are joined with a blank line in ascending order and an empty section disappears. A section or a
variable registered for one agent scope (a subagent, a teammate) shadows the global one of the
same name for that agent only; one registered for 'agent:NAME' reaches each run of it
('agent:NAME#<session>', layers.layers_of). An isolated scope (a subagent's run) reads only the
global sections it inherits, by name. Each assembly passes through the assemble waterfall (waterfall.py);
after it at most one effective `complete` section may exist: it is then the whole prompt. The
runtime context of the trailing environment message (context.py) is assembled alongside, kept
apart from the system prompt.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from astro_cli.by_kind import SessionStates
from astro_cli.prompt.abort import AssemblyAborted, abortable
from astro_cli.prompt.assembly_input import AssemblyInput, TurnFacts
from astro_cli.prompt.context import ContextEntry, ContextProvider, ContextSource, RuntimeContext, evaluate
from astro_cli.prompt.layers import (
    GLOBAL,
    Dispose,
    PromptRegistryError,
    check_label,
    check_order,
    check_variable_name,
    covers,
    layers_of,
)
from astro_cli.prompt.render import PromptRenderError, render
from astro_cli.prompt.waterfall import AssembleListener, Draft, DraftSection, Waterfall

if TYPE_CHECKING:
    from astro_cli.tools.base import Tool

__all__ = ["GLOBAL", "AssemblyAborted", "AssemblyInput", "PromptRegistryError", "ContextEntry", "ContextSource", "Draft", "DraftSection"]

# Default bands (000's registry, 003's order).
ORDER_IDENTITY = -100
ORDER_PERSONA = 0
ORDER_TOOLS = 100
ORDER_SKILLS = 200
ORDER_MEMORY = 300
ORDER_SUBAGENTS = 400
ORDER_PRINCIPLES = 900


SectionProvider = Callable[[AssemblyInput], "str | None"]
VariableProvider = Callable[[], "str | None"]


@dataclass
class Section:
    name: str
    order: float
    text: str | None = None
    provider: SectionProvider | None = None
    scope: str = GLOBAL
    complete: bool = False
    # Variables are filled in text the maintainers or the user wrote (identity, principles, config).
    # A provider's output is data (skill descriptions, memories): it reaches the model as written.
    variables: bool | None = None

    @property
    def renders_variables(self) -> bool:
        return self.variables if self.variables is not None else self.provider is None

    def produce(self, data: AssemblyInput) -> str | None:
        if self.provider is not None:
            return self.provider(data)
        return self.text


@dataclass
class RenderedSection:
    name: str
    order: float
    text: str


@dataclass
class AssembledPrompt:
    """Exactly what the model sees: the system prompt's sections, the tool schemas, the variables used,
    and the runtime context of the environment message (empty when none is wanted or it is off)."""

    sections: list[RenderedSection]
    tools: list[dict[str, Any]]
    variables: dict[str, str]
    context: list[ContextEntry] = field(default_factory=list)

    @property
    def system(self) -> str:
        return "\n\n".join(section.text for section in self.sections)

    def section(self, name: str) -> RenderedSection | None:
        return next((s for s in self.sections if s.name == name), None)


class PromptRegistry:
    def __init__(self) -> None:
        self._sections: dict[tuple[str, str], Section] = {}
        self._variables: dict[tuple[str, str], VariableProvider] = {}
        self._context = RuntimeContext()
        self._waterfall = Waterfall()
        self._isolated: dict[str, frozenset[str]] = {}

    # --- registration ----------------------------------------------------------------------
    def register_section(self, section: Section, replace: bool = False) -> Dispose:
        """Add `section`; returns a function that removes it again. A second section of one name in
        one scope, or an order that is not a finite number, fails here (not at the first assembly)."""
        check_label(section.name, "a prompt section")
        check_order(section.order, f"the prompt section '{section.name}'")
        key = (section.scope, section.name)
        if key in self._sections and not replace:
            raise PromptRegistryError(
                f"a section named '{section.name}' is already registered in scope '{section.scope}'."
            )
        self._sections[key] = section
        return lambda: _discard(self._sections, key, section)

    def add(
        self,
        name: str,
        order: float,
        text: str | None = None,
        provider: SectionProvider | None = None,
        scope: str = GLOBAL,
        complete: bool = False,
        replace: bool = False,
        variables: bool | None = None,
    ) -> Dispose:
        return self.register_section(Section(name, order, text, provider, scope, complete, variables), replace=replace)

    def remove_section(self, name: str, scope: str = GLOBAL) -> None:
        self._sections.pop((scope, name), None)

    def register_variable(self, name: str, provider: VariableProvider, scope: str = GLOBAL,
                          replace: bool = False) -> Dispose:
        """Add `{{name}}`; a name registered twice in one scope, or one `{{...}}` cannot spell, fails here."""
        check_variable_name(name)
        key = (scope, name)
        if key in self._variables and not replace:
            raise PromptRegistryError(f"a prompt variable named '{name}' is already registered in scope '{scope}'.")
        self._variables[key] = provider
        return lambda: _discard(self._variables, key, provider)

    def remove_variable(self, name: str, scope: str = GLOBAL) -> None:
        self._variables.pop((scope, name), None)

    def add_context(self, source: str, order: float, provider: ContextProvider, scope: str = GLOBAL) -> Dispose:
        """A runtime-context source: `provider(data)` returns facts for the environment message, labelled `source`."""
        return self._context.add(ContextSource(source, order, provider), scope)

    def suppress_runtime_context(self, scope: str = GLOBAL) -> Dispose:
        """No environment message for `scope` (GLOBAL: for every assembly) until the returned function is called."""
        return self._context.suppress(scope)

    def runtime_context_suppressed(self, scope: str = GLOBAL) -> bool:
        return self._context.suppressed(scope)

    def isolate(self, scope: str, inherit: Iterable[str] = ()) -> Dispose:
        """Assemblies for `scope` (and the runs it covers) read of the global layer only the sections
        named in `inherit` (a subagent's `inherit: [skills, memory]`); the scope's own layers are read
        whole. Undone by the returned function."""
        if scope == GLOBAL:
            raise PromptRegistryError("the global layer cannot be isolated from itself.")
        names = frozenset(inherit)
        self._isolated[scope] = names
        return lambda: _discard(self._isolated, scope, names)

    def inherited(self, scope: str) -> frozenset[str] | None:
        """The global sections an isolated `scope` reads, None when it is not isolated."""
        found = [names for layer, names in self._isolated.items() if covers(layer, scope)]
        return frozenset().union(*found) if found else None

    def on_assemble(self, listener: AssembleListener, scope: str = GLOBAL) -> Dispose:
        """Run `listener(draft)` in each assembly for `scope` (GLOBAL: every assembly), before the
        complete-section rule; it changes the draft in place or returns a new one (waterfall.py)."""
        return self._waterfall.add(listener, scope)

    def __len__(self) -> int:
        """Entries registered, in every scope (a finished subagent run leaves none)."""
        return (len(self._sections) + len(self._variables) + len(self._context) + len(self._waterfall)
                + len(self._isolated))

    # --- lookup ----------------------------------------------------------------------------
    def effective_sections(self, scope: str = GLOBAL) -> list[Section]:
        """The sections of every layer `scope` reads, narrower layers shadowing wider ones by name."""
        inherit = self.inherited(scope)
        chosen: dict[str, Section] = {}
        for layer in layers_of(scope):
            chosen.update({n: s for (sc, n), s in self._sections.items()
                           if sc == layer and (layer != GLOBAL or inherit is None or n in inherit)})
        return sorted(chosen.values(), key=lambda s: (s.order, s.name))

    def includes(self, name: str, scope: str = GLOBAL) -> bool:
        """Does an assembly for `scope` use the section `name` (a complete section replaces all others)?"""
        sections = self.effective_sections(scope)
        complete = [s for s in sections if s.complete]
        return any(s.name == name for s in (complete or sections))

    def _variable(self, name: str, scope: str) -> VariableProvider | None:
        return next((v for layer in reversed(layers_of(scope)) if (v := self._variables.get((layer, name)))), None)

    def runtime_context(self, data: AssemblyInput, extra: Sequence[ContextSource] = ()) -> list[ContextEntry]:
        """The environment message's contributions for `data.scope`: none, and no provider called, when suppressed."""
        if self._context.suppressed(data.scope):
            return []
        return evaluate([*self._context.sources(data.scope), *extra], data)

    # --- assembly --------------------------------------------------------------------------
    def assemble(
        self,
        tools: list[Tool],
        scope: str = GLOBAL,
        question: str = "",
        states: SessionStates | None = None,
        variables: Mapping[str, str] | None = None,
        context: Sequence[ContextSource] | None = None,
        turn: TurnFacts | None = None,
        profile: str = "default",
        signal: threading.Event | None = None,
    ) -> AssembledPrompt:
        """Build the system prompt for `scope` with `tools` (already ordered) as the request's tools.

        `variables` are the caller's own values (a session's model), ahead of the registered providers.
        `context` asks for the runtime context too: the registered sources plus these (a session's
        own); None (measuring, validating) evaluates no source at all. `signal` is the request's
        abort signal: once set, the assembly stops waiting for its providers (AssemblyAborted, abort.py)."""
        return abortable(lambda: self._assemble(tools, scope, question, states, variables, context, turn, profile,
                                                signal), signal, f"the prompt of {scope}")

    def _assemble(self, tools: list[Tool], scope: str, question: str, states: SessionStates | None,
                  variables: Mapping[str, str] | None, context: Sequence[ContextSource] | None,
                  turn: TurnFacts | None, profile: str, signal: threading.Event | None) -> AssembledPrompt:
        given = dict(variables or {})
        sections = self.effective_sections(scope)
        listeners = self._waterfall.listeners(scope)
        if not listeners:  # nothing can change the sections: apply the complete rule before producing any
            sections = _complete_rule(sections, scope)
        data = AssemblyInput(scope=scope, tools=tools, question=question, states=states or SessionStates(), turn=turn,
                             profile=profile, signal=signal)
        produced = [
            DraftSection(s.name, s.order, text, s.complete, s.renders_variables)
            for s in sections
            if (text := s.produce(data)) and text.strip()
        ]
        wanted = context is not None and not self._context.suppressed(scope)
        draft = Draft(scope, question, produced, [t.schema() for t in tools],
                      self.runtime_context(data, context or ()) if wanted else [])
        if listeners:
            draft = self._waterfall.run(draft, listeners, self.inherited(scope))
            draft.sections = _complete_rule(sorted(draft.sections, key=lambda s: s.order), scope)
        if not wanted:
            draft.context = []  # listener additions go too: the switch is the last word
        return self._finish(draft, given)

    def _finish(self, draft: Draft, given: dict[str, str]) -> AssembledPrompt:
        """Fill the variables of the sections that take them (strictly) and drop what ends up empty."""
        scope = draft.scope
        used: dict[str, str] = {}

        def lookup(name: str) -> str | None:
            if name in given:
                used[name] = given[name]
            if name not in used:
                provider = self._variable(name, scope)
                value = provider() if provider else None
                if value is None:
                    return None
                used[name] = str(value)
            return used[name]

        def known(name: str) -> bool:
            return name in given or self._variable(name, scope) is not None

        rendered: list[RenderedSection] = []
        for section in draft.sections:
            text = section.text
            if section.variables:
                try:
                    text = render(text, lookup, known, section.name)
                except PromptRenderError as exc:
                    raise PromptRegistryError(str(exc)) from None
            if text.strip():
                rendered.append(RenderedSection(section.name, section.order, text.strip("\n")))
        return AssembledPrompt(sections=rendered, tools=draft.tools, variables=used, context=draft.context)


_K = TypeVar("_K")
_S = TypeVar("_S", Section, DraftSection)


def _discard(entries: dict[_K, Any], key: _K, value: object) -> None:
    """Undo one registration: only the entry it made, not one that replaced it since."""
    if entries.get(key) is value:
        del entries[key]



def _complete_rule(sections: list[_S], scope: str) -> list[_S]:
    """At most one effective complete section, which is then the whole prompt."""
    complete = [s for s in sections if s.complete]
    if len(complete) > 1:
        names = ", ".join(s.name for s in complete)
        raise PromptRegistryError(f"more than one complete section for scope '{scope}': {names}.")
    return complete or sections

