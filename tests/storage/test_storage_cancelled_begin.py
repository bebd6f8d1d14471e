"""A transaction cancelled while its BEGIN waits for aiosqlite's thread leaves no transaction open behind it.

The BEGIN is already queued in the thread when the task is cancelled, so it runs after the task let go of the
database's lock; the next transaction used to find the connection idle (the BEGIN not run yet), queue its own
BEGIN behind the first and fail with "cannot start a transaction within a transaction" (a StreamFeeder closed
while its sync was starting a read did this under load). The thread is held on a gate here to make the moment
certain.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import cast

from storage.db import open_database


async def test_the_next_transaction_after_a_cancelled_begin_starts(tmp_path: Path) -> None:
    db = await open_database(tmp_path / "swiss.sqlite3")
    try:
        gate = threading.Event()
        in_thread = cast(Callable[[Callable[[], bool]], Awaitable[bool]], db._conn._execute)  # aiosqlite's queue
        held = asyncio.ensure_future(in_thread(gate.wait))  # its thread waits at the gate

        async def reader() -> None:
            async with db.snapshot():
                await asyncio.sleep(10)

        async def next_reader() -> bool:
            async with db.snapshot() as conn:
                return conn.in_transaction

        first = asyncio.create_task(reader())
        await asyncio.sleep(0.05)  # its BEGIN is queued behind the gate
        first.cancel()
        await asyncio.sleep(0.05)
        second = asyncio.create_task(next_reader())
        await asyncio.sleep(0.05)
        gate.set()
        cancelled, started = await asyncio.gather(first, second, return_exceptions=True)
        await held
        assert isinstance(cancelled, asyncio.CancelledError)
        assert started is True, started
        async with db.transaction() as conn:  # and writing works after it
            assert conn.in_transaction
    finally:
        await db.close()
