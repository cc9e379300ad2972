"""The citation check: every identifier in an answer is checked before the turn ends.

A loop extension for the main agent of a session (subagents and teammates answer to it, not to
the researcher). It keeps a CitationLedger of what the tools returned (typed per-session state),
and when the model gives its final answer:

- `review_answer`: with `citations.check: fix`, citations that are neither seen nor found online,
  and claims without a passage behind them (unsupported, uncited, cited but not read), get one
  nudge per turn (a user message naming them, nudge.py); the model fixes them. If it insists,
  the answer stands and they are reported.
- `on_turn_end`: the final answer's citations are stored (`citations` table) and announced as a
  CitationsChecked event: the REPL prints the footer, `astro run` adds them to its result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from astro_cli.agent.extensions import LoopExtension, ToolCallInfo, loop_extensions
from astro_cli.citations.events import CitationsChecked
from astro_cli.citations.ledger import CitationLedger
from astro_cli.slash import slash_commands
from astro_cli.transcript_sections import transcript_sections

if TYPE_CHECKING:
    from astro_cli.agent.extensions import SessionView, TurnView
    from astro_cli.agent.model import Model
    from astro_cli.app import AppContext
    from astro_cli.citations.check import CheckResult
    from astro_cli.citations.grounding import Grounding
    from astro_cli.tools.base import ToolResult

NUDGE_KIND = "citations"
CHECKED_STOPS = ("answered", "max_steps")


class CitationCheck(LoopExtension):
    """Checks the main agent's final answers; one instance per session (extensions are per session)."""

    def __init__(self, app: AppContext) -> None:
        self.app = app
        self.ledger = CitationLedger()
        self.active = False
        self.session_id = ""
        self.nudged = False
        self.llm: Model | None = None
        self.small = False  # the session has the small profile (agent/profiles.py)
        self._checked: tuple[str, CheckResult, Grounding | None] | None = None

    @property
    def mode(self) -> str:
        """`citations.check`; `report` by default under the small profile: a small local model read the
        nudge as a task ("I cannot provide a citation check") and lost the answer it had given."""
        settings = self.app.settings
        if self.small and settings.source("citations.check") == "default":
            return "report"
        return str(settings.typed["citations.check"])

    def on_turn_start(self, state: TurnView) -> None:
        session: SessionView = state.session
        self.small = session.profile == "small"
        self.active = session.agent == "main" and self.mode != "off"
        self.session_id = session.session_id
        self.llm = session.llm
        self.nudged = False
        self._checked = None

    def after_tool(self, state: TurnView, info: ToolCallInfo, result: ToolResult) -> ToolResult | None:
        if self.active and self.ledger.loaded:
            self.ledger.ingest(info.call.name, info.arguments, result.content, result.data, not result.is_error,
                               self.app)
        return None  # results of a session loaded later are read from the store

    def review_answer(self, state: TurnView, answer: str) -> bool:
        if not self.active or self.mode != "fix" or self.nudged or state.force_final:
            return False
        from astro_cli.citations.nudge import nudge_text

        result, grounding = self._check(answer)
        text = nudge_text(result, grounding, self._looked_online(result))
        if text is None:
            return False
        self.nudged = True
        state.inject(text, kind=NUDGE_KIND)
        return True

    def _looked_online(self, result: CheckResult) -> bool:
        """Whether every unverified id was really looked up (ADS for DOIs and journal bibcodes)."""
        from astro_cli.research.sources import ads
        from astro_cli.research.sources.web import Web

        if not self.app.settings.typed["citations.resolve"] or result.notes:
            return False
        return ads.has_token(Web.of(self.app)) or all(c.cited.kind == "arxiv" for c in result.unverified)

    def on_turn_end(self, state: TurnView) -> None:
        if not self.active or state.stop_reason not in CHECKED_STOPS or not state.answer.strip():
            return
        result, grounding = self._check(state.answer)
        from astro_cli.citations.store import CitationStore

        CitationStore(self.app.db).save(self.session_id, state.turn, result, self.nudged)
        state.session.bus.emit(CitationsChecked(
            session_id=self.session_id, turn=state.turn, citations=[c.as_dict() for c in result.citations],
            nudged=self.nudged, notes=result.notes + (grounding.notes() if grounding else []),
            claims=[c.as_dict() for c in grounding.claims] if grounding else [],
            evidence_read=grounding.evidence_read if grounding else True,
        ))

    def _check(self, answer: str) -> tuple[CheckResult, Grounding | None]:
        if self._checked is not None and self._checked[0] == answer:
            return self._checked[1], self._checked[2]
        from astro_cli.citations.check import check_answer

        if not self.ledger.loaded:
            self.ledger.load_session(self.app, self.session_id)  # includes this turn's results so far
            self.ledger.loaded = True
        settings = self.app.settings
        result = check_answer(self.app, self.ledger, answer, bool(settings.typed["citations.resolve"]),
                              float(settings.typed["citations.resolve_timeout"]))
        grounding = self._ground(answer, result)
        self._checked = (answer, result, grounding)
        return result, grounding

    def _ground(self, answer: str, result: CheckResult) -> Grounding | None:
        """The claim ledger (setting `citations.claims`), with the model judge for what the cheap
        check leaves undecided when `citations.judge` is set."""
        if not self.app.settings.typed["citations.claims"]:
            return None
        from astro_cli.citations.grounding import ground

        grounding = ground(self.ledger, answer, result)
        if grounding.undecided() and str(self.app.settings.typed["citations.judge"] or "off") != "off":
            from astro_cli.citations.judge import judge

            note = judge(self.app, grounding, self.llm)
            if note:
                grounding.extra_notes.append(note)
        return grounding


def transcript_section(ctx: AppContext, row: dict[str, Any]) -> str | None:
    """`astro sessions show/export`: each checked answer's citations with their status."""
    from astro_cli.citations.store import CitationStore

    rows = CitationStore(ctx.db).for_session(row["id"])
    if not rows:
        return None
    marks = {"verified": "✅", "resolved": "🌐", "unverified": "⚠️", "malformed": "⚠️"}
    lines = []
    for cited in rows:
        label = f"arXiv:{cited['ident']}" if cited["kind"] == "arxiv" else cited["ident"]
        title = f" — {cited['title']}" if cited.get("title") else ""
        nudged = " (the model was asked once to verify it)" if cited["nudged"] and cited["status"] != "verified" \
            and cited["status"] != "resolved" else ""
        lines.append(f"- turn {cited['turn']}: {marks[cited['status']]} {cited['status']} {label}{title}{nudged}")
    return "\n".join(lines)


def install(app: AppContext) -> None:
    from astro_cli.citations.cite import slash_cite
    from astro_cli.citations.evidence import slash_evidence
    from astro_cli.slash import SlashCommand
    from astro_cli.transcript_sections import TranscriptSection

    loop_extensions(app).add(lambda: CitationCheck(app))
    slash_commands(app).register(SlashCommand("cite", "BibTeX of the papers this session's answers cited (/cite FILE writes "
                                    "it to a file)", slash_cite, usage="/cite [FILE]"))
    slash_commands(app).register(SlashCommand("evidence", "each claim of the last answer beside the passage it was "
                                              "checked against", slash_evidence))
    transcript_sections(app).add(TranscriptSection("Citations", transcript_section))
