"""get_paper_content's work: a paper's indexed text by section or pages, cut to a budget.

The chunks of a paper are contiguous and in order, so a section is rebuilt exactly from them; each
chunk is its own frame with the handle the model cites it by (`1001.0012:p5:c12`).
Whatever does not fit the budget is named (which sections, which pages, how many characters),
so the model can ask for the rest instead of guessing it was the whole paper.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from astro_cli.prompt.tags import escape_tags
from astro_cli.research.records import Passage, passage_handle
from astro_cli.research.textblock import frame

if TYPE_CHECKING:
    from astro_cli.research.library.papers import LibraryCore
    from astro_cli.research.records import Chunk, Paper


class ContentError(Exception):
    """A request the library cannot answer; one sentence."""


@dataclass
class Content:
    text: str
    paper: Paper
    shown_chars: int
    left_chars: int
    sections: list[str] = field(default_factory=list)
    passages: list[Passage] = field(default_factory=list)  # what each frame showed, under its handle


def parse_pages(spec: str | int | list[int]) -> set[int]:
    """'3', '2-4', '1,3,5-6' or [1, 2] to a set of page numbers."""
    if isinstance(spec, int):
        return {spec}
    if isinstance(spec, list):
        return {int(p) for p in spec}
    pages: set[int] = set()
    for part in str(spec).replace(" ", "").split(","):
        if not part:
            continue
        match = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not match:
            raise ContentError(f"'{spec}' is not a page list; use forms like 3, 2-4 or 1,3,5-6.")
        first, last = int(match.group(1)), int(match.group(2) or match.group(1))
        if last < first or last - first > 500:
            raise ContentError(f"'{part}' is not a usable page range.")
        pages.update(range(first, last + 1))
    return pages


def section_matches(name: str | None, wanted: str) -> bool:
    """'2' matches '2 Methods' and '2.1 Data'; 'intro' matches '1 Introduction'."""
    if not name:
        return False
    name_l, wanted_l = name.lower(), wanted.strip().lower().rstrip(".")
    if re.fullmatch(r"[0-9ivxa-h]+(\.[0-9a-h]+)*", wanted_l):
        number = name_l.split(" ", 1)[0].rstrip(".")
        return number == wanted_l or number.startswith(wanted_l + ".")
    return wanted_l in name_l


def _outline(library: LibraryCore, paper: Paper) -> str:
    from astro_cli.research.library.parse import stored_outline

    return "; ".join(dict.fromkeys(name for name, _page in stored_outline(library, paper)))


def _heading_number(library: LibraryCore, paper: Paper, wanted: str) -> str | None:
    """The number of an outline heading matched by name that has no text of its own ('2 Parameterizing
    the Energy Budget'), so asking for it by name returns its subsections."""
    from astro_cli.research.library.parse import stored_outline

    for name, _page in stored_outline(library, paper):
        number = name.split(" ", 1)[0].rstrip(".")
        if section_matches(name, wanted) and re.fullmatch(r"[0-9IVXA-H]+(\.[0-9A-H]+)*", number):
            return number
    return None


def _in_section(library: LibraryCore, paper: Paper, rows: list[Chunk], section: str) -> list[Chunk]:
    """The chunks of `rows` in `section`, by number or name (a heading with no text of its own: its subsections)."""
    matched = [r for r in rows if section_matches(r.section, section)]
    number = None if matched else _heading_number(library, paper, section)
    return [r for r in rows if section_matches(r.section, number)] if number else matched


def paper_content(library: LibraryCore, paper: Paper, section: str | None = None,
                  pages: str | int | list[int] | None = None, budget: int | None = None) -> Content:
    rows = library.store.chunks_of(paper.id)
    chosen = rows
    what = "the whole paper"
    if pages is not None and pages not in ("", []):
        if not any(r.page for r in rows):
            raise ContentError(
                f"paper {paper.id} was indexed from its LaTeX source, which has no page numbers; "
                f"ask by section instead ({_outline(library, paper)})."
            )
        wanted = parse_pages(pages)
        chosen = [r for r in chosen if r.page in wanted]
        what = f"pages {pages}"
        if not chosen:
            last = max(r.page or 0 for r in rows)
            raise ContentError(f"paper {paper.id} has no text on pages {pages} (it has {last} pages).")
    if section:
        matched = _in_section(library, paper, chosen, section)
        what = f"section {section}" + (f", {what}" if pages else "")
        if not matched and chosen is not rows:
            # The section is elsewhere than the pages asked for (a small model guesses both: stop 51, section
            # '3' on page 3 was refused as no section matching '3'): the section, saying where it is.
            matched = _in_section(library, paper, rows, section)
            where = sorted({r.page for r in matched if r.page})
            what = f"section {section} (not on pages {pages}; it is on pages {where[0]}-{where[-1]})" if where else what
        chosen = matched
        if not chosen:
            raise ContentError(f"paper {paper.id} has no section matching '{section}'; its sections are: "
                               f"{_outline(library, paper)}.")
    budget = budget or library.settings.typed["library.content_budget_chars"]
    blocks: list[str] = []
    passages: list[Passage] = []
    ref = paper.ref()
    used = 0
    for n, row in enumerate(chosen):  # one frame per chunk: each has its own handle to cite
        text = row.text
        room = budget - used
        if room <= 200 and n > 0:
            break
        cut = text if len(text) <= room else text[:room].rsplit(" ", 1)[0]
        handle = passage_handle(paper.id, row.ord, row.page, row.section)
        blocks.append(frame(cut, paper.id, row.section, row.page, handle=handle))
        passages.append(Passage(handle, ref, cut, row.page, row.section))
        used += len(cut)
        if cut is not text:
            break
    total = sum(len(r.text) for r in chosen)
    left = max(0, total - used)
    title = f' "{paper.title}"' if paper.title else ""
    header = escape_tags(f"Paper {paper.id}{title}, {what}:")
    parts = [header, *blocks]
    if left > 0:
        parts.append(escape_tags(_left_note(chosen, used, left, budget)))
    sections = list(dict.fromkeys(r.section for r in chosen if r.section))
    return Content("\n\n".join(parts), paper, used, left, sections, passages)


def _left_note(rows: list[Chunk], used: int, left: int, budget: int) -> str:
    """Which sections and pages did not fit, so the model can ask for them by name."""
    seen, rest = 0, []
    for row in rows:
        seen += len(row.text)
        if seen > used:
            rest.append(row)
    sections = list(dict.fromkeys(r.section for r in rest if r.section))
    pages = sorted({r.page for r in rest if r.page})
    where = f"sections {'; '.join(sections)}" if sections else "the rest"
    if pages:
        where += f" (pages {pages[0]}-{pages[-1]})" if len(pages) > 1 else f" (page {pages[0]})"
    return (f"[cut at the budget of {budget} characters: {left} more characters were left out, in {where}; "
            "ask get_paper_content for a section or pages to read on]")
