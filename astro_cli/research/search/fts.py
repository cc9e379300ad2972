"""From a question in plain words to a full-text match that stays fast on a large library.

A question becomes terms joined by OR (stop words dropped, "quoted phrases" kept, and each pair of
adjacent content words added as a phrase), so punctuation can never be a syntax error. The match
is kept as data (`Match`) and written out for each database: an FTS5 expression for SQLite, the
`websearch_to_tsquery` syntax for PostgreSQL (storage/).

Ranking costs time in proportion to the documents its terms occur in: for every phrase the index
counts the matching rows, then scores every matching row. A word found in a third of 100,000
chunks adds tens of milliseconds and almost nothing to the ranking (its inverse document
frequency is near zero). So the plan looks up each word's document frequency (the store asks its
own index, with its own stemming) and keeps the rarest words while their postings fit a budget;
common words, and pairs containing them, are left out. A library small enough to fit the budget
is searched with every word: pruning only starts at scale.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

from astro_cli.stopwords import STOPWORDS

MAX_TERMS = 32
POSTINGS_BUDGET = 12_000  # documents the kept words may occur in, summed
MIN_WORDS = 2  # the rarest words are always kept, whatever their frequency
RUN_LENGTH = 3  # content words in a row that make a literal run (literal_runs)
MAX_RUNS = 12
# A quoted phrase, a symbol with a braced subscript as TeX writes it (`A_{AGN1}`, `A_{\rm s}`), or a word.
_TOKENS = re.compile(r'"([^"]+)"|(\\?[^\W_]+_\{[^{}"]{1,40}\}|\w+)', re.UNICODE)
# The parts of a symbol: letters or digits, split where a word turns from one to the other or from
# a small letter to a capital (`H0` -> H 0, `lambdaCDM` -> lambda CDM, `A_s` -> A s).
_PART = re.compile(r"\d+|[^\W\d_]+?(?=\d|[^\w]|_|$|(?<=[^\W\d_])(?<![A-Z])(?=[A-Z]))", re.UNICODE)
# TeX's font commands between a symbol and its subscript (`A_{\rm s}`, `\Omega_{\mathrm{m}}`): the
# index holds them as tokens, so `A_s` is also searched as "A rm s" and "A mathrm s".
FONTS = ("rm", "mathrm")
_FONT_WORDS = frozenset({*FONTS, "text", "textrm", "mathit", "it", "bf", "mathbf", "mathsf", "sf"})


class SearchError(Exception):
    """A search that cannot run (empty query, unknown paper, a query the index cannot read); one
    sentence for the model or user. Each store raises it for its own engine's failures."""


class FrequencySource(Protocol):
    """What the plan needs of a store: the index's size, how many chunks hold each word, and how many
    postings its ranking can afford (FTS5 reads only its index; PostgreSQL reads each matched row)."""

    postings_budget: int

    def index_stamp(self) -> tuple[int, int]: ...

    def document_frequencies(self, words: list[str]) -> dict[str, int]: ...


@dataclass(frozen=True)
class Match:
    """Passages matching any alternative; an alternative needs all its terms (a word or a phrase)."""

    alternatives: tuple[tuple[str, ...], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.alternatives)

    def fts5(self) -> str:
        """SQLite FTS5: "a" OR ("b" AND "c") OR "d e"."""
        parts = []
        for terms in self.alternatives:
            quoted = [f'"{t}"' for t in terms]
            parts.append(quoted[0] if len(quoted) == 1 else "(" + " AND ".join(quoted) + ")")
        return " OR ".join(parts)

    def websearch(self) -> str:
        """PostgreSQL websearch_to_tsquery: "a" or "b" "c" or "d e" (AND binds tighter than or)."""
        return " or ".join(" ".join(f'"{t}"' for t in terms) for terms in self.alternatives)


@dataclass
class ParsedQuestion:
    phrases: list[str]  # the user's "quoted phrases", kept whatever their cost
    words: list[str]  # content words, first occurrence order, unique (case-insensitive)
    pairs: list[tuple[str, str]]  # content words adjacent in the question
    runs: list[tuple[str, ...]] = field(default_factory=list)  # RUN_LENGTH content words in a row
    symbols: list[str] = field(default_factory=list)  # the forms of stop words typed as symbols (`As`)


@dataclass
class QueryPlan:
    expression: Match
    dropped: list[str] = field(default_factory=list)  # common words left out of the expression
    fallback: Match | None = None  # a wider match, for when `expression` finds too few passages


def parse_question(question: str) -> ParsedQuestion:
    phrases: list[str] = []
    sequence: list[str | None] = []  # None where a stop word or a phrase broke the run
    every: list[str] = []
    symbols: list[str] = []  # stop words typed as symbols (`As`), as their written forms
    text = question or ""
    for token in _TOKENS.finditer(text):
        phrase, word = token.groups()
        if phrase and phrase.strip():
            phrases.append(phrase.strip().replace('"', ""))
            sequence.append(None)
        elif word:
            every.append(word)
            if word.lower() not in STOPWORDS:
                sequence.append(word)
                continue
            sequence.append(None)
            if _typed_as_symbol(word, text[: token.start()]):
                symbols += [form for form in symbol_forms(f"{word[0]}_{word[1]}") if form not in symbols]
    candidates = [w for w in sequence if w] or every  # a question of stop words only still searches
    words: list[str] = []
    for word in candidates:
        if word.lower() not in {w.lower() for w in words}:
            words.append(word)
    pairs: list[tuple[str, str]] = []
    for first, second in zip(sequence, sequence[1:]):
        if first and second and (first.lower(), second.lower()) not in {(a.lower(), b.lower()) for a, b in pairs}:
            pairs.append((first, second))
    runs: list[tuple[str, ...]] = []
    for start in range(len(sequence) - RUN_LENGTH + 1):
        run = tuple(w for w in sequence[start : start + RUN_LENGTH] if w)
        if len(run) == RUN_LENGTH and tuple(w.lower() for w in run) not in {tuple(w.lower() for w in r) for r in runs}:
            runs.append(run)
    return ParsedQuestion(phrases, words, pairs, runs, symbols)


def _typed_as_symbol(word: str, before: str) -> bool:
    """A stop word that is a symbol: two letters, a capital then a small one, inside a sentence
    ("the constraint on As with TT,TE,EE"); at a question's or sentence's start it is the word."""
    if len(word) != 2 or not (word[0].isupper() and word[1].islower()):
        return False
    before = before.rstrip()
    return bool(before) and before[-1] not in ".?!:;\"'("


def symbol_forms(word: str) -> list[str]:
    """A symbol typed as one word, as papers write it; none for a plain word or number.

    The index splits `$H_0$` into the tokens H and 0, so the question's one token `H0` never met it:
    `H0` -> "H 0", `AGN1` -> "AGN 1", `21cm` -> "21 cm", `lambdaCDM` -> "lambda CDM". A subscript
    typed with `_` or as a capital and a small letter (`A_s`, `As`, `Omega_m`, `A_{AGN1}`) is also
    searched with TeX's roman font between (`A_{\\rm s}` -> A rm s, `\\Omega_{\\mathrm{m}}`)."""
    parts = _PART.findall(word)
    if "\\" in word:
        parts = [p for p in parts if p.lower() not in _FONT_WORDS]
    if len(parts) < 2 or (len(parts) == 2 and word.isalpha() and not _subscript(word)):
        return [] if not _case_turn(word) else [" ".join(parts)]
    forms = [" ".join(parts)]
    if _subscript(word) and not parts[1].isdigit():
        forms += [f"{parts[0]} {font} {' '.join(parts[1:])}" for font in FONTS]
    return forms


def _as_indexed(word: str) -> str:
    """The word as the index's tokenizer splits it (`A_s` -> "a s"): a form equal to it adds nothing."""
    return " ".join(re.findall(r"[^\W_]+", word)).lower()


def _subscript(word: str) -> bool:
    """`A_s`, `A_{AGN1}`, or a capital and one small letter (`As`): a symbol with a subscript."""
    return "_" in word or (len(word) == 2 and word[0].isupper() and word[1].islower())


def _case_turn(word: str) -> bool:
    """A small letter followed by a capital (`lambdaCDM`, `PlanckTT`): two words run together."""
    return any(a.islower() and b.isupper() for a, b in zip(word, word[1:]))


def expression(parsed: ParsedQuestion, keep: set[str] | None = None) -> Match:
    """Any of the phrases, the kept words (a symbol also as its parts) and the pairs of kept words."""
    kept = [w for w in parsed.words if keep is None or w.lower() in keep]
    terms = [*parsed.phrases, *kept]
    terms += [form for w in kept for form in symbol_forms(w) if form.lower() != _as_indexed(w)]
    terms += parsed.symbols
    terms += [f"{a} {b}" for a, b in parsed.pairs if keep is None or (a.lower() in keep and b.lower() in keep)]
    return Match(tuple((t,) for t in terms[:MAX_TERMS]))


def all_of(parsed: ParsedQuestion, keep: set[str]) -> Match:
    """Passages holding every kept word (scored with the pairs as a bonus), or a quoted phrase."""
    kept = tuple(w for w in parsed.words if w.lower() in keep)
    if len(kept) > 1:
        # A pair implies both its words, so adding the pairs adds to the score without widening the match.
        pairs = [(f"{a} {b}",) for a, b in parsed.pairs if a.lower() in keep and b.lower() in keep]
        core = [kept, *pairs]
    else:
        core = [kept] if kept else []
    return Match(tuple([*core, *((p,) for p in parsed.phrases)]))


def literal_runs(question: str, dropped: list[str] | tuple[str, ...] = ()) -> Match:
    """Passages holding three of the question's content words in a row (any of those runs), or an
    empty match. A question asked in the paper's words shares such a run with its answer; BM25 over
    single words and pairs can rank that passage below others that repeat the question's common
    words ("circulation", "limit"), so search_library fuses this ranking as one more list. A
    question in other words rarely has a run in any passage: the list is then empty and changes nothing.
    Runs holding a word the plan `dropped` as too common for a large library are left out too."""
    common = {word.lower() for word in dropped}
    runs = [run for run in parse_question(question).runs if not common & {word.lower() for word in run}]
    return Match(tuple((" ".join(run),) for run in runs[:MAX_RUNS]))


def fts_query(question: str) -> Match:
    """Free text to a safe match with every content word: "term" OR ... OR "a phrase"."""
    return expression(parse_question(question))


def plan_query(store: FrequencySource, question: str, budget: int | None = None) -> QueryPlan:
    """The match to run: every word when their postings fit the budget, else the rarest ones,
    required together (with any of them as the fallback when that finds too little)."""
    budget = budget or store.postings_budget
    parsed = parse_question(question)
    if not parsed.words:
        return QueryPlan(expression(parsed))
    stamp = store.index_stamp()
    if stamp[1] * len(parsed.words) <= budget:  # a small library: no word can be too costly
        return QueryPlan(expression(parsed))
    frequencies = store.document_frequencies(parsed.words)
    if sum(frequencies.values()) <= budget:
        return QueryPlan(expression(parsed))
    keep: set[str] = set()
    spent = 0
    for word in sorted(parsed.words, key=lambda w: (frequencies[w.lower()], w.lower())):
        df = frequencies[word.lower()]
        if len(keep) >= MIN_WORDS and spent + df > budget:
            break
        keep.add(word.lower())
        spent += df
    dropped = [w for w in parsed.words if w.lower() not in keep]
    return QueryPlan(all_of(parsed, keep), dropped, expression(parsed, keep))
