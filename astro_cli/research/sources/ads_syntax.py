"""A parser for NASA ADS query syntax: fielded terms, phrases, `=`, `^`, boolean operators,
parentheses, ranges and the second-order operators (citations(), references(), similar() ...).

search_papers sends one query to ADS and, translated, to arXiv (arxiv_query.py). A regular
expression cannot tell `author:("A" OR "B")` from a group, or a misplaced quote from a phrase,
so the query is read into a small tree here. Typographic quotes (“ ” „ « » ″) are read as ASCII
quotes, the way a researcher pasting from a PDF or a word processor means them. A query the
parser cannot read gets one sentence (QuerySyntaxError), never a traceback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MAX_QUERY_CHARS = 1000
# Double quotes of every kind a researcher may paste; single curly quotes stay apostrophes (O’Brien).
QUOTES = str.maketrans({c: '"' for c in "“”„‟«»″〝〞＂"})
# ADS's second-order operators: what they answer is a list of papers arXiv cannot compute.
OPERATORS = {
    "citations": "the papers citing the ones inside it",
    "references": "the papers the ones inside it cite",
    "similar": "papers whose text resembles the ones inside it",
    "trending": "papers read by the readers of the ones inside it",
    "useful": "papers cited by the ones inside it, ranked by use",
    "reviews": "papers citing the ones inside it, ranked as reviews",
    "topn": "the top N papers of the query inside it",
    "pos": "papers matching a term at an author or word position",
    "docs": "a stored ADS library or query",
}
# ADS search fields (https://ui.adsabs.harvard.edu/help/search/comprehensive-solr-term-list).
ADS_FIELDS = frozenset("""
abs abstract ack aff aff_id affil alternate_bibcode alternate_title arxiv arxiv_class author author_count
bibcode bibgroup bibstem body caption citation citation_count cite_read_boost classic_factor collection
comment copyright data database date doctype doi editor eid entdate entry_date esources first_author full
grant identifier inst isbn issn issue keyword lang mention nedid nedtype object orcid orcid_other
orcid_pub orcid_user page page_count page_range property pub pub_raw pubdate pubnote read_count reference
series simbid simbtype title uat vizier volume year
""".split())


class QuerySyntaxError(ValueError):
    """The query cannot be read; the message is one sentence saying what to fix."""


@dataclass
class Term:
    """A word or phrase, perhaps fielded: `author:"^Agol, E"`, `=title:albedo`, `year:[2010 TO 2012]`."""

    value: str
    field: str | None = None
    phrase: bool = False
    exact: bool = False  # `=`: ADS matches without synonyms
    first: bool = False  # `^`: first author only
    shown: str = ""  # as the user wrote it, for notes


@dataclass
class Group:
    op: str  # "AND" or "OR"
    items: list[Node] = field(default_factory=list)


@dataclass
class Not:
    item: Node


@dataclass
class Operator:
    name: str
    inner: str


Node = Term | Group | Not | Operator


def normalise(query: str) -> str:
    """The query with typographic double quotes made ASCII and runs of whitespace made one space."""
    return " ".join(query.translate(QUOTES).split())


def parse(query: str) -> Node:
    """The tree of an ADS query; QuerySyntaxError with one sentence when it cannot be read."""
    text = normalise(query)
    if not text:
        raise QuerySyntaxError("The query is empty.")
    if len(text) > MAX_QUERY_CHARS:
        raise QuerySyntaxError(
            f"The query is {len(text):,} characters long; search takes at most {MAX_QUERY_CHARS:,}: "
            "name the key terms, authors or identifiers instead of pasting a passage.")
    return _Parser(_tokens(text)).query()


_WORD_END = re.compile(r'[\s()"\[]')
_FIELD = re.compile(r"([A-Za-z_]+):(?!//)")


def _tokens(text: str) -> list[tuple[str, str]]:
    """(kind, text) pairs: ( ) PHRASE RANGE WORD FIELD OPERATOR SIGN; quotes and brackets checked."""
    out: list[tuple[str, str]] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c in "()":
            out.append((c, c))
            i += 1
        elif c == '"':
            end = text.find('"', i + 1)
            if end < 0:
                raise QuerySyntaxError(f"The query has an unbalanced quote (opened at character {i + 1}); "
                                       "close the phrase or remove the quote.")
            out.append(("PHRASE", text[i + 1:end]))
            i = end + 1
        elif c == "[":
            end = text.find("]", i + 1)
            if end < 0:
                raise QuerySyntaxError("The query opens a range with '[' but never closes it with ']'.")
            out.append(("RANGE", text[i + 1:end]))
            i = end + 1
        elif c in "-+=^" and i + 1 < n and not text[i + 1].isspace() and (i == 0 or not text[i - 1].isalnum()):
            out.append(("SIGN", c))
            i += 1
        else:
            match = _FIELD.match(text, i)
            if match and (match.end() >= n or text[match.end()].isspace()):
                if match.group(1).lower() in ADS_FIELDS:
                    raise QuerySyntaxError(f"The field '{match.group(1)}:' is followed by nothing; "
                                           f"write e.g. {match.group(1)}:\"...\".")
                out.append(("WORD", match.group(1)))  # prose ("Review: hot Jupiters"), not a field
                i = match.end()
                continue
            if match:
                out.append(("FIELD", match.group(1).lower()))
                i = match.end()
                continue
            end_match = _WORD_END.search(text, i)
            end = end_match.start() if end_match else n
            word = text[i:end]
            if end < n and text[end] == "(" and word.lower() in OPERATORS:
                close = _matching(text, end)
                out.append(("OPERATOR", f"{word.lower()}\0{text[end + 1:close]}"))
                i = close + 1
                continue
            out.append(("WORD", word))
            i = end
    return out


def _matching(text: str, start: int) -> int:
    """The index of the ')' closing the '(' at `start`, skipping quoted text."""
    depth, quoted = 0, False
    for index in range(start, len(text)):
        ch = text[index]
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch == "(":
            depth += 1
        elif not quoted and ch == ")":
            depth -= 1
            if depth == 0:
                return index
    if quoted:
        raise QuerySyntaxError("The query has an unbalanced quote; close the phrase or remove the quote.")
    raise QuerySyntaxError("The query has an unbalanced parenthesis: a '(' is never closed.")


class _Parser:
    """Recursive descent: OR binds loosest, then AND (explicit or implied), then NOT and '-'."""

    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.at = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def query(self) -> Node:
        node = self.disjunction(default=None)
        if self.peek() is not None:  # only a stray ')' stops a disjunction early
            raise QuerySyntaxError("The query has an unbalanced parenthesis: a ')' closes nothing.")
        return node

    def disjunction(self, default: str | None) -> Node:
        items = [self.conjunction(default)]
        while self._is_word("OR"):
            self.take()
            items.append(self.conjunction(default))
        return items[0] if len(items) == 1 else Group("OR", items)

    def conjunction(self, default: str | None) -> Node:
        items: list[Node] = []
        while (token := self.peek()) is not None and token[0] != ")" and not self._is_word("OR"):
            if self._is_word("AND"):
                self.take()
                continue
            items.append(self.unary(default))
        if not items:
            raise QuerySyntaxError("The query has an operator (AND, OR, NOT) or '()' with nothing on one side.")
        return items[0] if len(items) == 1 else Group("AND", items)

    def unary(self, default: str | None) -> Node:
        if self._is_word("NOT") or self.peek() == ("SIGN", "-"):
            self.take()
            return Not(self.unary(default))
        if self.peek() == ("SIGN", "+"):
            self.take()
        return self.atom(default)

    def atom(self, default: str | None) -> Node:
        exact = first = False
        while (token := self.peek()) is not None and token[0] == "SIGN":
            self.take()
            exact, first = exact or token[1] == "=", first or token[1] == "^"
        if self.peek() is None:
            raise QuerySyntaxError("The query ends with an operator or sign and nothing after it.")
        kind, text = self.take()
        if kind == "(":
            node = self.disjunction(default)
            if self.peek() is None:
                raise QuerySyntaxError("The query has an unbalanced parenthesis: a '(' is never closed.")
            self.take()
            return node
        if kind == ")":
            raise QuerySyntaxError("The query has an unbalanced parenthesis: a ')' closes nothing.")
        if kind == "OPERATOR":
            name, inner = text.split("\0", 1)
            return Operator(name, inner)
        if kind == "FIELD":
            return self.fielded(text, exact, first)
        shown = f'"{text}"' if kind == "PHRASE" else (f"[{text}]" if kind == "RANGE" else text)
        return Term(text, default, phrase=kind == "PHRASE", exact=exact, first=first, shown=shown)

    def fielded(self, name: str, exact: bool, first: bool) -> Node:
        if name not in ADS_FIELDS:
            raise QuerySyntaxError(
                f"'{name}:' is not an ADS search field; use author:, title:, abs:, year:, bibcode:, doi:, "
                "arXiv: or full: (or plain words).")
        if self.peek() is not None and self.peek()[0] == "SIGN" and self.peek()[1] == "^":  # type: ignore[index]
            self.take()
            first = True
        if self.peek() is not None and self.peek()[0] == "(":  # type: ignore[index]
            self.take()
            node = self.disjunction(default=name)
            if self.peek() is None:
                raise QuerySyntaxError("The query has an unbalanced parenthesis: a '(' is never closed.")
            self.take()
            return node
        if self.peek() is None or self.peek()[0] not in ("WORD", "PHRASE", "RANGE"):  # type: ignore[index]
            raise QuerySyntaxError(f"The field '{name}:' is followed by nothing it can search for.")
        kind, value = self.take()
        phrase = kind == "PHRASE"
        quoted = f'"{value}"' if phrase else (f"[{value}]" if kind == "RANGE" else value)
        shown = f"{'=' if exact else ''}{name}:{'^' if first else ''}{quoted}"
        if value.startswith("^"):
            value, first = value[1:], True
        return Term(value, name, phrase=phrase, exact=exact, first=first, shown=shown)

    def _is_word(self, word: str) -> bool:
        return self.peek() == ("WORD", word)
