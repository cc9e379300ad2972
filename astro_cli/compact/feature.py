"""The compaction feature: the engine (one per session), the compress_context tool and /compact."""

from __future__ import annotations

from typing import TYPE_CHECKING

from astro_cli.agent.extensions import loop_extensions
from astro_cli.slash import SlashCommand, slash_commands
from astro_cli.tools.context import ToolContext
from astro_cli.tools.typed import as_tool, tool
from astro_cli.transcript_sections import TranscriptSection, transcript_sections

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.slash import SlashContext

COMPRESS_DESCRIPTION = (
    "Free context space by summarizing the conversation so far. Before your next request, earlier "
    "messages are replaced by a structured summary (the request, key findings with their bibcodes and "
    "arXiv ids, papers consulted, decisions, open tasks, the next step); the latest messages, loaded "
    "skills and the task plan stay. Use it when a phase of work is done and its long tool output is no "
    "longer needed. `focus` names what the summary must keep in detail."
)


@tool(name="compress_context", description=COMPRESS_DESCRIPTION, key_argument="focus")
def compress_context(ctx: ToolContext, focus: str | None = None) -> str:
    """Args:
        focus: What the summary must keep in detail (optional).
    """
    return ctx.request_compaction((focus or "").strip() or None)


def compact_slash(ctx: SlashContext, args: str) -> None:
    from astro_cli.compact.engine import find_engine
    from astro_cli.security.visible import markup_safe

    engine = find_engine(ctx.session)
    if ctx.session is None or engine is None:
        ctx.console.print("No conversation to compact yet.")
        return
    ctx.console.print("[dim]Compacting the conversation (one model call)...[/]")
    outcome = engine.compact_now(ctx.session, args.strip() or None)
    style = "yellow" if outcome.error else "green" if outcome.changed else "dim"
    ctx.console.print(f"[{style}]{markup_safe(outcome.describe())}[/]")


def install(app: AppContext) -> None:
    from astro_cli.compact.engine import CompactionEngine
    from astro_cli.compact.records import transcript_section

    loop_extensions(app).add(lambda: CompactionEngine(app))
    app.tools.register(as_tool(compress_context))
    slash_commands(app).register(
        SlashCommand(
            "compact",
            "summarize the conversation so far to free the context (optional: what to keep)",
            compact_slash,
            usage="[instructions]",
        ),
    )
    transcript_sections(app).add(TranscriptSection("Compactions", transcript_section))
