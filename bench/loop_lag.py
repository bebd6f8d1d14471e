"""The event loop's stalls, measured from inside: a task sleeps 10 ms again and again and records how late it wakes.

A loop that runs only short callbacks wakes the probe within a millisecond or two of its time; a callback that
holds the loop (pure-Python work on the loop, or a worker thread that keeps the GIL) shows as the overshoot of
the sleep it delayed. `bench/round.py` and `bench/pages.py` report the longest one.

On a busy machine the operating system delays a whole process too (other processes take the cores), and that
shows as a stall of the loop as well. `idle_loop_lag` runs the same probe in another process whose loop does
nothing else (`python -m bench.loop_lag`, until its stdin closes): its stalls in the same window are the
machine's share, to read beside the measured loop's. `time.perf_counter` is the system's monotonic clock, the
same in both processes.
"""

from __future__ import annotations

import asyncio
import gc
import json
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

INTERVAL = 0.01


@dataclass
class LoopLag:
    """Each wake-up of the probe: when it woke (`time.perf_counter`) and how late, in seconds; and how much of that
    lateness the loop's own thread spent running (`own`: its CPU time in the sleep beyond the interval, at most the
    lateness), the rest being time the thread was not running at all (the machine's other processes, or another
    thread of the process holding the GIL)."""

    interval: float = INTERVAL
    samples: list[tuple[float, float]] = field(default_factory=list)
    own: list[tuple[float, float]] = field(default_factory=list)

    async def run(self) -> None:
        """Sleep `interval` and record the overshoot, until cancelled."""
        while True:
            asked, ran = time.perf_counter(), time.thread_time()
            await asyncio.sleep(self.interval)
            woke, used = time.perf_counter(), time.thread_time() - ran
            late = max(0.0, woke - asked - self.interval)
            self.samples.append((woke, late))
            self.own.append((woke, min(late, max(0.0, used - self.interval))))

    def longest(self, since: float = float("-inf"), until: float = float("inf")) -> float:
        """The longest stall (seconds) among the wake-ups in [since, until]: the delay a sleeping task saw."""
        return max((late for woke, late in self.samples if since <= woke <= until), default=0.0)

    def longest_own(self, since: float = float("-inf"), until: float = float("inf")) -> float:
        """The longest part of a stall in [since, until] that the loop's thread spent running (its own work)."""
        return max((late for woke, late in self.own if since <= woke <= until), default=0.0)


@dataclass
class GcPauses:
    """The garbage collector's full collections (generation 2) in this process: when each ended and how long it
    held the interpreter (and so the event loop), in seconds."""

    samples: list[tuple[float, float]] = field(default_factory=list)
    _started: float = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if info.get("generation") != 2:
            return
        now = time.perf_counter()
        if phase == "start":
            self._started = now
        else:
            self.samples.append((now, now - self._started))

    def longest(self, since: float = float("-inf"), until: float = float("inf")) -> float:
        """The longest full collection that ended in [since, until]."""
        return max((took for ended, took in self.samples if since <= ended <= until), default=0.0)


@contextmanager
def gc_pauses() -> Iterator[GcPauses]:
    """The full collections of this process for the duration of the block."""
    pauses = GcPauses()
    gc.callbacks.append(pauses)
    try:
        yield pauses
    finally:
        gc.callbacks.remove(pauses)


@asynccontextmanager
async def loop_lag(interval: float = INTERVAL) -> AsyncIterator[LoopLag]:
    """A probe running on the current loop for the duration of the block."""
    lag = LoopLag(interval)
    task = asyncio.create_task(lag.run())
    try:
        yield lag
    finally:
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task


@asynccontextmanager
async def idle_loop_lag(interval: float = INTERVAL) -> AsyncIterator[LoopLag]:
    """The probe on an idle loop in another process for the duration of the block; its samples are there after."""
    root = Path(__file__).resolve().parents[1]
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench.loop_lag",
        str(interval),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        cwd=root,
    )
    lag = LoopLag(interval)
    assert child.stdout is not None
    await child.stdout.readline()  # the probe runs: a loaded machine can take a second to start a Python process
    try:
        yield lag
    finally:
        out, _ = await child.communicate(b"")
        lag.samples.extend((woke, late) for woke, late in json.loads(out or b"[]"))


async def _probe_until_stdin_closes(interval: float) -> list[tuple[float, float]]:
    async with loop_lag(interval) as lag:
        print("probing", flush=True)
        await asyncio.to_thread(sys.stdin.read)
    return lag.samples


if __name__ == "__main__":
    print(json.dumps(asyncio.run(_probe_until_stdin_closes(float(sys.argv[1]) if len(sys.argv) > 1 else INTERVAL))))
