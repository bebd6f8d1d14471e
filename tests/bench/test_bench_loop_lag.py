"""The loop-lag probe sees a callback that holds the event loop."""

from __future__ import annotations

import asyncio
import time

from bench.loop_lag import idle_loop_lag, loop_lag


async def test_a_blocked_loop_shows_as_a_stall_at_least_as_long() -> None:
    async with loop_lag() as lag:
        await asyncio.sleep(0.03)  # the probe has started and woken at least once
        time.sleep(0.2)  # holds the loop: the probe's next wake-up is late by about this much
        await asyncio.sleep(0.03)
    assert lag.longest() >= 0.2 - lag.interval
    assert lag.samples and all(late >= 0 for _, late in lag.samples)


async def test_the_idle_probe_runs_in_another_process_and_reports_after_the_block() -> None:
    async with idle_loop_lag() as idle, loop_lag() as lag:
        await asyncio.sleep(0.1)
        time.sleep(0.2)  # holds this loop, not the other process's
        await asyncio.sleep(0.1)
    assert idle.samples, "the idle loop woke up during the block"
    assert lag.longest() >= 0.2 - lag.interval
    first, last = lag.samples[0][0], lag.samples[-1][0]
    assert any(first <= woke <= last for woke, _ in idle.samples)  # the same clock: comparable windows


async def test_the_loop_running_shows_as_its_own_stall_and_a_loop_not_running_does_not() -> None:
    async with loop_lag() as lag:
        await asyncio.sleep(0.03)
        time.sleep(0.2)  # the loop's thread is not running: a stall, not of its own work
        await asyncio.sleep(0.03)
        ran = time.thread_time()
        while time.thread_time() < ran + 0.2:  # the loop's thread runs for 0.2 s of CPU
            pass
        await asyncio.sleep(0.03)
    assert lag.longest() >= 0.2 - lag.interval
    assert lag.longest_own() >= 0.2 - 2 * lag.interval
    own = dict(lag.own)
    assert min(own[woke] for woke, late in lag.samples if late >= 0.15) < 0.05  # the time.sleep's stall
