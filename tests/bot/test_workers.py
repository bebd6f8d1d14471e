"""The application's worker processes: work runs in another process once the pool is made, in a thread without one,
and a dead worker does not leave the bot without workers."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import AsyncIterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from bot import workers as workers_module
from bot.workers import WORKER_NICENESS, Workers


def where() -> tuple[int, int]:
    """The process and thread that ran the call."""
    return os.getpid(), threading.get_ident()


def die() -> None:
    """A worker that dies mid-call (killed, out of memory)."""
    os._exit(1)


@pytest.fixture
async def pool() -> AsyncIterator[Workers]:
    """A started pool of one worker process, shut down after the test."""
    workers = Workers(1)
    workers.start()
    try:
        yield workers
    finally:
        await workers.close()


async def test_without_a_pool_the_work_runs_in_a_thread_of_this_process() -> None:
    workers = Workers(0)
    workers.start()  # no processes asked for: no pool
    pid, thread = await workers.run(where)
    assert (pid, workers.running, workers.offloaded) == (os.getpid(), False, 0)
    assert thread != threading.get_ident()


async def test_a_started_pool_runs_the_work_in_another_process_until_it_is_closed(pool: Workers) -> None:
    pid, _ = await pool.run(where)
    assert pid != os.getpid()
    assert pool.offloaded == 1
    await pool.close()
    assert (await pool.run(where))[0] == os.getpid()  # after close: a thread


async def test_a_call_that_kills_its_worker_fails_and_a_new_pool_takes_the_next_calls(pool: Workers) -> None:
    with pytest.raises(BrokenProcessPool):
        await pool.run(die)  # tried in a new pool once more, never in this process (it would end the bot)
    assert pool.running
    pid, _ = await pool.run(where)
    assert pid != os.getpid()


def niceness() -> int:
    """The calling process's niceness."""
    return os.nice(0)


async def test_a_worker_process_yields_the_cores_to_the_bots_own_process(pool: Workers) -> None:
    assert await pool.run(niceness) == os.nice(0) + WORKER_NICENESS


async def test_a_worker_ends_when_the_bot_is_killed(tmp_path: Path) -> None:
    said = tmp_path / "worker.pid"
    bot = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        "import asyncio, os, sys\n"
        "from pathlib import Path\n"
        "from bot.workers import Workers\n"
        "async def main():\n"
        "    workers = Workers(1)\n"
        "    workers.start()\n"
        "    Path(sys.argv[1]).write_text(str(await workers.run(os.getpid)))\n"
        "    await asyncio.sleep(60)\n"
        "asyncio.run(main())\n",
        str(said),
        stdout=asyncio.subprocess.DEVNULL,
    )
    for _ in range(600):
        if said.exists() and said.read_text():
            break
        await asyncio.sleep(0.05)
    worker = int(said.read_text())
    bot.kill()  # SIGKILL: the bot's process ends without shutting its pool down
    await bot.wait()
    for _ in range(200):
        if not alive(worker):
            return
        await asyncio.sleep(0.05)
    os.kill(worker, signal.SIGKILL)
    raise AssertionError(f"worker {worker} outlived the killed bot")


def alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def test_start_makes_no_process_the_first_call_makes_it_in_a_thread_while_the_loop_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made_in: list[int] = []
    make = workers_module._pool_of

    def pool_of(processes: int) -> ProcessPoolExecutor:
        made_in.append(threading.get_ident())
        return make(processes)

    monkeypatch.setattr(workers_module, "_pool_of", pool_of)
    children = set(multiprocessing.active_children())
    workers = Workers(1)
    workers.start()
    try:
        assert (workers.running, workers.pools, set(multiprocessing.active_children())) == (True, 0, children)
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.001)

        ticker = asyncio.create_task(tick())
        first, second = await asyncio.gather(workers.run(where), workers.run(where))  # two callers, one pool
        ticker.cancel()
    finally:
        await workers.close()
    assert first[0] == second[0] != os.getpid()
    assert workers.pools == 1 and made_in != [threading.get_ident()] and len(made_in) == 1
    assert ticks > 1  # the loop ran other tasks while the worker started and warmed
