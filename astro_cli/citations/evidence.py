"""`/evidence`: each claim of the last answer beside the passage it was checked against.

The REPL keeps the last turn's claim ledger (TurnLog.claims, from the CitationsChecked event).
Claims and passages come from the model and from papers: shown as plain text, escapes visible. A cited
paper Crossref marks retracted or corrected is named after the claims.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text

from astro_cli.security.visible import one_line

if TYPE_CHECKING:
    from astro_cli.slash import SlashContext

STYLES = {"supported": "green", "unsupported": "red", "unverified": "yellow", "uncited": "yellow", "not_read": "yellow"}


def evidence_lines(claims: list[dict[str, Any]], evidence_read: bool,
                   citations: list[dict[str, Any]] | None = None) -> list[Text]:
    marks = _marks(citations or [])
    if not claims:
        return [Text("no claims in the last answer" + ("" if evidence_read else " · no evidence retrieved"),
                     style="dim"), *marks]
    out: list[Text] = []
    if not evidence_read:
        out.append(Text("no evidence retrieved: no tool showed a passage in this session", style="yellow"))
    for number, claim in enumerate(claims, 1):
        status = str(claim.get("status") or "")
        line = Text(f"{number}. ", style="dim")
        line.append(f"[{status.replace('_', ' ')}] ", style=STYLES.get(status, "dim"))
        line.append(f'"{one_line(str(claim.get("claim") or ""), 500)}"')
        if claim.get("reason") and status != "supported":
            line.append(f" — {one_line(str(claim['reason']), 200)}", style="dim")
        out.append(line)
        if claim.get("passage"):
            where = Text("   ", style="dim")
            where.append(f"[{claim.get('handle')}] ", style="cyan")
            where.append(f'"{one_line(str(claim["passage"]), 600)}"', style="dim")
            if claim.get("decided_by") == "judge":
                where.append(" (decided by the model judge)", style="dim")
            out.append(where)
        elif status == "uncited":
            out.append(Text("   no citation", style="dim"))
        elif claim.get("handle") or claim.get("cites"):
            cited = claim.get("handle") or ", ".join(claim.get("cites") or [])
            out.append(Text(f"   cites {one_line(str(cited), 200)}, whose text was not read in this session", style="dim"))
    return out + marks


def _marks(citations: list[dict[str, Any]]) -> list[Text]:
    """The cited papers Crossref marks retracted or corrected (issue 43: the notice reaches every view)."""
    from astro_cli.citations.footer import label

    return [Text(f"{one_line(label(c), 200)}: {one_line(str(c['mark']), 200)} (Crossref)", style="red")
            for c in citations if c.get("mark")]


def slash_evidence(ctx: SlashContext, args: str) -> None:
    log = ctx.state.get("turn_log")
    for line in evidence_lines(list(getattr(log, "claims", []) or []), bool(getattr(log, "evidence_read", True)),
                               list(getattr(log, "citations", []) or [])):
        ctx.console.print(line)
