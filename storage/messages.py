"""The record of each post the Discord announcer makes: written before it is sent, completed with its message id."""

from __future__ import annotations

from dataclasses import dataclass

from storage.db import Database, Row, execute, fetchall, fetchone
from storage.events import load_event


@dataclass(frozen=True)
class MessageRef:
    """A post of an event: what (kind, round), where (channel), its nonce, and its message id once Discord took it."""

    event_id: int
    kind: str
    round: int
    channel_id: int
    message_id: int | None
    nonce: str = ""
    digest: str | None = None  # what the message shows, as the announcer hashes its payload

    @property
    def posted(self) -> bool:
        """Discord took the post (its message id is stored)."""
        return self.message_id is not None


def _ref(row: Row) -> MessageRef:
    message_id = row["message_id"]
    return MessageRef(
        event_id=int(row["event_id"]),
        kind=str(row["kind"]),
        round=int(row["round"]),
        channel_id=int(row["channel_id"]),
        message_id=None if message_id is None else int(message_id),
        nonce=str(row["nonce"]),
        digest=None if row["digest"] is None else str(row["digest"]),
    )


_SELECT = "SELECT * FROM event_messages WHERE event_id = ? AND kind = ? AND round = ?"


async def reserve_message(
    db: Database, event_id: int, kind: str, *, channel_id: int, nonce: str, round_number: int = 0
) -> MessageRef:
    """The record of the post of a kind for a round: written now (pending, with `nonce`) unless one exists."""
    async with db.transaction() as conn:
        await load_event(conn, event_id)
        await execute(
            conn,
            "INSERT INTO event_messages (event_id, kind, round, channel_id, nonce) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (event_id, kind, round) DO NOTHING",
            (event_id, kind, round_number, channel_id, nonce),
        )
        row = await fetchone(conn, _SELECT, (event_id, kind, round_number))
    assert row is not None
    return _ref(row)


async def renew_message(
    db: Database, event_id: int, kind: str, *, channel_id: int, nonce: str, round_number: int = 0
) -> MessageRef:
    """The post's message is gone (deleted in Discord): the record is pending again, with a fresh nonce."""
    async with db.transaction() as conn:
        await execute(
            conn,
            "UPDATE event_messages SET channel_id = ?, message_id = NULL, nonce = ?, digest = NULL"
            " WHERE event_id = ? AND kind = ? AND round = ?",
            (channel_id, nonce, event_id, kind, round_number),
        )
        row = await fetchone(conn, _SELECT, (event_id, kind, round_number))
    assert row is not None
    return _ref(row)


async def set_message(
    db: Database,
    event_id: int,
    kind: str,
    *,
    channel_id: int,
    message_id: int,
    round_number: int = 0,
    digest: str | None = None,
) -> MessageRef:
    """Complete the post of a kind (e.g. 'join', 'round:0', 'standings:0') for a round (0: the event) with the
    message Discord made (a record written here if there was none)."""
    async with db.transaction() as conn:
        await load_event(conn, event_id)
        await execute(
            conn,
            "INSERT INTO event_messages (event_id, kind, round, channel_id, message_id, nonce, digest)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (event_id, kind, round) DO UPDATE SET channel_id = excluded.channel_id,"
            " message_id = excluded.message_id, digest = excluded.digest",
            (event_id, kind, round_number, channel_id, message_id, f"m{message_id}"[:25], digest),
        )
        row = await fetchone(conn, _SELECT, (event_id, kind, round_number))
    assert row is not None
    return _ref(row)


async def set_digest(db: Database, event_id: int, kind: str, digest: str, *, round_number: int = 0) -> None:
    """The posted message was edited to show what `digest` stands for."""
    async with db.transaction() as conn:
        await execute(
            conn,
            "UPDATE event_messages SET digest = ? WHERE event_id = ? AND kind = ? AND round = ?",
            (digest, event_id, kind, round_number),
        )


async def get_message(db: Database, event_id: int, kind: str, *, round_number: int = 0) -> MessageRef | None:
    """The record of the post (pending or posted), or None."""
    async with db.snapshot() as conn:
        row = await fetchone(conn, _SELECT, (event_id, kind, round_number))
    return None if row is None else _ref(row)


async def event_messages(db: Database, event_id: int) -> list[MessageRef]:
    """Every post record of an event, by round then kind."""
    async with db.snapshot() as conn:
        rows = await fetchall(conn, "SELECT * FROM event_messages WHERE event_id = ? ORDER BY round, kind", (event_id,))
    return [_ref(r) for r in rows]
