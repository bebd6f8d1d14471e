"""Benchmark of a round end to end: from the last result of round N on Lichess to round N+1 announced.

Usage: .venv/bin/python bench/round.py [--players 100] [--rounds 6] [--repeats 3] [--seed 1]
                                       [--in-process] [--no-write]

A 100-player event runs on the local Lichess (`swissbot sandbox`, in its own process unless `--in-process`)
with the real director, storage, scheduler and gateway, a manual clock and an announcer that records. Every
game of round N is played to a normal result through the sandbox's control API; then the clock starts and
the scheduler runs the due jobs (`Scheduler.run_due`) until round N+1 is announced: the poll job (export the
games, adjudicate, store the results, standings), then the start job (load the history, pair, store, create
every game, announce). Between the two the manual clock jumps to the round's start time: waits that are
configuration, not work (the poll interval, the round interval), are left out. The phases come from wrapping
the storage and pairing functions the director calls, the gateway's calls, the scheduler's jobs and the
announcer (the pairing: `bot.director.round_pairing.pair_round`, in a worker process unless `--threads`, named
after the engine each round used, which `auto` picks by size); the
Lichess requests come from the sandbox's request log. A loop-lag probe (`bench/loop_lag.py`) on the bot's event
loop gives each round change's longest stall (target < 100 ms) and the longest part of a stall that the loop's own
thread spent running (in the whole change and in the start job alone), beside the same probe on an idle loop in
another process (the machine's own delays), and the longest full garbage collection of the bot's process
(`gc.callbacks`), which holds the loop for its whole walk. The table goes to docs/benchmarks.md under '## A round end
to end' (other sections are kept).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

# Run as `python bench/round.py`: make `import pairing` find the package, not bench/pairing.py.
ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]

import aiohttp  # noqa: E402

import bot.director.lookups  # noqa: E402
import bot.director.round_pairing  # noqa: E402
import bot.director.rounds  # noqa: E402
import storage.rounds  # noqa: E402
from bench.loop_lag import GcPauses, LoopLag, gc_pauses, idle_loop_lag, loop_lag  # noqa: E402
from bot.assembly import Services, build  # noqa: E402
from bot.config import Config  # noqa: E402
from bot.director.api import Director  # noqa: E402
from bot.director.models import Actor, Job, RoundView, StandingRow  # noqa: E402
from bot.lichess.gateway import LichessGateway  # noqa: E402
from bot.lichess.payloads import Challenge, GameData  # noqa: E402
from bot.scheduling import Scheduler  # noqa: E402
from bot.settings import DirectorSettings  # noqa: E402
from domain.event import Event  # noqa: E402
from domain.settings import EventSettings  # noqa: E402
from sandbox.lichess.server import run_sandbox  # noqa: E402
from sandbox.lichess.state import BOT_TOKEN  # noqa: E402
from storage.db import open_database  # noqa: E402
from tests.support.announcer import RecordingAnnouncer  # noqa: E402
from tests.support.clock import ManualClock  # noqa: E402

DOC = ROOT / "docs" / "benchmarks.md"
HEADING = "## A round end to end"
ORGANISER = Actor(1, "bench-organiser", True)


# --- timing ----------------------------------------------------------------------------------------


@dataclass
class Timeline:
    """Named spans of wall time (`time.perf_counter`)."""

    spans: list[tuple[str, float, float]] = field(default_factory=list)

    def add(self, name: str, start: float) -> None:
        """A span that started at `start` and ends now."""
        self.spans.append((name, start, time.perf_counter()))

    def within(self, name: str, since: float, until: float) -> list[tuple[float, float]]:
        """The spans called `name` that started in [since, until]."""
        return [(s, e) for n, s, e in self.spans if n == name and since <= s <= until]

    def total(self, name: str, since: float, until: float) -> float:
        """Their summed duration."""
        return sum(e - s for s, e in self.within(name, since, until))

    def named(self, prefix: str, since: float, until: float) -> list[str]:
        """The names starting with `prefix` of the spans that started in [since, until], in order."""
        return [n for n, s, _ in self.spans if n.startswith(prefix) and since <= s <= until]


def instrument(timeline: Timeline, module: ModuleType, name: str, label: str) -> int:
    """Time every call of `module.name`, wherever bot/storage modules imported it; how many names were patched."""
    original = getattr(module, name)
    wrapper: Callable[..., Any]
    if asyncio.iscoroutinefunction(original):

        async def timed_async(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return await original(*args, **kwargs)
            finally:
                timeline.add(label, start)

        wrapper = timed_async
    else:

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                timeline.add(label, start)

        wrapper = timed
    patched = 0
    for mod in list(sys.modules.values()):
        if mod is None or not (mod is module or mod.__name__.split(".")[0] in ("bot", "storage")):
            continue
        for attr, value in list(vars(mod).items()):
            if value is original:
                setattr(mod, attr, wrapper)
                patched += 1
    return patched


ENGINE = "engine "  # a span of the round's pairing (`round_pairing.pair_round`), named after the system it used


def instrument_engine(timeline: Timeline) -> int:
    """Time `bot.director.round_pairing.pair_round`, the director's one call into the engines (in a worker process
    unless `--threads`: building the engine's input, then Dutch, Burstein or Fast under `auto`), each span named
    after the system it used; how many names were patched."""
    original = bot.director.round_pairing.pair_round

    async def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        paired = await original(*args, **kwargs)
        timeline.add(ENGINE + (paired[0] if paired else "none"), start)
        return paired

    patched = 0
    for module in (bot.director.round_pairing, bot.director.rounds):
        if getattr(module, "pair_round", None) is original:
            setattr(module, "pair_round", timed)  # noqa: B010
            patched += 1
    return patched


class TimedGateway(LichessGateway):
    """The real gateway, timing the calls a round makes."""

    timeline: Timeline

    async def create_game(self, *args: Any, **kwargs: Any) -> Challenge:
        """Create a game (timed)."""
        start = time.perf_counter()
        try:
            return await super().create_game(*args, **kwargs)
        finally:
            self.timeline.add("lichess create", start)

    async def export_games(self, *args: Any, **kwargs: Any) -> list[GameData]:
        """Export games (timed)."""
        start = time.perf_counter()
        try:
            return await super().export_games(*args, **kwargs)
        finally:
            self.timeline.add("lichess export", start)


@dataclass
class TimedAnnouncer(RecordingAnnouncer):
    """Records every announcement, with when it was made."""

    timeline: Timeline = field(default_factory=Timeline)

    async def round_paired(self, event: Event, round: RoundView) -> None:
        """Record (timed)."""
        start = time.perf_counter()
        await super().round_paired(event, round)
        self.timeline.add("announce pairings", start)

    async def standings(self, event: Event, rows: Sequence[StandingRow], final: bool) -> None:
        """Record (timed)."""
        start = time.perf_counter()
        await super().standings(event, rows, final)
        self.timeline.add("announce standings", start)


# --- the local Lichess -------------------------------------------------------------------------------


@asynccontextmanager
async def local_lichess(seed: int, in_process: bool) -> AsyncIterator[str]:
    """The sandbox's URL: served in this event loop, or by a `swissbot sandbox` process."""
    if in_process:
        async with run_sandbox(seed=seed) as sandbox:
            yield sandbox.url
        return
    # `swissbot sandbox` through its own module: it imports only the sandbox.
    args = [sys.executable, "-m", "bot.cli.sandbox", "--host", "127.0.0.1", "--port", "0", "--seed", str(seed)]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
    try:
        assert proc.stdout is not None
        line = await asyncio.to_thread(proc.stdout.readline)
        if "listening on" not in line:
            raise RuntimeError(f"swissbot sandbox did not start: {line.strip()}")
        yield line.rsplit(" ", 1)[-1].strip()
    finally:
        proc.terminate()
        proc.wait(10)


class Control:
    """The sandbox's control API."""

    def __init__(self, http: aiohttp.ClientSession, url: str) -> None:
        self.http = http
        self.url = url

    async def post(self, path: str, body: dict[str, Any]) -> Any:
        """POST a JSON body; the JSON reply."""
        async with self.http.post(self.url + path, json=body) as reply:
            if reply.status >= 300:
                raise RuntimeError(f"POST {path}: {reply.status} {await reply.text()}")
            return await reply.json()

    async def requests(self) -> list[dict[str, Any]]:
        """The Lichess requests the sandbox has answered so far."""
        async with self.http.get(self.url + "/sandbox/requests") as reply:
            data: list[dict[str, Any]] = await reply.json()
            return data


ENDPOINTS = (
    (re.compile(r"^/api/games/user/[^/]+$"), "/api/games/user/{username}"),
    (re.compile(r"^/api/user/[^/]+$"), "/api/user/{username}"),
    (re.compile(r"^/api/team/of/[^/]+$"), "/api/team/of/{username}"),
    (re.compile(r"^/api/team/[^/]+/users$"), "/api/team/{teamId}/users"),
    (re.compile(r"^/game/export/[^/]+$"), "/game/export/{gameId}"),
)


def endpoint(method: str, path: str) -> str:
    """`METHOD /path` with names and ids replaced by their parameter."""
    for pattern, template in ENDPOINTS:
        if pattern.match(path):
            return f"{method} {template}"
    return f"{method} {path}"


# --- one event ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sample:
    """One round's pairing, from the last result of the round before to every game created and announced."""

    round: int
    boards: int
    phases: dict[str, float]
    requests: Counter[str]
    engine: str  # the pairing system the round used (`auto` picks one by size)
    stall: float  # the event loop's longest stall in the stretch, seconds
    stretches: list[tuple[float, float]]
    idle_stall: float = 0.0  # an idle loop's longest stall in another process meanwhile: the machine's share
    gc_pause: float = 0.0  # the longest full garbage collection of the bot's process in the stretch, seconds
    own_stall: float = 0.0  # the longest part of a stall the loop's thread spent running (`LoopLag.longest_own`)
    own_start: float = 0.0  # the same within the start job alone

    @property
    def total(self) -> float:
        """Seconds from the last result available to the round announced."""
        return self.phases["total"]


PHASES = (
    "export results",
    "store results, standings",
    "load history",
    "pair",
    "store pairing",
    "create games",
    "of which Lichess",
    "announce",
    "other start",
    "scheduling",
)


class TimedScheduler(Scheduler):
    """The real scheduler, timing each job it runs."""

    timeline: Timeline

    async def run_job(self, job: Job) -> bool:
        """Run one job (timed)."""
        start = time.perf_counter()
        try:
            return await super().run_job(job)
        finally:
            self.timeline.add(f"job {job.kind.value}", start)


async def join_members(director: Director, control: Control, players: int, seed: int, event_id: int) -> None:
    """`players` members with Lichess accounts, linked through the bio code, joined."""
    rng = random.Random(seed)
    for i in range(players):
        name = f"bench{i + 1:03d}"
        rating = rng.randint(1200, 2400)
        await control.post("/sandbox/users", {"username": name, "rating": rating})
        actor = Actor(10_000 + i, name)
        challenge = await director.start_link(actor, name)
        await control.post("/sandbox/users", {"username": name, "rating": rating, "bio": challenge.code})
        await director.complete_link(actor)
        await director.join(actor, event_id)


async def play_round(director: Director, control: Control, event_id: int, number: int, seed: int) -> None:
    """Every game of the round played to a normal end (win, loss or a long draw), seeded."""
    view = await director.pairings(event_id, number)
    for board in view.boards:
        if board.game_id is None:
            raise RuntimeError(f"round {number} board {board.number} has no game")
        rng = random.Random(f"{seed}:{number}:{board.number}")
        roll = rng.random()
        body: dict[str, Any]
        if roll < 0.7:
            body = {"winner": "white" if roll < 0.38 else "black", "status": "resign", "plies": rng.randint(40, 120)}
        else:
            body = {"winner": None, "status": "draw", "plies": rng.randint(60, 120)}
        await control.post(f"/sandbox/games/{board.game_id}/play", body)


def phases(timeline: Timeline, stretches: list[tuple[float, float]]) -> dict[str, float]:
    """The phases of one measured stretch: the `run_due` calls between the last result and the round announced."""
    since, until = stretches[0][0], stretches[-1][1]
    total = sum(end - start for start, end in stretches)
    polls = timeline.total("job poll", since, until)
    export = timeline.total("lichess export", since, until)
    starts = timeline.within("job start_round", since, until)
    load = timeline.total("load history", since, until)
    pair = sum(timeline.total(name, since, until) for name in set(timeline.named(ENGINE, since, until)))
    store = timeline.total("store pairing", since, until)
    creates = timeline.within("lichess create", since, until)
    create = (creates[-1][1] - creates[0][0]) if creates else 0.0
    started = sum(end - start for start, end in starts)
    announce = starts[-1][1] - creates[-1][1] if starts and creates else 0.0
    out = {
        "export results": export,
        "store results, standings": polls - export,
        "load history": load,
        "pair": pair,
        "store pairing": store,
        "create games": create,
        "of which Lichess": sum(end - start for start, end in creates),
        "announce": announce,
        "other start": started - (load + pair + store + create + announce),
        "scheduling": total - polls - started,
        "total": total,
    }
    return out


async def measure_round(
    scheduler: TimedScheduler, clock: ManualClock, announcer: TimedAnnouncer, number: int
) -> list[tuple[float, float]]:
    """Run the due jobs until round `number` is announced; the wall-time stretches spent in `run_due` (the
    clock jumps to the next job in between: waiting for a poll or for the round's start time is not work)."""
    stretches: list[tuple[float, float]] = []
    for _ in range(20):
        start = time.perf_counter()
        ran = await scheduler.run_due()
        stretches.append((start, time.perf_counter()))
        if scheduler.errors:
            job, error = scheduler.errors[-1]
            raise RuntimeError(f"job {job} failed: {error!r}")
        if any(args[1].number == number for args in announcer.of("round_paired")):
            return stretches
        if not ran:
            due = await scheduler.next_due()
            if due is None:
                raise RuntimeError(f"no job left before round {number} was announced")
            clock.set(due)
    raise RuntimeError(f"round {number} was not announced")


async def run_event(args: argparse.Namespace, seed: int, timeline: Timeline) -> list[Sample]:
    """One event: round 1 started, then each round played and the next one paired; a sample per round."""
    samples: list[Sample] = []
    async with AsyncExitStack() as stack:
        idle: LoopLag = await stack.enter_async_context(idle_loop_lag())
        lag: LoopLag = await stack.enter_async_context(loop_lag())
        pauses: GcPauses = stack.enter_context(gc_pauses())
        url = await stack.enter_async_context(local_lichess(seed, args.in_process))
        folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="swissbot-bench-"))
        db = await open_database(Path(folder) / "bench.sqlite3")
        stack.push_async_callback(db.close)
        gateway = TimedGateway(url, BOT_TOKEN, rate_limit_pause=1.0, retry_backoff=0.2, timeout=30.0)
        gateway.timeline = timeline
        stack.push_async_callback(gateway.close)
        http = await stack.enter_async_context(aiohttp.ClientSession())
        control = Control(http, url)
        clock = ManualClock()
        announcer = TimedAnnouncer(timeline=timeline)
        operating = DirectorSettings(worker_processes=0 if args.threads else 1)
        config = Config(database=Path(db.path), director=operating)
        app = await build(config, clock, Services(db, gateway, announcer), scheduled=False)
        await app.start()  # the worker process (and what the bot's start does to its process); jobs run by hand
        stack.push_async_callback(app.stop)
        director = app.director
        scheduler = TimedScheduler(director, clock)
        scheduler.timeline = timeline
        start_at = clock.now() + timedelta(minutes=30)
        settings = EventSettings(
            name="Bench Open", rounds=args.rounds, start_at=start_at, round_interval=60, no_show_seconds=600
        )
        event = await director.create_event(ORGANISER, 1, 2, settings)
        await director.open_event(ORGANISER, event.id)
        await join_members(director, control, args.players, seed, event.id)
        clock.set(start_at)
        for number in range(1, args.rounds + 1):
            if number > 1:
                await play_round(director, control, event.id, number - 1, seed)
            before = len(await control.requests())
            stretches = await measure_round(scheduler, clock, announcer, number)
            stall = max(lag.longest(start, end + 2 * lag.interval) for start, end in stretches)
            own = max(lag.longest_own(start, end + 2 * lag.interval) for start, end in stretches)
            started = timeline.within("job start_round", stretches[0][0], stretches[-1][1])
            own_start = max((lag.longest_own(start, end + 2 * lag.interval) for start, end in started), default=0.0)
            pause = max(pauses.longest(start, end) for start, end in stretches)
            engines = timeline.named(ENGINE, stretches[0][0], stretches[-1][1])
            log = (await control.requests())[before:]
            view = await director.pairings(event.id, number)
            if view.number != number or not view.boards or any(b.game_id is None for b in view.boards):
                raise RuntimeError(f"round {number} was announced without every game")
            calls = Counter(endpoint(r["method"], r["path"]) for r in log)
            engine = ", ".join(sorted({e.removeprefix(ENGINE) for e in engines})) or "none"
            samples.append(
                Sample(
                    number,
                    len(view.boards),
                    phases(timeline, stretches),
                    calls,
                    engine,
                    stall,
                    stretches,
                    0.0,
                    pause,
                    own,
                    own_start,
                )
            )
            print(
                f"  round {number}: {len(view.boards)} boards, {engine}, {samples[-1].total:.2f} s,"
                f" longest loop stall {stall * 1000:.0f} ms (the loop running {own * 1000:.0f} ms,"
                f" in the start job {own_start * 1000:.0f} ms),"
                f" longest full GC {pause * 1000:.0f} ms",
                flush=True,
            )
    return [
        dataclasses.replace(
            sample, idle_stall=max(idle.longest(start, end + 2 * idle.interval) for start, end in sample.stretches)
        )
        for sample in samples
    ]


# --- the report --------------------------------------------------------------------------------------


STALL_TARGET = 0.1  # the event loop's longest stall during a round change, seconds (issue #29)


@dataclass(frozen=True)
class RoundRow:
    """One round over the events: boards, the engine(s) used, the median of each phase, the fastest and slowest
    total, and the longest loop stall of any event."""

    round: int
    boards: int
    engine: str
    med: dict[str, float]
    low: float
    high: float
    stall: float
    idle_stall: float
    gc_pause: float
    own_stall: float
    own_start: float


def median_by_round(runs: list[list[Sample]]) -> list[RoundRow]:
    """Per round: boards, engines, the median of each phase, the fastest and slowest total, the longest stall."""
    rows = []
    for index, first in enumerate(runs[0]):
        same = [run[index] for run in runs]
        med = {name: statistics.median(s.phases[name] for s in same) for name in (*PHASES, "total")}
        engines = ", ".join(sorted({s.engine for s in same}))
        totals = [s.total for s in same]
        stall, idle = max(s.stall for s in same), max(s.idle_stall for s in same)
        pause = max(s.gc_pause for s in same)
        own, own_start = max(s.own_stall for s in same), max(s.own_start for s in same)
        rows.append(
            RoundRow(
                first.round, first.boards, engines, med, min(totals), max(totals), stall, idle, pause, own, own_start
            )
        )
    return rows


def label(number: int) -> str:
    """`start → 1` for the first round, `N → N+1` after."""
    return "start → 1" if number == 1 else f"{number - 1} → {number}"


def report(args: argparse.Namespace, runs: list[list[Sample]], patched: dict[str, int]) -> str:
    """The docs/benchmarks.md section."""
    mode = "in-process `run_sandbox` (same event loop)" if args.in_process else "a `swissbot sandbox` subprocess"
    missing = [name for name, count in patched.items() if count == 0]
    lines = [
        HEADING,
        "",
        f"A {args.players}-player, {args.rounds}-round event against the local Lichess on loopback ({mode}),"
        " with the real director, scheduler, SQLite storage (a temporary file), pairing engines (`auto`) and"
        " gateway, a"
        " manual clock and a recording announcer (`python bench/round.py`, seeds"
        f" {args.seed}..{args.seed + args.repeats - 1}, one event each). Every game of round N is played to a"
        " normal result (win, loss, or a draw after move 30) through the sandbox's control API. The clock starts"
        " when the last game is over on the local Lichess and stops when round N+1 is paired and stored, has"
        " every game created and its pairings announced; in between, the scheduler runs the due jobs"
        " (`Scheduler.run_due`): the poll job (export the games, adjudicate, store the results, standings),"
        " then the start job. The configured waits are not counted: the manual clock jumps over the round"
        " interval, and in the real bot up to one poll interval passes before the results are read.",
        "",
        "Phases, median seconds over the events: *export results* is the export request and *store results,"
        " standings* the rest of the poll job; *load history* (`bot.director.lookups.event_history`, the"
        " event's state the start job reads once), *pair*"
        " (`bot.director.round_pairing.pair_round`: the engine's input built and the round paired in a worker"
        " process, beside the bot's event loop; named in *engine* the engine the round used; under `auto` Dutch"
        " below 250 players to pair, Burstein below 700, Fast above) and *store pairing*"
        " (`storage.rounds.store_pairing`) are those calls; *create games* runs from the first challenge request"
        " to the last reply (*of which Lichess*: the time inside the requests; the rest is writing each attempt's"
        " row before and after its request);"
        " *announce* runs from then to the end of the start job (round marked started, round view read,"
        " pairings and one DM per player posted); *other start* is the rest of the start job; *scheduling* is"
        " deriving the jobs from the database (`due_jobs`) and any other job. *Longest loop stall*: a task on the"
        " bot's event loop sleeps 10 ms again and again (`bench/loop_lag.py`) and the largest delay of its"
        f" wake-ups during the stretch is shown, the worst of the events; the target is under"
        f" {STALL_TARGET * 1000:.0f} ms (the loop then answers Discord's interactions and the pages meanwhile)."
        " *Idle loop* is the same probe meanwhile in another process whose loop does nothing else: on a shared"
        " machine the operating system delays whole processes too, and that share is the machine's, not the bot's."
        " *Of it the loop running*: the longest part of a stall that the loop's own thread spent running"
        " (`LoopLag.longest_own`: its CPU time beyond the probe's sleep), in the whole stretch and in the start job"
        " alone; the rest of a stall is the thread waiting (the machine's other processes, or another thread of"
        " the process holding the GIL)."
        " *Longest full GC*: the longest full garbage collection of the bot's process in the stretch"
        " (`gc.callbacks`), which holds the loop for its whole walk of the process's objects.",
        "",
        f"Machine: {platform.platform()}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()} ({platform.python_implementation()}); "
        "other work was running on the machine, so single numbers move by some tens of percent.",
        "",
    ]
    if missing:
        lines += [f"Not measured separately (the director no longer calls them): {', '.join(missing)}.", ""]
    lines += [
        "| round | boards | engine | "
        + " | ".join(PHASES)
        + " | total (min to max) | longest loop stall (ms) | of it the loop running (ms) | in the start job (ms)"
        " | idle loop (ms) | longest full GC (ms) |",
        "|---|---:|---|" + "---:|" * len(PHASES) + "---:|---:|---:|---:|---:|---:|",
    ]
    for row in median_by_round(runs):
        cells = " | ".join(f"{row.med[name]:.3f}" for name in PHASES)
        verdict = "✓" if row.stall < STALL_TARGET else "✗"
        lines.append(
            f"| {label(row.round)} | {row.boards} | {row.engine} | {cells} | **{row.med['total']:.2f}**"
            f" ({row.low:.2f} to {row.high:.2f}) | {row.stall * 1000:.0f} {verdict} | {row.own_stall * 1000:.0f}"
            f" | {row.own_start * 1000:.0f} | {row.idle_stall * 1000:.0f}"
            f" | {row.gc_pause * 1000:.0f} |"
        )
    endpoints = sorted({name for sample in runs[0] for name in sample.requests})
    lines += [
        "",
        f"Lichess requests in each stretch (seed {args.seed}; the sandbox's `GET /sandbox/requests`, by endpoint):",
        "",
        "| round | " + " | ".join(f"`{e}`" for e in endpoints) + " | all |",
        "|---|" + "---:|" * (len(endpoints) + 1),
    ]
    for sample in runs[0]:
        counts = " | ".join(str(sample.requests.get(e, 0)) for e in endpoints)
        lines.append(f"| {label(sample.round)} | {counts} | {sum(sample.requests.values())} |")
    return "\n".join([*lines, "", summary(runs)]) + "\n"


def summary(runs: list[list[Sample]]) -> str:
    """One paragraph: the typical round change and where its time goes."""
    later = [row for row in median_by_round(runs) if row.round > 1]
    if not later:
        return ""
    typical = {name: statistics.median(row.med[name] for row in later) for name in (*PHASES, "total")}
    stall = max(row.stall for row in median_by_round(runs))
    requests = statistics.median(sum(s.requests.values()) for s in runs[0] if s.round > 1)
    biggest = sorted((n for n in PHASES if n != "of which Lichess"), key=lambda n: -typical[n])[:4]
    parts = ", ".join(f"{name} {typical[name]:.2f} s" for name in biggest)
    return (
        f"In short: a round change takes about {typical['total']:.2f} s of the bot's own time at this size"
        f" (median of the rows after round 1); the largest parts are {parts}. It makes {requests:g} Lichess"
        f" requests, one at a time as the gateway sends them, which took {typical['of which Lichess']:.2f} s"
        f" (creates) and {typical['export results']:.2f} s (export) on loopback; on lichess.org each one also"
        " pays the network round trip. The event loop's longest stall in any round change was"
        f" {stall * 1000:.0f} ms (target < {STALL_TARGET * 1000:.0f} ms)."
    )


def write_section(text: str) -> None:
    """Replace (or add) this section of docs/benchmarks.md, keeping every other section."""
    if DOC.exists():
        old = DOC.read_text()
    else:
        old = "# Benchmarks\n\n## Pairing\n\n_Not measured yet: `python bench/pairing.py` writes this section._\n"
    pattern = re.compile(rf"^{re.escape(HEADING)}\n.*?(?=^## |\Z)", flags=re.M | re.S)
    new = pattern.sub(lambda _: text + "\n", old) if pattern.search(old) else old.rstrip("\n") + "\n\n" + text
    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text(new.rstrip("\n") + "\n")


async def bench(args: argparse.Namespace) -> int:
    """Run the events and print (and write) the report."""
    timeline = Timeline()
    patched = {
        "load history": instrument(timeline, bot.director.lookups, "event_history", "load history"),
        "store pairing": instrument(timeline, storage.rounds, "store_pairing", "store pairing"),
        "engine": instrument_engine(timeline),
    }
    runs = []
    for seed in range(args.seed, args.seed + args.repeats):
        print(f"event with seed {seed}: {args.players} players, {args.rounds} rounds", flush=True)
        runs.append(await run_event(args, seed, timeline))
    text = report(args, runs, patched)
    print(text)
    if not args.no_write:
        write_section(text)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=3, help="events, one per seed")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--in-process", action="store_true", help="serve the sandbox in this event loop")
    parser.add_argument("--no-write", action="store_true", help="print the report only")
    parser.add_argument("--threads", action="store_true", help="no worker processes: CPU work in threads")
    args = parser.parse_args(argv)
    if args.players < 2 or args.rounds < 2 or args.repeats < 1:
        parser.error("at least 2 players, 2 rounds and 1 repeat")
    return asyncio.run(bench(args))


if __name__ == "__main__":
    sys.exit(main())
