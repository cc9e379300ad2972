"""The library's records: a `Paper`, a `Chunk` of its text, a search `Hit`. Frozen, typed, one each.

A paper's row is decoded once, where it leaves the store (`Paper.from_row`), and travels as this
record from there on: the download hands it to indexing, indexing to embedding, a search hit
names it. A step that changes the paper gets a new record back (`Paper.but`), never an id to
read again. `as_dict()` is the plain form for JSON (tools' data, `--json` output); a Paper is also
a read-only mapping of its fields (`paper["title"]`, `paper.get("doi")`, `{**paper}`) for code that
formats fields by name (citations, BibTeX).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

# The columns of `papers`, in the schema's order (storage/base.py writes exactly these).
PAPER_COLUMNS = (
    "id", "arxiv_id", "bibcode", "doi", "title", "authors", "year", "abstract", "pdf_path", "source_path",
    "citation_count", "url", "added_at", "parsed_at", "parsed_from", "pages",
    "journal_ref", "primary_class", "journal", "volume", "page", "pub_year", "outline", "added_by", "biblio",
    "content_sha256",
)


@dataclass(frozen=True)
class Paper(Mapping[str, Any]):
    """One library paper as stored (authors and bibliographic facts decoded from their JSON).

    Read it by attribute; it is also a read-only mapping of its fields, for code that formats
    fields by name (BibTeX, the citation check) and for `{**paper}`."""

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
    # Not columns: what a listing adds (how many chunks are indexed, which rows it is kept apart from).
    chunks: int | None = None
    conflicts: tuple[str, ...] = ()

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

    def but(self, **changes: Any) -> Paper:
        """This paper with some fields changed (what a step that wrote them hands on)."""
        return replace(self, **changes)

    def as_dict(self) -> dict[str, Any]:
        """The plain form: lists and dicts, for JSON and for code that names fields as strings."""
        out = asdict(self)
        out["authors"] = list(self.authors)
        out["biblio"] = dict(self.biblio)
        out["conflicts"] = list(self.conflicts)
        if self.chunks is None:
            del out["chunks"]
        return out

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
    bibcode: str | None = None
    arxiv_id: str | None = None
    url: str | None = None
    ranks: Mapping[str, int] = field(default_factory=dict, hash=False)  # rank in each list that was fused
    ord: int | None = None  # the chunk's place in its paper

    @property
    def handle(self) -> str | None:
        """The passage's name for citing it (`1001.0012:p5:c12`); notes have none: they are not literature."""
        from astro_cli.citations.handles import passage_handle

        return passage_handle(self.source, self.ord, self.page, self.section) if self.kind == "paper" else None

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["ranks"] = dict(self.ranks)
        return {**out, "handle": self.handle}


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
