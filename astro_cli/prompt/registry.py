"""The prompt-section registry: named, ordered sections assembled into the system prompt each step.

Sections carry a numeric order and either fixed text or a provider called at each assembly; they
are joined with a blank line in ascending order and an empty section disappears. A section or a
variable registered for one agent scope (a subagent, a teammate) shadows the global one of the
same name for that agent only. At most one effective `complete` section may exist: it is then
the whole prompt.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from astro_cli.agent.states import SessionStates
from astro_cli.config import ConfigError
from astro_cli.prompt.render import PromptRenderError, render

if TYPE_CHECKING:
    from astro_cli.tools.base import Tool

GLOBAL = "global"

# Default bands (000's registry, 003's order).
ORDER_IDENTITY = -100
ORDER_PERSONA = 0
ORDER_TOOLS = 100
ORDER_SKILLS = 200
ORDER_MEMORY = 300
ORDER_SUBAGENTS = 400
ORDER_PRINCIPLES = 900


class PromptRegistryError(ConfigError):
    """A registration or assembly that cannot work; the message says which section or variable."""


@dataclass
class AssemblyInput:
    """What section providers may look at while the prompt is assembled: `states` is the session's
    typed feature state (empty outside a session, e.g. `astro prompt show`)."""

    scope: str
    tools: list[Tool]
    question: str = ""
    states: SessionStates = field(default_factory=SessionStates)


SectionProvider = Callable[[AssemblyInput], "str | None"]
VariableProvider = Callable[[], "str | None"]


@dataclass
class Section:
    name: str
    order: int
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
    order: int
    text: str


@dataclass
class AssembledPrompt:
    """Exactly what the model sees: the system prompt's sections, the tool schemas, the variables used."""

    sections: list[RenderedSection]
    tools: list[dict[str, Any]]
    variables: dict[str, str]

    @property
    def system(self) -> str:
        return "\n\n".join(section.text for section in self.sections)

    def section(self, name: str) -> RenderedSection | None:
        return next((s for s in self.sections if s.name == name), None)


class PromptRegistry:
    def __init__(self) -> None:
        self._sections: dict[tuple[str, str], Section] = {}
        self._variables: dict[tuple[str, str], VariableProvider] = {}

    # --- registration ----------------------------------------------------------------------
    def register_section(self, section: Section, replace: bool = False) -> None:
        key = (section.scope, section.name)
        if key in self._sections and not replace:
            raise PromptRegistryError(
                f"a section named '{section.name}' is already registered in scope '{section.scope}'."
            )
        self._sections[key] = section

    def add(
        self,
        name: str,
        order: int,
        text: str | None = None,
        provider: SectionProvider | None = None,
        scope: str = GLOBAL,
        complete: bool = False,
        replace: bool = False,
        variables: bool | None = None,
    ) -> None:
        self.register_section(Section(name, order, text, provider, scope, complete, variables), replace=replace)

    def remove_section(self, name: str, scope: str = GLOBAL) -> None:
        self._sections.pop((scope, name), None)

    def register_variable(self, name: str, provider: VariableProvider, scope: str = GLOBAL) -> None:
        self._variables[(scope, name)] = provider

    def remove_variable(self, name: str, scope: str = GLOBAL) -> None:
        self._variables.pop((scope, name), None)

    def __len__(self) -> int:
        """Sections and variables registered, in every scope (a finished subagent run leaves none)."""
        return len(self._sections) + len(self._variables)

    # --- lookup ----------------------------------------------------------------------------
    def effective_sections(self, scope: str = GLOBAL) -> list[Section]:
        chosen: dict[str, Section] = {n: s for (sc, n), s in self._sections.items() if sc == GLOBAL}
        if scope != GLOBAL:
            chosen.update({n: s for (sc, n), s in self._sections.items() if sc == scope})
        return sorted(chosen.values(), key=lambda s: (s.order, s.name))

    def includes(self, name: str, scope: str = GLOBAL) -> bool:
        """Does an assembly for `scope` use the section `name` (a complete section replaces all others)?"""
        sections = self.effective_sections(scope)
        complete = [s for s in sections if s.complete]
        return any(s.name == name for s in (complete or sections))

    def _variable(self, name: str, scope: str) -> VariableProvider | None:
        return self._variables.get((scope, name)) or self._variables.get((GLOBAL, name))

    # --- assembly --------------------------------------------------------------------------
    def assemble(
        self,
        tools: list[Tool],
        scope: str = GLOBAL,
        question: str = "",
        states: SessionStates | None = None,
        variables: Mapping[str, str] | None = None,
    ) -> AssembledPrompt:
        """Build the system prompt for `scope` with `tools` (already ordered) as the request's tools.

        `variables` are the caller's own values (a session's model), ahead of the registered providers."""
        given = dict(variables or {})
        sections = self.effective_sections(scope)
        complete = [s for s in sections if s.complete]
        if len(complete) > 1:
            names = ", ".join(s.name for s in complete)
            raise PromptRegistryError(f"more than one complete section for scope '{scope}': {names}.")
        if complete:
            sections = complete
        data = AssemblyInput(scope=scope, tools=tools, question=question, states=states or SessionStates())
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
        for section in sections:
            text = section.produce(data)
            if not text or not text.strip():
                continue
            if section.renders_variables:
                try:
                    text = render(text, lookup, known, section.name)
                except PromptRenderError as exc:
                    raise PromptRegistryError(str(exc)) from None
            rendered.append(RenderedSection(section.name, section.order, text.strip("\n")))
        return AssembledPrompt(sections=rendered, tools=[t.schema() for t in tools], variables=used)
