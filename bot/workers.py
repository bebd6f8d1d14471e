"""Where the bot's CPU-heavy work runs: a pool of worker processes that the application owns, or worker threads.

Pure-Python work in a thread still holds the GIL that the event loop needs, so the loop stalls for the length of
each switch interval over and over; in another process it stalls for nothing. `Workers.run(fn, *args)` runs a
module-level function on plain data (both pickle) in the pool once `start` asked for one (`bot.assembly.App.start`;
`processes` from `[director] worker_processes`), and in a thread before that, after `close`, with
`processes = 0` (the tests). The pool is made by the first call that needs it, in a thread (spawning a process
and sending it what it needs to start takes the calling thread milliseconds), so an application that never pairs
or computes tables starts no process, and the loop goes on while the first one starts. A worker that dies (killed,
out of memory) breaks the pool: a new one is made and takes the call once more; a call that kills that one too
fails (its job tries again later), never in this process.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import importlib
import logging
import multiprocessing
import multiprocessing.connection
import os
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import ParamSpec, TypeVar

log = logging.getLogger(__name__)
P = ParamSpec("P")
T = TypeVar("T")

# What a worker imports when it starts, so the first round's work does not pay for it. Not the Fast engine: it
# brings numpy (about 20 MiB and 0.1 s), which only events of 700 or more players use, and their rounds take longer.
WARM_MODULES = (
    "bot.director.polling",
    "bot.director.round_pairing",
    "bot.director.tables",
    "bot.web.pages.parts",
    "pairing.systems.burstein",
    "pairing.systems.dutch",
)


# A worker yields the cores to the bot's own process (its event loop answers Discord and the pages) when both want
# one: on 2 cores a busy worker and the loop otherwise share them evenly with everything else on the machine.
WORKER_NICENESS = 5


# A worker's young generation is collected after this many new container objects rather than CPython's 700: one
# cold page's tables make tens of thousands that live until the answer is sent, and collecting them every 700 took
# a tenth of the call; garbage in cycles is rare here and still collected, later.
WORKER_GC_THRESHOLD = 50_000


def _start_worker() -> None:
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)
    gc.set_threshold(WORKER_GC_THRESHOLD, *gc.get_threshold()[1:])
    # A worker outlives a parent that was killed (SIGKILL, out of memory): it waits on a queue whose writing end it
    # holds itself. It ends when the parent's sentinel says the parent is gone.
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_end_with, args=(parent.sentinel,), daemon=True).start()


def _end_with(sentinel: int) -> None:
    multiprocessing.connection.wait([sentinel])
    os._exit(0)


def _warm() -> None:
    for name in WARM_MODULES:
        importlib.import_module(name)
    gc.freeze()  # the imports live as long as the worker: no full collection walks them again


def _pool_of(processes: int) -> ProcessPoolExecutor:
    """A pool of `processes` spawned workers (no copy of the loop's threads or sockets; a lower priority than the
    loop's process, `WORKER_NICENESS`), each started and warming (`_warm`) when this returns."""
    pool = ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker)
    for _ in range(processes):
        pool.submit(_warm)  # each submit to a pool without an idle worker spawns one, here rather than on the loop
    return pool


@dataclass
class Workers:
    """The application's worker processes (`processes` of them, 0 for threads only), made by `start`."""

    processes: int = 0
    _pool: ProcessPoolExecutor | None = field(default=None, repr=False)
    _wanted: bool = field(default=False, repr=False)  # started and not closed: worker processes take the work
    _making: asyncio.Future[None] | None = field(default=None, repr=False)  # the pool being made, for every caller
    offloaded: int = 0  # calls that ran in a worker process (tests observe it)
    pools: int = 0  # pools made (tests observe when)

    @property
    def running(self) -> bool:
        """Worker processes take the work (made by the first call that needs them), else threads do."""
        return self._wanted

    def start(self) -> None:
        """Ask for the pool: the first call makes it (`_pool_of`)."""
        self._wanted = self.processes > 0

    async def close(self) -> None:
        """Shut the pool down (running calls finish, queued ones are cancelled); later calls run in threads."""
        self._wanted = False
        making = self._making
        if making is not None and not making.done():
            with contextlib.suppress(Exception):
                await asyncio.shield(making)  # the pool being made is shut down as soon as it is made
        pool, self._pool = self._pool, None
        if pool is not None:
            await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)

    async def _opened(self) -> ProcessPoolExecutor | None:
        """The pool, made now if there is none and one is wanted (one making for every caller: a caller cancelled
        meanwhile does not leave a pool nobody holds); None when there is none."""
        if self._pool is None and self._wanted:
            if self._making is None or self._making.done():
                self._making = asyncio.ensure_future(self._make())
            await asyncio.shield(self._making)
        return self._pool

    async def _make(self) -> None:
        pool = await asyncio.to_thread(_pool_of, self.processes)
        self.pools += 1
        if self._wanted and self._pool is None:
            self._pool = pool
        else:  # closed while it was being made
            await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)

    async def run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """`fn(*args)` in a worker process when there is a pool (`fn` module-level, the arguments and the answer
        plain data), else in a thread; never on the event loop."""
        call = functools.partial(fn, *args, **kwargs)
        for attempt in (1, 2):
            pool = self._pool or await self._opened()
            if pool is None:
                return await asyncio.to_thread(call)
            try:
                answer = await asyncio.get_running_loop().run_in_executor(pool, call)
            except BrokenProcessPool:
                # A worker died (killed, out of memory): a new pool takes the call once more, then the next calls.
                log.warning("a worker process died during %s (attempt %d)", getattr(fn, "__name__", fn), attempt)
                if self._pool is pool:  # the next call (this one's second attempt) makes a new one
                    self._pool = None
                    pool.shutdown(wait=False, cancel_futures=True)
                if attempt == 2:
                    raise
                continue
            self.offloaded += 1
            return answer
        raise AssertionError("unreachable")
