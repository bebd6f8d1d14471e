"""The event loop's stalls, measured from inside: a task sleeps 10 ms again and again and records how late it wakes.

A loop that runs only short callbacks wakes the probe within a millisecond or two of its time; a callback that
holds the loop (pure-Python work on the loop, or a worker thread that keeps the GIL) shows as the overshoot of
the sleep it delayed. `bench/round.py` and `bench/pages.py` report the longest one.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field

INTERVAL = 0.01


@dataclass
class LoopLag:
    """Each wake-up of the probe: when it woke (`time.perf_counter`) and how late, in seconds."""

    interval: float = INTERVAL
    samples: list[tuple[float, float]] = field(default_factory=list)

    async def run(self) -> None:
        """Sleep `interval` and record the overshoot, until cancelled."""
        while True:
            asked = time.perf_counter()
            await asyncio.sleep(self.interval)
            woke = time.perf_counter()
            self.samples.append((woke, max(0.0, woke - asked - self.interval)))

    def longest(self, since: float = float("-inf"), until: float = float("inf")) -> float:
        """The longest stall (seconds) among the wake-ups in [since, until]: the delay a sleeping task saw."""
        return max((late for woke, late in self.samples if since <= woke <= until), default=0.0)


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
