"""The loop-lag probe sees a callback that holds the event loop."""

from __future__ import annotations

import asyncio
import time

from bench.loop_lag import loop_lag


async def test_a_blocked_loop_shows_as_a_stall_at_least_as_long() -> None:
    async with loop_lag() as lag:
        await asyncio.sleep(0.03)  # the probe has started and woken at least once
        time.sleep(0.2)  # holds the loop: the probe's next wake-up is late by about this much
        await asyncio.sleep(0.03)
    assert lag.longest() >= 0.2 - lag.interval
    assert lag.samples and all(late >= 0 for _, late in lag.samples)
