"""The `citations` table: what each answer cited and how it was checked (migration 6).

`astro sessions cite` and `/cite` read it to give the BibTeX of a session in the order its
answers cited the papers; `record` keeps what was known of a paper that is not in the library
(from a search result or an online lookup), so the BibTeX needs no network to find it again.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from astro_cli.citations.check import CheckResult
    from astro_cli.store.db import Database

RECORD_FIELDS = ("id", "arxiv_id", "bibcode", "doi", "title", "authors", "year", "url", "journal_ref",
                 "primary_class", "primary_category", "journal", "volume", "page", "pub_year", "n_authors", "biblio")


class CitationStore:
    def __init__(self, database: Database) -> None:
        self.database = database

    def save(self, session_id: str, turn: int, result: CheckResult, nudged: bool) -> None:
        """The check of one turn's final answer (a turn checked again replaces its rows)."""
        stamp = datetime.now(timezone.utc).isoformat(timespec="seconds")
        rows = [
            {
                "session_id": session_id, "turn": turn, "ord": index, "ident": c.cited.ident, "kind": c.cited.kind,
                "status": c.status, "title": c.title, "paper": c.paper,
                "record": json.dumps({k: c.record[k] for k in RECORD_FIELDS if c.record.get(k)}, ensure_ascii=False,
                                     default=str) if c.record else None,
                "nudged": int(nudged), "created_at": stamp,
            }
            for index, c in enumerate(result.citations)
        ]
        with self.database.lock:
            self.database.execute("DELETE FROM citations WHERE session_id = ? AND turn = ?", (session_id, turn))
            if rows:
                self.database["citations"].insert_all(rows)

    def for_session(self, session_id: str) -> list[dict[str, Any]]:
        """Every checked citation of a session, in the order its answers cited them."""
        rows = self.database.query(
            "SELECT * FROM citations WHERE session_id = ? ORDER BY turn, ord", (session_id,)
        )
        for row in rows:
            row["record"] = json.loads(row["record"]) if row["record"] else {}
        return rows
