"""A database in trouble (locked by another program, disk full, read-only) is a known error with its remedy,
raised from real SQLite errors, and the transaction that met it changed nothing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from storage.db import execute, fetchone, open_database
from storage.errors import DatabaseFull, DatabaseLocked, DatabaseReadOnly, classify


async def test_a_full_disk_is_database_full_and_the_transaction_is_undone(tmp_path: Path) -> None:
    db = await open_database(tmp_path / "club.sqlite3")
    try:
        async with db.transaction() as conn:
            await execute(conn, "CREATE TABLE filler (b BLOB)")
            await execute(conn, "INSERT INTO filler VALUES (x'00')")
        async with db.transaction() as conn:
            row = await fetchone(conn, "PRAGMA page_count")
            assert row is not None
            await execute(conn, f"PRAGMA max_page_count = {int(row[0]) + 2}")  # the disk is all but full
        with pytest.raises(DatabaseFull, match="free some space on it and try again; nothing was changed"):
            async with db.transaction() as conn:
                await execute(conn, "INSERT INTO filler VALUES (x'01')")
                await execute(conn, "INSERT INTO filler VALUES (zeroblob(1000000))")
        async with db.snapshot() as conn:
            row = await fetchone(conn, "SELECT COUNT(*) FROM filler")
        assert row is not None and row[0] == 1  # the small row of the failed transaction is gone too
    finally:
        await db.close()


async def test_a_database_locked_by_another_program_is_database_locked(tmp_path: Path) -> None:
    path = tmp_path / "club.sqlite3"
    db = await open_database(path, busy_timeout_ms=100)
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        with pytest.raises(DatabaseLocked, match="locked by another program"):
            async with db.transaction() as conn:
                await execute(conn, "CREATE TABLE t (x)")
        holder.execute("ROLLBACK")
        async with db.transaction() as conn:  # the other program let go: it works again
            await execute(conn, "CREATE TABLE t (x)")
    finally:
        holder.close()
        await db.close()


async def test_a_read_only_database_is_database_read_only(tmp_path: Path) -> None:
    db = await open_database(tmp_path / "club.sqlite3")
    try:
        async with db.transaction() as conn:
            await execute(conn, "PRAGMA query_only = 1")  # SQLite answers writes as on a read-only file
        with pytest.raises(DatabaseReadOnly, match="give swissbot write access to the file and its folder"):
            async with db.transaction() as conn:
                await execute(conn, "CREATE TABLE t (x)")
    finally:
        await db.close()


def test_other_sqlite_errors_stay_plain_database_errors() -> None:
    error = classify(sqlite3.OperationalError("no such table: nowhere"))
    assert type(error).__name__ == "DatabaseError" and "no such table: nowhere" in str(error)
