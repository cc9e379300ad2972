"""The question set of issue 15 over the three fixture papers, and how a search is scored on it.

Shared by tests/research/search/test_library_questions.py (the goals as assertions) and
benchmarks/bench_search_quality.py (the figures for benchmarks/RESULTS.md). A question counts as
found when one of its answering passages is among the first `top` passages the search returns.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.paths import FIXTURES_DIR

QUESTIONS = FIXTURES_DIR / "questions" / "library_questions.json"
# Issue 30's held-out set: new questions written before any search, never tuned on (see its "about").
HELDOUT = FIXTURES_DIR / "questions" / "heldout_questions.json"
# ... and on three papers no search stage was tuned on (Feiden, celerite, smear).
HELDOUT_PAPERS = FIXTURES_DIR / "questions" / "heldout_papers_questions.json"


@dataclass
class Question:
    paper: str
    kind: str  # "literal" or "paraphrased"
    question: str
    answers: list[str]
    second: str | None = None


@dataclass
class Score:
    found: int = 0
    total: int = 0
    missed: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.found / self.total if self.total else 0.0


def load_questions(path: Path = QUESTIONS) -> list[Question]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [Question(**item) for item in data["questions"]]


def _flat(text: str) -> str:
    return " ".join(text.split())


def answered(hits: list[Any], question: Question, top: int = 3) -> bool:
    wanted = [_flat(a) for a in question.answers]
    return any(any(answer in _flat(hit.text) for answer in wanted) for hit in hits[:top])


def score(questions: list[Question], search: Callable[[Question], list[Any]], top: int = 3) -> Score:
    """How many questions `search` answers within its first `top` passages."""
    result = Score()
    for question in questions:
        result.total += 1
        if answered(search(question), question, top):
            result.found += 1
        else:
            result.missed.append(question.question)
    return result
