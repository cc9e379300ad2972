"""The passage sentence a claim rests on, for the rules that compare words rather than numbers (stop 54).

A claim without a changed number can still say the opposite of its passage (`steeper` for `shallower`, `correlates`
for `no correlation`) or name another instrument. Those rules compare the claim with the sentences of the passage
that share its words, best first: the share of the claim's content words (and figures) a sentence holds. LaTeX
comparisons read as symbols (`\\geq` is `≥`), math and markup are dropped, so `$z < 1$` reads `z < 1`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from astro_cli.citations.claims import Claim
from astro_cli.citations.terms import stem
from astro_cli.stopwords import STOPWORDS

SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\\\[$(])|\n\s*\n")
CLAUSE = re.compile(r"[,;:]\s|\s\(|\)(?=[\s,.;:])|\s(?:and|but|while|whereas|although)\s")
_LATEX = (("\\geq", "≥"), ("\\ge ", "≥ "), ("\\leq", "≤"), ("\\le ", "≤ "), ("\\gtrsim", "≳"), ("\\lesssim", "≲"),
          ("\\gt", ">"), ("\\lt", "<"), ("\\sim", "~"), ("\\approx", "≈"), ("−", "-"))
_MARKUP = re.compile(r"\\(?:rm|mathrm|textrm|text|mathit|mathbf|mathcal|left|right|,|;|!)|[{}$]")
_ROW = re.compile(r"\\\\|\s&\s")
_TOKEN = re.compile(r"[^\W_][\w'-]*|[<>≤≥≲≳]")
_SHORT_NAME = re.compile(r"^(?:[A-Z]{2,}|[a-z]?[A-Z][A-Za-z]*\d[\w-]*)$")  # `ZTF`, `NUV`, `CosmoDC2` count though short


@lru_cache(maxsize=8192)
def plain(text: str) -> str:
    """The text as words and comparison symbols: LaTeX comparisons as symbols, markup dropped."""
    text = _ROW.sub(" ; ", text)  # an equation's or a table's rows and cells are clauses of their own
    for latex, symbol in _LATEX:
        text = text.replace(latex, symbol)
    return _MARKUP.sub(" ", text).replace("\\", " ")


def words(text: str) -> list[str]:
    """The content words' stems (figures and acronyms kept), in order."""
    return list(_words(text))


@lru_cache(maxsize=16384)
def _words(text: str) -> tuple[str, ...]:
    out = []
    for token in _TOKEN.findall(text):
        low = token.lower()
        if token[0].isdigit():
            out.append(low.rstrip("%"))
        elif (len(token) >= 4 or _SHORT_NAME.match(token)) and low not in STOPWORDS:
            out.append(stem(token))
            out += [stem(part) for part in token.split("-")[1:] if len(part) >= 4]  # `planet-hosting`: `hosting` too
    return tuple(out)


@lru_cache(maxsize=16384)
def wordset(text: str) -> frozenset[str]:
    """The content words' stems of a text, as a set (cached: clauses are compared with many claims)."""
    return frozenset(_words(text))


def shares(mine: set[str] | frozenset[str], theirs: set[str] | frozenset[str]) -> set[str]:
    """The stems of `mine` that are stems of `theirs`: equal, or one the other's start, of five letters or more
    (`correl` of `correlation`, `correlat` of `correlates`)."""
    exact, by_start = _index(theirs if isinstance(theirs, frozenset) else frozenset(theirs))
    out = set(mine & exact)
    for m in mine:
        if m not in out and len(m) >= 5 and not m[0].isdigit():
            if any(m.startswith(t) or t.startswith(m) for t in by_start.get(m[:5], ())):
                out.add(m)
    return out


@lru_cache(maxsize=4096)
def _index(stems: frozenset[str]) -> tuple[frozenset[str], dict[str, tuple[str, ...]]]:
    """The stems, and those of five letters or more by their first five (`correl` and `correlat` meet there)."""
    by_start: dict[str, list[str]] = {}
    for stem_ in stems:
        if len(stem_) >= 5 and not stem_[0].isdigit():
            by_start.setdefault(stem_[:5], []).append(stem_)
    return stems, {k: tuple(v) for k, v in by_start.items()}


@lru_cache(maxsize=512)
def sentences(passage: str) -> tuple[str, ...]:
    """The passage's sentences, as plain text."""
    return tuple(s.strip() for s in SENTENCE.split(plain(passage)) if s and s.strip())


@lru_cache(maxsize=8192)
def clauses(sentence: str) -> tuple[str, ...]:
    return tuple(c for c in CLAUSE.split(sentence) if c.strip())


def claim_text(claim: Claim) -> str:
    """The claim's own words: its cites and handles blanked."""
    return _blanked(claim.text, tuple(claim.spans))


@lru_cache(maxsize=4096)
def _blanked(text: str, spans: tuple[tuple[int, int], ...]) -> str:
    for a, b in sorted(spans, reverse=True):
        text = text[:a] + " " + text[b:]
    return plain(text)


@dataclass(frozen=True)
class Aligned:
    """A passage sentence and the share of the claim's words it holds."""

    sentence: str
    share: float
    shared: frozenset[str]


@lru_cache(maxsize=2048)
def aligned(text: str, passage: str) -> tuple[Aligned, ...]:
    """The passage's sentences that share any of the claim's words, best first. Looked up by word in the passage's
    index (`_by_word`) rather than by comparing the claim with every sentence: the same matches as `shares`."""
    mine = set(words(text))
    if not mine:
        return ()
    found, exact, by_start = _by_word(passage)
    hits: dict[int, set[str]] = {}
    for m in mine:
        where = exact.get(m, ())
        if len(m) >= 5 and not m[0].isdigit():
            where = (*where, *(i for t, ids in by_start.get(m[:5], ()) if m.startswith(t) or t.startswith(m)
                               for i in ids))
        for i in where:
            hits.setdefault(i, set()).add(m)
    out = [Aligned(found[i], len(common) / len(mine), frozenset(common)) for i, common in sorted(hits.items())]
    return tuple(sorted(out, key=lambda a: -a.share))


@lru_cache(maxsize=512)
def _by_word(passage: str) -> tuple[tuple[str, ...], dict[str, tuple[int, ...]],
                                    dict[str, tuple[tuple[str, tuple[int, ...]], ...]]]:
    """The passage's sentences; which of them hold each stem; the stems of five letters or more by their first five,
    each with the sentences holding it (`shares`' prefix rule, once per passage instead of once per claim)."""
    found = sentences(passage)
    exact: dict[str, list[int]] = {}
    for i, sentence in enumerate(found):
        for stem_ in dict.fromkeys(_words(sentence)):
            exact.setdefault(stem_, []).append(i)
    by_start: dict[str, list[tuple[str, tuple[int, ...]]]] = {}
    for stem_, ids in exact.items():
        if len(stem_) >= 5 and not stem_[0].isdigit():
            by_start.setdefault(stem_[:5], []).append((stem_, tuple(ids)))
    return found, {k: tuple(v) for k, v in exact.items()}, {k: tuple(v) for k, v in by_start.items()}
