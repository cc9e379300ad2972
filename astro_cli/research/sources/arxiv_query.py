"""NASA ADS query syntax translated to what arXiv's API can answer.

search_papers sends one query to both services. The query is parsed (ads_syntax.py) and each part
becomes arXiv's form: `author:"Agol, E"` and `author:"Eric Agol"` -> `au:Agol_E`, accents folded
(arXiv spells Tešanović as Tesanovic), `title:` -> `ti:`, `abs:`, `-word`/`NOT` -> `ANDNOT`, groups
kept. What arXiv has no way to express is handled in one of three ways:

- a second-order operator (citations(), references(), similar(), trending(), topn() ...) answers a
  list of papers arXiv cannot compute; searching arXiv for the words inside would merge unrelated
  papers into the results, so arXiv is not asked at all and `skip` says why in one sentence;
- an identifier (`arXiv:1202.3665`, an arXiv bibcode like 2012arXiv1202.3665F, the arXiv DOI
  10.48550/arXiv.1202.3665) becomes an id_list lookup; other DOIs and bibcodes are ADS's (or
  Crossref's) to resolve, and arXiv stays out without a note: nothing was lost;
- a field arXiv lacks (property:, bibstem:, citation_count: ...) is dropped and named in the notes.

ADS `year:` is the year of publication; arXiv only knows when a paper was submitted, and a paper
published in 2011 was often submitted in 2010. So the arXiv window opens a year early
(submittedDate from January 1 of the year before) and the results are filtered afterwards
(`keep_published_in`): an e-print whose journal reference names a year outside the range goes;
one without a journal reference stays (it may be the paper, still unpublished or never updated).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from astro_cli.research.sources.ads_syntax import (
    OPERATORS,
    Group,
    Node,
    Not,
    Operator,
    QuerySyntaxError,
    Term,
    normalise,
    parse,
)
from astro_cli.research.sources.http import ServiceError
from astro_cli.research.text.pdfchars import fold

if TYPE_CHECKING:
    from astro_cli.research.sources.answers import PaperRecord

ARXIV_ONLY = re.compile(r"(?<![\w:])(ti|au|co|jr|cat|rn|id|all|submitteddate):", re.IGNORECASE)
FIELDS = {"author": "au", "first_author": "au", "title": "ti", "abs": "abs", "abstract": "abs", "full": "all",
          "body": "all", "arxiv_class": "cat"}
IDENTIFIER_FIELDS = ("arxiv", "doi", "bibcode", "identifier")
_YEARS = re.compile(r"^\s*(\d{4}|\*)?\s*(-|\bTO\b)?\s*(\d{4}|\*)?\s*$", re.IGNORECASE)
_ARXIV_ID = re.compile(r"^(?:arxiv:)?(\d{4}\.\d{4,5}(?:v\d+)?|[a-z][a-z-]*(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?)$", re.I)
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.IGNORECASE)
_ARXIV_URL = re.compile(r"^https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/", re.IGNORECASE)
_DOI_URL = re.compile(r"^https?://(?:dx\.)?doi\.org/", re.IGNORECASE)
_DOI = re.compile(r"^10\.\d{4,9}/\S+$")
_ARXIV_BIBCODE = re.compile(r"^(\d{4})arXiv(\d{4})\.?(\d{4,5})[A-Z.]$")
PARTICLES = {"van", "von", "der", "den", "de", "del", "della", "di", "da", "du", "la", "le", "dos", "das", "ter"}


@dataclass
class ArxivQuery:
    text: str = ""  # arXiv's search_query; empty when arXiv is asked by id or not at all
    ids: list[str] = field(default_factory=list)  # arXiv ids to fetch by id_list
    skip: str = ""  # one sentence: why arXiv is not asked at all
    operator: str = ""  # the ADS operator that made arXiv useless for the query
    dropped: list[str] = field(default_factory=list)  # parts of the query arXiv cannot express
    changed: list[str] = field(default_factory=list)  # parts searched more loosely than asked
    years: tuple[int, int] | None = None  # publication years the arXiv results are filtered to
    lookups: list[str] = field(default_factory=list)  # DOIs and bibcodes arXiv cannot look up
    ads_text: str = ""  # the query as ADS receives it (quotes made ASCII)

    def notes(self) -> list[str]:
        """Sentences for the result notes: what arXiv was not asked, and what it was asked loosely."""
        lines = [self.skip] if self.skip else []
        if self.dropped:
            asked = f" (arXiv was asked: {self.text})" if self.text else ""
            lines.append(f"arXiv cannot search by {', '.join(self.dropped)}, so its results ignore that{asked}.")
        return lines + self.changed


def translate(query: str, year_from: int | None = None, year_to: int | None = None) -> ArxivQuery:
    """What to ask arXiv for an ADS-style query (QuerySyntaxError when the query cannot be read)."""
    text = normalise(query)
    if ARXIV_ONLY.search(text):  # arXiv's own syntax passes unchanged
        result = ArxivQuery(text, ads_text=text)
        tree: Node | None = None
    else:
        tree = parse(text)
        result = ArxivQuery(ads_text=text)
        operator = _first_operator(tree)
        if operator is not None:
            result.operator = operator
            result.skip = (f"arXiv was not searched: {operator}() is an ADS operator ({OPERATORS[operator]}) "
                           "with no arXiv equivalent, so only NASA ADS answers this query.")
            return result
        if _identifier_query(tree, result):
            return result
        result.text = _render(tree, result, top=True) or ""
    _add_years(result, year_from, year_to)
    return result


def _first_operator(node: Node) -> str | None:
    if isinstance(node, Operator):
        return node.name
    if isinstance(node, Not):
        return _first_operator(node.item)
    if isinstance(node, Group):
        return next((name for item in node.items if (name := _first_operator(item))), None)
    return None


def _identifier_query(tree: Node, result: ArxivQuery) -> bool:
    """True when the query only names papers by identifier; arXiv ids go to `ids`, others to `lookups`."""
    terms = tree.items if isinstance(tree, Group) and tree.op == "OR" else [tree]
    if not all(isinstance(t, Term) and _names_a_paper(t) for t in terms):
        return False
    bare = []
    for term in terms:
        assert isinstance(term, Term)
        arxiv_id = arxiv_id_of(term.value)
        if arxiv_id:
            result.ids.append(arxiv_id)
        else:
            result.lookups.append(_DOI_URL.sub("", term.value))
        if term.field is None:
            bare.append(f'identifier:"{re.sub(r"v[0-9]+$", "", arxiv_id or _DOI_URL.sub("", term.value))}"')
    if bare:  # a pasted URL or id: ADS is asked for the identifier, not the words of a URL
        result.ads_text = " OR ".join(
            f"{t.field}:{t.value}" if t.field else bare.pop(0) for t in terms if isinstance(t, Term))
    return True


def _names_a_paper(term: Term) -> bool:
    if term.field in IDENTIFIER_FIELDS:
        return True
    return term.field is None and not term.phrase and (
        arxiv_id_of(term.value) is not None or _DOI.match(_DOI_URL.sub("", term.value)) is not None)


def arxiv_id_of(identifier: str) -> str | None:
    """The arXiv id in 'arXiv:1202.3665', '10.48550/arXiv.1202.3665' or '2012arXiv1202.3665F', else None."""
    value = _ARXIV_URL.sub("", _DOI_URL.sub("", identifier.strip()))
    doi = _ARXIV_DOI.match(value)
    if doi:
        value = doi.group(1)
    bibcode = _ARXIV_BIBCODE.match(value)
    if bibcode:
        return f"{bibcode.group(2)}.{bibcode.group(3)}"
    match = _ARXIV_ID.match(value)
    return match.group(1) if match else None


def _render(node: Node, result: ArxivQuery, top: bool = False) -> str | None:
    """arXiv's form of a node, or None when nothing of it can be searched there."""
    if isinstance(node, Term):
        return _term(node, result, top)
    if isinstance(node, Not):
        inner = _render(node.item, result)
        return f"NOT {inner}" if inner else None
    if isinstance(node, Operator):  # only reached inside a query already skipped
        return None
    parts = [p for p in (_render(item, result, top and node.op == "AND") for item in node.items) if p]
    if node.op == "OR":
        kept = [p for p in parts if not p.startswith("NOT ")]
        result.dropped += [f"-{p[4:]}" for p in parts if p.startswith("NOT ")]  # arXiv has no unary NOT
        return _wrap(" OR ".join(kept), len(kept), top=False) if kept else None
    positive = [p for p in parts if not p.startswith("NOT ")]
    negative = [p[4:] for p in parts if p.startswith("NOT ")]
    if not positive:  # only negations: arXiv cannot start with ANDNOT and has nothing to search for
        result.dropped += [f"-{n}" for n in negative]
        return None
    body = " AND ".join(positive) + "".join(f" ANDNOT {n}" for n in negative)
    return body if top else _wrap(body, len(positive) + len(negative), top=False)


def _wrap(body: str, count: int, top: bool) -> str:
    return body if top or count == 1 else f"({body})"


def _term(term: Term, result: ArxivQuery, top: bool) -> str | None:
    name = term.field or "all"
    if name == "year":
        return _year(term, result, top)
    if name in IDENTIFIER_FIELDS:
        arxiv_id = arxiv_id_of(term.value)
        if arxiv_id:
            return f"id:{arxiv_id}"
        result.dropped.append(term.shown)
        return None
    target = FIELDS.get(name) or ("all" if name == "all" else None)
    value = " ".join(term.value.split())
    if target is None or not value:
        if target is None:
            result.dropped.append(term.shown)
        return None
    if term.first or name == "first_author":
        result.changed.append(f"arXiv cannot search by first author: {term.shown} was searched among all authors.")
    if target == "au":
        author = arxiv_author(value)
        return f"au:{author}" if author else None
    if not term.phrase:
        value = re.sub(r"[^\w.*?'-]", "", value)
        return f"{target}:{value}" if value else None
    value = " ".join(value.replace('"', " ").split())
    if not re.search(r"\w", value):
        return None
    return f"{target}:{value}" if re.fullmatch(r"[\w.*?'-]+", value) else f'{target}:"{value}"'


def _year(term: Term, result: ArxivQuery, top: bool) -> str | None:
    match = _YEARS.match(term.value)
    if not match or not (match.group(1) or match.group(3)):
        result.dropped.append(term.shown)
        return None
    first, ranged, last = match.group(1), match.group(2), match.group(3)
    start = int(first) if first and first != "*" else 1991
    end = int(last) if last and last != "*" else (2999 if ranged else start)
    if top:
        result.years = (start, end) if result.years is None else (max(start, result.years[0]),
                                                                    min(end, result.years[1]))
        return None  # added once, widened, by _add_years
    return _window(start, end)


def _window(start: int, end: int) -> str:
    """Submissions from January 1 of the year before `start` (papers are published after submission)."""
    return f"submittedDate:[{max(start - 1, 1991)}01010000 TO {end}12312359]"


def _add_years(result: ArxivQuery, year_from: int | None, year_to: int | None) -> None:
    if year_from or year_to:
        start, end = year_from or 1991, year_to or 2999
        result.years = (start, end) if result.years is None else (max(start, result.years[0]),
                                                                   min(end, result.years[1]))
    if result.years is None or not result.text:
        return
    window = _window(*result.years)
    if _top_level(result.text, " OR "):
        result.text = f"({result.text}) AND {window}"
        return
    cut = _top_level(result.text, " ANDNOT ")  # the window joins the positive terms, before the negations
    if cut is None:
        result.text = f"{result.text} AND {window}"
    else:
        result.text = f"{result.text[:cut]} AND {window}{result.text[cut:]}"


def _top_level(text: str, word: str) -> int | None:
    """Where `word` first occurs outside parentheses and quotes in `text`, else None."""
    depth, quoted = 0, False
    for index, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in "()":
            depth += 1 if ch == "(" else -1
        elif not quoted and depth == 0 and text.startswith(word, index):
            return index
    return None


def arxiv_author(name: str) -> str:
    """arXiv's au: form: 'Agol, E' / 'Eric Agol' / 'E. Agol' -> Agol_E, 'Tešanović, Z' -> Tesanovic_Z,
    'Del Maestro, A.' -> Del_Maestro_A, 'Agol' -> Agol."""
    text = "".join(ch for ch in _ascii(name) if ch.isalnum() or ch in " ,.-'")
    if "," in text:
        surname, _, given = text.partition(",")
    else:
        words = text.split()
        if len(words) > 1 and len(words[-1].rstrip(".")) == 1:  # 'Agol E': surname first, initials after
            surname, given = words[0], " ".join(words[1:])
        else:  # 'Eric Agol', 'Jan van der Berg': the last word and its particles are the surname
            cut = len(words) - 1
            while cut > 0 and words[cut - 1].lower() in PARTICLES:
                cut -= 1
            surname, given = " ".join(words[cut:]), " ".join(words[:cut])
    initials = [part[0].upper() for part in re.split(r"[\s.-]+", given) if part and part[0].isalpha()]
    words = [w for w in re.split(r"\s+", surname.strip()) if w] + initials
    return "_".join(w.strip(".") for w in words if w.strip("."))


def _ascii(text: str) -> str:
    """Accents folded the way arXiv spells names (Tešanović -> Tesanovic), case kept."""
    if text.isascii():
        return text
    return "".join(_fold_char(ch) for ch in text)


def _fold_char(ch: str) -> str:
    folded = fold(ch)
    special = {"ß": "ss", "ø": "o", "æ": "ae", "œ": "oe", "ł": "l", "đ": "d", "ı": "i", "þ": "th"}
    folded = special.get(folded, folded)
    return folded.upper() if ch.isupper() else folded


def publication_year(record: PaperRecord) -> int | None:
    """The year of the journal reference an arXiv record carries, else None."""
    from astro_cli.research.sources.journal_ref import parse_journal_ref

    text = record.get("journal_ref")
    if not text:
        return None
    parsed = parse_journal_ref(str(text))
    return parsed.year if parsed is not None else None


def keep_published_in(records: list[PaperRecord], years: tuple[int, int]) -> list[PaperRecord]:
    """arXiv records that may be papers of `years`: by their journal year when they name one, else
    by submission (a year early counts: the paper may have appeared in the first year of the range)."""
    start, end = years
    kept = []
    for record in records:
        published = publication_year(record)
        submitted = record.get("year")
        if published is not None:
            if start <= published <= end:
                kept.append(record)
        elif submitted is None or start - 1 <= int(submitted) <= end:
            kept.append(record)
    return kept


def plan_of(query: str, year_from: int | None, year_to: int | None) -> ArxivQuery:
    """The query parsed and translated for arXiv; a query that cannot be read is one sentence."""
    try:
        return translate(query, year_from, year_to)
    except QuerySyntaxError as exc:
        raise ServiceError(str(exc)) from None
