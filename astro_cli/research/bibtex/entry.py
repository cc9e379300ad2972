"""One BibTeX entry from stored metadata, written the way NASA ADS writes it.

The entry type, the fields each type carries and their order are ADS's (adsabs/export_service
bibTexFormat.py), so a bibliography mixing entries ADS exported and entries astro built reads as
one: full author lists (cut to `max_authors` and `and others` only past `author_cutoff`, ADS's
defaults 10 and 200), the AASTeX journal macro, month, number, page range, e-print fields, a
thesis's school, a conference paper's booktitle. What is missing is said, never invented: a paper
with no known author or title gets a `note` naming what is missing (and the export a note), never
`Untitled`.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from astro_cli.research.bibtex.journals import AASTEX_MACROS, bibstem_of, journal_field
from astro_cli.research.bibtex.kind import biblio, booktitle_of, entry_type, pages_in_text, school_of
from astro_cli.research.bibtex.text import ascii_word, author_field, latex_text, surname
from astro_cli.research.sources.journal_ref import parse_journal_ref

FIELDS_OF = {
    "ARTICLE": ("author", "title", "journal", "keywords", "year", "month", "volume", "number", "eid", "pages",
                "doi", "archivePrefix", "eprint", "primaryClass"),
    "BOOK": ("author", "title", "year", "volume", "publisher", "doi"),
    "INCOLLECTION": ("author", "title", "keywords", "booktitle", "year", "editor", "volume", "series", "publisher",
                     "eid", "pages", "doi"),
    "PROCEEDINGS": ("title", "keywords", "booktitle", "year", "editor", "series", "volume", "month", "publisher",
                    "doi", "archivePrefix", "eprint", "primaryClass"),
    "INPROCEEDINGS": ("author", "title", "keywords", "booktitle", "year", "editor", "series", "volume", "month",
                      "publisher", "eid", "pages", "doi", "archivePrefix", "eprint", "primaryClass"),
    "MISC": ("author", "title", "keywords", "howpublished", "year", "month", "eid", "pages", "doi",
             "archivePrefix", "eprint", "primaryClass", "version", "publisher"),
    "PHDTHESIS": ("author", "title", "keywords", "school", "year", "month"),
    "MASTERSTHESIS": ("author", "title", "keywords", "school", "year", "month"),
    "TECHREPORT": ("author", "title", "institution", "keywords", "year", "number", "howpublished", "doi"),
    "software": ("author", "title", "howpublished", "year", "month", "eid", "doi", "archivePrefix", "eprint",
                 "version", "publisher"),
}
FIELDS_OF["dataset"] = FIELDS_OF["software"]
TRAILER = ("adsurl", "url", "note")
MONTHS = [name.lower() for name in calendar.month_abbr]  # ['', 'jan', ..., 'dec']: BibTeX's month macros
PUB_RAW_TAGS = re.compile(r";?\s*<(ALTJOURNAL|CONF_METADATA)>.*?</\1>\s*|</?(ISBN|NUMPAGES)>", re.DOTALL)
INITIALS = re.compile(r"([A-Z]\.)\s(?=[A-Z]\.)")
ADS_ABS = "https://ui.adsabs.harvard.edu/abs/"
# Fields already made safe by latex_text (balanced braces, escapes); every other value is cleaned.
TEXT_FIELDS = {"author", "editor", "title", "journal", "keywords", "school", "booktitle", "series", "version",
               "publisher", "institution", "howpublished", "note"}
UNSAFE = re.compile(r'[{}"\x00-\x1f\x7f-\x9f\\]')
MEETINGS = {"AAS", "DPS", "SPIE", "IAUC", "BAAS"}  # bibstems of abstracts and circulars, not articles

if TYPE_CHECKING:
    from astro_cli.research.records import Paper


@dataclass
class Entry:
    """The entry's text, and what a researcher must know about it (fields nobody could fill)."""

    key: str
    text: str
    missing: list[str] = field(default_factory=list)


def entry_key(paper: Paper) -> str:
    """The bibcode when known (ADS's key), else Surname + year + _ + arXiv id (or DOI), without '/'."""
    if paper.bibcode:
        return re.sub(r"[^A-Za-z0-9.:&_+-]", "", str(paper.bibcode)) or "Anonymous"
    authors = paper.authors
    last = ascii_word(surname(authors[0])) if authors else ""
    year = published_version(paper).get("year") or paper.year or ""
    ident = str(paper.arxiv_id or paper.doi or paper.id or "").replace("/", "")
    return re.sub(r"[^A-Za-z0-9.:_-]", "", f"{last or 'Anonymous'}{year}_{ident}")


def published_version(paper: Paper) -> dict[str, Any]:
    """journal, bibstem, volume, page, last_page, year of the published paper; {} for a preprint.

    ADS's structured fields (stored at download) win; arXiv's free-text journal_ref is parsed
    otherwise, and its journal name normalised to a bibstem (`ActaAstron.` is AcA, `\\actaa`).
    """
    facts = biblio(paper)
    if paper.journal:
        page = paper.page
        stem = facts.get("bibstem") or bibstem_of(paper.journal, page)
        return {"journal": paper.journal, "bibstem": stem, "volume": paper.volume, "page": page,
                "last_page": None, "year": paper.pub_year or paper.year,
                "article_id": _is_article_id(page), "from_ads": bool(facts.get("bibstem") or facts.get("doctype"))}
    ref = parse_journal_ref(paper.journal_ref)
    if ref is None:
        return _from_bibcode(paper)
    return {"journal": ref.journal, "bibstem": bibstem_of(ref.journal, ref.page), "volume": ref.volume,
            "page": ref.page, "last_page": ref.last_page, "issue": ref.issue, "year": ref.year or paper.year,
            "article_id": ref.is_article_id, "from_ads": False}


def _from_bibcode(paper: Paper) -> dict[str, Any]:
    """A journal bibcode spells journal, volume and first page (2019MNRAS.488.2892P): used when
    nothing else says where the paper appeared. Only for journals with an AASTeX macro, not meetings."""
    code = str(paper.bibcode or "")
    stem = code[4:9].rstrip(".")
    if len(code) != 19 or stem not in AASTEX_MACROS or stem in MEETINGS or not code[:4].isdigit():
        return {}
    qualifier, digits = code[13], code[14:18].lstrip(".")
    page = (qualifier + digits) if qualifier != "." else digits
    return {"journal": stem, "bibstem": stem, "volume": code[9:13].lstrip(".") or None, "page": page or None,
            "last_page": None, "year": int(code[:4]), "article_id": not page.isdigit(), "from_ads": False}


def _is_article_id(page: Any) -> bool:
    text = str(page or "")
    return bool(text) and (not text.isdigit() or len(text) >= 5)


def _strings(value: Any) -> list[str]:
    """A list of names or keywords as stored; anything else (a row someone else wrote) gives none."""
    return [str(item) for item in value if item] if isinstance(value, (list, tuple)) else []


def _count(value: Any) -> int:
    try:
        return max(0, int(value or 0))
    except (TypeError, ValueError):
        return 0


def _people(names: list[str], count: int, max_authors: int, author_cutoff: int) -> str:
    """ADS's rule: every name, unless there are more than `author_cutoff`; then the first `max_authors`."""
    listed = [n for n in names if n != "others"]
    cut = max_authors > 0 and count > author_cutoff
    shown = listed[:max_authors] if cut else listed
    if cut or count > len(shown) or "others" in names:
        shown = [*shown, "others"]
    return INITIALS.sub(r"\1~", author_field(shown))


def _month(paper: Paper, published: dict[str, Any]) -> str | None:
    """ADS's publication month; for an e-print, the month arXiv received it. Never a guessed one."""
    month = biblio(paper).get("month")
    if not month and not published:
        stamp = str(paper.published or biblio(paper).get("submitted") or "")
        month = int(stamp[5:7]) if re.match(r"\d{4}-\d\d", stamp) else None
    return MONTHS[int(month)] if isinstance(month, int) and 1 <= month <= 12 else None


def _values(paper: Paper, kind: str, max_authors: int, author_cutoff: int) -> dict[str, str]:
    """Every field this paper can fill, as BibTeX text (braced or bare), by BibTeX field name."""
    facts = biblio(paper)
    published = published_version(paper)
    arxiv_id = paper.arxiv_id
    out: dict[str, str] = {}

    def put(name: str, value: Any, raw: bool = False) -> None:
        text = str(value) if value not in (None, "", []) else ""
        if name not in TEXT_FIELDS:  # identifiers and numbers: no brace, quote or control character
            text = UNSAFE.sub("", text).strip()
        if text:
            out[name] = text if raw else "{" + text + "}"

    authors = [a for a in paper.authors if a]
    if authors:
        count = max(_count(facts.get("n_authors") or paper.n_authors), len(authors))
        put("author", _people(authors, count, max_authors, author_cutoff))
    if paper.title:
        out["title"] = '"{' + latex_text(paper.title) + '}"'
    if published and kind == "ARTICLE":
        put("journal", journal_field(published.get("bibstem"), latex_text(published["journal"])))
    elif kind == "ARTICLE" and arxiv_id:
        put("journal", "arXiv e-prints")
    put("keywords", latex_text(", ".join(_strings(facts.get("keywords")))))
    year = published.get("year") or paper.year
    put("year", year, raw=True)
    month = _month(paper, published)
    put("month", month, raw=True)
    put("volume", published.get("volume") or facts.get("volume"))
    put("number", facts.get("issue") or published.get("issue"))
    eid = facts.get("eid")  # ADS's own, when the record came from ADS
    if not published.get("from_ads") and published.get("article_id"):
        eid = eid or published.get("page")
    if not published and arxiv_id and kind == "ARTICLE":
        eid = eid or f"arXiv:{arxiv_id}"
    put("eid", eid)
    first = published.get("page")
    pages = facts.get("page_range") or (f"{first}-{published['last_page']}" if first and published.get("last_page")
                                        else first) or eid
    if kind == "INPROCEEDINGS" and not pages:
        pages = pages_in_text(paper)
    put("pages", pages)
    put("doi", paper.doi)
    eprint = facts.get("eprint") or (f"arXiv:{arxiv_id}" if arxiv_id else None)
    if eprint and ":" in str(eprint):
        prefix, ident = str(eprint).split(":", 1)
        put("archivePrefix", prefix)
        put("eprint", ident)
        if prefix == "arXiv":
            put("primaryClass", paper.primary_class)
    put("school", latex_text(school_of(paper)))
    put("booktitle", latex_text(booktitle_of(paper, published.get("journal") if published.get("volume") else None)))
    put("editor", author_field(_strings(facts.get("editor"))) if _strings(facts.get("editor")) else None)
    for name in ("series", "version", "publisher"):
        put(name, latex_text(facts.get(name)) if facts.get(name) else None)
    put("institution", latex_text(facts.get("publisher")) if facts.get("publisher") else None)
    if not (kind in ("MISC", "software", "dataset") and facts.get("publisher")):
        put("howpublished", latex_text(PUB_RAW_TAGS.sub("", str(facts.get("pub_raw") or ""))) or None)
    if kind == "TECHREPORT":
        put("number", facts.get("eid"))
    if paper.bibcode:
        put("adsurl", ADS_ABS + str(paper.bibcode))
    url = paper.url or (f"https://arxiv.org/abs/{arxiv_id}" if arxiv_id else None)
    if url and not str(url).startswith(ADS_ABS):
        out["url"] = "{" + UNSAFE.sub("", str(url)).replace("%", "\\%") + "}"
    return out


def build(paper: Paper, max_authors: int = 10, author_cutoff: int = 200) -> Entry:
    """The entry for one paper; `missing` names the fields nobody could fill (author, title)."""
    published = published_version(paper)
    kind = entry_type(paper, bool(published))
    values = _values(paper, kind, max_authors, author_cutoff)
    wanted = FIELDS_OF[kind]
    missing: list[str] = [name for name in ("author", "title") if name in wanted and name not in values]
    if missing:
        values["note"] = "{astro: no " + " or ".join(missing) + " is known for this paper; check it before citing}"
    names = [*wanted, *TRAILER]
    lines = [f"{name:>13} = {values[name]}" for name in names if name in values]
    key = entry_key(paper)
    return Entry(key=key, text=f"@{kind}{{{key},\n" + ",\n".join(lines) + "\n}\n", missing=missing)
