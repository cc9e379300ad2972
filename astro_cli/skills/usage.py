"""Skill uses, recorded in SQLite, and the usage score that orders the skill listing.

A use is one load: by the model (load_skill) or by the user (/NAME). The score of a skill is
the sum over its uses of 0.5 ** (age / 7 days): a use today counts 1, a use a week ago 0.5, so
skills in current use rise and forgotten ones sink without ever being deleted.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from astro_cli.store.db import Database

HALF_LIFE_DAYS = 7.0
DAY = 86400.0
# Uses older than this add less than 1e-7 each; leaving them out keeps the query small.
WINDOW_DAYS = 180


def decayed(age_seconds: float, half_life_days: float = HALF_LIFE_DAYS) -> float:
    """The weight of one use `age_seconds` old."""
    return float(0.5 ** (max(age_seconds, 0.0) / (half_life_days * DAY)))


class UsageStore:
    """Reads and writes the skill_usage table (migration 2) of the workspace database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def record(
        self, name: str, session_id: str | None = None, source: str = "model", when: float | None = None
    ) -> None:
        self.db.execute(
            "INSERT INTO skill_usage (name, used_at, session_id, source) VALUES (?, ?, ?, ?)",
            (name, time.time() if when is None else when, session_id, source),
        )

    def scores(self, now: float | None = None) -> dict[str, float]:
        """Every used skill's decayed score; uses are grouped by hour so the query stays small."""
        now = time.time() if now is None else now
        rows = self.db.query(
            "SELECT name, CAST(used_at / 3600 AS INTEGER) AS hour, COUNT(*) AS n, MAX(used_at) AS at "
            "FROM skill_usage WHERE used_at > ? GROUP BY name, hour",
            (now - WINDOW_DAYS * DAY,),
        )
        scores: dict[str, float] = {}
        for row in rows:
            scores[row["name"]] = scores.get(row["name"], 0.0) + row["n"] * decayed(now - row["at"])
        return scores

    def count(self, name: str) -> int:
        row = self.db.query("SELECT COUNT(*) AS n FROM skill_usage WHERE name = ?", (name,))
        return int(row[0]["n"]) if row else 0
