"""The one message per turn that asks the model to fix its citations and claims.

It names the ids no tool returned (only ids that matched the strict patterns of extract.py) and
quotes, shortened and with astro's tags escaped, every claim without a passage behind it (shorter
quotes when there are many, none left out). If the
model answers again with the same problems, the answer stands and they are reported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from astro_cli.prompt.tags import escape_tags
from astro_cli.security.visible import one_line

if TYPE_CHECKING:
    from astro_cli.citations.check import CheckResult
    from astro_cli.citations.grounding import ClaimCheck, Grounding

IDS_TEXT = (
    "Citation check: {ids} in your answer {verb} not returned by any tool in this session, {verb2} not in the "
    "library{online}. Verify each with your tools (search_papers, download_paper) and keep only what they "
    "confirm, or remove it; then give your whole answer again."
)
CLAIMS_HEAD = "Claim check: {n} claim{s} in your answer {verb} not backed by a passage you read:"
CLAIMS_TAIL = (
    "Cite each literature claim with the [handle] of a passage you read that says it, correct it to what the "
    "passage says, or remove it; if nothing relevant was retrieved, say so instead of answering from memory. "
    "Then give your whole answer again."
)
COMPACT_FROM = 8  # from this many flagged claims on, each is quoted shorter: every one is listed
QUOTE = 140
SHORT_QUOTE = 70


def ids_text(result: CheckResult, looked_online: bool) -> str:
    labels = [c.cited.label for c in result.unverified]
    many = len(labels) > 1
    return IDS_TEXT.format(
        ids=", ".join(labels), verb="were" if many else "was", verb2="are" if many else "is",
        online=" and could not be found online" if looked_online else "",
    )


def _line(check: ClaimCheck, limit: int = QUOTE) -> str:
    quoted = escape_tags(one_line(check.claim.text, limit))
    if check.status == "uncited":
        return f'- "{quoted}" has no citation'
    if check.status == "not_read":
        where = f" [{check.handle}]" if check.handle else " a paper"
        return f'- "{quoted}" cites{where} whose text no tool showed you'
    if check.status == "unverified":
        return f'- "{quoted}" cites [{check.handle}], which may not say it ({check.reason})'
    return f'- "{quoted}" cites [{check.handle}], which does not say it ({check.reason})'


def claims_text(grounding: Grounding) -> str | None:
    flagged = grounding.to_nudge()
    if not flagged:
        return None
    many = len(flagged) > 1
    lines = [CLAIMS_HEAD.format(n=len(flagged), s="s" if many else "", verb="are" if many else "is")]
    limit = SHORT_QUOTE if len(flagged) > COMPACT_FROM else QUOTE
    lines += [_line(c, limit) for c in flagged]  # every one: a claim left out would never be fixed
    lines.append(CLAIMS_TAIL)
    return "\n".join(lines)


def nudge_text(result: CheckResult, grounding: Grounding | None, looked_online: bool) -> str | None:
    parts = [ids_text(result, looked_online)] if result.unverified else []
    claims = claims_text(grounding) if grounding is not None else None
    if claims:
        parts.append(claims)
    return "\n\n".join(parts) or None
