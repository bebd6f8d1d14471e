"""Where the bot's CPU-heavy work runs: a pool of worker processes that the application owns, or worker threads.

Pure-Python work in a thread still holds the GIL that the event loop needs, so the loop stalls for the length of
each switch interval over and over; in another process it stalls for nothing. `Workers.run(fn, *args)` runs a
module-level function on plain data (both pickle) in the pool once `start` made one (`bot.assembly.App.start`;
`processes` from `[director] worker_processes`), and in a thread before that, after `close`, with
`processes = 0` (the tests). A worker that dies (killed, out of memory) breaks the pool: a new one is made and
takes the call once more; a call that kills that one too fails (its job tries again later), never in this process.
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


@dataclass
class Workers:
    """The application's worker processes (`processes` of them, 0 for threads only), made by `start`."""

    processes: int = 0
    _pool: ProcessPoolExecutor | None = field(default=None, repr=False)
    offloaded: int = 0  # calls that ran in a worker process (tests observe it)

    @property
    def running(self) -> bool:
        """A process pool takes the work (else threads do)."""
        return self._pool is not None

    def start(self) -> None:
        """Make the pool (spawned processes: no copy of the loop's threads or sockets; a lower priority than the
        loop's process, `WORKER_NICENESS`) and warm its workers."""
        if self.processes <= 0 or self._pool is not None:
            return
        self._pool = ProcessPoolExecutor(
            self.processes, mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker
        )
        for _ in range(self.processes):
            self._pool.submit(_warm)

    async def close(self) -> None:
        """Shut the pool down (running calls finish, queued ones are cancelled); later calls run in threads."""
        pool, self._pool = self._pool, None
        if pool is not None:
            await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)

    async def run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """`fn(*args)` in a worker process when there is a pool (`fn` module-level, the arguments and the answer
        plain data), else in a thread; never on the event loop."""
        call = functools.partial(fn, *args, **kwargs)
        for attempt in (1, 2):
            pool = self._pool
            if pool is None:
                return await asyncio.to_thread(call)
            try:
                answer = await asyncio.get_running_loop().run_in_executor(pool, call)
            except BrokenProcessPool:
                # A worker died (killed, out of memory): a new pool takes the call once more, then the next calls.
                log.warning("a worker process died during %s (attempt %d)", getattr(fn, "__name__", fn), attempt)
                if self._pool is pool:
                    self._pool = None
                    pool.shutdown(wait=False, cancel_futures=True)
                    self.start()
                if attempt == 2:
                    raise
                continue
            self.offloaded += 1
            return answer
        raise AssertionError("unreachable")
