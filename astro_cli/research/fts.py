"""From a question in plain words to an FTS5 query that stays fast on a large library.

A question becomes quoted terms joined by OR (stop words dropped, "quoted phrases" kept, and each
pair of adjacent content words added as a phrase), so punctuation can never be a syntax error.

FTS5's BM25 costs time in proportion to the documents its terms occur in: for every phrase it
counts the matching rows over the whole index, then scores every matching row. A word found in a
third of 100,000 chunks adds tens of milliseconds and almost nothing to the ranking (its inverse
document frequency is near zero). So the plan looks up each word's document frequency (through
fts5vocab, with the index's own tokenizer doing the stemming) and keeps the rarest words while
their postings fit a budget; common words, and pairs containing them, are left out. A library
small enough to fit the budget is searched with every word: pruning only starts at scale.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from astro_cli.app import AppContext

MAX_TERMS = 32
POSTINGS_BUDGET = 12_000  # documents the kept words may occur in, summed
MIN_WORDS = 2  # the rarest words are always kept, whatever their frequency
STOP_WORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had has
    have having he her here hers him his how i if in into is it its itself just me more most my no nor
    not now of off on once only or other our out over own same she should so some such than that the
    their them then there these they this those through to too under until up very was we were what
    when where which while who whom why will with would you your paper papers authors author find show
    shows tell please""".split()
)
_TOKENS = re.compile(r'"([^"]+)"|(\w+)', re.UNICODE)
DF_SERVICE = "library.document_frequencies"
_TOKENIZER = "porter unicode61 remove_diacritics 2"  # must match chunks_fts (migration m004)


@dataclass
class ParsedQuestion:
    phrases: list[str]  # the user's "quoted phrases", kept whatever their cost
    words: list[str]  # content words, first occurrence order, unique (case-insensitive)
    pairs: list[tuple[str, str]]  # content words adjacent in the question


@dataclass
class QueryPlan:
    expression: str
    dropped: list[str] = field(default_factory=list)  # common words left out of the expression
    fallback: str | None = None  # a wider expression, for when `expression` finds too few passages


def parse_question(question: str) -> ParsedQuestion:
    phrases: list[str] = []
    sequence: list[str | None] = []  # None where a stop word or a phrase broke the run
    every: list[str] = []
    for phrase, word in _TOKENS.findall(question or ""):
        if phrase.strip():
            phrases.append(phrase.strip().replace('"', ""))
            sequence.append(None)
        elif word:
            every.append(word)
            sequence.append(word if word.lower() not in STOP_WORDS else None)
    candidates = [w for w in sequence if w] or every  # a question of stop words only still searches
    words: list[str] = []
    for word in candidates:
        if word.lower() not in {w.lower() for w in words}:
            words.append(word)
    pairs: list[tuple[str, str]] = []
    for first, second in zip(sequence, sequence[1:]):
        if first and second and (first.lower(), second.lower()) not in {(a.lower(), b.lower()) for a, b in pairs}:
            pairs.append((first, second))
    return ParsedQuestion(phrases, words, pairs)


def expression(parsed: ParsedQuestion, keep: set[str] | None = None) -> str:
    """The OR expression of the phrases, the kept words and the pairs of kept words."""
    kept = [w for w in parsed.words if keep is None or w.lower() in keep]
    terms = [f'"{p}"' for p in parsed.phrases] + [f'"{w}"' for w in kept]
    terms += [f'"{a} {b}"' for a, b in parsed.pairs if keep is None or (a.lower() in keep and b.lower() in keep)]
    return " OR ".join(terms[:MAX_TERMS])


def all_of(parsed: ParsedQuestion, keep: set[str]) -> str:
    """Passages holding every kept word (scored with the pairs as a bonus), or a quoted phrase."""
    kept = [w for w in parsed.words if w.lower() in keep]
    both = " AND ".join(f'"{w}"' for w in kept)
    pairs = [f'"{a} {b}"' for a, b in parsed.pairs if a.lower() in keep and b.lower() in keep]
    # A pair implies both its words, so OR-ing the pairs adds to the score without widening the match.
    core = f"({both})" + "".join(f" OR {p}" for p in pairs) if len(kept) > 1 else both
    return " OR ".join([core, *[f'"{p}"' for p in parsed.phrases]])


def fts_query(question: str) -> str:
    """Free text to a safe FTS5 expression with every content word: "term" OR ... OR "a phrase"."""
    return expression(parse_question(question))


def index_stamp(app: AppContext) -> tuple[int, int]:
    # Two statements: each is answered from the b-tree alone; combined, SQLite scans the table.
    highest = app.db.execute("SELECT coalesce(max(id), 0) FROM chunks").fetchone()[0]
    count = app.db.execute("SELECT count(*) FROM chunks").fetchone()[0]
    return int(highest), int(count)


def document_frequencies(app: AppContext, words: list[str], stamp: tuple[int, int]) -> dict[str, int]:
    """How many chunks contain each word, stemmed by the index's own tokenizer (fts5vocab lookups).

    A lookup reads the word's whole posting list, so the answers are kept (app.services) until
    the index changes: the common words of a field come back in question after question.
    """
    cache = app.services.get(DF_SERVICE)
    if not isinstance(cache, dict) or cache.get("stamp") != stamp:
        cache = {"stamp": stamp, "df": {}}
        app.services[DF_SERVICE] = cache
    known: dict[str, int] = cache["df"]
    missing = [w for w in words if w.lower() not in known]
    if missing:
        known.update(_lookup(app, missing))
    return {w.lower(): known[w.lower()] for w in words}


def _lookup(app: AppContext, words: list[str]) -> dict[str, int]:
    db = app.db
    with db.lock:
        db.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.astro_qwords USING fts5(w, tokenize='{_TOKENIZER}')")
        db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.astro_qwords_v USING fts5vocab(temp, astro_qwords, instance)")
        db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.astro_vocab USING fts5vocab(main, chunks_fts, row)")
        db.execute("DELETE FROM temp.astro_qwords")
        db.db.conn.executemany("INSERT INTO temp.astro_qwords (rowid, w) VALUES (?, ?)",
                               [(n + 1, w) for n, w in enumerate(words)])
        stems: dict[int, list[str]] = {}
        for term, doc in db.execute("SELECT term, doc FROM temp.astro_qwords_v").fetchall():
            stems.setdefault(int(doc), []).append(term)
        frequencies: dict[str, int] = {}
        for n, word in enumerate(words, start=1):
            counts = [
                (db.execute("SELECT doc FROM temp.astro_vocab WHERE term = ?", (stem,)).fetchone() or (0,))[0]
                for stem in stems.get(n, [])
            ]
            frequencies[word.lower()] = min(counts) if counts else 0
        db.execute("DELETE FROM temp.astro_qwords")
    return frequencies


def plan_query(app: AppContext, question: str, budget: int = POSTINGS_BUDGET) -> QueryPlan:
    """The expression to run: every word when their postings fit the budget, else the rarest ones,
    required together (with the plain OR of them as the fallback when that finds too little)."""
    parsed = parse_question(question)
    if not parsed.words:
        return QueryPlan(expression(parsed))
    stamp = index_stamp(app)
    if stamp[1] * len(parsed.words) <= budget:  # a small library: no word can be too costly
        return QueryPlan(expression(parsed))
    frequencies = document_frequencies(app, parsed.words, stamp)
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
