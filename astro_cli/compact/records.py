"""The `compactions` table: one row per layer run, read back by resumed sessions and transcripts."""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from astro_cli.store.sessions import now_iso

if TYPE_CHECKING:
    from astro_cli.app import AppContext
    from astro_cli.store.db import Database

log = logging.getLogger(__name__)

LAYER_TITLES = {
    "snip": "layer 0, snip",
    "micro": "layer 1, micro",
    "summary": "layer 2, summary",
    "aggressive": "layer 3, aggressive",
}
TRIGGER_TITLES = {"auto": "automatic", "manual": "/compact", "tool": "compress_context"}


@dataclass
class CompactionRecord:
    session_id: str
    turn: int
    layer: str
    trigger: str
    messages_before: int
    messages_after: int
    tokens_before: int
    tokens_after: int
    after_seq: int = 0
    keep_from: int | None = None
    summary: str | None = None
    instructions: str | None = None


class CompactionStore:
    def __init__(self, database: Database) -> None:
        self.database = database

    def last_seq(self, session_id: str) -> int:
        row = self.database.execute(
            "SELECT coalesce(max(seq), 0) FROM agent_messages WHERE session_id = ?", (session_id,)
        ).fetchone()
        return int(row[0])

    def add(self, record: CompactionRecord) -> None:
        with self.database.lock:
            self.database["compactions"].insert({**asdict(record), "created_at": now_iso()})

    def list(self, session_id: str) -> list[dict[str, Any]]:
        return self.database.query(
            "SELECT * FROM compactions WHERE session_id = ? ORDER BY id", (session_id,)
        )

    def latest_summary(self, session_id: str) -> dict[str, Any] | None:
        rows = self.database.query(
            "SELECT * FROM compactions WHERE session_id = ? AND layer = 'summary' AND summary IS NOT NULL "
            "AND keep_from IS NOT NULL ORDER BY id DESC LIMIT 1",
            (session_id,),
        )
        return rows[0] if rows else None


def describe(row: dict[str, Any]) -> str:
    """One line for people: when, which layer, what it did."""
    layer = LAYER_TITLES.get(row["layer"], row["layer"])
    trigger = TRIGGER_TITLES.get(row["trigger"], row["trigger"])
    return (
        f"turn {row['turn']}, after message {row['after_seq']}: {layer} ({trigger}), "
        f"{row['messages_before']} → {row['messages_after']} messages, "
        f"~{row['tokens_before']:,} → ~{row['tokens_after']:,} tokens"
    )


def transcript_section(ctx: AppContext, row: dict[str, Any]) -> str | None:
    """The 'Compactions' section of `astro sessions show`; None when the session had none."""
    try:
        rows = CompactionStore(ctx.db).list(row["id"])
    except sqlite3.Error:
        log.debug("the compactions of session %s could not be read", row["id"], exc_info=True)
        return None
    if not rows:
        return None
    lines: list[str] = [
        "What was sent to the model was compacted here; the messages above are the full stored history.",
        "",
    ]
    for item in rows:
        lines.append(f"- {describe(item)}")
        if item.get("instructions"):
            lines.append(f"  - instructions: {item['instructions']}")
        if item.get("summary"):
            lines.append("")
            lines.append("  > " + item["summary"].strip().replace("\n", "\n  > "))
            lines.append("")
    return "\n".join(lines).rstrip()
