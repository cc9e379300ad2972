"""The lines under an answer: the claims and how they stand, then `sources: 3 verified, 1 unverified: ...`.

Shared by the REPL (under the answer, problems in the warning style) and `astro run` (on stderr in
text mode), from the CitationsChecked event's lists:

    claims: 1 supported, 1 unsupported, 1 unverified, 1 uncited, 1 not read
      ✗ "Their Bond albedos are below 0.25" — 0.25 is not in the passage [1001.0012:p8:c40]: "We find that ..."
      ? unverified: "Rybicki & Press showed how ..." — could not be confirmed: ... [1703.09710:p3:c7]
      ? uncited: "The Bond albedo of every hot Jupiter is exactly 0.42 ..."
      ? not read: "WASP-12b is dark" [1011.0428:p3:c9]
    sources: 1 verified
"""

from __future__ import annotations

from typing import Any

from astro_cli.citations.check import STATUSES
from astro_cli.citations.grounding import CLAIM_STATUSES

NO_EVIDENCE = "no evidence retrieved"
SHOWN_CLAIMS = 6
QUOTE = 110
PASSAGE = 160


def label(citation: dict[str, Any]) -> str:
    if citation.get("kind") == "arxiv":
        return f"arXiv:{citation['id']}" + (f"v{citation['version']}" if citation.get("version") else "")
    return str(citation.get("id"))


def footer_parts(citations: list[dict[str, Any]]) -> tuple[str, list[str]] | None:
    """('sources: 3 verified, 1 unverified', [labels of the unverified]); None when nothing was cited.

    Papers are counted, not citations: one paper cited as arXiv:1111.2011 and as Murray et al. (2012)
    is `1 verified (arXiv:1111.2011 = Murray et al. 2012)`."""
    if not citations:
        return None
    papers: dict[tuple[str, str], list[str]] = {}  # (status, paper) -> the forms it was cited in
    for citation in citations:
        key = (str(citation.get("status")), str(citation.get("paper") or label(citation)))
        forms = papers.setdefault(key, [])
        if label(citation) not in forms:
            forms.append(label(citation))
    parts = []
    for status in STATUSES:
        mine = [forms for (state, _paper), forms in papers.items() if state == status]
        if mine:
            several = "; ".join(" = ".join(forms) for forms in mine if len(forms) > 1)
            parts.append(f"{len(mine)} {status}" + (f" ({several})" if several else ""))
    head = "sources: " + ", ".join(parts)
    return head + update_marks(citations), [label(c) for c in citations
                                            if c.get("status") in ("unverified", "malformed")]


def update_marks(citations: list[dict[str, Any]]) -> str:
    """' · 10.5555/12345678 retracted 2009': the cited papers Crossref marks retracted or corrected (issue 30)."""
    marked = [f"{label(c)} {c['mark']}" for c in citations if c.get("mark")]
    return "".join(f" · {text}" for text in marked)


def claims_head(claims: list[dict[str, Any]], evidence_read: bool) -> str | None:
    """`claims: 2 supported, 1 uncited` (and `no evidence retrieved` when no passage was read)."""
    if not claims:
        return None
    counts = [(s, sum(1 for c in claims if c.get("status") == s)) for s in CLAIM_STATUSES]
    head = "claims: " + ", ".join(f"{n} {s.replace('_', ' ')}" for s, n in counts if n)
    return head + (f" · {NO_EVIDENCE}" if not evidence_read else "")


def _short(text: str | None, limit: int) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


def claim_lines(claims: list[dict[str, Any]]) -> list[str]:
    """One line per claim that is not supported (at most SHOWN_CLAIMS, then a count); /evidence has all."""
    flagged = [c for c in claims if c.get("status") != "supported"]
    lines = []
    for claim in flagged[:SHOWN_CLAIMS]:
        quoted = f'"{_short(claim.get("claim"), QUOTE)}"'
        handle = f" [{claim['handle']}]" if claim.get("handle") else ""
        if claim["status"] == "unsupported":
            passage = f': "{_short(claim.get("passage"), PASSAGE)}"' if claim.get("passage") else ""
            lines.append(f"✗ {quoted} — {claim.get('reason') or 'not in the passage'}{handle}{passage}")
        elif claim["status"] == "unverified":
            lines.append(f"? unverified: {quoted} — {claim.get('reason') or 'could not be confirmed'}{handle}")
        elif claim["status"] == "uncited":
            lines.append(f"? uncited: {quoted}")
        else:
            lines.append(f"? not read: {quoted}{handle}")
    if len(flagged) > SHOWN_CLAIMS:
        lines.append(f"… {len(flagged) - SHOWN_CLAIMS} more (/evidence lists every claim)")
    return lines
