"""The memory feature: the 'memory' prompt section, the per-turn memory block, the save_memory tool
and the /memory command.

The system prompt carries only a fixed note about project memory (it never changes, so the
provider's prompt cache survives a change of topic). The memories chosen for a message are stored
right after it, as a user message of kind 'memory': later requests resend it unchanged, so the
history stays cacheable, and a turn whose selection equals the last one adds nothing.

save_memory writes only inside <workspace>/memory/ (the slug is validated, so no path can escape)
and everything it writes is versioned, so it runs without asking the user.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from astro_cli.agent.extensions import LoopExtension, loop_extensions
from astro_cli.memory.format import MemoryFileError, MemoryInputError, normalise_slug
from astro_cli.memory.reminder import SECTION, latest_block
from astro_cli.memory.service import MemoryService, sorted_memories
from astro_cli.prompt.registry import ORDER_MEMORY, AssemblyInput
from astro_cli.security.visible import visible
from astro_cli.slash import SlashCommand, SlashContext, slash_commands
from astro_cli.tools.base import ToolError, ToolResult
from astro_cli.tools.context import ToolContext
from astro_cli.tools.typed import as_tool, tool

if TYPE_CHECKING:
    from astro_cli.agent.extensions import TurnView
    from astro_cli.app import AppContext

MEMORY_KIND = "memory"  # the stored kind of the per-turn memory block

SAVE_DESCRIPTION = (
    "Remember a preference, rule or fact for every later session (project memory). Use it for the "
    "researcher's preferences (e.g. 'we use Vega magnitudes'), feedback on your work, facts about the project "
    "and useful references; research findings go in save_note. Saving an existing slug updates it and keeps the old text as a version; "
    "'replaces' retires another memory in favour of this one. Writes only inside memory/ of the workspace."
)


def memory_service(app: AppContext) -> MemoryService:
    def make() -> MemoryService:
        service = MemoryService.for_app(app)
        app.on_close(service.close)
        return service

    return app.service(MemoryService, make)


class MemoryTurn(LoopExtension):
    """At the start of each turn: freezes 'now' (ages cannot tick mid-turn) and stores the block of
    memories chosen for the researcher's message right after it. Shows warnings about broken memory
    files while the session runs (not only at start-up)."""

    def __init__(self, app: AppContext) -> None:
        self.app = app

    def on_turn_start(self, state: TurnView) -> None:
        service = memory_service(self.app)
        session = state.session
        now = service.clock()
        if service.inject > 0 and self.app.prompt.includes("memory", session.scope):
            block = service.context_block(state.prompt, now)
            if block is not None and block != latest_block(session.messages):
                session.append({"role": "user", "content": block}, kind=MEMORY_KIND)
        self._show_warnings(state)

    def before_request(self, state: TurnView) -> None:
        self._show_warnings(state)

    def on_turn_end(self, state: TurnView) -> None:
        self._show_warnings(state)

    def _show_warnings(self, state: TurnView) -> None:
        from astro_cli.agent.events import Notice

        for text in memory_service(self.app).take_warnings():
            state.session.bus.emit(Notice(level="warning", text=text))


MemoryType = Literal["preference", "feedback", "project", "reference"]  # format.MEMORY_TYPES (tests/tools/test_tool_deps.py holds them equal)


@tool(name="save_memory", read_only=False, key_argument="slug", needs=MemoryService, description=SAVE_DESCRIPTION)
def save_memory(ctx: ToolContext, service: MemoryService, slug: str, type: MemoryType,  # noqa: A002 - the model's name
                description: str, content: str, replaces: str | None = None) -> ToolResult:
    """A slug written otherwise ('Vega_mags') is normalised ('vega-mags') and the result names it; the schema
    does not say so (the small profile's prompt stays under its 2,100 tokens).

    Args:
        slug: Lowercase words joined by hyphens, e.g. 'vega-magnitudes'; an existing slug is updated.
        description: One line: what the memory is (shown in the index).
        content: The memory in Markdown; the first lines matter most.
        replaces: The slug of a memory this one supersedes.
    """
    try:
        used = normalise_slug(slug)
        result = service.store.save(used, type, description, content, replaces and normalise_slug(replaces))
    except (MemoryInputError, MemoryFileError) as exc:
        raise ToolError(f"save_memory: {exc}") from None
    memory = result.memory
    data = {"memory": {"slug": memory.slug, "type": memory.type, "action": result.action,
                       "path": str(memory.path), "archived": str(result.archived) if result.archived else None}}
    renamed = f" The slug {slug!r} was normalised to {used!r}." if used != slug else ""
    return ToolResult(result.message(ctx.workspace_root) + renamed, data=data)


def memory_slash(ctx: SlashContext, text: str) -> None:
    service = memory_service(ctx.app)
    words = text.split()
    action = words[0] if words else "list"
    try:
        if action == "list":
            memories = sorted_memories(service.store.load_all())
            if not memories:
                ctx.console.print("No memories yet. The agent saves them with save_memory; `astro memory add` adds one.")
            for memory in memories:
                line = f"[{memory.type}] {memory.slug}: {memory.description} {memory.mark}".rstrip()
                ctx.console.print(visible(line), markup=False, highlight=False)  # a cloned folder's file
        elif action in ("show", "forget") and len(words) == 2:
            if action == "show":
                shown = service.store.get(words[1])
                if shown is None or shown.path is None:
                    raise MemoryInputError(f"there is no memory '{words[1]}'; /memory lists them.")
                ctx.console.print(visible(shown.path.read_text(encoding="utf-8")), markup=False, highlight=False)
            else:
                moved = service.store.forget(words[1])
                ctx.console.print(visible(f"Forgot '{words[1]}': {len(moved)} file(s) moved to memory/archive/."),
                                  markup=False)
        else:
            ctx.console.print("Usage: /memory [list | show SLUG | forget SLUG]", markup=False)
    except (MemoryInputError, MemoryFileError) as exc:
        ctx.console.print(visible(f"memory: {exc}"), markup=False, highlight=False)


def install(app: AppContext) -> None:
    def section(data: AssemblyInput) -> str | None:
        if data.profile == "small" and not any(tool.name == "save_memory" for tool in data.tools):
            return None  # the small profile without save_memory: the section is about saving memories
        return SECTION if app.settings.typed["memory.inject"] > 0 else None

    app.prompt.add("memory", ORDER_MEMORY, provider=section)
    loop_extensions(app).add(lambda: MemoryTurn(app))
    app.services.provide(MemoryService, lambda: memory_service(app))  # what save_memory declares it needs
    app.tools.register(as_tool(save_memory))
    slash_commands(app).register(SlashCommand(
        name="memory", help="List, show or forget project memories.", handler=memory_slash,
        usage="/memory [list | show SLUG | forget SLUG]",
    ))
