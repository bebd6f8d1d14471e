"""An event's content version: one cheap read that moves whenever what its pages show may have changed."""

from __future__ import annotations

from storage.db import Database, fetchone

VERSION_SQL = """
SELECT
    (SELECT COALESCE(MAX(id), 0) FROM audit_log WHERE event_id = ?1) AS audit,
    (SELECT COUNT(g.lichess_id) FROM games g JOIN boards b ON b.id = g.board_id WHERE b.event_id = ?1) AS linked,
    (SELECT COALESCE(MAX(g.id), 0) FROM games g JOIN boards b ON b.id = g.board_id WHERE b.event_id = ?1) AS games
"""


async def content_version(db: Database, event_id: int) -> str:
    """The event's version: its latest audit line (every write to its settings, status, entries, rounds, byes
    and results writes one) and its game attempts and their Lichess ids (the boards' links), as one string."""
    async with db.snapshot() as conn:
        row = await fetchone(conn, VERSION_SQL, (event_id,))
    if row is None:  # an aggregate query always answers one row
        return "0.0.0"
    return f"{row['audit']}.{row['linked']}.{row['games']}"
