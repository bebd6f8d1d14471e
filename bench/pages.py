"""Benchmark of the event pages: each page of a running 200-player, 11-round event rendered by the server, and the
bot's web endpoint under 20 concurrent clients while the event's last round plays.

Usage: python -m bench.pages [--players 200] [--rounds 11] [--repeats 7] [--seed 1]
                             [--clients 20] [--change-every 1.0] [--seconds 20] [--threads]

The event is built in a temporary SQLite database through storage's repository functions (the same ones
the director uses): players entered, the event started, every round paired by the Dutch engine and its
results drawn by rating (seeded), stored and finished, but the last round, which is paired and playing. The
pages application (`bot.web.pages.site`) then runs in-process on an aiohttp test server with the real director
and its worker process started (`bot.workers`, as `App.start` does, and `gc.freeze()` after, as it does too;
`--threads`: no worker process, the work in threads). Each page is requested `repeats` times after one warm-up
request (so the worker has computed the event once, as a running bot's worker has): *cold*, with the page cache
and the director's tables cache (`bot.director.tables`) emptied before each request (what the first reader of an
event nobody read since its last change waits for: the history read from the database and the standings with
every tie-break and the pages' pieces computed in the worker, the template), with the CPU time it
took (this process and its worker processes, from /proc, summed over the requests: a mean a request, which other
work on the machine inflates much less than the wall time); *after a restart*, both caches emptied and then the
running events' tables made as `App.start` makes them (`tables.warm_start`, its time reported) before the request
(what the first reader after a restart sees); *rendered*, with only
the page cache emptied (the page of a new version whose tables are there); *after a change*, an organiser's
correction of board 1 through the director before each request, the request sent once the tables the change
made the pages compute ahead are there (`site.Prefetch`; what a reader sees after a result arrives);
*cached*, as the page cache serves it. Time: from sending the request to the last byte of the answer over
loopback (`time.perf_counter`), median with the fastest and slowest.

Under load (`concurrent`): the same event, served by the bot's web endpoint (`aiohttp` on a TCP port) in this
process's event loop, which also records one of the round's results every `change-every` seconds through
storage (as another process would: each a new version of the event, its standings and pages computed again)
and runs the loop-lag probe (`bench/loop_lag.py`: the longest stall, and the longest part of a stall the loop's
thread spent running, its own work; the same probe on an idle loop in another process gives the machine's share;
and the longest full garbage collection of this process). `clients` concurrent clients in another process read
the event as the live pages do (the event page, the crosstable, the round, player pages; whole pages and the live
script's fragments), each asking again as soon as it has its answer, for `seconds` seconds; measured from the first
result on, once every page has been read once (its first reader waits for it): the requests' p50, p95,
p99 and slowest, the CPU time of the bot's process and its worker processes in the window (not the clients' or the
probes') a request, and how many times the event's tables were computed (`TablesCache.computed`). `--repeats 0`
runs only the load. Prints Markdown tables.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import multiprocessing
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import aiohttp
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bench.loop_lag import LoopLag, gc_pauses, idle_loop_lag, loop_lag
from bot.assembly import Services, build
from bot.config import ClubConfig, Config
from bot.director.models import Actor
from bot.director.tables import warm_start
from bot.lichess.gateway import LichessGateway
from bot.settings import DirectorSettings
from bot.web.keys import DIRECTOR
from bot.web.pages.site import FRAGMENT_HEADER, SITE, Prefetch, make_pages_app
from bot.workers import Workers
from domain.event import EventStatus
from domain.result import Result
from domain.settings import EventSettings
from pairing.systems import dutch
from storage.db import Database, open_database
from storage.entries import join_event, list_entries, start_event
from storage.events import create_event, set_event_status
from storage.history import load_tournament
from storage.players import ensure_player
from storage.results import record_result
from storage.rounds import finish_round, get_round, store_pairing
from tests.support.announcer import RecordingAnnouncer
from tests.support.clock import ManualClock

GUILD, CHANNEL = 1, 2
P95_TARGET = 0.05  # seconds: issue #26 and #29's target for 20 concurrent clients
STALL_TARGET = 0.1
T0 = datetime(2026, 3, 1, 18, 0, tzinfo=UTC)


async def build_event(db: Database, players: int, rounds: int, seed: int, *, finish: bool = True) -> int:
    """An event of `players` players and `rounds` rounds in `db`, finished; or (`finish=False`) running, its last
    round paired and waiting for its results (`play_round`); its id."""
    rng = random.Random(seed)
    settings = EventSettings(name="Bench Open", rounds=rounds, guild_id=GUILD, channel_id=CHANNEL, round_interval=None)
    event = await create_event(db, settings, created_by=1, at=T0, status=EventStatus.OPEN)
    ratings = {}
    for index in range(players):
        player = await ensure_player(db, 10_000 + index, f"Player{index + 1:04d}", at=T0)
        rating = rng.randint(1000, 2600)
        ratings[player.id] = rating
        await join_event(db, event.id, player.id, rating, at=T0, actor="bench")
    numbered = await start_event(db, event.id, at=T0, actor="bench")
    rating_of = {e.number: e.rating for e in numbered}
    for number in range(1, rounds + 1):
        when = T0 + timedelta(hours=number)
        pairing = dutch.pair(await load_tournament(db, event.id))
        await store_pairing(db, event.id, number, pairing, at=when, actor="bench")
        if number == rounds and not finish:
            break
        await play_round(db, event.id, number, rng, rating_of)
        await finish_round(db, event.id, number, at=when + timedelta(minutes=50), actor="bench")
    if finish:
        await set_event_status(db, event.id, EventStatus.FINISHED, at=T0 + timedelta(hours=rounds + 1), actor="bench")
    return event.id


async def play_round(
    db: Database, event_id: int, number: int, rng: random.Random, rating_of: dict[int | None, int], every: float = 0
) -> None:
    """Every board of the round gets a result drawn by rating (seeded), one each `every` seconds."""
    when = T0 + timedelta(hours=number, minutes=30)
    summary = await get_round(db, event_id, number)
    numbers = {e.player_id: e.number for e in await list_entries(db, event_id)}
    for board in summary.boards:
        edge = (rating_of[numbers[board.white_id]] - rating_of[numbers[board.black_id]]) / 400
        expected = 1 / (1 + 10**-edge)
        roll = rng.random()
        decisive = Result.WHITE_WINS if roll < expected else Result.BLACK_WINS
        result = Result.DRAW if abs(roll - expected) < 0.15 else decisive
        await record_result(db, board.id, result, at=when, actor="bench")
        if every:
            await asyncio.sleep(every)


# (path, cold, cold CPU a request, after a restart, warm start, rendered, after a change, cached, bytes)
Timing = tuple[str, list[float], float, list[float], list[float], list[float], list[float], list[float], int]


def child_processes() -> set[int]:
    """The ids of this process's child processes still running, from /proc."""
    children: set[int] = set()
    with suppress(OSError):
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/children") as listing:
                children.update(int(pid) for pid in listing.read().split())
    return children


def cpu_seconds(children: set[int] | None = None) -> float:
    """CPU time of this process and of `children` (by default its child processes still running: the workers),
    from /proc."""
    total = time.process_time()
    tick = os.sysconf("SC_CLK_TCK")
    for pid in child_processes() if children is None else children:
        with suppress(OSError), open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return total


ORGANISER = Actor(1, "bench", True)


async def bench_app(db: Database, services: Services, threads: bool) -> tuple[web.Application, Workers]:
    """The pages application over the real director, with the bot's worker process started (as `App.start` does)
    unless `threads`."""
    config = Config(database=Path(db.path), director=DirectorSettings(worker_processes=0 if threads else 1))
    director = (await build(config, ManualClock(), services, scheduled=False)).director
    director.ctx.workers.start()
    gc.freeze()  # as `App.start` does once the application is built
    club = ClubConfig(GUILD, "TD", CHANNEL, name="Bench club", public=True)
    return make_pages_app(director, [club]), director.ctx.workers


async def measure(players: int, rounds: int, repeats: int, seed: int, threads: bool = False) -> list[Timing]:
    """(path, cold times, cold CPU a request, after-a-restart times, warm start times, rendered times,
    after-a-change times, cached times, bytes) for every page of the running event."""
    with tempfile.TemporaryDirectory() as folder:
        db = await open_database(Path(folder) / "bench.sqlite3")
        gateway = LichessGateway("https://lichess.org", None)
        workers: Workers | None = None
        try:
            started = time.perf_counter()
            event_id = await build_event(db, players, rounds, seed, finish=False)
            print(f"built the event in {time.perf_counter() - started:.1f} s", file=sys.stderr)
            services = Services(db, gateway, RecordingAnnouncer())
            app, workers = await bench_app(db, services, threads)
            director = app[DIRECTOR]
            paths = [
                "/",
                f"/events/{event_id}",
                f"/events/{event_id}/rounds/{rounds}",
                f"/events/{event_id}/crosstable",
                f"/events/{event_id}/players/1",
                f"/events/{event_id}/players/{players}",
            ]
            out = []
            site = app[SITE]
            async with TestClient(TestServer(app)) as client:

                async def timed(path: str) -> tuple[float, int]:
                    start = time.perf_counter()
                    reply = await client.get(path)
                    body = await reply.read()
                    assert reply.status == 200, path
                    return time.perf_counter() - start, len(body)

                for path in paths:
                    await timed(path)
                    cold, rendered, warm, size = [], [], [], 0
                    spent = cpu_seconds()
                    for _ in range(repeats):
                        site.cache.clear()
                        site.shown.clear()
                        site.winners.clear()
                        director.ctx.tables.latest.clear()
                        seconds, size = await timed(path)
                        cold.append(seconds)
                    cold_cpu = (cpu_seconds() - spent) / repeats
                    restarted, warming = [], []
                    for _ in range(repeats):
                        site.cache.clear()
                        site.shown.clear()
                        site.winners.clear()
                        director.ctx.tables.latest.clear()
                        start = time.perf_counter()
                        await warm_start(db, director.tables)
                        warming.append(time.perf_counter() - start)
                        restarted.append((await timed(path))[0])
                    for _ in range(repeats):
                        site.cache.clear()
                        site.shown.clear()
                        site.winners.clear()
                        rendered.append((await timed(path))[0])
                    changed = []
                    for index in range(repeats):
                        result = ("1-0", "0-1")[index % 2]
                        await director.set_result(ORGANISER, event_id, rounds, 1, result, "bench: a correction")
                        await settled(site.prefetch)
                        changed.append((await timed(path))[0])
                    for _ in range(repeats):
                        warm.append((await timed(path))[0])
                    out.append((path, cold, cold_cpu, restarted, warming, rendered, changed, warm, size))
            return out
        finally:
            if workers is not None:
                await workers.close()
            await gateway.close()
            await db.close()


async def settled(prefetch: Prefetch) -> None:
    """The tables the change made the pages compute ahead are computed (for a live event read lately)."""
    while prefetch.task is not None and not prefetch.task.done():
        await asyncio.sleep(0.002)


def read_pages(url: str, paths: list[str], clients: int, seconds: float) -> list[tuple[float, float, int]]:
    """`clients` concurrent readers of `paths` (whole pages and fragments, in turn) for `seconds`: each request's
    (start, seconds, status). Runs in its own process, so the clients' work is not the server's."""

    async def run() -> list[tuple[float, float, int]]:
        out: list[tuple[float, float, int]] = []
        deadline = time.perf_counter() + seconds
        connector = aiohttp.TCPConnector(limit=clients)
        async with aiohttp.ClientSession(url, connector=connector) as http:

            async def client(index: int) -> None:
                rng = random.Random(index)
                while time.perf_counter() < deadline:
                    path = rng.choice(paths)
                    headers = {FRAGMENT_HEADER: "1"} if rng.random() < 0.8 else {}  # mostly the live script
                    start = time.perf_counter()
                    async with http.get(path, headers=headers) as reply:
                        await reply.read()
                    out.append((start, time.perf_counter() - start, reply.status))

            await asyncio.gather(*(client(i) for i in range(clients)))
        return out

    return asyncio.run(run())


@dataclass(frozen=True)
class Load:
    """The endpoint under concurrent clients: request times, statuses, results recorded, the bot's CPU time, the
    tables computed, the loop's longest stall."""

    times: list[float]
    failed: int
    seconds: float
    changes: int
    cpu: float  # the bot's process and its worker processes, not the clients' or the probes'
    computed: int  # how many times the event's tables were computed (`TablesCache.computed`)
    stall: float
    own_stall: float  # the longest part of a stall the loop's thread spent running (`LoopLag.longest_own`)
    idle_stall: float  # an idle loop's longest stall in another process meanwhile: the machine's share
    full_gc: float  # this process's longest full garbage collection meanwhile


async def concurrent(
    players: int, rounds: int, seed: int, clients: int, every: float, seconds: float, threads: bool = False
) -> Load:
    """The bot's web endpoint serving a running event to `clients` readers while its last round's results arrive."""
    with tempfile.TemporaryDirectory() as folder:
        db = await open_database(Path(folder) / "bench.sqlite3")
        gateway = LichessGateway("https://lichess.org", None)
        runner: web.AppRunner | None = None
        workers: Workers | None = None
        try:
            event_id = await build_event(db, players, rounds, seed, finish=False)
            services = Services(db, gateway, RecordingAnnouncer())
            pages, workers = await bench_app(db, services, threads)
            bot_processes = child_processes()  # the worker processes, before the clients' and the probe's start
            tables, site = pages[DIRECTOR].ctx.tables, pages[SITE]
            runner = web.AppRunner(pages)
            await runner.setup()
            server = web.TCPSite(runner, "127.0.0.1", 0)
            await server.start()
            url = f"http://127.0.0.1:{runner.addresses[0][1]}"
            paths = [f"/events/{event_id}", f"/events/{event_id}/crosstable", f"/events/{event_id}/rounds/{rounds}"]
            paths += [f"/events/{event_id}/players/{n}" for n in random.Random(seed).sample(range(1, players + 1), 7)]
            rating_of = {e.number: e.rating for e in await list_entries(db, event_id)}
            pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
            with gc_pauses() as collections:
                answers, started, ended, idle, lag, (cpu, computed) = await _under_load(
                    pool,
                    url,
                    paths,
                    clients,
                    seconds,
                    db,
                    event_id,
                    rounds,
                    seed,
                    rating_of,
                    every,
                    lambda: (cpu_seconds(bot_processes), tables.computed),
                    lambda: all(path in site.shown for path in paths),
                )
            pool.shutdown()
            changes = sum(1 for b in (await get_round(db, event_id, rounds)).boards if b.result is not None)
            measured = [(s, t, status) for s, t, status in answers if s >= started]  # once the results flow
            times = [t for _, t, status in measured if status == 200]
            failed = sum(1 for *_, status in measured if status != 200)
            stall, own, floor = (
                lag.longest(started, ended),
                lag.longest_own(started, ended),
                idle.longest(started, ended),
            )
            full_gc = collections.longest(started, ended)
            return Load(times, failed, ended - started, changes, cpu, computed, stall, own, floor, full_gc)
        finally:
            if runner is not None:
                await runner.cleanup()
            if workers is not None:
                await workers.close()
            await gateway.close()
            await db.close()


async def _under_load(
    pool: ProcessPoolExecutor,
    url: str,
    paths: list[str],
    clients: int,
    seconds: float,
    db: Database,
    event_id: int,
    rounds: int,
    seed: int,
    rating_of: dict[int | None, int],
    every: float,
    counters: Callable[[], tuple[float, int]],
    warm: Callable[[], bool],
) -> tuple[list[tuple[float, float, int]], float, float, LoopLag, LoopLag, tuple[float, int]]:
    """The clients' requests while the round's results are recorded, the window they were measured in, the
    probes' samples (an idle loop in another process, this loop) and how much `counters` (the bot's CPU time, the
    tables computed) moved in the window, which begins once the pages are `warm` (each read once)."""
    loop = asyncio.get_running_loop()
    async with idle_loop_lag() as idle, loop_lag() as lag:
        readers = loop.run_in_executor(pool, read_pages, url, paths, clients, seconds)
        await asyncio.sleep(1.0)  # the clients' process starts
        for _ in range(600):  # and reads every page once (a first reader waits for the page: not what is measured)
            if warm():
                break
            await asyncio.sleep(0.05)
        started, before = time.perf_counter(), counters()
        rng = random.Random(seed)
        writer = asyncio.create_task(play_round(db, event_id, rounds, rng, rating_of, every))
        answers = await readers
        ended, after = time.perf_counter(), counters()
        writer.cancel()
        with suppress(asyncio.CancelledError):
            await writer
    return answers, started, ended, idle, lag, (after[0] - before[0], after[1] - before[1])


def print_pages(rows: list[Timing]) -> None:
    """The per-page table."""
    print(
        "| page | cold: median (ms) | cold: CPU a request (ms) | after a restart: median (ms) | warm start (ms)"
        " | rendered: median (ms) | after a change: median (ms) | cached: median (ms) | KiB |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")

    def spread(times: list[float]) -> str:
        return f"**{statistics.median(times) * 1000:.0f}** ({min(times) * 1000:.0f} to {max(times) * 1000:.0f})"

    for path, cold, cold_cpu, restarted, warming, rendered, changed, warm, size in rows:
        print(
            f"| `{path}` | {spread(cold)} | {cold_cpu * 1000:.0f} | {spread(restarted)}"
            f" | {statistics.median(warming) * 1000:.0f} | {spread(rendered)} | {spread(changed)}"
            f" | {statistics.median(warm) * 1000:.0f} | {size / 1024:.0f} |"
        )


def main(argv: list[str] | None = None) -> int:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--repeats", type=int, default=7, help="requests a page (0: only the load)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--clients", type=int, default=20, help="concurrent readers under load (0: none)")
    parser.add_argument("--change-every", type=float, default=1.0, help="seconds between two results under load")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of the load")
    parser.add_argument("--threads", action="store_true", help="no worker process: standings and pages in threads")
    args = parser.parse_args(argv)
    print(
        f"Machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
        f"load average {os.getloadavg()[0]:.2f}; {args.players} players, {args.rounds} rounds, "
        f"{args.repeats} requests a page.\n"
    )
    if args.repeats:
        print_pages(asyncio.run(measure(args.players, args.rounds, args.repeats, args.seed, args.threads)))
    if args.clients:
        load = asyncio.run(
            concurrent(
                args.players, args.rounds, args.seed, args.clients, args.change_every, args.seconds, args.threads
            )
        )
        times = sorted(load.times)
        p50, p95, p99 = (times[min(len(times) - 1, int(q * len(times)))] * 1000 for q in (0.5, 0.95, 0.99))
        verdict = "✓" if p95 < P95_TARGET * 1000 and load.stall < STALL_TARGET else "✗"
        print(
            f"\n{args.clients} concurrent clients for {load.seconds:.0f} s while round {args.rounds} plays"
            f" ({load.changes} results recorded, one every {args.change_every:g} s; load average"
            f" {os.getloadavg()[0]:.2f}):\n"
        )
        print(
            "| requests | per second | failed | p50 (ms) | p95 (ms) | p99 (ms) | max (ms) | bot CPU a request (ms)"
            " | tables computed"
            " | loop stall (ms) | of it the loop running (ms) | idle loop (ms) | longest full GC (ms) | target |"
        )
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        print(
            f"| {len(times)} | {len(times) / load.seconds:.0f} | {load.failed} | {p50:.0f} | **{p95:.0f}**"
            f" | {p99:.0f} | {times[-1] * 1000:.0f} | {load.cpu * 1000 / max(1, len(times)):.2f} | {load.computed}"
            f" | {load.stall * 1000:.0f} | {load.own_stall * 1000:.0f}"
            f" | {load.idle_stall * 1000:.0f} | {load.full_gc * 1000:.0f}"
            f" | p95 < {P95_TARGET * 1000:.0f} ms,"
            f" stall < {STALL_TARGET * 1000:.0f} ms {verdict} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
