"""The Discord messages an event posted (the join message, each round's pairings), to edit in place."""

from __future__ import annotations

from dataclasses import dataclass

from storage.db import Database, Row, execute, fetchall, fetchone
from storage.events import load_event


@dataclass(frozen=True)
class MessageRef:
    """A Discord message the bot posted for an event (to edit in place after a restart)."""

    event_id: int
    kind: str
    round: int
    channel_id: int
    message_id: int


def _ref(row: Row) -> MessageRef:
    return MessageRef(
        event_id=int(row["event_id"]),
        kind=str(row["kind"]),
        round=int(row["round"]),
        channel_id=int(row["channel_id"]),
        message_id=int(row["message_id"]),
    )


async def set_message(
    db: Database, event_id: int, kind: str, *, channel_id: int, message_id: int, round_number: int = 0
) -> MessageRef:
    """Remember the message of a kind (e.g. 'join', 'pairings', 'standings') for a round (0: the event)."""
    async with db.transaction() as conn:
        await load_event(conn, event_id)
        await execute(
            conn,
            "INSERT INTO event_messages (event_id, kind, round, channel_id, message_id) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (event_id, kind, round) DO UPDATE SET channel_id = excluded.channel_id,"
            " message_id = excluded.message_id",
            (event_id, kind, round_number, channel_id, message_id),
        )
    return MessageRef(event_id, kind, round_number, channel_id, message_id)


async def get_message(db: Database, event_id: int, kind: str, *, round_number: int = 0) -> MessageRef | None:
    """The remembered message, or None."""
    async with db.snapshot() as conn:
        row = await fetchone(
            conn,
            "SELECT * FROM event_messages WHERE event_id = ? AND kind = ? AND round = ?",
            (event_id, kind, round_number),
        )
    return None if row is None else _ref(row)


async def event_messages(db: Database, event_id: int) -> list[MessageRef]:
    """Every remembered message of an event, by round then kind."""
    async with db.snapshot() as conn:
        rows = await fetchall(conn, "SELECT * FROM event_messages WHERE event_id = ? ORDER BY round, kind", (event_id,))
    return [_ref(r) for r in rows]
