"""Open the SQLite database (WAL, foreign keys, busy timeout), apply migrations, run transactions."""

from __future__ import annotations

import asyncio
import logging
import re
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any, Generic, TypeVar

import aiosqlite

from storage.errors import (
    DatabaseError,
    DatabaseTrouble,
    DatabaseUnavailable,
    InvalidInput,
    SchemaTooNew,
    StorageError,
    classify,
)

Connection = aiosqlite.Connection

# aiosqlite logs every statement with its parameters at DEBUG: OAuth states, PKCE verifiers and sealed tokens
# would reach a DEBUG-level log. Storage's own errors say what failed; the statements stay out of the log.
logging.getLogger("aiosqlite").setLevel(logging.INFO)

Row = sqlite3.Row
Params = Sequence[Any]
T = TypeVar("T")

_MIGRATION_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True)
class Migration:
    """One numbered SQL script."""

    version: int
    name: str
    sql: str

    def statements(self) -> list[str]:
        """The script split into complete SQL statements (triggers kept whole)."""
        out: list[str] = []
        buffer = ""
        for line in self.sql.splitlines(keepends=True):
            if not buffer and (not line.strip() or line.lstrip().startswith("--")):
                continue
            buffer += line
            if sqlite3.complete_statement(buffer):
                out.append(buffer.strip())
                buffer = ""
        if buffer.strip():
            raise ValueError(f"migration {self.version:04d}_{self.name} ends with an incomplete statement")
        return out


def load_migrations(files: Iterable[tuple[str, str]] | None = None) -> tuple[Migration, ...]:
    """The migrations shipped in storage/migrations (or the given (file name, text) pairs), in order."""
    if files is None:
        folder = resources.files("storage") / "migrations"
        files = [
            (item.name, item.read_text(encoding="utf-8")) for item in folder.iterdir() if item.name.endswith(".sql")
        ]
    found: list[Migration] = []
    for name, text in files:
        match = _MIGRATION_NAME.match(name)
        if match is None:
            raise ValueError(f"migration file {name!r} is not named NNNN_name.sql")
        found.append(Migration(int(match.group(1)), match.group(2), text))
    found.sort(key=lambda m: m.version)
    expected = list(range(1, len(found) + 1))
    if [m.version for m in found] != expected:
        raise ValueError(f"migrations must be numbered 1..n without gaps, got {[m.version for m in found]}")
    return tuple(found)


class Kept(Generic[T]):
    """Objects made from rows, kept by the rows' values (each immutable, so shared by every read that holds them):
    a process that reads an event at every change makes only the changed rows' objects again (the bot's event loop
    made 2,000 entries in 20 to 30 ms at each job's read). At most `limit` are kept (then it starts again: a
    2,000-player, 11-round event has 11,000 boards)."""

    def __init__(self, make: Callable[[Row], T], limit: int) -> None:
        self._make = make
        self._limit = limit
        self._kept: dict[tuple[object, ...], T] = {}

    def made(self, row: Row) -> T:
        """The object of a row, made once."""
        key = tuple(row)
        found = self._kept.get(key)
        if found is None:
            if len(self._kept) >= self._limit:
                self._kept.clear()
            found = self._kept[key] = self._make(row)
        return found


def utc_text(at: datetime) -> str:
    """A timezone-aware time as stored: ISO-8601 in UTC."""
    if at.tzinfo is None or at.utcoffset() is None:
        raise InvalidInput(f"time {at.isoformat()} has no timezone; storage takes UTC-aware times only")
    return at.astimezone(UTC).isoformat(timespec="microseconds")


def parse_time(text: str | None) -> datetime | None:
    """A stored time back as an aware UTC datetime."""
    return None if text is None else datetime.fromisoformat(text)


def need_time(text: str) -> datetime:
    """A stored time that is never NULL."""
    return datetime.fromisoformat(text)


class Database:
    """One open SQLite database: a single connection, one transaction at a time.

    `transaction()` is re-entrant within one asyncio task (the inner block becomes a savepoint), so
    the director may group several repository calls into one atomic change::

        async with db.transaction():
            await record_result(db, ...)
            await finish_round(db, ...)
    """

    def __init__(self, conn: Connection, path: str) -> None:
        self._conn = conn
        self.path = path
        self._lock = asyncio.Lock()
        self._owner: asyncio.Task[Any] | None = None
        self._depth = 0
        self._writing = False

    @property
    def in_current_task(self) -> bool:
        """Whether the running task is inside one of this database's transactions (it reads its own writes)."""
        task = asyncio.current_task()
        return task is not None and self._owner is task

    @property
    def connection(self) -> Connection:
        """The underlying aiosqlite connection (for tests and diagnostics)."""
        return self._conn

    async def close(self) -> None:
        """Close the connection (checkpointing the WAL)."""
        await self._conn.close()

    async def __aenter__(self) -> Database:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Connection]:
        """A write transaction (BEGIN IMMEDIATE): committed on success, rolled back on any exception."""
        async with self._enter("BEGIN IMMEDIATE") as conn:
            yield conn

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[Connection]:
        """A read transaction: every query inside sees the same committed state."""
        async with self._enter("BEGIN DEFERRED") as conn:
            yield conn

    @asynccontextmanager
    async def _enter(self, begin: str) -> AsyncIterator[Connection]:
        task = asyncio.current_task()
        if task is not None and self._owner is task:
            if begin == "BEGIN IMMEDIATE" and not self._writing:
                # Upgrading a read transaction to a write one can fail at once with SQLITE_BUSY.
                raise DatabaseError("a write inside a read snapshot: open the transaction first")
            async with self._savepoint() as conn:
                yield conn
            return
        async with self._lock:
            self._owner = task
            self._writing = begin == "BEGIN IMMEDIATE"
            try:
                if self._conn.in_transaction:
                    # A rollback interrupted by a second cancellation left the transaction open.
                    await self._rollback()
                try:
                    await _run(self._conn, begin)
                except BaseException:
                    # Cancelled while waiting for it, the BEGIN still runs in aiosqlite's thread (after this task
                    # let go of the lock): the rollback queued behind it undoes it before the next transaction.
                    await self._rollback()
                    raise
                try:
                    yield self._conn
                except sqlite3.Error as exc:
                    await self._rollback()
                    raise classify(exc) from exc
                except BaseException:
                    await self._rollback()
                    raise
                await _run(self._conn, "COMMIT")
            finally:
                self._owner = None
                self._writing = False

    @asynccontextmanager
    async def _savepoint(self) -> AsyncIterator[Connection]:
        self._depth += 1
        name = f"sp{self._depth}"
        try:
            await _run(self._conn, f"SAVEPOINT {name}")
            try:
                yield self._conn
            except BaseException:
                await _run(self._conn, f"ROLLBACK TO {name}")
                await _run(self._conn, f"RELEASE {name}")
                raise
            await _run(self._conn, f"RELEASE {name}")
        finally:
            self._depth -= 1

    async def _rollback(self) -> None:
        # SQLite may have rolled back already (e.g. after SQLITE_FULL); then there is nothing to undo.
        with suppress(sqlite3.Error):
            await self._conn.execute("ROLLBACK")

    async def schema_version(self) -> int:
        """The schema version recorded in the database."""
        return await _user_version(self._conn)


async def _run(conn: Connection, sql: str, params: Params = ()) -> None:
    try:
        await conn.execute(sql, params)
    except sqlite3.Error as exc:
        raise classify(exc) from exc


async def fetchone(conn: Connection, sql: str, params: Params = ()) -> Row | None:
    """The first row of a query, or None."""
    try:
        async with conn.execute(sql, params) as cursor:
            row = await cursor.fetchone()
    except sqlite3.Error as exc:
        raise classify(exc) from exc
    return row


async def fetchall(conn: Connection, sql: str, params: Params = ()) -> list[Row]:
    """Every row of a query."""
    try:
        async with conn.execute(sql, params) as cursor:
            rows = await cursor.fetchall()
    except sqlite3.Error as exc:
        raise classify(exc) from exc
    return list(rows)


async def execute(conn: Connection, sql: str, params: Params = ()) -> int:
    """Run one statement; return the last inserted row id."""
    try:
        cursor = await conn.execute(sql, params)
        rowid = cursor.lastrowid
        await cursor.close()
    except sqlite3.Error as exc:
        raise classify(exc) from exc
    return int(rowid or 0)


async def execute_count(conn: Connection, sql: str, params: Params = ()) -> int:
    """Run one statement; return how many rows it changed."""
    try:
        cursor = await conn.execute(sql, params)
        count = cursor.rowcount
        await cursor.close()
    except sqlite3.Error as exc:
        raise classify(exc) from exc
    return int(count)


async def executemany(conn: Connection, sql: str, rows: Iterable[Params]) -> None:
    """Run one statement for each parameter row."""
    try:
        await conn.executemany(sql, rows)
    except sqlite3.Error as exc:
        raise classify(exc) from exc


async def _user_version(conn: Connection) -> int:
    row = await fetchone(conn, "PRAGMA user_version")
    return int(row[0]) if row is not None else 0


async def open_database(
    path: str | Path,
    *,
    busy_timeout_ms: int = 5000,
    create: bool = True,
    migrations: Sequence[Migration] | None = None,
) -> Database:
    """Open (or create) the database file, set the pragmas and apply pending migrations.

    Raises DatabaseUnavailable when the file cannot be opened or is not SQLite, SchemaTooNew when it
    was written by a newer swissbot. With `create=False` a missing file is an error too.
    """
    text = str(path)
    if not create and text != ":memory:" and not Path(text).is_file():
        raise DatabaseUnavailable(f"no database file at {text}")
    steps = load_migrations() if migrations is None else tuple(migrations)
    try:
        # Probe first: aiosqlite's failed connect leaves its worker thread behind.
        await asyncio.to_thread(_probe, text)
        conn = await aiosqlite.connect(text, isolation_level=None, timeout=busy_timeout_ms / 1000)
    except (sqlite3.Error, OSError) as exc:
        raise DatabaseUnavailable(f"cannot open the database {text}: {_cause(exc)}") from exc
    conn.row_factory = sqlite3.Row
    try:
        await conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        await conn.execute("PRAGMA foreign_keys = ON")
        await conn.execute("PRAGMA journal_mode = WAL")
        await conn.execute("PRAGMA synchronous = NORMAL")
        await _migrate(conn, steps)
    except StorageError:
        await conn.close()
        raise
    except sqlite3.DatabaseError as exc:
        await conn.close()
        raise DatabaseUnavailable(f"cannot use the database {text}: {_cause(exc)}") from exc
    return Database(conn, text)


def _cause(exc: Exception) -> str:
    """What went wrong opening the database, with the remedy when the cause is known."""
    found = classify(exc) if isinstance(exc, sqlite3.Error) else None
    return str(found) if isinstance(found, DatabaseTrouble) else str(exc)


def _probe(path: str) -> None:
    sqlite3.connect(path).close()


async def _migrate(conn: Connection, steps: Sequence[Migration]) -> None:
    known = steps[-1].version if steps else 0
    current = await _user_version(conn)
    if current > known:
        raise SchemaTooNew(current, known)
    for step in steps:
        if step.version <= current:
            continue
        await conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated while we waited for the write lock.
            if await _user_version(conn) >= step.version:
                await conn.execute("ROLLBACK")
                continue
            for statement in step.statements():
                await conn.execute(statement)
            await conn.execute("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", (step.version, step.name))
            await conn.execute(f"PRAGMA user_version = {step.version}")
            await conn.execute("COMMIT")
        except BaseException:
            with suppress(sqlite3.Error):
                await conn.execute("ROLLBACK")
            raise
    current = await _user_version(conn)
    if current > known:
        raise SchemaTooNew(current, known)


SCHEMA_VERSION = load_migrations()[-1].version
