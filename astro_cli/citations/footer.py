"""The line under an answer: `sources: 3 verified, 1 unverified: 2019ApJ...999..123Z`.

Shared by the REPL (under the answer, the unverified ids in the warning style) and `astro run`
(on stderr in text mode), from the CitationsChecked event's list.
"""

from __future__ import annotations

from typing import Any

from astro_cli.citations.check import STATUSES


def label(citation: dict[str, Any]) -> str:
    return f"arXiv:{citation['id']}" if citation.get("kind") == "arxiv" else str(citation.get("id"))


def footer_parts(citations: list[dict[str, Any]]) -> tuple[str, list[str]] | None:
    """('sources: 3 verified, 1 unverified', [labels of the unverified]); None when nothing was cited."""
    if not citations:
        return None
    counts = [(status, sum(1 for c in citations if c.get("status") == status)) for status in STATUSES]
    head = "sources: " + ", ".join(f"{count} {status}" for status, count in counts if count)
    return head + update_marks(citations), [label(c) for c in citations if c.get("status") == "unverified"]


def update_marks(citations: list[dict[str, Any]]) -> str:
    """' · 10.5555/12345678 retracted 2009': the cited papers Crossref marks retracted or corrected (issue 30)."""
    marked = [f"{label(c)} {c['mark']}" for c in citations if c.get("mark")]
    return "".join(f" · {text}" for text in marked)
