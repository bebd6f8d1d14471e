"""Opening databases: pragmas, migrations from empty and on top, refusing newer schemas and non-databases."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from storage.db import SCHEMA_VERSION, Migration, load_migrations, open_database
from storage.errors import DatabaseError, DatabaseUnavailable, SchemaTooNew
from storage.events import create_event
from storage.messages import get_message
from storage.outbox import PostKind, pending_posts
from tests.storage.storage_helpers import ORGANISER, T0, settings

TABLES = {
    "schema_migrations",
    "events",
    "players",
    "link_codes",
    "entries",
    "rounds",
    "boards",
    "round_byes",
    "games",
    "bye_requests",
    "forbidden_pairs",
    "bans",
    "event_messages",
    "audit_log",
    "oauth_states",
    "player_tokens",
    "bulks",
    "bulk_games",
    "teams",
    "team_players",
    "outbox",
}


def _tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")} - {"sqlite_sequence"}


async def test_migrations_from_empty_create_every_table(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    db = await open_database(path)
    try:
        assert await db.schema_version() == SCHEMA_VERSION == len(load_migrations())
        conn = db.connection
        async with conn.execute("PRAGMA journal_mode") as cur:
            assert (await cur.fetchone())[0] == "wal"  # type: ignore[index]
        async with conn.execute("PRAGMA foreign_keys") as cur:
            assert (await cur.fetchone())[0] == 1  # type: ignore[index]
        async with conn.execute("PRAGMA busy_timeout") as cur:
            assert (await cur.fetchone())[0] == 5000  # type: ignore[index]
    finally:
        await db.close()
    assert _tables(path) == TABLES
    with sqlite3.connect(path) as plain:
        shipped = [(m.version, m.name) for m in load_migrations()]
        assert plain.execute("SELECT version, name FROM schema_migrations").fetchall() == shipped
        assert shipped[0] == (1, "initial")


async def test_reopening_applies_nothing_twice(tmp_path: Path) -> None:
    path = tmp_path / "again.db"
    for _ in range(2):
        db = await open_database(path)
        await db.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM schema_migrations").fetchone() == (SCHEMA_VERSION,)


async def test_a_later_migration_applies_on_top_and_is_recorded(tmp_path: Path) -> None:
    path = tmp_path / "upgrade.db"
    await (await open_database(path)).close()
    later = SCHEMA_VERSION + 1
    steps = (*load_migrations(), Migration(later, "notes", "ALTER TABLE events ADD COLUMN notes TEXT;\n"))
    db = await open_database(path, migrations=steps)
    try:
        assert await db.schema_version() == later
    finally:
        await db.close()
    with sqlite3.connect(path) as conn:
        columns = {r[1] for r in conn.execute("PRAGMA table_info(events)")}
        assert "notes" in columns
        assert conn.execute("SELECT name FROM schema_migrations WHERE version = ?", (later,)).fetchone() == ("notes",)


async def test_a_failing_migration_leaves_the_previous_version(tmp_path: Path) -> None:
    path = tmp_path / "broken.db"
    await (await open_database(path)).close()
    broken_sql = "CREATE TABLE extra (x INTEGER);\nINSERT INTO no_such_table VALUES (1);\n"
    bad = Migration(SCHEMA_VERSION + 1, "bad", broken_sql)
    with pytest.raises(DatabaseUnavailable):
        await open_database(path, migrations=(*load_migrations(), bad))
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        assert "extra" not in {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}


async def test_a_database_newer_than_the_code_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    await (await open_database(path)).close()
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(SchemaTooNew, match="upgrade swissbot") as info:
        await open_database(path)
    assert info.value.found == SCHEMA_VERSION + 1 and info.value.known == SCHEMA_VERSION


async def test_a_file_that_is_not_sqlite_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("this is not a database, " * 100)
    with pytest.raises(DatabaseUnavailable):
        await open_database(path)


async def test_a_missing_file_is_refused_when_creation_is_off(tmp_path: Path) -> None:
    with pytest.raises(DatabaseUnavailable, match="no database file"):
        await open_database(tmp_path / "missing.db", create=False)
    assert not (tmp_path / "missing.db").exists()


async def test_a_directory_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DatabaseUnavailable):
        await open_database(tmp_path / "nowhere" / "x.db")


async def test_the_audit_log_is_append_only(tmp_path: Path) -> None:
    db = await open_database(tmp_path / "audit.db")
    try:
        async with db.transaction() as conn:
            await conn.execute(
                "INSERT INTO audit_log (at, actor, action, subject) VALUES ('2026-01-01T00:00:00+00:00', 'x', 'y', 'z')"
            )
        with pytest.raises(DatabaseError, match="append-only"):
            async with db.transaction() as conn:
                from storage.db import execute

                await execute(conn, "UPDATE audit_log SET actor = 'someone else'")
        with pytest.raises(DatabaseError, match="append-only"):
            async with db.transaction() as conn:
                from storage.db import execute

                await execute(conn, "DELETE FROM audit_log")
        async with db.snapshot() as conn, conn.execute("SELECT actor FROM audit_log") as cur:
            assert [r[0] for r in await cur.fetchall()] == ["x"]
    finally:
        await db.close()


def test_migration_files_must_be_numbered_without_gaps() -> None:
    with pytest.raises(ValueError, match="NNNN_name"):
        load_migrations([("initial.sql", "")])
    with pytest.raises(ValueError, match="without gaps"):
        load_migrations([("0001_a.sql", ""), ("0003_c.sql", "")])


def test_statements_keep_triggers_whole() -> None:
    sql = (
        "-- a comment\nCREATE TABLE t (x INTEGER);\n\n"
        "CREATE TRIGGER t_no_delete BEFORE DELETE ON t\nBEGIN\n    SELECT RAISE(ABORT, 'no');\nEND;\n"
    )
    statements = Migration(1, "t", sql).statements()
    assert len(statements) == 2
    assert statements[1].startswith("CREATE TRIGGER") and statements[1].endswith("END;")
    with pytest.raises(ValueError, match="incomplete"):
        Migration(2, "cut", "CREATE TABLE u (x INTEGER").statements()


async def test_raw_sqlite_errors_become_database_errors_and_roll_back(tmp_path: Path) -> None:
    db = await open_database(tmp_path / "raw.db")
    try:
        with pytest.raises(DatabaseError, match="no such table"):
            async with db.transaction() as conn:
                await conn.execute("CREATE TABLE t (x INTEGER)")
                await conn.execute("INSERT INTO missing VALUES (1)")
        async with db.snapshot() as conn, conn.execute("SELECT name FROM sqlite_master WHERE name = 't'") as cur:
            assert await cur.fetchall() == []
    finally:
        await db.close()


async def test_a_nested_block_rolls_back_alone(tmp_path: Path) -> None:
    db = await open_database(tmp_path / "nested.db")
    try:
        async with db.transaction() as conn:
            await conn.execute("CREATE TABLE t (x INTEGER)")
            await conn.execute("INSERT INTO t VALUES (1)")
            with pytest.raises(KeyError):
                async with db.transaction() as inner:
                    await inner.execute("INSERT INTO t VALUES (2)")
                    raise KeyError("inner step failed")
            async with db.transaction() as inner:
                await inner.execute("INSERT INTO t VALUES (3)")
        async with db.snapshot() as conn, conn.execute("SELECT x FROM t ORDER BY x") as cur:
            assert [r[0] for r in await cur.fetchall()] == [1, 3]
    finally:
        await db.close()


async def test_a_write_inside_a_read_snapshot_is_refused(tmp_path: Path) -> None:
    db = await open_database(tmp_path / "snap.db")
    try:
        async with db.snapshot():
            with pytest.raises(DatabaseError, match="inside a read snapshot"):
                async with db.transaction():
                    pass
            async with db.snapshot() as inner, inner.execute("SELECT 1") as cur:  # nested reads are fine
                assert tuple(await cur.fetchone() or ()) == (1,)
        async with db.transaction(), db.snapshot() as inner, inner.execute("SELECT 2") as cur:
            assert tuple(await cur.fetchone() or ()) == (2,)
    finally:
        await db.close()


async def test_version_12_keeps_the_posted_messages_and_the_pending_posts(tmp_path: Path) -> None:
    path = tmp_path / "v11.db"
    db = await open_database(path, migrations=load_migrations()[:11])
    try:
        event = await create_event(db, settings(), created_by=ORGANISER, at=T0)
    finally:
        await db.close()
    with sqlite3.connect(path) as conn:
        conn.execute(
            "INSERT INTO event_messages (event_id, kind, round, channel_id, message_id)"
            " VALUES (?, 'round:0', 1, 5, 77)",
            (event.id,),
        )
        conn.execute(
            "INSERT INTO outbox (event_id, kind, round, created_at)"
            " VALUES (?, 'results', 1, '2026-03-01T18:00:00+00:00')",
            (event.id,),
        )
    db = await open_database(path)
    try:
        ref = await get_message(db, event.id, "round:0", round_number=1)
        assert ref is not None and (ref.channel_id, ref.message_id, ref.posted, ref.digest) == (5, 77, True, None)
        (pending,) = await pending_posts(db, event.id)
        assert (pending.kind, pending.round, pending.text) == (PostKind.RESULTS, 1, "")
    finally:
        await db.close()
