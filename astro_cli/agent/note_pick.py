"""Which of a folder's files a question's words point to, by their names and first lines.

Recorded (issue 48, stop 54 held-out, notes_lamp_current, Qwen2.5-Coder-1.5B): "What did the ThAr lamp
current drop to? I wrote it down in my notes." named the seven files of notes/, the required first read
could be any of them, and the model read analysis-checklist.md and answered from it. The file that says
it (instrument-issues.md) opens with "the ThAr lamp current dropped ...". When a folder named by a word
holds several files, those whose name and first lines share the most words of the question are offered
first; when none shares a word, every file stays offered.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

log = logging.getLogger(__name__)

HEAD_BYTES = 600  # a note's title and first lines say what it is about
MAX_LOOKED = 50  # files whose first lines are read, at most
MIN_WORD = 4  # shorter words ("the", "did") say nothing of a subject
PREFIX = 4  # "drop" matches "dropped": a word and a longer one sharing their first letters
# Words of a question that ask, or say where, not what about.
_ASKING = frozenset({
    "what", "which", "when", "where", "does", "have", "with", "that", "this", "from", "into", "about", "wrote",
    "write", "written", "down", "there", "their", "they", "note", "notes", "tell", "give", "find", "please",
    "said", "were", "will", "would", "could", "should", "remember", "somewhere", "folder", "file", "files"})
_WORD = re.compile(r"[a-z][a-z0-9]*")


def words_of(text: str, skip: set[str] | frozenset[str] = frozenset()) -> set[str]:
    """The words of `text` that can say what it is about."""
    return {w for w in _WORD.findall(text.lower()) if len(w) >= MIN_WORD and w not in _ASKING and w not in skip}


def pick_by_words(question: str, rels: list[str], root: Path, skip: set[str]) -> list[str]:
    """Of `rels` (paths under `root`), those whose name and first lines share the most words of
    `question` (`skip`: words naming the place itself); [] when none shares a word or one file alone."""
    asked = words_of(question, skip)
    if len(rels) < 2 or not asked:
        return []
    scored: list[tuple[int, str]] = []
    for rel in rels[:MAX_LOOKED]:
        seen = words_of(rel.replace("-", " ").replace("_", " ") + " " + _head(root / rel))
        scored.append((sum(1 for w in asked if any(s == w or _same_stem(w, s) for s in seen)), rel))
    best = max(score for score, _ in scored)
    return [rel for score, rel in scored if score == best] if best > 0 else []


def _same_stem(word: str, other: str) -> bool:
    """One word is the other with an ending ("drop", "dropped"), both long enough to tell."""
    short, long = sorted((word, other), key=len)
    return len(short) >= PREFIX and long.startswith(short) and len(long) - len(short) <= 3


def _head(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            return handle.read(HEAD_BYTES).decode("utf-8", "replace")
    except OSError:
        log.debug("could not read the head of %s", path, exc_info=True)
        return ""
