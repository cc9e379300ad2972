"""A `SourceEntry`: a paper (or object) a tool listed in its result's data for /sources and the claim ledger.

Typed from where a tool writes it (merge.source_entry, paper_graph, remote_search) to where the ledger keeps it;
the plain dict is only the JSON form stored with the tool message (`as_dict`), read back by `from_dict`, which also
reads every older stored shape (unknown keys, a catalogue's or an object's, are kept as they were).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from astro_cli.research.records import PaperRef, Passage

# The bibliographic facts beside the `PaperRef` that /cite's BibTeX reads (text, and one year).
_TEXT_FIELDS = ("journal_ref", "journal", "volume", "page", "primary_class")
_REF_KEYS = frozenset(("id", "title", "authors", "n_authors", "year", "arxiv_id", "bibcode", "doi", "url"))
_OWN_KEYS = _REF_KEYS | frozenset((*_TEXT_FIELDS, "pub_year", "biblio", "updates"))


def _empty(value: object) -> bool:
    return value is None or value == "" or value == [] or value == () or value == {}


@dataclass(frozen=True)
class SourceEntry:
    """Which paper (its `PaperRef`), what /cite's BibTeX needs of it, and Crossref's notices about it."""

    ref: PaperRef
    journal_ref: str | None = None
    journal: str | None = None
    volume: str | None = None
    page: str | None = None
    primary_class: str | None = None
    pub_year: int | None = None
    biblio: Mapping[str, Any] = field(default_factory=dict, hash=False)  # doctype, month, issue, pages...
    updates: tuple[Mapping[str, Any], ...] = ()  # retraction or correction notices (issue 43)
    extra: Mapping[str, Any] = field(default_factory=dict, hash=False)  # keys of other listings, kept as stored

    @property
    def title(self) -> str | None:
        return self.ref.title or None

    @property
    def paper_id(self) -> str | None:
        """The name a citation reports: arXiv id, else bibcode, DOI, the tool's id."""
        ref = self.ref
        return ref.arxiv_id or ref.bibcode or ref.doi or ref.id or None

    @property
    def described(self) -> bool:
        """Authors and year known: an author-year citation can be matched on it."""
        return bool(self.ref.authors) and bool(self.ref.year)

    def as_dict(self) -> dict[str, Any]:
        """The JSON form stored in a tool result's data (the keys /sources, /cite and older readers know)."""
        out: dict[str, Any] = {k: v for k, v in self.extra.items() if k not in _OWN_KEYS}
        out.update(self.ref.as_dict())
        for key in _TEXT_FIELDS:
            if getattr(self, key):
                out[key] = getattr(self, key)
        if self.pub_year:
            out["pub_year"] = self.pub_year
        if self.biblio:
            out["biblio"] = dict(self.biblio)
        if self.updates:
            out["updates"] = [dict(u) for u in self.updates]
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SourceEntry:
        """A stored entry (any shape an older astro wrote) as a record; wrong types are dropped."""
        texts = {k: str(data[k]) for k in _TEXT_FIELDS if isinstance(data.get(k), (str, int)) and data.get(k) != ""}
        pub_year = data.get("pub_year")
        biblio = data.get("biblio")
        updates = data.get("updates")
        return cls(PaperRef.from_dict(data), **texts,
                   pub_year=int(pub_year) if isinstance(pub_year, int) or (
                       isinstance(pub_year, str) and pub_year.isdigit()) else None,
                   biblio=dict(biblio) if isinstance(biblio, Mapping) else {},
                   updates=tuple(dict(u) for u in updates if isinstance(u, Mapping))
                   if isinstance(updates, list) else (),
                   extra={k: v for k, v in data.items() if k not in _OWN_KEYS})

    def filled_from(self, other: SourceEntry) -> SourceEntry:
        """This entry with what it lacks taken from `other` (the same paper listed again by another tool)."""
        mine = self.as_dict()
        theirs = {k: v for k, v in other.as_dict().items() if not _empty(v) and _empty(mine.get(k))}
        if not theirs:
            return self
        return SourceEntry.from_dict({**mine, **theirs})


@dataclass(frozen=True)
class ListedPapers:
    """A paper tool's data: the papers it listed, and the passages (abstracts) it framed for the model."""

    sources: tuple[SourceEntry, ...] = ()
    passages: tuple[Passage, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """The JSON form `ToolResult.data` carries (`passages` only when there are some)."""
        out: dict[str, Any] = {"sources": [s.as_dict() for s in self.sources]}
        if self.passages:
            out["passages"] = [p.as_dict() for p in self.passages]
        return out
