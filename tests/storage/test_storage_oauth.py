"""OAuth states (single use) and members' tokens (never in clear text) in storage."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from storage import oauth
from storage import players as storage_players
from storage.db import open_database
from storage.errors import DatabaseError, InvalidInput

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
STATE = "s" * 43
VERIFIER = "v" * 64


async def test_a_state_is_taken_once(tmp_path: Path) -> None:
    db = await open_database(tmp_path / "o.db")
    try:
        await oauth.create_state(db, STATE, 7, "alice", VERIFIER, at=NOW, expires_at=NOW + timedelta(minutes=15))
        taken = await oauth.take_state(db, STATE)
        assert taken is not None and (taken.discord_id, taken.verifier) == (7, VERIFIER)
        assert VERIFIER not in repr(taken)
        assert await oauth.take_state(db, STATE) is None
        with pytest.raises(InvalidInput):
            await oauth.create_state(db, "short", 7, "alice", VERIFIER, at=NOW, expires_at=NOW)
    finally:
        await db.close()


async def test_a_new_link_replaces_the_members_pending_one(tmp_path: Path) -> None:
    db = await open_database(tmp_path / "o.db")
    try:
        later = NOW + timedelta(minutes=15)
        await oauth.create_state(db, STATE, 7, "alice", VERIFIER, at=NOW, expires_at=later)
        await oauth.create_state(db, "t" * 43, 7, "alice", VERIFIER, at=NOW, expires_at=later)
        assert await oauth.take_state(db, STATE) is None
        assert await oauth.take_state(db, "t" * 43) is not None
    finally:
        await db.close()


async def test_tokens_are_stored_sealed_marked_invalid_and_deleted(tmp_path: Path) -> None:
    db = await open_database(tmp_path / "o.db")
    try:
        player = await storage_players.ensure_player(db, 7, "alice", at=NOW)
        with pytest.raises(DatabaseError):  # the schema refuses a token in clear text
            await oauth.store_token(db, player.id, "alice", "lio_clear", ["challenge:write"], at=NOW, expires_at=None)
        await oauth.store_token(db, player.id, "Alice", "gAAAAsealed", ["challenge:write"], at=NOW, expires_at=None)
        stored = (await oauth.tokens_of(db, [player.id]))[player.id]
        assert (stored.lichess_id, stored.secret, stored.invalid_at) == ("alice", "gAAAAsealed", None)
        assert "gAAAA" not in repr(stored)
        assert await oauth.mark_invalid(db, [player.id], at=NOW) == 1
        assert await oauth.mark_invalid(db, [player.id], at=NOW) == 0  # already: the member is told once
        assert (await oauth.tokens_of(db, [player.id]))[player.id].invalid_at == NOW
        await oauth.store_token(db, player.id, "alice", "gAAAAnew", ["challenge:write"], at=NOW, expires_at=None)
        assert (await oauth.tokens_of(db, [player.id]))[player.id].invalid_at is None  # linked again: valid
        deleted = await oauth.delete_token(db, player.id)
        assert deleted is not None and deleted.secret == "gAAAAnew"
        assert await oauth.tokens_of(db, [player.id]) == {}
    finally:
        await db.close()
