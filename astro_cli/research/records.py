"""The library's records: a `Paper`, a `Chunk` of its text, a search `Hit`, the `PaperRef` a hit or a
passage names its paper by, and the `Passage` a tool showed the model under a handle. Frozen, typed, one each.

A paper's row is decoded once, where it leaves the store (`Paper.from_row`), and travels as this
record from there on: the download hands it to indexing, indexing to embedding, a search hit
names it. A step that changes the paper gets a new record back (`Paper.but`), never an id to
read again. A passage a tool shows the model travels as a `Passage` in the tool result's data
(`passages`), beside the `<paper-text>` frame the model reads; the claim ledger reads the record, and
the reader's `(Cowan & Agol 2010, p. 1)` comes from its `PaperRef`, whichever tool showed it.
`as_dict()` is the plain form for JSON (tools' data, `--json` output). A Paper is read by
attribute (BibTeX and the citation check too); for the type checker it is no mapping, so a string-key
read in typed code is a mypy error. Untyped callers (tests, `Any`-typed commands) may still read it by
name at run time, until they are moved. A paper known outside the library (a session's source entry,
a service's record) becomes one with `Paper.of`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

# The columns of `papers`, in the schema's order (storage/base.py writes exactly these).
PAPER_COLUMNS = (
    "id", "arxiv_id", "bibcode", "doi", "title", "authors", "year", "abstract", "pdf_path", "source_path",
    "citation_count", "url", "added_at", "parsed_at", "parsed_from", "pages",
    "journal_ref", "primary_class", "journal", "volume", "page", "pub_year", "outline", "added_by", "biblio",
    "content_sha256",
)


if TYPE_CHECKING:
    _ByName = object  # the type checker sees no mapping: typed code reads a Paper by attribute (mypy says so)
else:
    _ByName = Mapping[str, Any]  # untyped callers (tests, `Any`-typed commands) still read fields by name


@dataclass(frozen=True)
class Paper(_ByName):
    """One library paper as stored (authors and bibliographic facts decoded from their JSON).

    Read it by attribute (`getattr(paper, name)` where the field is chosen at run time)."""

    id: str
    arxiv_id: str | None = None
    bibcode: str | None = None
    doi: str | None = None
    title: str | None = None
    authors: tuple[str, ...] = ()
    year: int | None = None
    abstract: str | None = None
    pdf_path: str | None = None
    source_path: str | None = None
    citation_count: int | None = None
    url: str | None = None
    added_at: str | None = None
    parsed_at: str | None = None
    parsed_from: str | None = None
    pages: int | None = None
    journal_ref: str | None = None
    primary_class: str | None = None
    journal: str | None = None
    volume: str | None = None
    page: str | None = None
    pub_year: int | None = None
    outline: str | None = None  # JSON list of (heading, first page), as parse_paper stored it
    added_by: str | None = None
    biblio: Mapping[str, Any] = field(default_factory=dict, hash=False)  # ADS/Crossref facts for BibTeX
    content_sha256: str | None = None
    # Not columns: what a listing adds (how many chunks are indexed, which rows it is kept apart from),
    # and what a paper known outside the library may carry (arXiv's date, the author count of a cut list).
    chunks: int | None = None
    conflicts: tuple[str, ...] = ()
    published: str | None = None
    n_authors: int | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Paper:
        """A database row (authors and biblio as JSON text) as a Paper; unknown columns are ignored."""
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in row.items() if k in known}
        values["id"] = str(row["id"])
        values["authors"] = tuple(_json_list(row.get("authors")))
        values["biblio"] = _json_object(row.get("biblio"))
        if row.get("chunks") is not None:
            values["chunks"] = int(row["chunks"])
        values["conflicts"] = tuple(row.get("conflicts") or ())
        return cls(**values)

    @classmethod
    def of(cls, record: Mapping[str, Any]) -> Paper:
        """A paper known outside the library (a tool's source entry, a service's record) in the same form,
        so what formats papers (BibTeX) reads one record by attribute."""
        ident = record.get("id") or record.get("arxiv_id") or record.get("bibcode") or record.get("doi") or ""
        count = record.get("n_authors")
        return cls.from_row({**record, "id": ident, "n_authors": count if isinstance(count, int) else None,
                             "primary_class": record.get("primary_class") or record.get("primary_category"),
                             "conflicts": ()})

    def but(self, **changes: Any) -> Paper:
        """This paper with some fields changed (what a step that wrote them hands on)."""
        return replace(self, **changes)

    def ref(self) -> PaperRef:
        return PaperRef(self.id, self.title, self.authors[:REF_AUTHORS], len(self.authors), self.year,
                        self.arxiv_id, self.bibcode, self.doi, self.url)

    def as_dict(self) -> dict[str, Any]:
        """The plain form: lists and dicts, for JSON and for code that names fields as strings."""
        out = asdict(self)
        out["authors"] = list(self.authors)
        out["biblio"] = dict(self.biblio)
        out["conflicts"] = list(self.conflicts)
        for extra in ("chunks", "published", "n_authors"):
            if out[extra] is None:
                del out[extra]
        return out

    if not TYPE_CHECKING:  # the runtime mapping of untyped callers (see `_ByName`); the type checker sees none
        def __getitem__(self, key: str) -> Any:
            if key not in _FIELD_NAMES:
                raise KeyError(key)
            return getattr(self, key)

        def __iter__(self) -> Iterator[str]:
            return iter(_FIELD_ORDER)

        def __len__(self) -> int:
            return len(_FIELD_ORDER)


_FIELD_ORDER = tuple(f.name for f in fields(Paper))
_FIELD_NAMES = frozenset(_FIELD_ORDER)


@dataclass(frozen=True)
class Chunk:
    """A passage as written: a paper's or a note's, in reading order (chunks never overlap)."""

    section: str | None
    page: int | None
    ord: int
    text: str
    kind: str = "body"  # "references" and "acknowledgments" are left out of searches by default


REF_AUTHORS = 3  # a reference keeps the first authors: enough for "A & B 2013" and "A et al. 2013"


@dataclass(frozen=True)
class PaperRef:
    """Which paper a hit, a passage or a listed source is: its ids, its title, its first authors and year
    (what the reader's `Cowan & Agol 2010` and an author-year citation are matched on)."""

    id: str
    title: str | None = None
    authors: tuple[str, ...] = ()  # the first REF_AUTHORS
    n_authors: int = 0  # all of them
    year: int | None = None
    arxiv_id: str | None = None
    bibcode: str | None = None
    doi: str | None = None
    url: str | None = None

    def short_cite(self) -> str:
        """`Cowan & Agol 2010`, `Foreman-Mackey et al. 2013`; the paper id when authors or year are unknown."""
        from astro_cli.research.bibtex.text import surname

        authors = [a for a in self.authors if a]
        if not authors or not self.year:
            return self.id
        names = [surname(a) or a for a in authors[:2]]
        many = len(authors) > 2 or self.n_authors > 2
        return f"{names[0] + ' et al.' if many else ' & '.join(names)} {self.year}"

    def as_dict(self) -> dict[str, Any]:
        """The source-entry form /sources, the ledger and BibTeX read (`n_authors` only when authors were cut)."""
        out: dict[str, Any] = {"id": self.id, "title": self.title, "bibcode": self.bibcode,
                               "arxiv_id": self.arxiv_id, "doi": self.doi, "url": self.url, "year": self.year,
                               "authors": list(self.authors)}
        if self.n_authors > len(self.authors):
            out["n_authors"] = self.n_authors
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PaperRef:
        """A stored source entry or reference back as a record (unknown keys ignored, wrong types dropped)."""
        authors = tuple(str(a) for a in data.get("authors") or () if a) if isinstance(
            data.get("authors"), (list, tuple)) else ()
        count = data.get("n_authors")
        year = data.get("year")
        return cls(str(data.get("id") or ""), _text(data.get("title")), authors[:REF_AUTHORS],
                   count if isinstance(count, int) else len(authors),
                   year if isinstance(year, int) else int(year) if isinstance(year, str) and year.isdigit() else None,
                   _text(data.get("arxiv_id")), _text(data.get("bibcode")), _text(data.get("doi")),
                   _text(data.get("url")))


_SECTION_NUMBER = re.compile(r"^([0-9]+(?:\.[0-9]+)*|[A-H](?:\.[0-9]+)*)\b")


def passage_handle(paper: str, chunk: int | None, page: int | None = None, section: str | None = None) -> str:
    """`1001.0012:p5:c12`; `1202.3665:s2.1:c4` without a page; `ID:abs` for an abstract (chunk None)."""
    if chunk is None:
        return f"{paper}:abs"
    if page:
        return f"{paper}:p{int(page)}:c{int(chunk)}"
    number = _SECTION_NUMBER.match((section or "").strip())
    return f"{paper}:s{number.group(1)}:c{int(chunk)}" if number else f"{paper}:c{int(chunk)}"


@dataclass(frozen=True)
class Passage:
    """A passage a tool showed the model: its handle, its paper, page or section, and its text as shown."""

    handle: str
    ref: PaperRef
    text: str
    page: int | None = None
    section: str | None = None

    @property
    def paper(self) -> str:
        return self.ref.id

    def as_dict(self) -> dict[str, Any]:
        return {"handle": self.handle, "paper": self.ref.as_dict(), "text": self.text, "page": self.page,
                "section": self.section}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Passage | None:
        """A passage stored in a tool result's data; None for anything that is not one."""
        handle, paper, text = data.get("handle"), data.get("paper"), data.get("text")
        if not isinstance(handle, str) or not isinstance(paper, Mapping) or not isinstance(text, str):
            return None
        page = data.get("page")
        return cls(handle, PaperRef.from_dict(paper), text, page if isinstance(page, int) else None,
                   _text(data.get("section")))


@dataclass(frozen=True)
class Hit:
    """One passage a search found, with the paper (or note) it belongs to."""

    chunk_id: int
    kind: str  # "paper" or "note"
    source: str  # the paper id, or the note's path relative to the workspace
    section: str | None
    page: int | None
    text: str
    score: float
    title: str | None = None
    paper: PaperRef | None = None  # which paper (None for a note)
    ranks: Mapping[str, int] = field(default_factory=dict, hash=False)  # rank in each list that was fused
    ord: int | None = None  # the chunk's place in its paper

    @property
    def handle(self) -> str | None:
        """The passage's name for citing it (`1001.0012:p5:c12`); notes have none: they are not literature."""
        return passage_handle(self.source, self.ord, self.page, self.section) if self.kind == "paper" else None

    def passage(self) -> Passage | None:
        """The record of what the model is shown of this hit (notes are not literature: none)."""
        handle = self.handle
        if handle is None:
            return None
        return Passage(handle, self.paper or PaperRef(self.source, self.title), self.text, self.page, self.section)

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["ranks"] = dict(self.ranks)
        paper = self.paper or PaperRef(self.source)
        out["paper"] = paper.as_dict() if self.paper else None
        out.update(bibcode=paper.bibcode, arxiv_id=paper.arxiv_id, url=paper.url)  # the flat ids scripts read
        return {**out, "handle": self.handle}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _json_list(value: Any) -> list[str]:
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    try:
        decoded = json.loads(value or "[]")
    except (json.JSONDecodeError, TypeError):
        return []
    return [str(v) for v in decoded] if isinstance(decoded, list) else []


def _json_object(value: Any) -> dict[str, Any]:
    if isinstance(value, Mapping):
        return dict(value)
    try:
        decoded = json.loads(value or "{}")
    except (json.JSONDecodeError, TypeError):
        return {}
    return decoded if isinstance(decoded, dict) else {}
