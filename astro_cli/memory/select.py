"""Choosing the memories the agent sees: relevance to the question combined with recency.

The catalog keeps every memory file parsed and indexed in an in-memory SQLite FTS5 table. Before
each use it looks for changes: with a folder watch (watch.py, started once the folder holds 200
files) that is a flag and one stat of the folder; without one, one stat per file (name, mtime, size). Files that changed are parsed again, so
a hand edit is picked up on the next step and 2,000 memories are never re-read as a whole. Its
`generation` changes exactly when some file did, which is what the prompt cache keys on.

Score = relevance (BM25, scaled so the best match of the question is 1) + RECENCY_WEIGHT x recency
(0.5 ** (age / half-life)). Without a matching word the ranking is by recency alone. A superseded
memory (marked `[updated -> new-slug]`) only competes when the question matches it, at half weight.
Archived versions (`<slug>_vN`) are history and are never selected.
"""

from __future__ import annotations

import heapq
import os
import re
import sqlite3
import stat
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from astro_cli.memory.format import Memory, MemoryFileError, broken_warning, parse_memory
from astro_cli.memory.index import INDEX_NAME, NOT_MEMORIES, write_index
from astro_cli.memory.watch import FolderWatch
from astro_cli.stopwords import STOPWORDS

RECENCY_WEIGHT = 0.5
# Below this many files, statting each one (a few microseconds apiece) costs less than a watch thread.
WATCH_FROM_FILES = 200
SUPERSEDED_WEIGHT = 0.5
MAX_QUERY_TERMS = 32
_WORD = re.compile(r"\w+", re.UNICODE)
# Chinese, Japanese and Korean write without spaces: unicode61 sees a whole run as one word, so a
# second index over character trigrams lets "宇宙学参数" find a memory about "普朗克宇宙学参数".
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]{3,}")
MAX_TRIGRAMS = 24


def cjk_trigrams(question: str) -> list[str]:
    """Distinct character trigrams of the question's CJK runs, as quoted FTS5 terms."""
    seen: dict[str, None] = {}
    for run in _CJK_RUN.findall(question):
        for i in range(len(run) - 2):
            seen.setdefault(run[i : i + 3], None)
    return ['"' + gram + '"' for gram in list(seen)[:MAX_TRIGRAMS]]


@dataclass(frozen=True)
class Scored:
    memory: Memory
    score: float
    relevance: float
    recency: float


def query_terms(question: str) -> list[str]:
    """Distinct content words of the question, in order, as quoted FTS5 terms."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(question.lower()):
        if len(word) > 1 and word not in STOPWORDS:
            seen.setdefault(word, None)
        if len(seen) >= MAX_QUERY_TERMS:
            break
    return ['"' + word.replace('"', '""') + '"' for word in seen]


def recency(memory: Memory, now: datetime, half_life_days: float) -> float:
    age_days = max(0.0, (now - memory.updated).total_seconds() / 86400.0)
    return float(0.5 ** (age_days / half_life_days))


def _order(item: Scored) -> tuple[float, float, str]:
    return (-item.score, -item.memory.updated.timestamp(), item.memory.slug)


def rank(
    memories: list[Memory], relevance: dict[str, float], now: datetime, half_life_days: float, limit: int,
    by_recency: list[Memory] | None = None,
) -> list[Scored]:
    """The `limit` best memories, one per base slug; ties go to the newer, then to the slug.

    Only matching memories need a real score: the others rank by recency alone, so they are taken
    lazily from `by_recency` (newest first, current memories only) and merged in. That keeps a
    selection among thousands of memories proportional to the matches, not to the folder.
    """
    if by_recency is None:
        by_recency = sorted((m for m in memories if not m.superseded_by), key=lambda m: (-m.updated.timestamp(), m.slug))
    matched: list[Scored] = []
    for memory in memories:
        rel = relevance.get(memory.slug, 0.0)
        if rel <= 0.0 or memory.is_version:  # `_vN` files are history: never shown instead of the memory
            continue
        rec = recency(memory, now, half_life_days)
        score = rel + RECENCY_WEIGHT * rec
        if memory.superseded_by:
            score *= SUPERSEDED_WEIGHT
        matched.append(Scored(memory, score, rel, rec))
    matched.sort(key=_order)

    def unmatched() -> Iterator[Scored]:
        for memory in by_recency:
            if memory.slug not in relevance:
                rec = recency(memory, now, half_life_days)
                yield Scored(memory, RECENCY_WEIGHT * rec, 0.0, rec)

    chosen: list[Scored] = []
    bases: set[str] = set()
    for item in heapq.merge(matched, unmatched(), key=_order):
        if len(chosen) >= limit:
            break
        if item.memory.base_slug in bases:
            continue
        bases.add(item.memory.base_slug)
        chosen.append(item)
    return chosen


class MemoryCatalog:
    """The parsed memory folder plus its FTS5 index, refreshed from file mtimes on each use."""

    def __init__(
        self,
        root: Path,
        warn: Callable[[str], None] | None = None,
        watch: bool = False,
        watch_from: int = WATCH_FROM_FILES,
        guard: Callable[[], None] | None = None,
    ) -> None:
        self.root = root
        self.warn = warn or (lambda text: None)
        self.guard = guard  # raises when MEMORY.md may not be written there (a link out of the workspace)
        self.generation = 0
        self.scans = 0  # full folder scans so far (tests and benchmarks look at it)
        self._watch = FolderWatch(root) if watch else None
        self._watch_from = watch_from
        self._files: dict[str, tuple[int, int]] = {}  # name -> (mtime_ns, size), broken files included
        self._memories: dict[str, Memory] = {}
        self._rowids: dict[str, int] = {}
        self._slugs: dict[int, str] = {}
        self._next_rowid = 1
        self._by_recency: list[Memory] = []
        self._lock = threading.Lock()
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.execute(
            "CREATE VIRTUAL TABLE mem USING fts5(slug, description, body, "
            "tokenize='porter unicode61 remove_diacritics 2')"
        )
        self._db.execute("CREATE VIRTUAL TABLE mem3 USING fts5(slug, description, body, tokenize='trigram')")

    def close(self) -> None:
        if self._watch is not None:
            self._watch.stop()
        self._db.close()

    def mark_changed(self) -> None:
        """astro itself wrote a memory file: look again at the next refresh, whatever the watch says."""
        if self._watch is not None:
            self._watch.mark()

    @property
    def memories(self) -> list[Memory]:
        return list(self._memories.values())

    def _stat_folder(self) -> dict[str, tuple[int, int]]:
        """name -> (mtime_ns, size) of every memory file: one listdir and one stat per file, nothing read.

        Stats go through a directory descriptor where the platform allows it, so the kernel resolves
        one name per file instead of the whole path (this loop is most of an assembly's cost).
        """
        use_fd = os.stat in os.supports_dir_fd and os.listdir in os.supports_fd
        try:
            dir_fd = os.open(self.root, os.O_RDONLY) if use_fd else None
        except OSError:
            return {}
        handle: int | str = dir_fd if dir_fd is not None else str(self.root)
        found: dict[str, tuple[int, int]] = {}
        try:
            names = os.listdir(handle)
            prefix = "" if dir_fd is not None else str(self.root) + os.sep
            for name in names:
                if not name.endswith(".md") or name in NOT_MEMORIES or name.startswith("."):
                    continue
                try:
                    info = os.stat(prefix + name, dir_fd=dir_fd)
                except OSError:
                    continue
                if stat.S_ISREG(info.st_mode):
                    found[name] = (info.st_mtime_ns, info.st_size)
        except OSError:
            return {}
        finally:
            if dir_fd is not None:
                os.close(dir_fd)
        return found

    def refresh(self) -> bool:
        """Bring the catalog up to date with the folder; returns whether anything changed."""
        with self._lock:
            watch = self._watch
            if watch is not None and (watch.active or (len(self._files) >= self._watch_from and watch.start())):
                if not watch.take_changed():
                    return False
            self.scans += 1
            current = self._stat_folder()
            if current == self._files:
                return False
            for name in self._files.keys() - current.keys():
                self._drop(name)
            for name, key in current.items():
                if self._files.get(name) != key:
                    self._load(name, key)
            self._files = current
            self._by_recency = sorted(
                (m for m in self._memories.values() if not m.superseded_by),
                key=lambda m: (-m.updated.timestamp(), m.slug),
            )
            self.generation += 1
            self.sync_index()
        return True

    def _drop(self, name: str) -> None:
        self._memories.pop(name, None)
        rowid = self._rowids.pop(name, None)
        if rowid is not None:
            self._slugs.pop(rowid, None)
            self._db.execute("DELETE FROM mem WHERE rowid = ?", (rowid,))
            self._db.execute("DELETE FROM mem3 WHERE rowid = ?", (rowid,))

    def _load(self, name: str, key: tuple[int, int]) -> None:
        self._drop(name)
        path = self.root / name
        try:
            memory = parse_memory(path.read_text(encoding="utf-8"), path, key[0] / 1e9)
        except (MemoryFileError, OSError, UnicodeDecodeError) as exc:
            if isinstance(exc, UnicodeDecodeError):
                exc = MemoryFileError("it is not UTF-8 text.")
            self.warn(broken_warning(path, exc))
            return
        rowid = self._next_rowid
        self._next_rowid += 1
        self._memories[name] = memory
        self._rowids[name] = rowid
        self._slugs[rowid] = name
        values = (rowid, memory.slug.replace("_", " "), memory.description, memory.body)
        self._db.execute("INSERT INTO mem(rowid, slug, description, body) VALUES (?, ?, ?, ?)", values)
        if _CJK_RUN.search(memory.description) or _CJK_RUN.search(memory.body):
            self._db.execute("INSERT INTO mem3(rowid, slug, description, body) VALUES (?, ?, ?, ?)", values)

    def sync_index(self) -> None:
        """Keep MEMORY.md in step with hand edits too; a read-only folder only costs a warning."""
        if not self.root.is_dir():
            return
        if self.guard is not None:
            try:
                self.guard()
            except Exception as exc:  # noqa: BLE001 - the refusal is reported, the memories still read
                self.warn(f"MEMORY.md is not kept up to date: {exc}")
                return
        try:
            if write_index(self.root / INDEX_NAME, self.memories) and self._watch is not None:
                self._watch.own_write()
        except OSError as exc:
            self.warn(f"memory index {self.root.name}/{INDEX_NAME} could not be rewritten ({exc.strerror or exc}).")

    def relevance(self, question: str) -> dict[str, float]:
        """slug -> relevance in (0, 1], the best match of the question scoring 1."""
        terms, grams = query_terms(question), cjk_trigrams(question)
        if not (terms or grams) or not self._memories:
            return {}
        rows: list[tuple[int, float]] = []
        with self._lock:
            if terms:
                rows += self._db.execute(
                    "SELECT rowid, bm25(mem, 2.0, 3.0, 1.0) FROM mem WHERE mem MATCH ?", (" OR ".join(terms),)
                ).fetchall()
            if grams:
                rows += self._db.execute(
                    "SELECT rowid, bm25(mem3, 2.0, 3.0, 1.0) FROM mem3 WHERE mem3 MATCH ?", (" OR ".join(grams),)
                ).fetchall()
        raw: dict[str, float] = {}
        for rowid, score in rows:
            if rowid in self._slugs:
                slug = self._memories[self._slugs[rowid]].slug
                raw[slug] = max(raw.get(slug, 0.0), -score)
        best = max(raw.values(), default=0.0)
        if best <= 0:
            return {slug: 1.0 for slug in raw}
        return {slug: value / best for slug, value in raw.items() if value > 0}

    def select(self, question: str, now: datetime, half_life_days: float, limit: int) -> list[Scored]:
        relevance = self.relevance(question)
        matched = [self._memories[name] for name in self._names_of(relevance)]
        return rank(matched, relevance, now, half_life_days, limit, self._by_recency)

    def _names_of(self, relevance: dict[str, float]) -> list[str]:
        return [name for name in (f"{slug}.md" for slug in relevance) if name in self._memories]
