"""Finding what an answer cites: ADS bibcodes, arXiv ids, DOIs and author-year citations.

Identifiers are found with strict patterns so prose is not mistaken for a citation: a bibcode is
19 characters with a journal part that has a letter (`2020A&A...642C...1G`); a new-style arXiv id
without its `arXiv:` prefix must have a real year and month, not in the future, and the number of
digits arXiv used then (`1001.0012`, not `6563.2800`); it is no id next to a unit or after an ion
(`Fe II 1608.4511 Å`, `λ1302.1685`). A DOI starts `10.NNNN/`. A bibcode's or DOI's characters are
not searched again for an arXiv id. What has the shape of an id but is not one (`arXiv:1001.12`,
`2013PASP.125..306F`) is reported as malformed. Code blocks, inline code and
passage handles (checked as passages, grounding.py) are not read.

An author-year citation needs the shape of one: `Foreman-Mackey et al. 2013`, `Cowan & Agol
(2011)`, `(Gould 2006)`, `Hubble (1929)`; a list of three or more authors and a collaboration keep
their first author (`Foreman-Mackey, Hogg, Lang & Goodman (2013)` is Foreman-Mackey et al. 2013).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date

from astro_cli.research.identifiers import arxiv_of_doi

# The id patterns open with a lookahead of their first character: a search passes over other characters at once.
BIBCODE = re.compile(r"(?=\d)(?<![\w.&])(?=\d{4}[.&]*[A-Za-z])(\d{4}[A-Za-z&.]{5}[\w.&]{9}[A-Za-z.])(?![\w&])")
# Something a bibcode was meant to be: year, a journal, dots and digits, an initial; not 19 characters.
NEAR_BIBCODE = re.compile(r"(?=\d)(?<![\w.&/])(\d{4}[A-Z][A-Za-z&]{0,5}\.[\w.&]{0,16}\.[\w.&]{0,16}[A-Z])(?![\w&])")
DOI = re.compile(r"(?=1)(?<![\w.])(10\.\d{4,9}/[^\s\"'<>{}|\\^`]+)")
ARXIV_PREFIXED = re.compile(
    r"(?:arXiv:\s?|arxiv\.org/(?:abs|pdf)/)((?:\d{4}\.\d{4,5}|[a-z][a-z-]*(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?)(?![\w.]*\d)",
    re.IGNORECASE,
)
ARXIV_ANY_PREFIXED = re.compile(r"arXiv:\s?([\w./-]{0,40}\w)", re.IGNORECASE)
ARXIV_NEW = re.compile(r"(?=\d)(?<![\w./-])(\d{2})(\d{2})\.(\d{4,5})(v\d+)?(?![\w-]|\.\d)")
ARXIV_OLD = re.compile(r"(?<![\w./-])((?:astro-ph|gr-qc|hep-(?:ph|th|ex|lat)|nucl-(?:th|ex)|physics|quant-ph|"
                       r"cond-mat|math-ph|nlin|math|cs)(?:\.[A-Z]{2})?/\d{7})(v\d+)?(?![\w-])")
TRAILING = ".,;:!?)]'\""
# A number that is a measurement, not an id: a unit after it, or a line's name before it.
UNIT_AFTER = re.compile(r"\s?(?:Å|A\b|Angstr|nm\b|μm|µm|um\b|mu?m\b|km\s?/?\s?s|km\s?s|cm|mJy|Jy|K\b|eV|keV|MHz|GHz|"
                        r"kpc|Mpc|pc\b|AU\b|au\b|deg|°|arcsec|mas\b|″|′|\$)")
LINE_BEFORE = re.compile(r"(?:\b[A-Z][a-z]?\s?\[?[IVX]{1,5}\]?|λ|\\lambda|lambda|\bH\s?[αβγδ]|[Hh]-?alpha|[A-Z]{2,}|"
                         r"[=~≈<>±]|Ly\s?[αβ])\s*$")
LINE_LIST = re.compile(r"\d{4}\.\d{3,5}(?:\s*(?:,|and|&)\s*\d{4}\.\d{3,5})+\s?(?:Å|A\b|Angstr|nm\b|μm|µm|um\b|km)")
CODE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|`[^`\n]+`", re.DOTALL)

_LETTER = r"[^\W\d_]"
_UPPER = r"[A-Z\u00C0-\u00DE\u0100-\u017F\u0186-\u024F]"  # checked to be upper case after matching
PARTICLES = ("van", "von", "de", "der", "den", "del", "della", "da", "di", "du", "dos", "das", "le", "la", "ter", "ten",
             "al", "el", "bin", "ibn", "mac")
_PARTICLE = rf"(?:(?:{'|'.join(f'[{p[0]}{p[0].upper()}]{p[1:]}' for p in PARTICLES)})\s+)"
_WORD = rf"{_UPPER}{_LETTER}{{0,30}}(?:['’]{_LETTER}{{1,30}})?(?:-{_UPPER}?{_LETTER}{{1,30}}){{0,3}}"  # bounded: no backtracking blow-up
_SURNAME = rf"(?:{_PARTICLE}{{1,3}}{_WORD}(?:\s+{_WORD}(?=\s+(?:et\s+al\b|&|and\b)|,?\s+\(?\d))?|{_WORD})"
_COLLAB = rf"(?:(?:{_WORD}|[A-Z0-9]{{2,}})\s+){{1,4}}(?:Collaboration|Consortium|Team)"
_NAME = rf"(?:{_COLLAB}|{_SURNAME}(?:\s+Collaboration)?)"
_YEAR = r"(1[6-9]\d\d|20\d\d)[a-z]?"
AUTHOR_LIST = re.compile(
    rf"(?<![\w'’-])(?P<first>{_NAME})(?:,\s+{_NAME}){{1,8}}(?:,?\s+(?:&|and)\s+{_NAME}|,?\s+et\s+al\.?)"
    rf"(?:,?\s+\(?{_YEAR}\)?|\s+\({_YEAR}[;,)])")
AUTHOR_YEAR = re.compile(
    rf"""(?<![\w'’-])(?P<first>{_NAME})
        (?:\s+et\s+al\.?|\s+(?:&|and)\s+(?P<second>{_NAME}))?
        (?:,?\s+\(?{_YEAR}\)?|\s+\({_YEAR}[;,)])""",
    re.VERBOSE,
)
PAREN_SINGLE = re.compile(rf"[(;]\s*(?:e\.g\.,?\s*|see\s+(?:also\s+)?|cf\.\s*)?(?P<first>{_NAME}),?\s+{_YEAR}(?=\s*[;),])")
# Every character an AUTHOR_LIST or AUTHOR_YEAR match can hold; a stretch of them holding no year holds no match, so
# only the stretches with a year are searched (the patterns try every capitalised word: most of the cost of an answer)
_AUTHOR_RUN = re.compile(r"[\w\s'’,.&();-]+")
_ANY_YEAR = re.compile(r"1[6-9]\d\d|20\d\d")
NOT_SURNAMES = {
    "in", "since", "by", "from", "table", "figure", "fig", "section", "sect", "eq", "equation", "until", "after",
    "before", "during", "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "the", "and", "of", "for", "dr", "data", "release", "version", "run", "year",
    "summer", "winter", "spring", "autumn", "fall", "epoch", "cycle", "phase", "circa", "about", "between",
    "also", "see", "as", "at", "on", "to", "jwst", "hst", "gaia", "appendix", "eqs", "tab", "ref", "refs",
}


@dataclass(frozen=True)
class Cited:
    """One thing an answer cites. `ident` is normalised (arXiv id without prefix or version)."""

    ident: str
    kind: str  # bibcode | arxiv | doi | author-year | malformed
    surnames: tuple[str, ...] = field(default=())
    year: int | None = None
    version: int | None = None  # an arXiv id's vN, which must exist
    paired: str | None = None  # "Cowan & Agol (2010, arXiv:1011.0428)": the id this author-year goes with

    @property
    def lookup(self) -> str:
        """The identifier as library and lookups take it."""
        return self.ident

    @property
    def label(self) -> str:
        """How the researcher sees it: arXiv ids with their prefix (and version), DOIs and bibcodes as they are."""
        if self.kind == "arxiv":
            return f"arXiv:{self.ident}" + (f"v{self.version}" if self.version else "")
        return self.ident


def _trim(text: str) -> str:
    while text and text[-1] in TRAILING:
        if text[-1] == ")" and text.count("(") >= text.count(")"):
            break
        text = text[:-1]
    return text


def valid_new_arxiv(yy: str, mm: str, number: str, today: date | None = None) -> bool:
    """arXiv's new ids began in April 2007 (0704), with four digits until December 2014 and five
    from January 2015; none is from a month still to come."""
    today = today or date.today()
    if not 1 <= int(mm) <= 12 or (yy, mm) < ("07", "04"):
        return False
    if (2000 + int(yy), int(mm)) > (today.year, today.month):
        return False
    return len(number) == (5 if (yy, mm) >= ("15", "01") else 4)


def mask_code(text: str) -> str:
    """The text with code blocks and inline code blanked (same length): nothing in code is a citation."""
    if "`" not in text and "~~~" not in text:
        return text
    return CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def mask_handles(text: str) -> str:
    """The text with passage handles (`[1001.0012:p5:c12]`) blanked: their paper ids are checked as passages."""
    from astro_cli.citations.handles import find_handle_cites

    if ":c" not in text and ":abs" not in text:
        return text
    for cite in reversed(find_handle_cites(text)):
        text = text[:cite.start] + " " * (cite.end - cite.start) + text[cite.end:]
    return text


def find_citations(text: str, today: date | None = None) -> list[Cited]:
    """Every identifier and author-year citation in `text`, in order of first appearance, once each."""
    return unique(find_citations_at(text, today))


def find_citations_at(text: str, today: date | None = None) -> list[tuple[int, Cited]]:
    """Every citation in `text` with the offset where it stands (repeats kept)."""
    text = mask_handles(mask_code(text))
    found, taken = _identifiers(text, today)
    found += _author_year(text, taken, found)
    return found


def unique(found: list[tuple[int, Cited]]) -> list[Cited]:
    found = sorted(found, key=lambda item: item[0])
    seen: set[tuple[str, str, int | None]] = set()
    out: list[Cited] = []
    for _, cited in found:
        key = (cited.kind, cited.ident.lower(), cited.version)
        if key not in seen:
            seen.add(key)
            out.append(cited)
    return out


def _free(taken: list[tuple[int, int]], start: int, end: int) -> bool:
    return all(end <= a or start >= b for a, b in taken)


def _version(text: str | None) -> int | None:
    return int(text[1:]) if text else None


def _measurement(text: str, start: int, end: int) -> bool:
    """A bare number with a unit after it or a spectral line's name (or a relation) before it."""
    return bool(UNIT_AFTER.match(text, end) or LINE_BEFORE.search(text[max(0, start - 12):start]))


def _identifiers(text: str, today: date | None) -> tuple[list[tuple[int, Cited]], list[tuple[int, int]]]:
    found: list[tuple[int, Cited]] = []
    taken: list[tuple[int, int]] = []
    for match in DOI.finditer(text):
        doi = _trim(match.group(1))
        arxiv = arxiv_of_doi(doi)
        found.append((match.start(), Cited(arxiv, "arxiv") if arxiv else Cited(doi, "doi")))
        taken.append((match.start(), match.start() + len(doi)))
    for match in BIBCODE.finditer(text):
        if _free(taken, *match.span(1)):
            ident = match.group(1)
            cut = ident.endswith(".") and text[match.end(1):match.end(1) + 1].strip() == ""
            # "2013PASP.125..306F." at a sentence's end: 18 characters and a full stop, not a bibcode
            found.append((match.start(), Cited(ident[:-1], "malformed") if cut else Cited(ident, "bibcode")))
            taken.append(match.span(1))
    for match in LINE_LIST.finditer(text):  # "1302.1685, 1304.8576, 1306.0286 Å": measurements
        taken.append(match.span())
    for match in ARXIV_PREFIXED.finditer(text):
        ident = re.sub(r"v\d+$", "", match.group(1))
        new = re.fullmatch(r"(\d\d)(\d\d)\.(\d+)", ident)
        if _free(taken, *match.span(1)) and (new is None or valid_new_arxiv(new.group(1), new.group(2), new.group(3), today)):
            version = re.search(r"v(\d+)$", match.group(1))
            found.append((match.start(), Cited(ident, "arxiv", version=int(version.group(1)) if version else None)))
            taken.append(match.span(1))
    for match in ARXIV_OLD.finditer(text):
        if _free(taken, *match.span(1)):
            found.append((match.start(), Cited(match.group(1), "arxiv", version=_version(match.group(2)))))
            taken.append(match.span(1))
    for match in ARXIV_NEW.finditer(text):
        if not _free(taken, *match.span()) or _measurement(text, match.start(), match.end()):
            continue
        if valid_new_arxiv(match.group(1), match.group(2), match.group(3), today):
            ident = f"{match.group(1)}{match.group(2)}.{match.group(3)}"
            found.append((match.start(), Cited(ident, "arxiv", version=_version(match.group(4)))))
            taken.append(match.span())
    for pattern in (ARXIV_ANY_PREFIXED, NEAR_BIBCODE):  # what looks meant as an id but is none
        for match in pattern.finditer(text):
            if _free(taken, *match.span(1)):
                shown = ("arXiv:" if pattern is ARXIV_ANY_PREFIXED else "") + _trim(match.group(1))
                found.append((match.start(), Cited(shown, "malformed")))
                taken.append(match.span(1))
    return found, taken


def _author_year(text: str, taken: list[tuple[int, int]], ids: list[tuple[int, Cited]]) -> list[tuple[int, Cited]]:
    found: list[tuple[int, Cited]] = []
    spans: list[tuple[int, int]] = []
    runs = [(run.start(), run.end()) for run in _AUTHOR_RUN.finditer(text) if _ANY_YEAR.search(run.group(0))]
    for pattern in (AUTHOR_LIST, AUTHOR_YEAR, PAREN_SINGLE):
        for match in _matches(pattern, text, runs):
            start = match.start("first")
            if not _free(taken, start, match.end()) or not _free(spans, start, match.end()):
                continue
            whole = match.group(0)
            many = pattern is AUTHOR_LIST
            second = None if many else match.groupdict().get("second")
            single = pattern is AUTHOR_YEAR and "et al" not in whole and not second
            if single and "(" not in whole:
                continue  # "Planck 2018 results": a bare name and year is no citation
            names = tuple(n for n in (match.group("first"), second) if n)
            if any(not _is_name(n) for n in names):
                continue
            year_text = next(g for g in reversed(match.groups()) if g and g.isdigit())
            label = _label(names, many or "et al" in whole, year_text)
            spans.append((start, match.end()))
            found.append((start, Cited(label, "author-year", surnames=names, year=int(year_text),
                                       paired=_paired(text, match.end(), ids))))
    return found


def _matches(pattern: re.Pattern[str], text: str, runs: list[tuple[int, int]]) -> Iterator[re.Match[str]]:
    """`pattern.finditer(text)`; for the author patterns, within the runs that can hold a match (the same matches: a
    match never holds a character outside a run, and a search's lookbehind still reads the text before its start)."""
    if pattern is PAREN_SINGLE:
        yield from pattern.finditer(text)
        return
    for start, end in runs:
        yield from pattern.finditer(text, start, end)


def _paired(text: str, end: int, ids: list[tuple[int, Cited]]) -> str | None:
    """The id written in the same parenthesis right after an author-year: "(2010, arXiv:1011.0428)"."""
    if text[end - 1:end] not in ",;" and not text[end:end + 2].lstrip().startswith(","):
        return None
    for position, cited in ids:
        if end - 1 <= position <= end + 12 and cited.kind in ("arxiv", "bibcode", "doi") and ")" not in text[end:position]:
            return f"{cited.kind}:{cited.ident}"
    return None


def _is_name(name: str) -> bool:
    words = name.split()
    core = [w for w in words if w.lower() not in PARTICLES] or words
    if words[-1].lower() in NOT_SURNAMES or not re.search(r"[^\W\d_]", name):
        return False
    return core[0][0].isupper() and bool(re.search(r"[a-z\u00DF-\u00FF\u0101-\u017F]", name) or "Collaboration" in name)


def _label(names: tuple[str, ...], et_al: bool, year: str) -> str:
    if len(names) == 2:
        return f"{names[0]} & {names[1]} {year}"
    return f"{names[0]}{' et al.' if et_al else ''} {year}"
