"""The one-shot printer for `astro run`: answer on stdout, progress and tool lines on stderr.

text: rendered Markdown on a terminal, plain text when piped. json: one result object at the end.
stream-json: Claude Code's messages, one per line as they happen (ui/claude_stream.py), ending with
the result object. astro-events: astro's own events (agent/events.py and the features'), one per
line, ending with the same result object. Field names as in Claude Code's headless mode.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

from rich.text import Text

from astro_cli.agent import events as ev
from astro_cli.agent.retry import retry_line
from astro_cli.citations.events import CitationsChecked
from astro_cli.compact.events import Compacted
from astro_cli.security.redact_stream import StreamRedactor
from astro_cli.security.visible import one_line, visible

if TYPE_CHECKING:
    from rich.status import Status

    from astro_cli.agent.loop import AgentSession
    from astro_cli.agent.turn_state import TurnState
    from astro_cli.security.secrets import Redactor


# The result's fields as in Claude Code's headless mode (`claude -p --output-format json`), so scripts
# written for it work; astro's earlier names stay as aliases for one release (docs/worker.md... README).
ALIASES = {"answer": "result", "num_steps": "num_turns", "cost_usd": "total_cost_usd"}
STARTING = "starting…"
STARTING_AFTER = 0.3  # seconds of blank screen before "starting…" shows (a cold start takes 6-10 s)
SUBTYPES = {"answered": "success", "max_tokens": "success", "max_steps": "error_max_turns",
            "max_budget": "error_max_budget_usd"}
# Claude Code's stop_reason (the API's) where astro's has one; astro's own otherwise (max_steps,
# interrupted, provider_error, config_error, paused: the exit codes say the same).
STOP_REASONS = {"answered": "end_turn"}
JSON_FORMATS = ("json", "stream-json", "astro-events")


def significant(value: float | None, digits: int = 6) -> float | None:
    """0.0007894499999999999 -> 0.00078945: a cost with no floating-point noise."""
    return None if value is None else float(f"{value:.{digits}g}")


def result_object(state: TurnState, exit_code: int | None = None,
                  denials: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The one JSON result of `astro run --output-format json|stream-json|astro-events`: every field is
    added here. `denials`: the calls refused for want of permission ({tool_name, tool_use_id, tool_input})."""
    import uuid

    usage = state.usage
    answered = state.stop_reason in ("answered", "max_tokens")
    result: dict[str, Any] = {
        "type": "result",
        "subtype": SUBTYPES.get(state.stop_reason, "error_during_execution"),
        "is_error": not answered,
        "result": state.answer,
        "stop_reason": STOP_REASONS.get(state.stop_reason, state.stop_reason),
        "error": state.error,
        "errors": [state.error] if state.error and not answered else [],
        "session_id": state.session.session_id,
        "num_turns": state.step,
        "duration_ms": round(state.duration * 1000),
        "duration_api_ms": round(state.api_duration * 1000),
        "tool_calls": list(state.tool_log),
        "usage": {
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cache_read_input_tokens": usage.cache_read_input_tokens,
            "cache_creation_input_tokens": usage.cache_creation_input_tokens,
        },
        "total_cost_usd": significant(usage.cost_usd),
        "permission_denials": list(denials or []),
        "uuid": str(uuid.uuid4()),
    }
    if exit_code is not None:
        result["exit_code"] = exit_code
    return with_aliases(result)


def error_object(message: str, exit_code: int) -> dict[str, Any]:
    """The result when the run failed before a turn could start (a bad setting, no model, a busy session)."""
    return with_aliases({
        "type": "result", "subtype": "error_during_execution", "is_error": True, "result": None,
        "stop_reason": "config_error" if exit_code == 2 else "error", "error": message, "errors": [message],
        "exit_code": exit_code,
        "session_id": None, "num_turns": 0, "duration_ms": 0, "duration_api_ms": 0, "tool_calls": [],
        "usage": {"input_tokens": 0, "output_tokens": 0, "cache_read_input_tokens": 0,
                  "cache_creation_input_tokens": 0},
        "total_cost_usd": 0.0, "permission_denials": [],
    })


def with_aliases(result: dict[str, Any]) -> dict[str, Any]:
    return {**result, **{old: result[new] for old, new in ALIASES.items() if new in result}}


class OneShotPrinter:
    def __init__(self, output_format: str = "text") -> None:
        from rich.console import Console

        self.format = output_format
        self.err = Console(stderr=True, highlight=False, soft_wrap=True)
        self.out_is_tty = sys.stdout.isatty()
        self._status: Status | None = None  # a transient spinner on stderr while the model works (terminals only)
        self._label: str | None = None
        self.citations: CitationsChecked | None = None  # the final answer's checked citations
        self.sources: list[dict[str, Any]] = []  # what the tools returned (authors, year: the reader's cites)
        import threading

        self._lock = threading.Lock()  # the "starting…" timer's thread and the run's share the spinner
        self._timer: threading.Timer | None = None
        self._began = False
        self.inline_images = "auto"  # config plots.inline, set once the settings are read (run_cmd.py)
        self._figures: dict[str, list[ev.FigureSaved]] = {}  # by tool call: shown under its tool line
        # What stdout carries is redacted as what is stored is: the answer, the result object, every
        # stream-json event (text deltas through a StreamRedactor, so a key split over two is caught).
        self._redactor: Redactor | None = None
        self._stream: StreamRedactor | None = None
        from astro_cli.ui.claude_stream import ClaudeStream

        # Claude Code's messages (written for stream-json only); its permission denials go in every result.
        self.claude = ClaudeStream(self._write_json if output_format == "stream-json" else None)

    @property
    def redactor(self) -> Redactor | None:
        return self._redactor

    @redactor.setter
    def redactor(self, redactor: Redactor) -> None:
        """Set once the settings are read (run_cmd.py): the app's redactor, with every known secret."""
        self._redactor = redactor
        self._stream = StreamRedactor(redactor.redact)

    def _redact(self, text: str) -> str:
        return self._redactor.redact(text) if self._redactor is not None else text

    def opened(self, session: AgentSession) -> None:
        """The session is open, its turn about to start: stream-json's `system` init message."""
        self.claude.opened(session)

    def starting(self, after: float = STARTING_AFTER) -> None:
        """On a terminal: "starting…" if nothing has shown after `after` seconds (the first run after a
        boot or an upgrade imports litellm for seconds). Only what shows replaces it: an event that
        prints nothing (the turn starting) leaves the timer running."""
        if not self.err.is_terminal or self.format != "text":
            return
        import threading

        def show() -> None:
            with self._lock:
                if self._label is None and not self._began:
                    self._spin_locked(STARTING)

        self._timer = threading.Timer(after, show)
        self._timer.daemon = True
        self._timer.start()

    def _spin(self, label: str | None) -> None:
        """A spinner with `label`; None stops the one running, unless nothing has shown yet (then an
        event that prints nothing keeps "starting…", or its timer, as it is)."""
        with self._lock:
            if label is None and not self._began:
                return
            self._shown_locked()
            self._spin_locked(label)

    def _stop(self) -> None:
        """Something is about to print, or the run ended: no timer, no spinner."""
        with self._lock:
            self._shown_locked()
            self._spin_locked(None)

    def _shown_locked(self) -> None:
        self._began = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _spin_locked(self, label: str | None) -> None:
        if label == self._label:
            return
        self._label = label
        if self._status is not None:
            self._status.stop()
            self._status = None
        if label and self.err.is_terminal:
            status = self.err.status(label, spinner="dots")
            status.start()
            self._status = status

    def handle(self, event: ev.Event) -> None:
        if isinstance(event, CitationsChecked):
            self.citations = event
        elif isinstance(event, ev.ToolFinished) and event.data:
            self.sources += [s for s in event.data.get("sources") or [] if isinstance(s, dict)]
        self.claude.handle(event)
        if self.format == "astro-events":
            self._stream_json(event)
            return
        if self.format == "stream-json" and not isinstance(event, (ev.Notice, ev.Retry)):
            return  # Claude Code's messages on stdout; warnings and retries, which have none, on stderr
        if isinstance(event, (ev.Thinking, ev.TextDelta)):
            self._spin("thinking…" if isinstance(event, ev.Thinking) else "writing…")
            return
        if isinstance(event, ev.PromptProgress):
            self._spin(event.label())
            return
        self._spin(None)
        # Everything shown comes from the model, tools or files: plain Text (no markup), escapes visible.
        if isinstance(event, ev.ToolStarted):
            key = f" {event.key_argument}" if event.key_argument else ""
            self._line(("→ " + visible(event.name + key, tabs=True), "dim"))
            self._spin(f"{event.name} running…")
        elif isinstance(event, ev.ToolFinished):
            mark = ("ok", "green") if event.ok else ("error", "red")
            # A refusal is shown whole (it says which --allow to give); other errors by their first line.
            limit = 1000 if (event.data or {}).get("refused") else 120
            detail = "" if event.ok or not event.content else " " + one_line(event.content.splitlines()[0], limit)
            self._line((f"  {one_line(event.name, 80)} {event.duration:.1f}s ", "dim"), mark, (detail, "dim"))
            self._show_figures(self._figures.pop(event.call_id, []))
        elif isinstance(event, ev.FigureSaved):
            self._figures.setdefault(event.call_id, []).append(event)
        elif isinstance(event, ev.Retry):
            line = retry_line(event.attempt, event.max_attempts, event.delay, visible(event.error), event.rate_limited)
            self._line((line, "yellow"))
        elif isinstance(event, ev.Nudge):
            # Whole, as docs/citations.md shows it: the claim check's list of claims is the point of it.
            self._line((f"{event.kind}: {visible(event.text)}", "dim"))
        elif isinstance(event, ev.Notice):
            self._line((f"{event.level}: ", "yellow"), visible(event.text))
        elif isinstance(event, Compacted):
            self._line((f"context compacted ({event.layer}): {event.messages_before} → {event.messages_after} "
                        "messages", "dim"))

    def _show_figures(self, figures: list[ev.FigureSaved]) -> None:
        """Each figure's path under its tool line, and the image itself when stderr is a terminal that can."""
        if not figures:
            return
        from astro_cli.ui.terminal_images import FigureDisplay, figure_caption

        display = FigureDisplay(self.err.file, self.inline_images)
        for figure in figures:
            self._line(("  " + visible(figure_caption(figure)), "dim"))
            display.show(figure.absolute, self.err.width)

    def failed(self, message: str, exit_code: int) -> None:
        """A run that ended before its turn: json and stream-json still end with one result object."""
        self._stop()
        if self.format in JSON_FORMATS:
            self._write_json(error_object(message, exit_code))

    def note(self, text: str) -> None:
        """A dimmed line on stderr (text and json: stdout keeps the answer or the result alone)."""
        if self.format in ("text", "json"):
            self._line((visible(text), "dim"))

    def _line(self, *parts: str | tuple[str, str]) -> None:
        """One stderr line (tool lines, notices, errors), redacted: a tool's arguments are the model's text."""
        from rich.text import Text

        self._stop()
        self.err.print(Text.assemble(*(self._redact(part) if isinstance(part, str) else (self._redact(part[0]), part[1])
                                       for part in parts)))

    def finish(self, state: TurnState, exit_code: int | None = None) -> None:
        self._stop()
        if self.format in JSON_FORMATS:
            self._flush_stream()
            result = result_object(state, exit_code, self.claude.denials)
            result["citations"] = self.citations.citations if self.citations else []
            result["claims"] = self.citations.claims if self.citations else []
            if self.citations and not self.citations.evidence_read and self.citations.claims:
                result["evidence"] = "no evidence retrieved"
            self._write_json(result)
            return
        if state.answer:
            answer = self._redact(self._for_reader(state.answer))
            if self.out_is_tty:
                from rich.console import Console
                from rich.markdown import Markdown

                Console().print(Markdown(visible(answer)))
            else:
                sys.stdout.write(answer.rstrip("\n") + "\n")
                sys.stdout.flush()
        self._citation_footer()
        if state.stop_reason == "config_error":
            self._line(("error: ", "bold red"), visible(state.error or ""))
        elif state.stop_reason == "provider_error":
            self._line(("error: ", "bold red"), "the model provider failed: " + visible(state.error or ""))
        elif state.stop_reason in ("max_steps", "max_budget"):
            self.err.print(Text.assemble(("error: ", "bold red"), visible(state.error or "the step budget ran out.")))
        elif state.stop_reason == "interrupted":
            self.err.print("[yellow]interrupted[/]", markup=True)
        elif state.stop_reason == "paused" and state.error:
            self._line((visible(state.error), "yellow"))

    def _for_reader(self, answer: str) -> str:
        """Passage handles as `(Cowan & Agol 2011, p. 5)`; the JSON result keeps the handles."""
        from astro_cli.citations.handles import records_by_paper, render_for_reader

        return render_for_reader(answer, records_by_paper(self.sources))

    def _citation_footer(self) -> None:
        """The claims, then `sources: 3 verified, 1 unverified: 2019ApJ...999..123Z`, on stderr (stdout
        keeps the answer alone)."""
        from astro_cli.citations.footer import claim_lines, claims_head, footer_parts

        if self.citations is None:
            return
        head = claims_head(self.citations.claims, self.citations.evidence_read)
        if head:
            self._line((head, "dim"))
            for line in claim_lines(self.citations.claims):
                self._line(("  " + visible(line), "yellow"))
        parts = footer_parts(self.citations.citations)
        if parts is None:
            for note in self.citations.notes:
                self._line(("  " + visible(note), "dim"))
            return
        head, unverified = parts
        self._line((head, "dim"), *([(": ", "dim"), (visible(", ".join(unverified)), "yellow")] if unverified else []))
        for note in self.citations.notes:
            self._line(("  " + visible(note), "dim"))

    def _stream_json(self, event: ev.Event) -> None:
        """One event as a JSON line; text deltas pass the stream redactor (held back while a secret could
        still continue, released with the next event)."""
        if isinstance(event, ev.TextDelta) and self._stream is not None:
            text = self._stream.feed(event.text)
            if text:
                self._write_json({**event.to_dict(), "text": text})
            return
        self._flush_stream()
        shown = event.to_dict()
        if isinstance(event, ev.UsageReport):  # as the result's: no floating-point noise
            shown["cost_usd"] = significant(event.cost_usd)
        self._write_json(shown)

    def _flush_stream(self) -> None:
        held = self._stream.flush() if self._stream is not None else ""
        if held:
            self._write_json(ev.TextDelta(text=held).to_dict())

    def _write_json(self, obj: dict[str, Any]) -> None:
        if self._redactor is not None:
            obj = self._redactor.redact_data(obj)
        sys.stdout.write(json.dumps(obj, ensure_ascii=False, default=str) + "\n")
        sys.stdout.flush()
