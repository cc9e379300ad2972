"""Finding what an answer cites: ADS bibcodes, arXiv ids, DOIs and author-year citations.

Identifiers are found with strict patterns so prose is not mistaken for a citation: a bibcode is
19 characters with a journal part that has a letter (`2020A&A...642C...1G`); a new-style arXiv id
without its `arXiv:` prefix must have a real year and month (`1001.0012`, not `6563.2800`); a DOI
starts `10.NNNN/`. A bibcode's or DOI's characters are not searched again for an arXiv id. An
author-year citation needs the shape of one: `Foreman-Mackey et al. 2013`, `Cowan & Agol (2011)`,
`(Gould 2006)`, `Hubble (1929)`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from astro_cli.research.identifiers import arxiv_of_doi

BIBCODE = re.compile(r"(?<![\w.&])(?=\d{4}[.&]*[A-Za-z])(\d{4}[A-Za-z&.]{5}[\w.&]{9}[A-Za-z.])(?![\w&])")
DOI = re.compile(r"(?<![\w.])(10\.\d{4,9}/[^\s\"'<>{}|\\^`]+)")
ARXIV_PREFIXED = re.compile(
    r"(?:arXiv:\s?|arxiv\.org/(?:abs|pdf)/)((?:\d{4}\.\d{4,5}|[a-z][a-z-]*(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?)",
    re.IGNORECASE,
)
ARXIV_NEW = re.compile(r"(?<![\w./-])(\d{2})(\d{2})\.(\d{4,5})(v\d+)?(?![\w-]|\.\d)")
ARXIV_OLD = re.compile(r"(?<![\w./-])((?:astro-ph|gr-qc|hep-(?:ph|th|ex|lat)|nucl-(?:th|ex)|physics|quant-ph|"
                       r"cond-mat|math-ph|nlin|math|cs)(?:\.[A-Z]{2})?/\d{7})(v\d+)?(?![\w-])")
TRAILING = ".,;:!?)]'\""

_LETTER = r"[^\W\d_]"
_PARTICLE = r"(?:(?:van|von|de|der|den|del|della|da|di|du|dos|das|le|la|ter|ten|al|el|bin|ibn|mac)\s+)"
_SURNAME = rf"{_PARTICLE}*[A-Z\u00C0-\u00DE]{_LETTER}*(?:['’]{_LETTER}+)?(?:-[A-Z\u00C0-\u00DE]?{_LETTER}+)*"
_NAME = rf"(?:{_SURNAME}(?:\s+Collaboration)?)"
_YEAR = r"(1[6-9]\d\d|20\d\d)[a-z]?"
AUTHOR_YEAR = re.compile(
    rf"""(?P<first>{_NAME})
        (?:\s+et\s+al\.?|\s+(?:&|and)\s+(?P<second>{_NAME}))?
        (?:,?\s+\(?{_YEAR}\)?|\s+\({_YEAR}[;,)])""",
    re.VERBOSE,
)
PAREN_SINGLE = re.compile(rf"[(;]\s*(?:e\.g\.,?\s*|see\s+(?:also\s+)?|cf\.\s*)?(?P<first>{_NAME}),?\s+{_YEAR}(?=\s*[;),])")
NOT_SURNAMES = {
    "in", "since", "by", "from", "table", "figure", "fig", "section", "sect", "eq", "equation", "until", "after",
    "before", "during", "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "the", "and", "of", "for", "dr", "data", "release", "version", "run", "year",
    "summer", "winter", "spring", "autumn", "fall", "epoch", "cycle", "phase", "circa", "about", "between",
    "also", "see", "as", "at", "on", "to", "jwst", "hst", "gaia",
}


@dataclass(frozen=True)
class Cited:
    """One thing an answer cites. `ident` is normalised (arXiv id without prefix or version)."""

    ident: str
    kind: str  # bibcode | arxiv | doi | author-year
    surnames: tuple[str, ...] = field(default=())
    year: int | None = None

    @property
    def lookup(self) -> str:
        """The identifier as library and lookups take it."""
        return self.ident

    @property
    def label(self) -> str:
        """How the researcher sees it: arXiv ids with their prefix, DOIs and bibcodes as they are."""
        return f"arXiv:{self.ident}" if self.kind == "arxiv" else self.ident


def _trim(text: str) -> str:
    while text and text[-1] in TRAILING:
        if text[-1] == ")" and text.count("(") >= text.count(")"):
            break
        text = text[:-1]
    return text


def _valid_new_arxiv(yy: str, mm: str, number: str) -> bool:
    """arXiv's new ids began in April 2007 (0704); five-digit numbers from January 2015."""
    if not 1 <= int(mm) <= 12 or (yy, mm) < ("07", "04"):
        return False
    return len(number) == 4 or (yy, mm) >= ("15", "01")


def find_citations(text: str) -> list[Cited]:
    """Every identifier and author-year citation in `text`, in order of first appearance, once each."""
    found, taken = _identifiers(text)
    found += _author_year(text, taken)
    return _unique(found)


def _unique(found: list[tuple[int, Cited]]) -> list[Cited]:
    found.sort(key=lambda item: item[0])
    seen: set[tuple[str, str]] = set()
    out: list[Cited] = []
    for _, cited in found:
        key = (cited.kind, cited.ident.lower())
        if key not in seen:
            seen.add(key)
            out.append(cited)
    return out


def _free(taken: list[tuple[int, int]], start: int, end: int) -> bool:
    return all(end <= a or start >= b for a, b in taken)


def _identifiers(text: str) -> tuple[list[tuple[int, Cited]], list[tuple[int, int]]]:
    found: list[tuple[int, Cited]] = []
    taken: list[tuple[int, int]] = []
    for match in DOI.finditer(text):
        doi = _trim(match.group(1))
        arxiv = arxiv_of_doi(doi)
        found.append((match.start(), Cited(arxiv, "arxiv") if arxiv else Cited(doi, "doi")))
        taken.append((match.start(), match.start() + len(doi)))
    for match in BIBCODE.finditer(text):
        if _free(taken, *match.span(1)):
            found.append((match.start(), Cited(match.group(1), "bibcode")))
            taken.append(match.span(1))
    for pattern in (ARXIV_PREFIXED, ARXIV_OLD):
        for match in pattern.finditer(text):
            if _free(taken, *match.span(1)):
                found.append((match.start(), Cited(re.sub(r"v\d+$", "", match.group(1)), "arxiv")))
                taken.append(match.span(1))
    for match in ARXIV_NEW.finditer(text):
        if _free(taken, *match.span()) and _valid_new_arxiv(match.group(1), match.group(2), match.group(3)):
            found.append((match.start(), Cited(f"{match.group(1)}{match.group(2)}.{match.group(3)}", "arxiv")))
            taken.append(match.span())
    return found, taken


def _author_year(text: str, taken: list[tuple[int, int]]) -> list[tuple[int, Cited]]:
    found: list[tuple[int, Cited]] = []
    spans: list[tuple[int, int]] = []
    for pattern in (AUTHOR_YEAR, PAREN_SINGLE):
        for match in pattern.finditer(text):
            start = match.start("first")
            if not _free(taken, start, match.end()) or any(a <= start < b for a, b in spans):
                continue
            whole = match.group(0)
            single = pattern is AUTHOR_YEAR and "et al" not in whole and not match.group("second")
            if single and "(" not in whole:
                continue  # "Planck 2018 results": a bare name and year is no citation
            names = tuple(n for n in (match.group("first"), match.groupdict().get("second")) if n)
            if any(_last_word(n).lower() in NOT_SURNAMES or not re.search(r"[a-z]", n) for n in names):
                continue
            year_text = next(g for g in reversed(match.groups()) if g and g.isdigit())
            label = _label(names, "et al" in whole, year_text)
            spans.append((start, match.end()))
            found.append((start, Cited(label, "author-year", surnames=names, year=int(year_text))))
    return found


def _last_word(name: str) -> str:
    return name.split()[-1] if name.split() else name


def _label(names: tuple[str, ...], et_al: bool, year: str) -> str:
    if len(names) == 2:
        return f"{names[0]} & {names[1]} {year}"
    return f"{names[0]}{' et al.' if et_al else ''} {year}"
