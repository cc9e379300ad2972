"""Splitting an answer into claims: the sentences that cite something or state a number.

A claim is a sentence (or a list item) that carries a passage handle, a paper citation, a
quantity that reads as a result (`0.42`, `1.2 × 10^5 K`, `35%`, read by quantities.py), or that
credits the literature ("it is well established", "studies have shown"). Numbers that only point
somewhere are not results: years (by context), list markers, equation, table, figure and section
numbers, dates, and the numbers inside designations (`NGC 1275`, `WASP-12b`, `β Pic b`), which are
kept as names the passage must contain instead. Code blocks are not read. A bracketed handle after a sentence's full
stop belongs to that sentence.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from astro_cli.citations.credits import credits_literature
from astro_cli.citations.extract import Cited, find_citations_at, mask_code
from astro_cli.citations.handles import CITE, find_handle_cites
from astro_cli.citations.quantities import quantities
from astro_cli.citations.quantity import Quantity

MAX_CLAIMS = 2000  # a 50,000-word answer is checked up to here; the rest is counted, not read
_ABBREVIATIONS = {"al", "e.g", "i.e", "fig", "figs", "eq", "eqs", "sect", "sec", "cf", "vs", "approx", "no", "ref",
                  "refs", "tab", "ca", "resp", "dr", "prof", "st", "etc", "vol", "p", "pp", "ch", "app", "max", "min"}
_BOUNDARY = re.compile(r"(?<=[.!?])[\"”’)]?\s+(?=[\[(\"“*_]*[A-Z0-9\u00C0-\u017F\[])|\n\s*\n|\n(?=\s*(?:[-*+•]|\d+[.)])\s)")
# A star's component letter after a designation (`α Cen A`, `HD 41004 B b`, `Kepler-16 (AB)`): part of the name.
_STAR = r"(?:\s?\((?:A|B|C|AB|BC|ABC)\)|\s(?:A|B|C|AB|BC|ABC)(?![\w-]))?"
DESIGNATION = re.compile(
    r"\b(?=[A-Z0-9])(?:NGC|IC|HD|HIP|HR|TYC|KIC|KOI|TOI|TIC|EPIC|NLTT|LSPM|TWA|BD|CD|WASP|HAT-P|HATS|Kepler|K2|CoRoT|XO|TrES|GJ|Gl|Gliese|LHS|TRAPPIST|PSR|"
    r"SDSS|2MASS|WISE|Gaia\s+DR\d|3C|Mrk|Arp|UGC|PGC|LTT|LP|Messier|M|SN|GRB|FRB|GW|AT|Qatar|KELT|HATNet|"
    r"CoRoT|OGLE|MOA|HH|PKS|QSO|Abell|Cyg|Sgr|Cen|Vela)[-\s]?J?\d[\w.+:-]*" + _STAR + r"(?:\s?[a-h]\b)?"
    # a source named by its coordinates after any catalogue's letters: `1E 0102.2-7219`, `4U 1820-30`, `RX J1713.7-3946`
    r"|\b\d?[A-Z]{1,5}\s?J?\d{4}(?:\.\d+)?[-+–−]\d{2,4}(?:\.\d+)?(?![\d.])"
)
# A Bayer designation: a Greek letter (or its name) and a constellation, with a planet's letter: `β Pic b`, `tau Boo`.
GREEK_DESIGNATION = re.compile(
    r"(?<![\w-])(?:[α-ωϵϕ]|(?i:alpha|beta|gamma|delta|epsilon|zeta|eta|theta|iota|kappa|lambda|mu|nu|xi|omicron|pi|rho|"
    r"sigma|tau|upsilon|phi|chi|psi|omega)(?=[\s-]))[\s-]?[A-Z][a-z]{2,11}\b" + _STAR + r"(?:\s?[b-h]\b)?"
)
POWER = re.compile(r"(?:[^\W\d_]|[})])(?:\^\{?\s*|(?=[²³]))[\d²³]$")  # `χ²`, `\chi^2`, `km^{2}`: an exponent
POINTERS = re.compile(
    r"(?:\b(?:Eqs?|Equations?|Tables?|Tab|Figs?|Figures?|Sect?s?|Sections?|Appendix|Chapter|Ch|Step|Item|Paper|"
    r"No|Vol|p|pp|page|pages|version|v|DR|Cycle|Run|O)\.?\s*\(?|§\s*|\bref\.\s*|#)$",
    re.IGNORECASE,
)
_ID_CITES = r"arXiv:\S+|\b\d{4}[A-Za-z&.]{5}[\w.&]{9}[A-Za-z.]|10\.\d{4,9}/\S+"
_CITE_SPANS = re.compile(r"\((?:[^()]*\d{4}[a-z]?)\)|\b\w+(?:\s+et\s+al\.)?\s+\(\d{4}[a-z]?\)|" + _ID_CITES)
_ID_SPANS = re.compile(_ID_CITES)  # `_CITE_SPANS` of a sentence with no `(`: its first two forms need one
_VALUE_AFTER = re.compile(r"\s?(?:\^\s?\{?\s?[-+]|±|\+/-|_\s?\{?\s?-)")
_CAPITAL_DIGIT = re.compile(r"[A-Z][\w+-]{0,12}[\s-]?J?\d")
_MARKER = re.compile(r"\s*(?:\d+[.)]\s)")
_LAST_WORD = re.compile(r"([\w.]+)\.[\"”’)]?$")
_ITEM_START = re.compile(r"\s*(?:[-*+•]\s*)?\d+[.)]")
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\w*\s+\d{4}\b")
# Words that attribute a result to the literature or to observations: such a claim needs a source even
# in an answer given with no tool at all ("... as established by JWST in 2023").
_ATTRIBUTION = re.compile(
    r"\b(?:as\s+(?:was\s+|has\s+been\s+)?(?:established|shown|found|measured|reported|demonstrated|determined|"
    r"derived|observed|confirmed)\s+(?:by|in)\b|according\s+to\b|(?:was|were|has\s+been|have\s+been)\s+"
    r"(?:established|measured|reported|found|shown|observed|confirmed|determined)\s+(?:by|in|with)\b|"
    r"(?:stud(?:y|ies)|surveys?|observations?|papers?|authors|measurements?|work|analys[ie]s)\s+"
    r"(?:\w+\s+){0,3}?(?:show(?:s|ed)?|f(?:ind|ound)s?|reports?(?:ed)?|measured?|established|confirm(?:s|ed)?)\b|"
    r"\b(?:published|discovered)\s+(?:by|in)\b)",
    re.IGNORECASE,
)
_COORD = re.compile(r"\b\d{1,2}[h:]\s?\d{2}[m:]\s?\d{2}(?:\.\d+)?s?\b|[+\-−]\d{1,2}[d°:]\s?\d{2}['′:]\s?\d{2}(?:\.\d+)?")


@dataclass
class Claim:
    """One claim of an answer: its text, what it cites, and what the cited passage must contain."""

    text: str
    start: int
    handles: tuple[str, ...] = ()
    cites: tuple[Cited, ...] = ()
    quantities: tuple[Quantity, ...] = ()
    names: tuple[str, ...] = ()
    spans: list[tuple[int, int]] = field(default_factory=list)  # cites and handles, relative to `text`

    @property
    def attributed(self) -> bool:
        """Whether the sentence credits its result to the literature or to observations."""
        return bool(_ATTRIBUTION.search(self.text) or credits_literature(self.text))

    @property
    def numbers(self) -> tuple[str, ...]:
        """The quantities as the claim wrote them."""
        return tuple(q.text for q in self.quantities)

    @property
    def cited(self) -> bool:
        return bool(self.handles or [c for c in self.cites if c.kind != "malformed"])


def sentences(text: str) -> list[tuple[int, str]]:
    """(offset, sentence) pairs; a bracketed handle after a full stop stays with its sentence."""
    out: list[tuple[int, str]] = []
    last = 0
    for match in _BOUNDARY.finditer(text):
        before = text[last:match.start()]
        word = _LAST_WORD.search(before[-40:])
        if match.group(0).strip() == "" and "\n" not in match.group(0) and word and (
                word.group(1).lower() in _ABBREVIATIONS or re.fullmatch(r"[A-Z]", word.group(1))):
            continue  # "et al. 2013", "Fig. 3", "N. B. Cowan"
        if _ITEM_START.fullmatch(text, last, match.start()):
            continue  # "1. " opens a list item
        if text[match.end():match.end() + 1] == "[" and CITE.match(text, match.end()):
            continue  # "... is 0.3. [1001.0012:p5:c12]"
        out.append((last, before))
        last = match.end()
    out.append((last, text[last:]))
    return [(start, s) for start, s in out if s.strip()]


def _quantities(sentence: str, skip: list[tuple[int, int]]) -> list[Quantity]:
    """The quantities a sentence states as results: not years, pointers (`Table 2`), list markers, or
    numbers inside citations, dates, coordinates and designations."""
    found = []
    for quantity in quantities(sentence, claim=True):
        start = quantity.start
        if quantity.year or any(a <= start < b for a, b in skip) or POINTERS.search(sentence[max(0, start - 14):start]):
            continue
        if POWER.search(sentence, max(0, start - 3), start + 1):
            continue  # the power of a symbol or a unit (`χ²`, `\chi^2`, `km²`), not a value
        if sentence[:start].strip() in ("", "-", "*") and _MARKER.match(sentence, start):
            continue  # a list marker
        found.append(quantity)
    return found


def split_claims(text: str, found: list[tuple[int, Cited]] | None = None) -> tuple[list[Claim], int]:
    """(the answer's claims, how many sentences were left unread past MAX_CLAIMS). `found`: the
    answer's citations with their offsets (find_citations_at), when the caller has them already."""
    masked = mask_code(text)
    found = sorted(found if found is not None else find_citations_at(text), key=lambda item: item[0])
    offsets = [position for position, _ in found]
    claims: list[Claim] = []
    all_sentences = sentences(masked)
    for start, sentence in all_sentences[:MAX_CLAIMS]:
        start += len(sentence) - len(sentence.lstrip())
        sentence = sentence.strip()
        handle_cites = find_handle_cites(sentence)
        spans = [(h.start, h.end) for h in handle_cites]
        spans += [m.span() for m in (_CITE_SPANS if "(" in sentence else _ID_SPANS).finditer(sentence)]
        spans += [m.span() for m in _DATE.finditer(sentence)] + [m.span() for m in _COORD.finditer(sentence)]
        designations = list(DESIGNATION.finditer(sentence)) if _CAPITAL_DIGIT.search(sentence) else []
        designations += list(GREEK_DESIGNATION.finditer(sentence))
        # `Kepler 5.7^{+1.4}_{-1.2}`, `Kepler 12 ± 2`: a value with its uncertainty after a word is a number, not a name
        designations = [m for m in designations if not _VALUE_AFTER.match(sentence, m.end())]
        names = [m.group(0) for m in designations if not any(a <= m.start() < b for a, b in spans)]
        spans += [m.span() for m in designations]
        first, last = bisect.bisect_left(offsets, start), bisect.bisect_left(offsets, start + len(sentence))
        cites = tuple(dict.fromkeys(cited for _, cited in found[first:last]))
        stated = _quantities(sentence, spans)
        handles = tuple(h for cite in handle_cites for h in cite.handles)
        if handles or cites or any(not q.worded for q in stated) or credits_literature(sentence):
            claims.append(Claim(sentence, start, handles, cites, tuple(stated), tuple(dict.fromkeys(names)),
                                spans))
    return claims, max(0, len(all_sentences) - MAX_CLAIMS)
