"""Reading arXiv's free-text journal references into journal, volume, pages and year.

Authors type `journal_ref` themselves, so it comes in many shapes: "Phys. Rev. B 85, 115117
(2012)", "ActaAstron.56:1-50,2006", "Astrophys. J. 729 (2011) 54", "A&A 642, C1 (2020)",
"MNRAS 488(2), 2892-2903 (2019)". The parser takes the first reference (an erratum may follow
after ';'), finds the year, then the journal name, volume and first page or article id. What it
cannot split is kept whole as the journal, so nothing the author wrote is lost.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

YEAR_IN_PARENS = re.compile(r"\(\s*((?:18|19|20)\d\d)\s*\)")
YEAR_AT_END = re.compile(r"[,\s]\s*((?:18|19|20)\d\d)\s*\.?\s*$")
ANY_YEAR = re.compile(r"(?<!\d)((?:18|19|20)\d\d)(?!\d)")
BODY = re.compile(
    r"""^(?P<journal>.*?[A-Za-z.&)\]])[\s,]*
        (?:vol(?:ume)?\.?\s*)?(?P<volume>\d{1,5})\s*
        (?:\((?P<issue>[\w-]{1,8})\))?\s*
        (?:[,:]\s*|\s+)(?:(?:no\.|issue)\s*\w+\s*,\s*)?(?:pp?\.\s*|pages?\s+|id\.?\s*|article\s+)?
        (?P<page>[A-Za-z]{0,3}\d+[A-Za-z]?)(?:\s*[-–]+\s*(?P<last>[A-Za-z]{0,3}\d+))?\s*[,.]?\s*$""",
    re.VERBOSE | re.IGNORECASE,
)


@dataclass(frozen=True)
class JournalRef:
    journal: str
    volume: str | None = None
    page: str | None = None  # first page, or the article id (115117, C1, L12)
    last_page: str | None = None
    year: int | None = None
    issue: str | None = None  # "MNRAS 488(2), 2892": BibTeX's number

    @property
    def pages(self) -> str | None:
        if not self.page:
            return None
        return f"{self.page}--{self.last_page}" if self.last_page else self.page

    @property
    def is_article_id(self) -> bool:
        """115117 (Phys. Rev.), C1, L12, A90: an article id rather than a page (BibTeX's `eid`)."""
        page = self.page or ""
        return not self.last_page and (not page.isdigit() or len(page) >= 5)


def parse_journal_ref(text: str | None) -> JournalRef | None:
    """The first reference in `text`, split as far as it can be; None for an empty text."""
    raw = " ".join((text or "").split())
    if not raw:
        return None
    first = raw.split(";")[0].strip()
    year = None
    rest = first
    for pattern in (YEAR_IN_PARENS, YEAR_AT_END):
        match = pattern.search(rest)
        if match:
            year = int(match.group(1))
            rest = (rest[: match.start()] + " " + rest[match.end():]).strip(" ,")
            break
    else:
        match = ANY_YEAR.search(rest)
        year = int(match.group(1)) if match else None
    match = BODY.match(rest)
    if not match:
        return JournalRef(journal=rest.strip(" ,.") or first, year=year)
    journal = match.group("journal").strip(" ,")
    return JournalRef(journal=journal, volume=match.group("volume"), page=match.group("page"),
                      last_page=match.group("last"), year=year, issue=match.group("issue"))
