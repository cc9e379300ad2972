"""Sessions and their messages.

Messages are stored in the OpenAI chat format the loop sends through litellm, one row each, in
order, written as soon as they exist: a crash loses at most the reply in flight. `kind` tells
what a message is for the people reading the history (a nudge, a task-state recovery, a
summary); `meta` holds facts that are never sent to the model (duration, error flag).
"""

from __future__ import annotations

import builtins
import json
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from astro_cli.store.db import Database

if TYPE_CHECKING:
    from astro_cli.usage import Usage


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def new_session_id() -> str:
    return uuid.uuid4().hex[:12]


@dataclass
class StoredMessage:
    seq: int
    turn: int
    role: str
    kind: str
    message: dict[str, Any]
    meta: dict[str, Any]
    created_at: str


# A session with a reply, or with a question that did not fail (a crash mid-answer, a session in use).
# Empty sessions pass too: a session being used has no message before its first question.
_NOT_ONLY_FAILED = (
    "(NOT EXISTS (SELECT 1 FROM agent_messages f WHERE f.session_id = s.id AND f.kind = 'unanswered') "
    "OR EXISTS (SELECT 1 FROM agent_messages a WHERE a.session_id = s.id "
    "AND (a.role = 'assistant' OR (a.role = 'user' AND a.kind = 'message'))))"
)


class SessionStore:
    """Reads and writes sessions, messages and usage rows."""

    def __init__(self, database: Database) -> None:
        self.database = database

    # --- sessions --------------------------------------------------------------------------
    def create(
        self,
        workspace: str,
        model: str | None,
        parent_id: str | None = None,
        agent: str | None = None,
        session_id: str | None = None,
    ) -> str:
        session_id = session_id or new_session_id()
        stamp = now_iso()
        with self.database.lock:
            self.database["sessions"].insert(
                {
                    "id": session_id,
                    "workspace": workspace,
                    "title": None,
                    "model": model,
                    "created_at": stamp,
                    "updated_at": stamp,
                    "parent_id": parent_id,
                    "agent": agent,
                }
            )
        return session_id

    def get(self, session_id: str) -> dict[str, Any] | None:
        rows = self.database.query("SELECT * FROM sessions WHERE id = ?", (session_id,))
        if rows:
            return rows[0]
        # Allow unambiguous prefixes, as people type the first few characters of an id.
        rows = self.database.query(
            "SELECT * FROM sessions WHERE id LIKE ? AND parent_id IS NULL", (session_id + "%",)
        )
        return rows[0] if len(rows) == 1 else None

    def latest(self, workspace: str) -> dict[str, Any] | None:
        """The session --continue picks up: the newest of `workspace` that is not only failed attempts."""
        rows = self.database.query(
            f"SELECT * FROM sessions s WHERE workspace = ? AND parent_id IS NULL AND {_NOT_ONLY_FAILED} "
            "ORDER BY updated_at DESC, rowid DESC LIMIT 1",
            (workspace,),
        )
        return rows[0] if rows else None

    def failed_count(self) -> int:
        """Sessions that hold only questions the provider failed on (left out of `list`)."""
        return int(self.database.execute(
            f"SELECT count(*) FROM sessions s WHERE parent_id IS NULL AND NOT {_NOT_ONLY_FAILED}"
        ).fetchone()[0])

    def list(self, limit: int = 50, include_children: bool = False, include_failed: bool = False,
             text: str | None = None) -> list[dict[str, Any]]:
        """Sessions newest first; sessions that hold only failed attempts only when asked for; with `text`,
        only those whose questions or answers contain it (case ignored for ASCII letters)."""
        conditions = ([] if include_children else ["s.parent_id IS NULL"]) + ([] if include_failed else [_NOT_ONLY_FAILED])
        params: builtins.list[Any] = []
        if text:
            pattern = "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            conditions.append(
                "(s.title LIKE ? ESCAPE '\\' OR EXISTS (SELECT 1 FROM agent_messages m WHERE m.session_id = s.id "
                "AND m.role IN ('user', 'assistant') AND json_extract(m.message, '$.content') LIKE ? ESCAPE '\\'))")
            params += [pattern, pattern]
        where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
        return self.database.query(
            f"""
            SELECT s.*, (SELECT count(*) FROM agent_messages m WHERE m.session_id = s.id) AS messages,
                   (SELECT coalesce(sum(u.input_tokens), 0) + coalesce(sum(u.output_tokens), 0)
                      FROM usage u WHERE u.session_id = s.id
                         OR u.session_id IN (SELECT c.id FROM sessions c WHERE c.parent_id = s.id)) AS tokens,
                   (SELECT sum(u.cost_usd) FROM usage u WHERE u.session_id = s.id
                         OR u.session_id IN (SELECT c.id FROM sessions c WHERE c.parent_id = s.id)) AS cost_usd
            FROM sessions s {where}
            ORDER BY s.updated_at DESC, s.rowid DESC LIMIT ?
            """,
            (*params, limit),
        )

    def not_found(self, session_id: str) -> str:
        """The sentence for an id that names no session, with the closest stored id (a typo)."""
        from astro_cli.suggest import did_you_mean

        ids = [row["id"] for row in self.list(limit=200, include_failed=True)]
        return (f"No session '{session_id}' in this workspace{did_you_mean(session_id, ids)}; "
                "`astro sessions list` shows them.")

    def delete_if_empty(self, session_id: str) -> None:
        with self.database.lock:
            self.database.execute(
                "DELETE FROM sessions WHERE id = ? AND NOT EXISTS (SELECT 1 FROM agent_messages WHERE session_id = ?) "
                "AND NOT EXISTS (SELECT 1 FROM sessions c WHERE c.parent_id = ?)",
                (session_id, session_id, session_id),
            )

    # What a session leaves in the workspace's research (papers, their chunks, notes) outlives it; the rest
    # of what carries its id (messages, usage, tasks, citations, compactions) is its transcript.
    KEPT_WHEN_FORGOTTEN = frozenset({"papers", "chunks", "chunk_vectors", "notes"})

    def forget(self, session_id: str) -> None:
        """`astro run --no-session-persistence`: the session and its subagents leave no transcript behind
        (every table with a `session_id` column but the research ones), as `claude -p` does."""
        with self.database.transaction():
            ids = [session_id, *(row["id"] for row in self.children(session_id))]
            tables = [name for name in self.database.db.table_names() if name not in self.KEPT_WHEN_FORGOTTEN
                      and "session_id" in self.database[name].columns_dict]
            marks = ", ".join("?" for _ in ids)
            for table in tables:  # names from the schema, never from input
                self.database.execute(f"DELETE FROM [{table}] WHERE session_id IN ({marks})", ids)
            self.database.execute(f"DELETE FROM sessions WHERE id IN ({marks})", ids)

    def children(self, session_id: str) -> builtins.list[dict[str, Any]]:
        return self.database.query(
            "SELECT * FROM sessions WHERE parent_id = ? ORDER BY created_at, rowid", (session_id,)
        )

    def touch(self, session_id: str, title: str | None = None, model: str | None = None) -> None:
        with self.database.lock:
            updates: dict[str, Any] = {"updated_at": now_iso()}
            if model:
                updates["model"] = model
            self.database["sessions"].update(session_id, updates)
            if title:
                self.database.execute(
                    "UPDATE sessions SET title = ? WHERE id = ? AND title IS NULL", (title[:120], session_id)
                )

    # --- messages --------------------------------------------------------------------------
    def append(
        self,
        session_id: str,
        message: dict[str, Any],
        kind: str = "message",
        turn: int = 0,
        meta: dict[str, Any] | None = None,
    ) -> int:
        """Store one message at the end of the session and return its sequence number."""
        with self.database.transaction():  # the number and the row together, even across processes
            row = self.database.execute(
                "SELECT coalesce(max(seq), 0) FROM agent_messages WHERE session_id = ?", (session_id,)
            ).fetchone()
            seq = int(row[0]) + 1
            self.database.execute(
                "INSERT INTO agent_messages (session_id, seq, turn, role, kind, message, meta, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session_id,
                    seq,
                    turn,
                    message["role"],
                    kind,
                    json.dumps(message, ensure_ascii=False),
                    json.dumps(meta, ensure_ascii=False) if meta else None,
                    now_iso(),
                ),
            )
            self.database.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (now_iso(), session_id))
        return seq

    def fork(self, source_id: str, workspace: str, model: str | None) -> str:
        """A new session that starts as a copy of `source_id`'s messages (read as one snapshot)."""
        source = self.get(source_id)
        if source is None:
            raise KeyError(source_id)
        with self.database.transaction():
            session_id = self.create(workspace, model or source["model"])
            self.database.execute("UPDATE sessions SET title = ? WHERE id = ?", (source["title"], session_id))
            self.database.execute(
                "INSERT INTO agent_messages (session_id, seq, turn, role, kind, message, meta, created_at) "
                "SELECT ?, seq, turn, role, kind, message, meta, created_at FROM agent_messages "
                "WHERE session_id = ? ORDER BY seq",
                (session_id, source["id"]),
            )
        return session_id

    def messages(self, session_id: str) -> builtins.list[StoredMessage]:
        rows = self.database.query(
            "SELECT * FROM agent_messages WHERE session_id = ? ORDER BY seq", (session_id,)
        )
        return [
            StoredMessage(
                seq=row["seq"],
                turn=row["turn"],
                role=row["role"],
                kind=row["kind"],
                message=json.loads(row["message"]),
                meta=json.loads(row["meta"]) if row["meta"] else {},
                created_at=row["created_at"],
            )
            for row in rows
        ]

    def set_kind(self, session_id: str, seq: int, kind: str) -> None:
        with self.database.lock:
            self.database.execute(
                "UPDATE agent_messages SET kind = ? WHERE session_id = ? AND seq = ?", (kind, session_id, seq)
            )

    def last_turn(self, session_id: str) -> int:
        row = self.database.execute(
            "SELECT coalesce(max(turn), 0) FROM agent_messages WHERE session_id = ?", (session_id,)
        ).fetchone()
        return int(row[0])

    # --- usage -----------------------------------------------------------------------------
    def record_usage(self, session_id: str, turn: int, model: str, usage: Usage, purpose: str = "step") -> None:
        with self.database.lock:
            self.database["usage"].insert(
                {
                    "session_id": session_id,
                    "turn": turn,
                    "model": model,
                    **usage.to_dict(),
                    "purpose": purpose,
                    "created_at": now_iso(),
                }
            )

    def usage_totals(self, session_id: str, turn: int | None = None) -> dict[str, Any]:
        """Tokens and cost of a session, its subagents' sessions included."""
        where = "(session_id = ? OR session_id IN (SELECT id FROM sessions WHERE parent_id = ?))"
        params: list[Any] = [session_id, session_id]
        if turn is not None:
            where += " AND turn = ?"
            params.append(turn)
        row = self.database.query(
            f"""SELECT coalesce(sum(input_tokens),0) AS input_tokens, coalesce(sum(output_tokens),0) AS output_tokens,
                coalesce(sum(cache_read_input_tokens),0) AS cache_read_input_tokens,
                coalesce(sum(cache_creation_input_tokens),0) AS cache_creation_input_tokens,
                sum(cost_usd) AS cost_usd, count(*) AS requests,
                sum(CASE WHEN cost_usd IS NULL THEN 1 ELSE 0 END) AS unpriced
                FROM usage WHERE {where}""",
            params,
        )[0]
        # cost_usd is None when no request had a price; `unpriced` counts requests litellm could not price.
        return row
