"""Passage handles: the short, stable name of a passage astro showed the model, and its reader form.

A handle names a paper, where in it, and which indexed chunk: `1001.0012:p5:c12` (page 5, chunk
12), `1202.3665:s2.1:c4` (a LaTeX source has sections, not pages), `2013PASP..125..306F:abs` (the
abstract a search returned). rag_search, get_paper_content and search_papers put it on each
<paper-text> frame (`handle="..."`); the model cites it in square brackets, `[1001.0012:p5:c12]`;
the reader sees `(Cowan & Agol 2011, p. 5)`, while the JSON result keeps the handle. The chunk
number is the chunk's place in the paper (stable while the paper is not parsed again).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

HANDLE = r"[A-Za-z0-9][\w.&/+-]*?(?::(?:p\d+|s[\w.]+))?:(?:c\d+|abs)"
CITE = re.compile(rf"\[\s*({HANDLE}(?:\s*[;,]\s*{HANDLE})*)\s*\]")
ONE = re.compile(r"(?P<paper>[A-Za-z0-9][\w.&/+-]*?)(?::(?P<where>p\d+|s[\w.]+))?:(?P<chunk>c\d+|abs)")
OPEN, CLOSE = "<paper-text ", "\n</paper-text>"
_SEPARATOR = re.compile(r"\s*[;,]\s*")
ATTR = re.compile(r'(\w+)="([^"]*)"')
_SECTION_NUMBER = re.compile(r"^([0-9]+(?:\.[0-9]+)*|[A-H](?:\.[0-9]+)*)\b")


def passage_handle(paper: str, chunk: int | None, page: int | None = None, section: str | None = None) -> str:
    """`1001.0012:p5:c12`; `1202.3665:s2.1:c4` without a page; `ID:abs` for an abstract (chunk None)."""
    if chunk is None:
        return f"{paper}:abs"
    if page:
        return f"{paper}:p{int(page)}:c{int(chunk)}"
    number = _SECTION_NUMBER.match((section or "").strip())
    return f"{paper}:s{number.group(1)}:c{int(chunk)}" if number else f"{paper}:c{int(chunk)}"


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


@dataclass(frozen=True)
class Passage:
    """A passage a tool showed the model: its handle, paper, page or section, and its text."""

    handle: str
    paper: str
    text: str
    page: int | None = None
    section: str | None = None


def passages_in(content: str) -> list[Passage]:
    """The framed passages with a handle in a tool result's text (astro escapes frames in anything
    else it shows, so a file or a paper cannot forge one)."""
    if 'handle="' not in content:
        return []
    out: list[Passage] = []
    start = content.find(OPEN)
    while start >= 0:  # str.find, not one regex over the text: linear even when a frame is never closed
        head_end = content.find(">\n", start)
        end = content.find(CLOSE, head_end) if head_end >= 0 else -1
        if end < 0:
            break
        attrs = {k: html.unescape(v) for k, v in ATTR.findall(content[start + len(OPEN):head_end])}
        handle = attrs.get("handle")
        if handle and key_of(handle) is not None:
            page = attrs.get("page")
            out.append(Passage(handle, attrs.get("source", ""), html.unescape(content[head_end + 2:end]),
                               int(page) if page and page.isdigit() else None, attrs.get("section")))
        start = content.find(OPEN, end)
    return out


# --- the reader's form ----------------------------------------------------------------------------
def short_cite(record: dict[str, Any] | None, fallback: str) -> str:
    """`Cowan & Agol 2011`, `Foreman-Mackey et al. 2013`; the paper id when authors or year are unknown."""
    from astro_cli.research.bibtex.text import surname

    record = record or {}
    authors = [str(a) for a in record.get("authors") or [] if a]
    year = record.get("pub_year") or record.get("year")
    if not authors or not year:
        return fallback
    names = [surname(a) or a for a in authors[:2]]
    many = len(authors) > 2 or int(record.get("n_authors") or 0) > 2
    who = f"{names[0]} et al." if many else " & ".join(names)
    return f"{who} {year}"


def where_label(handle: str) -> str:
    match = ONE.fullmatch(handle.strip())
    where = (match.group("where") or "") if match else ""
    if where.startswith("p"):
        return f", p. {where[1:]}"
    if where.startswith("s"):
        return f", §{where[1:]}"
    return ", abstract" if match and match.group("chunk") == "abs" else ""


def render_for_reader(text: str, records: dict[str, dict[str, Any]]) -> str:
    """The answer with each `[handle]` as `(Cowan & Agol 2011, p. 5)`; `records` maps paper ids
    (lower case) to what is known of them. Text without handles is returned unchanged."""
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
            labels.append(short_cite(records.get(paper), handle.split(":")[0]) + where_label(handle))
        parts += [text[last:cite.start], "(" + "; ".join(dict.fromkeys(labels)) + ")"]
        last = cite.end
    parts.append(text[last:])
    return "".join(parts)


def records_by_paper(sources: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Tool sources keyed by every id they go by (lower case), for render_for_reader."""
    out: dict[str, dict[str, Any]] = {}
    for source in sources:
        for key in ("id", "arxiv_id", "bibcode", "doi"):
            if source.get(key):
                out.setdefault(str(source[key]).lower(), source)
    return out
