"""The posts that must reach an event's channel, kept until Discord took them (issue #24)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import Enum

from storage.db import Database, Row, execute, fetchall, fetchone, utc_text


class PostKind(Enum):
    """What a post shows, rendered from the database when it is sent."""

    RESULTS = "results"  # a round's results (its message edited in place)
    STANDINGS = "standings"  # the standings after a round
    FINAL = "final"  # the final standings


@dataclass(frozen=True)
class Post:
    """A post waiting for Discord: the event, what it shows and for which round (0 for the final standings)."""

    id: int
    event_id: int
    kind: PostKind
    round: int


def _post(row: Row) -> Post:
    return Post(int(row["id"]), int(row["event_id"]), PostKind(str(row["kind"])), int(row["round"]))


async def queue_post(db: Database, event_id: int, kind: PostKind, round_number: int, *, at: datetime) -> Post:
    """The pending post of this kind and round, written now unless one is pending already."""
    async with db.transaction() as conn:
        await execute(
            conn,
            "INSERT INTO outbox (event_id, kind, round, created_at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (event_id, kind, round) WHERE sent_at IS NULL DO NOTHING",
            (event_id, kind.value, round_number, utc_text(at)),
        )
        row = await fetchone(
            conn,
            "SELECT * FROM outbox WHERE event_id = ? AND kind = ? AND round = ? AND sent_at IS NULL",
            (event_id, kind.value, round_number),
        )
    assert row is not None
    return _post(row)


async def post_sent(db: Database, post_id: int, *, at: datetime) -> None:
    """Discord took the post: it is complete."""
    async with db.transaction() as conn:
        await execute(conn, "UPDATE outbox SET sent_at = ? WHERE id = ? AND sent_at IS NULL", (utc_text(at), post_id))


async def pending_posts(db: Database, event_id: int | None = None) -> list[Post]:
    """The posts Discord has not taken yet (of one event, or of all), oldest first."""
    where, params = ("AND event_id = ?", (event_id,)) if event_id is not None else ("", ())
    async with db.snapshot() as conn:
        rows = await fetchall(conn, f"SELECT * FROM outbox WHERE sent_at IS NULL {where} ORDER BY id", params)
    return [_post(r) for r in rows]
