"""A paper as the services found it (`FoundPaper`): one record for what arXiv, NASA ADS, Crossref,
INSPIRE or a plugin's source said about a paper, and the rule that merges two of them.

The services' clients parse their JSON or XML into the common shape and hand it on as this record
(`FoundPaper.from_record`); search results, `resolve`, the merge of ADS and arXiv, /sources and the
library's upsert read its attributes. The merge (`a + b`, as paper-qa's `DocDetails.__add__`) is
stated once, here:

- the first record's value is kept; a later one fills what it left empty (ADS is asked first, so its
  title and authors win over arXiv's);
- identifiers are united (arXiv id, bibcode, DOI, INSPIRE id, ADS's identifier list); whether two
  records are one paper at all is decided before (sources/merge.py: a shared id and no id that differs);
- the citation count is the larger (a service that counts more citations has seen more of them);
- bibliographic facts are merged fact by fact, first wins; notices (retraction, correction) are united;
- where a later record says something else for a kept field, the disagreement is kept in `conflicts`
  (field, service, its value), and `said` names the service each kept value came from.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

IDS = ("arxiv_id", "bibcode", "doi", "inspire_id")
# Fields whose disagreement is worth keeping (a title's markup or an abstract's wording is not).
ROW_FIELDS = ("id", "arxiv_id", "bibcode", "doi", "title", "authors", "year", "abstract", "citation_count", "url",
              "journal_ref", "journal", "volume", "page", "pub_year", "biblio", "primary_class")
CHECKED = ("arxiv_id", "bibcode", "doi", "inspire_id", "year", "journal", "volume", "page", "pub_year")


@dataclass(frozen=True)
class Notice:
    """A notice about a work (Crossref's `updated-by`): a retraction, a correction, an expression of concern."""

    type: str
    label: str = ""
    doi: str | None = None
    year: int | None = None
    source: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"type": self.type, "label": self.label, "doi": self.doi, "year": self.year, "source": self.source}


@dataclass(frozen=True)
class Conflict:
    """A value a later service gave for a field the merged record had already filled."""

    field: str
    source: str
    value: str


@dataclass(frozen=True)
class FoundPaper:
    """A paper's metadata as one or more services found it."""

    id: str | None = None  # the library's id for it: arXiv id, else bibcode, else DOI
    arxiv_id: str | None = None
    version: str | None = None  # the arXiv version the record describes ("v2")
    bibcode: str | None = None
    doi: str | None = None
    inspire_id: str | None = None
    title: str | None = None
    authors: tuple[str, ...] = ()
    year: int | None = None
    published: str | None = None  # the e-print's date, as arXiv gives it
    abstract: str | None = None
    citation_count: int | None = None
    journal_ref: str | None = None  # arXiv's free-text reference
    primary_class: str | None = None
    journal: str | None = None  # the published version, when a service knows one
    volume: str | None = None
    page: str | None = None
    pub_year: int | None = None
    url: str | None = None
    identifiers: tuple[str, ...] = ()  # every name ADS knows the paper by
    biblio: Mapping[str, Any] = field(default_factory=dict, hash=False)  # facts for BibTeX (doctype, month...)
    updates: tuple[Notice, ...] = ()
    sources: tuple[str, ...] = ()  # the services that said something about it, first first
    said: Mapping[str, str] = field(default_factory=dict, hash=False)  # field -> the service its value is from
    conflicts: tuple[Conflict, ...] = ()

    @property
    def source(self) -> str:
        return self.sources[0] if self.sources else "unknown"

    @property
    def canonical_id(self) -> str | None:
        return self.arxiv_id or self.bibcode or self.doi

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> FoundPaper:
        """A client's parsed record (the common dict shape) as a FoundPaper; unknown keys are left out,
        a value of the wrong type reads as absent."""
        sources = tuple(str(s) for s in record.get("sources") or () if s)
        notices = record.get("updates") or (record.get("biblio") or {}).get("updates") or ()
        values: dict[str, Any] = {
            "id": _text(record.get("id")), "version": _text(record.get("version")),
            "title": _text(record.get("title")), "authors": _texts(record.get("authors")),
            "year": _int(record.get("year")), "published": _text(record.get("published")),
            "abstract": _text(record.get("abstract")), "citation_count": _int(record.get("citation_count")),
            "journal_ref": _text(record.get("journal_ref")),
            "primary_class": _text(record.get("primary_class") or record.get("primary_category")),
            "journal": _text(record.get("journal")), "volume": _text(record.get("volume")),
            "page": _text(record.get("page")), "pub_year": _int(record.get("pub_year")), "url": _text(record.get("url")),
            "identifiers": _texts(record.get("identifiers")),
            "biblio": {k: v for k, v in (record.get("biblio") or {}).items() if k != "updates"}
            if isinstance(record.get("biblio"), Mapping) else {},
            "updates": tuple(_notice(n) for n in notices if isinstance(n, Mapping)) if isinstance(
                notices, (list, tuple)) else (),
            "sources": sources,
        }
        values.update({key: _text(record.get(key)) for key in IDS})
        source = sources[0] if sources else "unknown"
        values["said"] = {name: source for name, value in values.items()
                          if name not in ("sources", "said") and value not in (None, "", (), {})}
        return cls(**values)

    def as_record(self) -> dict[str, Any]:
        """The plain form: JSON (tools' data, `--json`) and the library's row (`upsert`)."""
        out: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)
                               if f.name not in ("said", "conflicts", "updates")}
        out["id"] = self.id or self.canonical_id
        out["authors"] = list(self.authors)
        out["identifiers"] = list(self.identifiers)
        out["sources"] = list(self.sources)
        out["biblio"] = {**self.biblio, **({"updates": [n.as_dict() for n in self.updates]} if self.updates else {})}
        if self.updates:
            out["updates"] = [n.as_dict() for n in self.updates]
        return out

    def row(self) -> dict[str, Any]:
        """The library's columns this record fills (`LibraryCore.upsert`); notices go in the biblio."""
        plain = self.as_record()
        out = {key: plain[key] for key in ROW_FIELDS}
        out["id"] = self.id or self.canonical_id
        if not out["biblio"]:
            del out["biblio"]
        return out

    def but(self, **changes: Any) -> FoundPaper:
        return replace(self, **changes)

    def __add__(self, other: FoundPaper) -> FoundPaper:
        """This record with `other`'s gaps filled in, by the rule in the module's docstring."""
        merged: dict[str, Any] = {}
        said = dict(self.said)
        conflicts = list(self.conflicts)
        for f in fields(self):
            name = f.name
            mine, theirs = getattr(self, name), getattr(other, name)
            if name in ("said", "conflicts"):
                continue
            if name == "sources" or name == "identifiers" or name == "updates":
                merged[name] = tuple(dict.fromkeys([*mine, *theirs]))
            elif name == "citation_count":
                counts = [c for c in (mine, theirs) if c is not None]
                merged[name] = max(counts) if counts else None
                if counts and merged[name] == theirs and theirs != mine:
                    said[name] = other.said.get(name, other.source)
            elif name == "biblio":
                merged[name] = {**theirs, **mine}
            elif _empty(mine) and not _empty(theirs):
                merged[name] = theirs
                said[name] = other.said.get(name, other.source)
            else:
                merged[name] = mine
                if name in CHECKED and not _empty(theirs) and str(theirs).lower() != str(mine).lower():
                    conflicts.append(Conflict(name, other.said.get(name, other.source), str(theirs)))
        return FoundPaper(**merged, said=said, conflicts=tuple(dict.fromkeys(conflicts)))


def _empty(value: Any) -> bool:
    return value in (None, "", (), {}) or (isinstance(value, Mapping) and not value)


def _text(value: Any) -> str | None:
    if isinstance(value, str):
        return value or None
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else None


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    return int(value) if isinstance(value, str) and value.isdigit() else None


def _texts(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value if isinstance(v, str) and v) if isinstance(value, (list, tuple)) else ()


def _notice(value: Mapping[str, Any]) -> Notice:
    return Notice(str(value.get("type") or ""), str(value.get("label") or ""), _text(value.get("doi")),
                  _int(value.get("year")), _text(value.get("source")))


def found_from_source(value: object, label: str) -> FoundPaper | None:
    """What a registered source answered, as a FoundPaper: a plugin written for the older dict shape
    is read through `from_record`; anything else is the source's fault, said in one sentence."""
    if value is None or isinstance(value, FoundPaper):
        return value
    if isinstance(value, Mapping):
        return FoundPaper.from_record(value)
    from astro_cli.research.sources.http import ServiceError

    raise ServiceError(f"The paper source {label} answered with {type(value).__name__}, not a paper record; "
                       "its plugin needs updating (docs/architecture.md, paper sources).")
