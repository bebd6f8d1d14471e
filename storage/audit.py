"""The append-only audit log: who did what, when, why, and the value before and after."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from storage.db import Connection, Database, Row, execute, fetchall, fetchone, need_time, utc_text


@dataclass(frozen=True)
class AuditEntry:
    """One line of the append-only audit log; `before` and `after` are JSON text."""

    id: int
    at: datetime
    actor: str
    action: str
    event_id: int | None
    subject: str
    before: str | None
    after: str | None
    reason: str | None


Jsonable = object


def to_json(value: Jsonable) -> str | None:
    """A value as compact JSON (None stays None)."""
    if value is None:
        return None
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


async def append(
    conn: Connection,
    *,
    at: datetime,
    actor: str,
    action: str,
    subject: str,
    event_id: int | None = None,
    before: Jsonable = None,
    after: Jsonable = None,
    reason: str | None = None,
) -> int:
    """Add one audit line inside the caller's transaction; return its id."""
    return await execute(
        conn,
        "INSERT INTO audit_log (at, actor, action, event_id, subject, before, after, reason)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (utc_text(at), actor, action, event_id, subject, to_json(before), to_json(after), reason),
    )


async def record_action(
    db: Database,
    *,
    at: datetime,
    actor: str,
    action: str,
    subject: str,
    event_id: int | None = None,
    before: Jsonable = None,
    after: Jsonable = None,
    reason: str | None = None,
) -> int:
    """Log an organiser action that changes nothing else in storage (e.g. a manual announcement)."""
    async with db.transaction() as conn:
        return await append(
            conn,
            at=at,
            actor=actor,
            action=action,
            subject=subject,
            event_id=event_id,
            before=before,
            after=after,
            reason=reason,
        )


def _entry(row: Row) -> AuditEntry:
    return AuditEntry(
        id=int(row["id"]),
        at=need_time(row["at"]),
        actor=str(row["actor"]),
        action=str(row["action"]),
        event_id=None if row["event_id"] is None else int(row["event_id"]),
        subject=str(row["subject"]),
        before=row["before"],
        after=row["after"],
        reason=row["reason"],
    )


async def audit_log(
    db: Database, *, event_id: int | None = None, action: str | None = None, limit: int | None = None
) -> list[AuditEntry]:
    """Audit lines, oldest first (optionally one event's, one action's, the last `limit`)."""
    where: list[str] = []
    params: list[object] = []
    if event_id is not None:
        where.append("event_id = ?")
        params.append(event_id)
    if action is not None:
        where.append("action = ?")
        params.append(action)
    sql = "SELECT * FROM audit_log" + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY id DESC"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    async with db.snapshot() as conn:
        rows = await fetchall(conn, sql, params)
    return [_entry(r) for r in reversed(rows)]


async def logged(db: Database, *, event_id: int, action: str, subject: str) -> bool:
    """Whether the log has an `action` on `subject` for the event (e.g. a reminder already sent)."""
    async with db.snapshot() as conn:
        row = await fetchone(
            conn,
            "SELECT 1 FROM audit_log WHERE event_id = ? AND action = ? AND subject = ? LIMIT 1",
            (event_id, action, subject),
        )
    return row is not None
