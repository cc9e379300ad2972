"""Field-by-field comparison of BibTeX entries with NASA ADS's export of the same records.

Shared by tests/research/bibtex/test_bibtex_ads.py and benchmarks/bench_bibtex.py. Both sides are parsed by
pybtex; each field ADS writes (but `adsurl`, `adsnote` and `abstract`, ADS's own service fields) is
compared after reading the LaTeX as text (so `{\\'e}` and `\\'{e}` are the same letter), with
`~` as a space and ADS's `et al.` as BibTeX's `others`; the journal is compared as written (the
macro matters). A field ADS writes that the entry lacks, or writes differently, is one error; a
field only astro writes is counted apart (extra), and so is a different entry type.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import pybtex.database

from tests.paths import FIXTURES_DIR

FIXTURES = FIXTURES_DIR / "ads"
IGNORED = {"adsurl", "adsnote", "abstract"}
# Each recorded ADS export beside the ADS records (Solr docs) it was made from.
PAIRS = (
    ("export_service_solr_doctypes24.json", "export_service_bibtex_doctypes24.export.txt"),
    ("export_service_solr_publisher5.json", "export_service_bibtex_publisher5.export.txt"),
    ("export_service_solr_software2.json", "export_service_bibtex_software2.export.txt"),
    ("doc_2013PASP.125..306F_emcee_allfields.json", "bibtex_2013PASP.125..306F_emcee.export.txt"),
)


@dataclass
class Comparison:
    entries: int = 0
    fields: int = 0  # fields ADS writes, compared
    errors: list[str] = field(default_factory=list)  # "bibcode field: ours != ADS's"
    type_errors: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)  # fields only astro writes

    @property
    def per_100(self) -> float:
        return 100 * len(self.errors) / self.fields if self.fields else 0.0


def _text(value: str) -> str:
    from pylatexenc.latex2text import LatexNodes2Text

    plain = LatexNodes2Text(math_mode="verbatim").latex_to_text(value.replace("~", " "))
    return " ".join(plain.replace("{", "").replace("}", "").split())


def _authors(entry: Any, role: str) -> str:
    people = []
    for person in entry.persons.get(role, []):
        text = str(person)
        people.append("others" if text in ("others", "al., et", "et al.") else _text(text))
    return " and ".join(people)


def fields_of(entry: Any) -> dict[str, str]:
    out = {name.lower(): (value if name.lower() == "journal" else _text(value))
           for name, value in entry.fields.items()}
    for role in ("author", "editor"):
        if role in entry.persons:
            out[role] = _authors(entry, role)
    return out


def recorded_pairs() -> list[tuple[dict[str, Any], Any]]:
    """(ADS doc, ADS's entry parsed by pybtex) for every recorded export."""
    pairs = []
    for docs_name, export_name in PAIRS:
        body = json.loads((FIXTURES / docs_name).read_text(encoding="utf-8"))
        docs = body["response"]["docs"] if "response" in body else [body]
        bib = pybtex.database.parse_string((FIXTURES / export_name).read_text(encoding="utf-8"), "bibtex")
        for doc in docs:
            if doc["bibcode"] in bib.entries:
                pairs.append((doc, bib.entries[doc["bibcode"]]))
    return pairs


def compare(ours: Any, theirs: Any, key: str, result: Comparison) -> None:
    """Add one entry's comparison to `result`."""
    result.entries += 1
    if ours.type.lower() != theirs.type.lower():
        result.type_errors.append(f"{key}: @{ours.type} != @{theirs.type}")
    mine, ads = fields_of(ours), fields_of(theirs)
    for name, value in ads.items():
        if name in IGNORED:
            continue
        result.fields += 1
        if re.sub(r"\s+", " ", mine.get(name, "<missing>")) != re.sub(r"\s+", " ", value):
            result.errors.append(f"{key} {name}: {mine.get(name, '<missing>')!r} != ADS {value!r}")
    result.extra += [f"{key} {name}" for name in mine if name not in ads and name not in IGNORED | {"url", "note"}]
