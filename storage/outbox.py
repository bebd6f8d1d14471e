"""The posts that must reach an event's channel, kept until Discord took them (issue #24)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import Enum

from storage.db import Database, Row, execute, fetchall, fetchone, utc_text
from storage.errors import InvalidInput


class PostKind(Enum):
    """What a post shows, rendered from the database when it is sent."""

    RESULTS = "results"  # a round's results (its message edited in place)
    STANDINGS = "standings"  # the standings after a round
    FINAL = "final"  # the final standings
    BULLETIN = "bulletin"  # a line for everyone (a cancellation, a disqualification), its text kept
    OPENED = "opened"  # the event's card with its Join button


@dataclass(frozen=True)
class Post:
    """A post waiting for Discord: the event, what it shows and for which round (0 for the final standings and
    bulletins), and a bulletin's text."""

    id: int
    event_id: int
    kind: PostKind
    round: int
    text: str = ""


def _post(row: Row) -> Post:
    kind = PostKind(str(row["kind"]))
    return Post(int(row["id"]), int(row["event_id"]), kind, int(row["round"]), str(row["text"]))


async def queue_post(
    db: Database, event_id: int, kind: PostKind, round_number: int, *, at: datetime, text: str = ""
) -> Post:
    """The pending post of this kind, round (and a bulletin's text), written now unless one is pending already."""
    if (kind is PostKind.BULLETIN) != bool(text):
        raise InvalidInput("a bulletin, and only a bulletin, has a text")
    async with db.transaction() as conn:
        await execute(
            conn,
            "INSERT INTO outbox (event_id, kind, round, text, created_at) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (event_id, kind, round, text) WHERE sent_at IS NULL DO NOTHING",
            (event_id, kind.value, round_number, text, utc_text(at)),
        )
        row = await fetchone(
            conn,
            "SELECT * FROM outbox WHERE event_id = ? AND kind = ? AND round = ? AND text = ? AND sent_at IS NULL",
            (event_id, kind.value, round_number, text),
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
