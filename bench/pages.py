"""Benchmark of the event pages: each page of a 200-player, 11-round event rendered by the server.

Usage: python -m bench.pages [--players 200] [--rounds 11] [--repeats 7] [--seed 1]

The event is built in a temporary SQLite database through storage's repository functions (the same ones
the director uses): players entered, the event started, every round paired by the Dutch engine and its
results drawn by rating (seeded), stored and finished. The pages application (`bot.web.pages.site`) then runs
in-process on an aiohttp test server with the real director; each page is requested `repeats` times after
one warm-up request, first with the page cache emptied before each request (the page rendered: database
reads, the standings with every tie-break, the template), then as the cache serves it (a finished event's
pages are kept until its audit log moves). Time: from sending the request to the last byte of the answer
over loopback (`time.perf_counter`), median with the fastest and slowest. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from aiohttp.test_utils import TestClient, TestServer

from bot.assembly import Services, build
from bot.config import ClubConfig, Config
from bot.lichess.gateway import LichessGateway
from bot.web.pages.site import SITE, make_pages_app
from domain.event import EventStatus
from domain.result import Result
from domain.settings import EventSettings
from pairing.systems import dutch
from storage.db import Database, open_database
from storage.entries import join_event, start_event
from storage.events import create_event, set_event_status
from storage.history import load_tournament
from storage.players import ensure_player
from storage.results import record_result
from storage.rounds import finish_round, store_pairing
from tests.support.announcer import RecordingAnnouncer
from tests.support.clock import ManualClock

GUILD, CHANNEL = 1, 2
T0 = datetime(2026, 3, 1, 18, 0, tzinfo=UTC)


async def build_event(db: Database, players: int, rounds: int, seed: int) -> int:
    """A finished event of `players` players and `rounds` rounds in `db`; its id."""
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
        summary = await store_pairing(db, event.id, number, pairing, at=when, actor="bench")
        for board, paired in zip(summary.boards, pairing.boards, strict=True):
            edge = (rating_of[paired.white] - rating_of[paired.black]) / 400
            expected = 1 / (1 + 10**-edge)
            roll = rng.random()
            decisive = Result.WHITE_WINS if roll < expected else Result.BLACK_WINS
            result = Result.DRAW if abs(roll - expected) < 0.15 else decisive
            await record_result(db, board.id, result, at=when, actor="bench")
        await finish_round(db, event.id, number, at=when + timedelta(minutes=50), actor="bench")
    await set_event_status(db, event.id, EventStatus.FINISHED, at=T0 + timedelta(hours=rounds + 1), actor="bench")
    return event.id


Timing = tuple[str, list[float], list[float], int]


async def measure(players: int, rounds: int, repeats: int, seed: int) -> list[Timing]:
    """(path, cold times, cached times, bytes) for every page of the event."""
    with tempfile.TemporaryDirectory() as folder:
        db = await open_database(Path(folder) / "bench.sqlite3")
        gateway = LichessGateway("https://lichess.org", None)
        try:
            started = time.perf_counter()
            event_id = await build_event(db, players, rounds, seed)
            print(f"built the event in {time.perf_counter() - started:.1f} s", file=sys.stderr)
            services = Services(db, gateway, RecordingAnnouncer())
            director = (await build(Config(database=Path(db.path)), ManualClock(), services, scheduled=False)).director
            club = ClubConfig(GUILD, "TD", CHANNEL, name="Bench club", public=True)
            app = make_pages_app(director, [club])
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
                    cold, warm, size = [], [], 0
                    for _ in range(repeats):
                        site.cache.clear()
                        site.winners.clear()
                        seconds, size = await timed(path)
                        cold.append(seconds)
                    for _ in range(repeats):
                        warm.append((await timed(path))[0])
                    out.append((path, cold, warm, size))
            return out
        finally:
            await gateway.close()
            await db.close()


def main(argv: list[str] | None = None) -> int:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rows = asyncio.run(measure(args.players, args.rounds, args.repeats, args.seed))
    print(
        f"Machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
        f"load average {os.getloadavg()[0]:.2f}; {args.players} players, {args.rounds} rounds, "
        f"{args.repeats} requests a page.\n"
    )
    print("| page | rendered: median (ms) | fastest to slowest | cached: median (ms) | fastest to slowest | KiB |")
    print("|---|---:|---:|---:|---:|---:|")
    for path, cold, warm, size in rows:
        print(
            f"| `{path}` | **{statistics.median(cold) * 1000:.0f}** | {min(cold) * 1000:.0f} to {max(cold) * 1000:.0f} "
            f"| **{statistics.median(warm) * 1000:.0f}** | {min(warm) * 1000:.0f} to {max(warm) * 1000:.0f} "
            f"| {size / 1024:.0f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
