"""The skills feature: the load_skill tool, the 'skills' prompt section, the loop extension
(hot reload, conditional activation, score refresh) and the /skills and /NAME slash commands.

Tier 1 is the prompt section: a <system-reminder> listing model-invocable skills, cached by the
registry so the system prompt stays byte-identical until a skill, the usage order or the
session's activated skills really change. Tier 2 is load_skill (or the user's /NAME): the body,
wrapped in <command-name>, enters the conversation as a tool result (or a user message).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from astro_cli.agent.extensions import LoopExtension, loop_extensions
from astro_cli.globs import matches
from astro_cli.prompt.registry import ORDER_SKILLS, AssemblyInput
from astro_cli.skills.approval import SkillBaseline, pre_approval, refusal_note, take_baseline
from astro_cli.skills.loading import record_use, wrap
from astro_cli.skills.registry import SkillRegistry, get_registry
from astro_cli.skills.state import SkillsState
from astro_cli.skills.watcher import SkillWatcher
from astro_cli.tools.base import ToolError, ToolResult
from astro_cli.tools.context import ToolContext
from astro_cli.tools.typed import as_tool, tool

if TYPE_CHECKING:
    from astro_cli.agent.extensions import SessionView, TurnView
    from astro_cli.app import AppContext
    from astro_cli.skills.skill import Skill

LOAD_SKILL_DESCRIPTION = (
    "Load a skill's full instructions by name, from the skills listed in the prompt. "
    "Call it BEFORE answering when a listed skill matches the request, then follow the instructions it "
    "returns. `arguments` fills the skill's $ARGUMENTS (a topic, a target, a file)."
)


def unknown_skill(app: AppContext, name: str) -> str:
    return no_such_skill(get_registry(app), name)


def no_such_skill(registry: SkillRegistry, name: str) -> str:
    near = registry.nearest(name)
    if near:
        return f"There is no skill named '{name}'. Nearest: {', '.join(near)}."
    known = registry.names()
    listing = ", ".join(known[:15]) + (" ..." if len(known) > 15 else "")
    return f"There is no skill named '{name}'. Skills: {listing or 'none are installed'}."


@dataclass(frozen=True)
class SkillLoads:
    """What load_skill needs, handed in by the install: the registry, how a use is recorded (the
    ranking's store), and why a skill's allowed-tools may not be pre-approved (the trust store)."""

    registry: SkillRegistry
    record_use: Callable[[str, str | None, str], None]
    refusal: Callable[[Skill], str | None]

    @staticmethod
    def of(app: AppContext) -> SkillLoads:
        return SkillLoads(get_registry(app), lambda name, session, source: record_use(app, name, session, source),
                          lambda skill: pre_approval(app, skill, app.services.find(SkillBaseline), by_user=False))


@tool(name="load_skill", key_argument="name", needs=SkillLoads, description=LOAD_SKILL_DESCRIPTION)
def load_skill(ctx: ToolContext, loads: SkillLoads, name: str, arguments: str | None = None) -> ToolResult:
    """Args:
        name: The skill's name, as listed.
        arguments: Optional text for the skill's $ARGUMENTS.
    """
    name = name.strip().lstrip("/")
    if not name:
        raise ToolError("Give the skill's name, as listed in the system prompt.")
    registry = loads.registry
    registry.ensure_loaded()
    skill = registry.get(name)
    if skill is None:
        raise ToolError(no_such_skill(registry, name))
    if skill.disable_model_invocation:
        raise ToolError(
            f"The skill '{name}' can only be loaded by the user (with /{name}); do not load it yourself."
        )
    text = arguments or ""
    if skill.context == "fork":
        from astro_cli.delegation.subagent import run_fork_skill

        forked = run_fork_skill(ctx, skill, text)  # None inside a subagent or teammate: load it inline
        if forked is not None:
            loads.record_use(name, ctx.session_id, "model")
            return forked
    body = skill.render(text)
    loads.record_use(name, ctx.session_id, "model")
    note = ""
    if skill.allowed_tools:
        refused = loads.refusal(skill)
        if refused is None:
            ctx.approve_for_turn(skill.allowed_tools)
        else:
            note = "\n\n" + refusal_note(skill, refused)
    ctx.state(SkillsState).loaded[name] = body
    data = {
        "skill": name,
        "path": str(skill.path),
        "layer": skill.layer,
        "allowed_tools": list(skill.allowed_tools),
        "context": skill.context,
    }
    return ToolResult(wrap(skill, body) + note, data=data, framed=True)


def skills_section(app: AppContext) -> Callable[[AssemblyInput], str | None]:
    def provide(data: AssemblyInput) -> str | None:
        if data.profile == "small" and not any(tool.name == "load_skill" for tool in data.tools):
            return None  # a profile without load_skill (small): a list of skills it cannot load is noise
        registry = get_registry(app)
        registry.ensure_loaded()
        found = data.states.find(SkillsState)
        return registry.reminder(found.active if found is not None else ())

    return provide


class ShownSkillWarnings:
    """The skill warnings already shown in this process: each reaches the terminal once, whatever the session."""

    def __init__(self) -> None:
        self._texts: set[str] = set()

    def first_time(self, text: str) -> bool:
        if text in self._texts:
            return False
        self._texts.add(text)
        return True


class SkillsExtension(LoopExtension):
    """Per session: activation of conditional skills, reloads before requests, scores at turn start."""

    def __init__(self, app: AppContext) -> None:
        self.app = app
        self.registry = get_registry(app)
        self._matched_version = -1

    def on_session_start(self, session: SessionView) -> None:
        self.registry.ensure_loaded()
        take_baseline(self.app)
        start_watcher(self.app)
        session.state(SkillsState)
        self._notify(session)

    def on_path_touched(self, session: SessionView, path: Path) -> None:
        """A tool read, wrote or searched `path`: activate matching skills; a SKILL.md edit reloads."""
        if self.registry.is_skill_file(path):
            self.registry.dirty = True
        session.state(SkillsState).touch(path)
        self._activate(session, [path])

    def _activate(self, session: SessionView, paths: list[Path]) -> None:
        active = session.state(SkillsState).active
        root = self.app.workspace.root
        for skill in self.registry.conditional():
            if skill.name not in active and any(matches(skill.paths, p, root) for p in paths):
                active.add(skill.name)

    def on_turn_start(self, state: TurnView) -> None:
        self._sync(state.session)
        self.registry.refresh_scores()

    def before_request(self, state: TurnView) -> None:
        self._sync(state.session)

    def _sync(self, session: SessionView) -> None:
        watcher = self.app.services.find(SkillWatcher)
        if watcher is not None:
            watcher.flush()
        self.registry.ensure_loaded()
        if self.registry.version != self._matched_version:  # skills appeared: match the files already touched
            self._matched_version = self.registry.version
            self._activate(session, list(session.state(SkillsState).touched))
        self._notify(session)

    def _notify(self, session: SessionView) -> None:
        """Skill warnings reach the terminal once, as notices (the REPL and astro run show them)."""
        from astro_cli.agent import events as ev

        shown = self.app.service(ShownSkillWarnings)
        for text in self.registry.warnings:
            if shown.first_time(text):
                session.bus.emit(ev.Notice(level="warning", text=text))


def start_watcher(app: AppContext) -> None:
    """Start hot reload once per process (long-lived sessions only); stopped when the app closes."""
    if SkillWatcher in app.services or not app.settings.typed["skills.watch"]:
        return
    from astro_cli.skills.registry import skill_layers

    registry = get_registry(app)
    watcher = SkillWatcher([path for _, path in skill_layers(app)], registry.reload)
    try:
        watcher.start()
    except (OSError, RuntimeError) as exc:  # e.g. the system's inotify limits are exhausted
        app.warn(f"skills will not reload on change: the file watcher could not start ({exc}).")
        return
    app.services.put(watcher)
    app.on_close(watcher.stop)


def install(app: AppContext) -> None:
    from astro_cli.skills.slash import install_slash  # the one direction: slash never imports this module

    get_registry(app)  # made now, scanned on first read
    app.services.provide(SkillLoads, lambda: SkillLoads.of(app))  # what load_skill declares it needs
    app.tools.register(as_tool(load_skill))
    app.prompt.add("skills", ORDER_SKILLS, provider=skills_section(app), replace=True)
    loop_extensions(app).add(lambda: SkillsExtension(app))
    install_slash(app)
