"""The REPL's view of a turn: a spinner while the model thinks, the answer streaming as Markdown,
one compact line per tool call, nudges dimmed, and the turn's tokens and cost at the end.

One rich Live region at a time shows what is in flight (spinner or streaming text). It is
transient: when the reply is complete the region is erased and the final form is printed once,
so the scrollback holds clean Markdown (and dumb terminals, where Live cannot redraw, still get
the answer exactly once). Text the model wrote before calling tools is printed dimmed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Console, RenderableType
from rich.live import Live
from rich.markdown import Markdown
from rich.panel import Panel
from rich.spinner import Spinner
from rich.text import Text

from astro_cli.agent import events as ev
from astro_cli.agent.retry import retry_line
from astro_cli.citations.events import CitationsChecked
from astro_cli.compact.events import Compacted, CompactionStarted
from astro_cli.delegation.events import SubagentFinished, SubagentStarted
from astro_cli.security.redact_stream import StreamRedactor
from astro_cli.security.visible import one_line, visible
from astro_cli.tasks.events import TasksUpdated
from astro_cli.ui.turnlog import ToolCallRecord, TurnLog

USAGE_KEYS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


def format_cost(cost: float | None) -> str:
    if cost is None:
        return "cost n/a"
    return f"${cost:.4f}" if cost < 1 else f"${cost:.2f}"


def usage_line(usage: dict[str, Any], label: str = "") -> Text:
    """`1,234 in (cache 800 read, 0 written) · 56 out · $0.0012` (cost n/a when unknown)."""
    parts = [f"{usage['input_tokens']:,} in"]
    read, written = usage["cache_read_input_tokens"], usage["cache_creation_input_tokens"]
    if read or written:
        parts[0] += f" (cache {read:,} read, {written:,} written)"
    parts.append(f"{usage['output_tokens']:,} out")
    parts.append(format_cost(usage["cost_usd"]))
    return Text((label + " " if label else "") + " · ".join(parts), style="dim")


def tool_line(record: ToolCallRecord, width: int) -> Text:
    """`  2 read_file notes.txt · 0.01s · ok` — the error's first sentence when it failed."""
    line = Text("  " if record.agent == "main" else "      ")  # a subagent's calls sit inside its block
    line.append(f"{record.index} ", style="dim")
    if record.agent != "main":
        line.append(f"[{one_line(record.agent, 40)}] ", style="dim")
    line.append(one_line(record.name, 80), style="bold")  # the model's text: it may name no tool of ours
    if record.key_argument:
        line.append(" " + one_line(record.key_argument, max(20, width // 2)), style="cyan")
    if record.duration is not None:
        line.append(f" · {record.duration:.2f}s", style="dim")
    if record.ok:
        line.append(" · ok", style="green")
    elif record.ok is False:
        first = record.content.strip().splitlines()[0] if record.content.strip() else ""
        first = first.removeprefix("Error: ")
        line.append(" · error", style="red")
        if first:
            line.append(": " + one_line(first, max(30, width - len(line.plain) - 4)), style="red dim")
    return line


class TurnRenderer:
    """Turns loop events into terminal output; `settle()` frees the screen for a prompt."""

    def __init__(self, console: Console, log: TurnLog, session_id: Callable[[], str | None],
                 inline_images: str = "auto") -> None:
        self.console = console
        self.inline_images = inline_images  # config plots.inline (ui/terminal_images.py)
        self._figures: dict[str, list[ev.FigureSaved]] = {}  # by tool call: shown under its tool line
        self.log = log
        self.session_id = session_id
        self._live: Live | None = None
        self._showing: RenderableType | None = None
        self._text = ""
        self._tool_spinner = ""
        self.usage: dict[str, Any] = {}
        self._reset_usage()
        self._held: list[ev.Event] | None = None
        # A running subagent: its calls are printed as they end, indented under its header line, and
        # stay in the scrollback in order; its summary line closes the block (docs/repl.md).
        self._subagent: dict[str, Any] | None = None
        self._summarised: set[str] = set()  # subagent calls whose ⤷ line already said how they ended
        # The answer on screen is redacted as the stored one is (the REPL sets the app's redactor); while it
        # streams, a StreamRedactor holds back the tail a secret could still continue.
        self.redact: Callable[[str], str] = str
        self._stream: StreamRedactor | None = None

    # --- the live region ---------------------------------------------------------------------
    def _current(self) -> RenderableType:
        if self._text:
            return Markdown(visible(self._text))
        return self._showing or Text("")

    def _show(self, renderable: RenderableType | None = None) -> None:
        self._showing = renderable
        if self._live is None:
            self._live = Live(
                get_renderable=self._current, console=self.console, transient=True,
                refresh_per_second=10, redirect_stdout=False, redirect_stderr=False,
            )
            self._live.start()

    def settle(self, final: RenderableType | None = None) -> None:
        """Stop the live region (erasing it) and print `final` in its place."""
        live, self._live = self._live, None
        self._showing = None
        if live is not None:
            live.stop()
        if final is not None:
            self.console.print(final)

    def spin(self, label: str) -> None:
        self._show(Spinner("dots", Text(label, style="dim"), style="dim"))

    # --- events ------------------------------------------------------------------------------
    def hold(self) -> None:
        """Queue events (a resumed plan shown while a session opens) until `release()`."""
        self._held = []

    def release(self) -> None:
        held, self._held = self._held or [], None
        for event in held:
            self.handle(event)

    def handle(self, event: ev.Event) -> None:
        if self._held is not None:
            self._held.append(event)
            return
        handler = getattr(self, "_on_" + event.type, None)
        if handler is not None:
            handler(event)

    def _on_turn_started(self, event: ev.TurnStarted) -> None:
        if event.session_id != self.session_id():
            return
        self._text, self._stream = "", None
        self._reset_usage()
        self.log.reset(event.prompt)

    def _on_thinking(self, event: ev.Thinking) -> None:
        self._text, self._stream = "", None
        self.spin("thinking…")

    def _on_prompt_progress(self, event: ev.PromptProgress) -> None:
        self.spin(event.label())

    def _on_text_delta(self, event: ev.TextDelta) -> None:
        if self._stream is None:
            self._stream = StreamRedactor(self.redact)
        self._text += self._stream.feed(event.text)
        self._show()

    def _on_assistant(self, event: ev.AssistantMessage) -> None:
        text = self.redact(event.text.strip())
        self._text, self._stream = "", None
        if event.tool_calls:
            self.settle(Text(visible(text), style="dim") if text else None)
        else:
            self.settle(Markdown(visible(self.redact(self._for_reader(event.text)))) if text else None)

    def _for_reader(self, answer: str) -> str:
        """Passage handles as `(Cowan & Agol 2011, p. 5)` (/evidence shows the handles)."""
        from astro_cli.citations.handles import records_by_paper, render_for_reader

        return render_for_reader(answer, records_by_paper(self.log.sources()))

    def _on_tool_started(self, event: ev.ToolStarted) -> None:
        self.log.handle(event)
        if self._subagent is not None and event.agent != "main":
            self.spin(f"{event.name} {one_line(event.key_argument, 60)} …")
            return
        self._tool_spinner = f"{event.name} {one_line(event.key_argument, 60)}".strip()
        self.spin(self._tool_spinner + " …")

    def _on_download_progress(self, event: Any) -> None:
        """A download in progress (research tools): bytes so far, and the share when the size is known."""
        done = f"{event.done / 1e6:.1f} MB"
        share = f" of {event.total / 1e6:.1f} MB ({100 * event.done / event.total:.0f}%)" if event.total else ""
        self.spin(f"downloading {event.label}: {done}{share}")

    def resume_tool_spinner(self) -> None:
        if self._tool_spinner:
            self.spin(self._tool_spinner + " …")

    def _on_figure_saved(self, event: ev.FigureSaved) -> None:
        self._figures.setdefault(event.call_id, []).append(event)

    def _on_tool_finished(self, event: ev.ToolFinished) -> None:
        self._tool_finished(event)
        figures = self._figures.pop(event.call_id, [])
        if not figures:
            return
        from astro_cli.ui.terminal_images import FigureDisplay, figure_caption

        self.settle()
        display = FigureDisplay(self.console.file, self.inline_images)
        for figure in figures:
            self.console.print(Text("    " + visible(figure_caption(figure)), style="dim"))
            display.show(figure.absolute, self.console.width)
        if self._subagent is not None:
            self.spin(f"{self._subagent['agent']} working…")

    def _tool_finished(self, event: ev.ToolFinished) -> None:
        self.log.handle(event)
        record = next((c for c in reversed(self.log.calls) if c.call_id == event.call_id), None)
        if self._subagent is not None and event.agent != "main":
            self.settle(tool_line(record, self.console.width) if record else None)  # kept, under its header
            self.spin(f"{self._subagent['agent']} working…")
            return
        self._tool_spinner = ""
        if event.call_id in self._summarised:  # a subagent call: its header and ⤷ line are on screen already
            self._summarised.discard(event.call_id)
            self.settle()
            return
        self.settle(tool_line(record, self.console.width) if record else None)

    def _on_nudge(self, event: ev.Nudge) -> None:
        self.settle(Text(f"  ↳ {event.kind}: {one_line(event.text, self.console.width - 12)}", style="dim"))

    def _on_notice(self, event: ev.Notice) -> None:
        style = "red" if event.level == "error" else "yellow"
        self.settle(Text(f"{event.level}: {visible(event.text)}", style=style))

    def _on_retry(self, event: ev.Retry) -> None:
        line = retry_line(event.attempt, event.max_attempts, event.delay, one_line(event.error, 200), event.rate_limited)
        self.settle(Text(line, style="yellow"))
        self.spin("waiting to retry…")

    def _on_compacted(self, event: Compacted) -> None:
        if event.trigger == "manual":  # /compact prints one line for the whole round when it returns
            self.settle()
            return
        self.settle(Text(
            f"  context compacted ({event.layer}): {event.messages_before} → {event.messages_after} messages, "
            f"{event.tokens_before:,} → {event.tokens_after:,} tokens", style="dim",
        ))

    def _on_compaction_started(self, event: CompactionStarted) -> None:
        self.spin(f"compacting the context ({event.layer})…")

    def _on_tasks_updated(self, event: TasksUpdated) -> None:
        self.settle(Panel(Text(visible(event.text)), title="plan", title_align="left", border_style="dim", expand=False))

    def _on_subagent_started(self, event: SubagentStarted) -> None:
        """The block opens with the caller's own call line (its number first, so numbering reads in
        order) and `⤷ NAME: task (up to N steps)`."""
        record = next((c for c in reversed(self.log.calls) if c.call_id == event.call_id), None)
        self.settle(tool_line(record, self.console.width) if record is not None else None)
        task = one_line(event.task, max(20, self.console.width - 40))
        self.console.print(Text(f"    ⤷ {one_line(event.agent, 60)}: {task} (up to {event.max_steps} steps)", style="dim"))
        self._subagent = {"agent": event.agent, "task": event.task}
        if record is not None:
            self._summarised.add(event.call_id)
        self.spin(f"{event.agent} working (up to {event.max_steps} steps)…")

    def _on_subagent_finished(self, event: SubagentFinished) -> None:
        self._subagent = None  # the block ends with one summary line; its lines above stay
        outcome = Text("done", style="green") if event.ok else Text(event.stop_reason, style="red")
        line = Text(f"    ⤷ {event.agent} ", style="dim") + outcome
        line.append(
            f" · {event.steps} steps · {event.duration:.1f}s · {event.input_tokens:,} in / "
            f"{event.output_tokens:,} out", style="dim",
        )
        if event.summary:
            line.append(f" · {one_line(event.summary, 100)}", style="dim")
        self.settle(line)
        self.resume_tool_spinner()

    def _on_citations(self, event: CitationsChecked) -> None:
        """`sources: 3 verified, 1 unverified: 2019ApJ...999..123Z` under the answer, unverified ids in yellow."""
        from astro_cli.citations.footer import claim_lines, claims_head, footer_parts

        self.log.handle(event)
        if event.session_id != self.session_id():
            return
        head = claims_head(event.claims, event.evidence_read)
        if head:
            self.settle(Text(head, style="dim"))
            for claim_line in claim_lines(event.claims):
                self.console.print(Text("  " + one_line(claim_line, 400), style="yellow"))
        parts = footer_parts(event.citations)
        if parts is None:
            return
        head, unverified = parts
        line = Text(head, style="dim")
        if unverified:
            line.append(": ", style="dim")
            line.append(", ".join(unverified), style="yellow")
        self.settle(line)
        for note in event.notes:
            self.console.print(Text(f"  {one_line(note, 300)}", style="dim"))

    def _on_usage(self, event: ev.UsageReport) -> None:
        for key in USAGE_KEYS:
            self.usage[key] += getattr(event, key)
        self.usage["requests"] += 1
        if event.cost_usd is None or self.usage["cost_usd"] is None:
            self.usage["cost_usd"] = None
        else:
            self.usage["cost_usd"] += event.cost_usd

    def _on_turn_finished(self, event: ev.TurnFinished) -> None:
        if event.session_id != self.session_id():
            return
        self._text = ""
        self.settle()
        self.log.finish(event)
        if event.stop_reason == "interrupted":
            kept = "the partial answer is kept" if event.answer.strip() else "the turn is kept, marked interrupted,"
            self.console.print(Text(f"interrupted — {kept} in the session", style="yellow"))
        elif event.stop_reason == "config_error":
            self.console.print(Text(f"error: {visible(event.error or '')}", style="bold red"))
        elif event.stop_reason == "provider_error":
            self.console.print(Text(f"error: the model provider failed: {visible(event.error or '')}", style="bold red"))
        elif event.stop_reason == "max_steps":
            self.console.print(Text(f"error: {visible(event.error or 'the step budget ran out.')}", style="bold red"))
        elif event.stop_reason == "paused" and event.error:
            self.console.print(Text(visible(event.error), style="yellow"))
        if self.usage["requests"]:
            self.console.print(usage_line(self.usage))

    def _reset_usage(self) -> None:
        self.usage = {key: 0 for key in USAGE_KEYS}
        self.usage.update(cost_usd=0.0, requests=0)
