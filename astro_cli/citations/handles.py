"""Passage handles: the short, stable name of a passage astro showed the model, and its reader form.

A handle names a paper, where in it, and which indexed chunk: `1001.0012:p5:c12` (page 5, chunk
12), `1202.3665:s2.1:c4` (a LaTeX source has sections, not pages), `2013PASP..125..306F:abs` (the
abstract a search returned). Handles are made in research/records.py (`passage_handle`); rag_search,
get_paper_content and search_papers put one on each <paper-text> frame (`handle="..."`) for the model,
and the same passage as a `Passage` record in their result's data (`passages`), which the ledger reads.
The model cites it in square brackets, `[1001.0012:p5:c12]`; the reader sees `(Cowan & Agol 2011, p. 5)`
(from the paper's `PaperRef`, whichever tool showed it), while the JSON result keeps the handle. The
chunk number is the chunk's place in the paper (stable while the paper is not parsed again).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from astro_cli.research.records import PaperRef

HANDLE = r"[A-Za-z0-9][\w.&/+-]*?(?::(?:p\d+|s[\w.]+))?:(?:c\d+|abs)"
CITE = re.compile(rf"\[\s*({HANDLE}(?:\s*[;,]\s*{HANDLE})*)\s*\]")
ONE = re.compile(r"(?P<paper>[A-Za-z0-9][\w.&/+-]*?)(?::(?P<where>p\d+|s[\w.]+))?:(?P<chunk>c\d+|abs)")
_SEPARATOR = re.compile(r"\s*[;,]\s*")


def key_of(handle: str) -> tuple[str, str] | None:
    """(paper, chunk) a handle stands for, lower-cased: `p5` or `s2` do not change which passage it is."""
    match = ONE.fullmatch(handle.strip())
    return (match.group("paper").lower(), match.group("chunk").lower()) if match else None


@dataclass(frozen=True)
class HandleCite:
    """One bracketed citation in an answer: where it stands and the handles in it."""

    start: int
    end: int
    handles: tuple[str, ...]


def find_handle_cites(text: str) -> list[HandleCite]:
    if ":" not in text:
        return []
    return [HandleCite(m.start(), m.end(), tuple(h.strip() for h in _SEPARATOR.split(m.group(1))))
            for m in CITE.finditer(text)]


# --- the reader's form ----------------------------------------------------------------------------
def where_label(handle: str) -> str:
    match = ONE.fullmatch(handle.strip())
    where = (match.group("where") or "") if match else ""
    if where.startswith("p"):
        return f", p. {where[1:]}"
    if where.startswith("s"):
        return f", §{where[1:]}"
    return ", abstract" if match and match.group("chunk") == "abs" else ""


def render_for_reader(text: str, records: Mapping[str, PaperRef]) -> str:
    """The answer with each `[handle]` as `(Cowan & Agol 2011, p. 5)`; `records` maps paper ids
    (lower case) to the papers' references. Text without handles is returned unchanged."""
    cites = find_handle_cites(text)
    if not cites:
        return text
    parts: list[str] = []
    last = 0
    for cite in cites:
        labels = []
        for handle in cite.handles:
            key = key_of(handle)
            paper = key[0] if key else handle
            ref = records.get(paper)
            labels.append((ref.short_cite() if ref else handle.split(":")[0]) + where_label(handle))
        parts += [text[last:cite.start], "(" + "; ".join(dict.fromkeys(labels)) + ")"]
        last = cite.end
    parts.append(text[last:])
    return "".join(parts)


def records_by_paper(sources: Sequence[Mapping[str, Any]]) -> dict[str, PaperRef]:
    """Tool sources (as stored in their results' data) by every id they go by (lower case), for
    render_for_reader; the first that names a paper with authors and year gives its form."""
    out: dict[str, PaperRef] = {}
    for source in sources:
        ref = PaperRef.from_dict(source)
        for name in (ref.id, ref.arxiv_id, ref.bibcode, ref.doi):
            if name and (name.lower() not in out or not out[name.lower()].year):
                out[name.lower()] = ref
    return out
