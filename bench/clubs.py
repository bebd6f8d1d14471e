"""Benchmark of many clubs on one bot: N clubs x M events x P players against the local Lichess with its real limits.

Usage: .venv/bin/python bench/clubs.py [--clubs 4] [--events 5] [--players 50] [--rounds 3] [--interval 10]
                                       [--own-tokens] [--members 300] [--no-write]

Every event starts at the same time and has its rounds at fixed times `--interval` minutes apart. The local
Lichess runs in this process on the benchmark's manual clock and keeps lichess.org's limits (bulk pairing: 500
games per 10 minutes, 20 scheduled bulks, 1000 scheduled games per token; `POST /api/users`: 300 a call, 8,000 per
10 minutes), answering 429 as lichess.org does. The gateway's 429 pause (a minute, doubling) passes on the manual
clock, so a 429 costs the events virtual minutes, not the benchmark's. Every member links by OAuth (the token is
stored as `/link` would store it), so every board may be a bulk pairing; the token's bulk budget
(`bot.lichess.budget`) decides which are, and the rest are open challenges. With `--own-tokens` every club brings
its own Lichess account (`[[clubs]] lichess_token_env`), so each has its own budget.

The due jobs run concurrently, as the scheduler runs them in the bot; the clock steps 10 s at a time through each
round's first minute. While the rounds start, `--members` members ask for the standings, the pairings and their
game at once through the director (what `/standings`, `/pairings`, `/mygame` run after their defer); the event
loop's lag is measured alongside (a command's first answer, its defer, waits for the loop: lag + Discord's
round trip). Reported per round: rounds started late (paired more than 60 s after their time), the slowest
round's games (last game created after pairing, on the manual clock: a 429's pause shows there), the wall time
from the rounds' time until every game exists (the work itself: pairing, storing, creating), bulk games and open
challenges, 429s met, Lichess requests, and the command latencies. The table goes to docs/benchmarks.md under
'## Many clubs', in the subsection of its configuration (other sections and configurations are kept).
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
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

# Run as `python bench/clubs.py`: make `import pairing` find the package, not bench/pairing.py.
ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]

import aiohttp  # noqa: E402

from bot.assembly import OwnLichess, Services, build  # noqa: E402
from bot.config import Config  # noqa: E402
from bot.director.api import Director  # noqa: E402
from bot.director.models import Actor  # noqa: E402
from bot.errors import SwissbotError  # noqa: E402
from bot.lichess.gateway import LichessGateway  # noqa: E402
from bot.scheduling import Scheduler  # noqa: E402
from bot.settings import DirectorSettings  # noqa: E402
from bot.token_vault import TokenVault  # noqa: E402
from domain.rounds import RoundStatus  # noqa: E402
from domain.settings import EventSettings  # noqa: E402
from sandbox.lichess.server import Sandbox, run_sandbox  # noqa: E402
from sandbox.lichess.state import BOT_TOKEN  # noqa: E402
from storage import oauth as storage_oauth  # noqa: E402
from storage import players as storage_players  # noqa: E402
from storage import rounds as storage_rounds  # noqa: E402
from storage.db import Database, open_database  # noqa: E402
from tests.support.announcer import RecordingAnnouncer  # noqa: E402
from tests.support.clock import ManualClock  # noqa: E402

DOC = ROOT / "docs" / "benchmarks.md"
HEADING = "## Many clubs"
ORGANISER = Actor(1, "bench-organiser", True)
STEP = 10.0  # seconds of the manual clock between two looks at the due jobs in a round's first minutes
ON_TIME = 60.0  # a round paired later than this after its time started late; its games are due this soon too


@dataclass
class RoundSample:
    """One round of every event."""

    number: int
    boards: int = 0
    bulk_games: int = 0
    open_games: int = 0
    late: int = 0
    slowest_games: float = 0.0  # seconds from a round's pairing to its last game created, the slowest event
    ready_wall: float = 0.0  # wall seconds from the round's time until every event's games exist (the work)
    limited: int = 0
    requests: Counter[str] = field(default_factory=Counter)
    answers: list[float] = field(default_factory=list)  # seconds, each member command
    lags: list[float] = field(default_factory=list)  # seconds, the event loop's lag while the round started


class ManualTime:
    """The gateway's sleep and clocks on the manual clock: a 429 pause passes in virtual time."""

    def __init__(self, clock: ManualClock) -> None:
        self.clock = clock

    async def sleep(self, seconds: float) -> None:
        self.clock.advance(seconds)
        await asyncio.sleep(0)

    def monotonic(self) -> float:
        return self.clock.now().timestamp()


def gateway(url: str, token: str, time_: ManualTime) -> LichessGateway:
    """A gateway with lichess.org's pause after a 429 (a minute, doubling), on the manual clock."""
    return LichessGateway(
        url, token, timeout=60.0, sleep=time_.sleep, clock=time_.monotonic, wall_clock=time_.monotonic
    )


async def link_by_oauth(
    db: Database, vault: TokenVault, sandbox: Sandbox, name: str, discord_id: int, at: datetime
) -> Actor:
    """A member whose Lichess account is linked and whose token is stored, as `/link` by OAuth leaves them."""
    rng = random.Random(name)
    secret = f"lio_{name}"
    user = sandbox.add_user(name, rating=rng.randint(1200, 2400), token=secret)
    await storage_players.ensure_player(db, discord_id, name, at=at)
    player = await storage_players.link_account(db, discord_id, name, at=at, actor="bench")
    scopes = sandbox.state.tokens[secret].scopes
    await storage_oauth.store_token(db, player.id, user.id, vault.seal(secret), scopes, at=at, expires_at=None)
    return Actor(discord_id, name)


async def play_all(director: Director, sandbox: Sandbox, event_ids: list[int], number: int) -> None:
    """Every game of the round played to a result through the local Lichess's control of its games."""
    async with aiohttp.ClientSession() as http:
        for event_id in event_ids:
            view = await director.pairings(event_id, number)
            for board in view.boards:
                if board.game_id is None:
                    continue
                winner = random.Random(f"{event_id}:{number}:{board.number}").choice(["white", "black", None])
                body = {"winner": winner, "status": "resign" if winner else "draw", "plies": 60}
                async with http.post(f"{sandbox.url}/sandbox/games/{board.game_id}/play", json=body) as reply:
                    if reply.status >= 300:
                        raise RuntimeError(f"playing {board.game_id}: {reply.status} {await reply.text()}")


async def run_due(scheduler: Scheduler, director: Director, clock: ManualClock) -> int:
    """Run the due jobs concurrently, as the bot's scheduler does."""
    due = [job for job in await director.due_jobs(clock.now()) if job.due_at <= clock.now()]
    await asyncio.gather(*(scheduler.run_job(job) for job in due))
    if scheduler.errors:
        job, error = scheduler.errors[-1]
        raise RuntimeError(f"job {job} failed: {error!r}")
    return len(due)


async def members_typing(director: Director, actors: list[tuple[Actor, int]], out: list[float]) -> None:
    """Every member asks at once: the standings, the pairings or their game (the work after the defer)."""

    async def one(actor: Actor, event_id: int, kind: int) -> None:
        start = time.perf_counter()
        try:
            if kind == 0:
                await director.standings(event_id)
            elif kind == 1:
                await director.pairings(event_id)
            else:
                await director.my_game(actor, event_id)
        except SwissbotError:  # "round 1 is not paired yet": an answer too
            pass
        out.append(time.perf_counter() - start)

    await asyncio.gather(*(one(actor, event_id, i % 3) for i, (actor, event_id) in enumerate(actors)))


async def loop_lag(out: list[float], stop: asyncio.Event) -> None:
    """How late the event loop wakes a 5 ms sleep: what a defer waits before it can go out."""
    while not stop.is_set():
        start = time.perf_counter()
        await asyncio.sleep(0.005)
        out.append(max(0.0, time.perf_counter() - start - 0.005))


async def start_round(
    director: Director, scheduler: Scheduler, clock: ManualClock, sandbox: Sandbox, events: list[int], number: int,
    due: datetime, typing: list[tuple[Actor, int]], sample: RoundSample,
) -> None:  # fmt: skip
    """From the round's time until every event's round has its games (or 10 minutes pass)."""
    clock.set(due)
    stop = asyncio.Event()
    lagger = asyncio.create_task(loop_lag(sample.lags, stop))
    typed = asyncio.create_task(members_typing(director, typing, sample.answers))
    deadline = due + timedelta(minutes=10)
    began = time.perf_counter()
    try:
        while clock.now() < deadline:
            await run_due(scheduler, director, clock)
            if all([await games_ready(director, event_id, number) for event_id in events]):
                sample.ready_wall = time.perf_counter() - began
                break
            clock.advance(STEP)
        await typed
    finally:
        stop.set()
        await lagger
    await asyncio.sleep(0.3)  # the local Lichess creates a bulk's games at its next tick (every 0.1 s)
    for event_id in events:
        last = await storage_rounds.last_round(director.ctx.db, event_id)
        assert last is not None and last.round.number == number, f"event {event_id}: round {number} not paired"
        paired = last.round.paired_at
        sample.late += (paired - due).total_seconds() > ON_TIME
        view = await director.pairings(event_id, number)
        sample.boards += len(view.boards)
        created = []
        for board in view.boards:
            game = sandbox.state.games.get(board.game_id or "")
            if game is None:
                continue
            created.append(game.created_at - paired.timestamp())
            sample.bulk_games += game.source == "api"
            sample.open_games += game.source != "api"
        if created:
            sample.slowest_games = max(sample.slowest_games, max(created))


async def games_ready(director: Director, event_id: int, number: int) -> bool:
    """Whether the event's round `number` is paired and every board has its game."""
    last = await storage_rounds.last_round(director.ctx.db, event_id)
    if last is None or last.round.number != number:
        return False
    view = await director.pairings(event_id, number)
    return all(b.game_id for b in view.boards if b.result is None and b.black is not None)


async def finish_round(
    director: Director, scheduler: Scheduler, clock: ManualClock, events: list[int], number: int
) -> None:
    """The round's games played and polled until every event's round is finished."""
    for _ in range(60):
        await run_due(scheduler, director, clock)
        done = True
        for event_id in events:
            last = await storage_rounds.last_round(director.ctx.db, event_id)
            done &= last is not None and last.round.number == number and last.round.status is RoundStatus.FINISHED
        if done:
            return
        clock.advance(20)
    raise RuntimeError(f"round {number} did not finish")


async def bench(args: argparse.Namespace) -> list[RoundSample]:
    """Run the clubs' events and sample each round."""
    clock = ManualClock()
    time_ = ManualTime(clock)
    samples = []
    async with run_sandbox(seed=args.seed, autoplay=False, clock=time_.monotonic) as sandbox:
        folder = tempfile.mkdtemp(prefix="swissbot-clubs-")
        db = await open_database(Path(folder) / "bench.sqlite3")
        vault = TokenVault(TokenVault.new_key())
        bot = gateway(sandbox.url, BOT_TOKEN, time_)
        own: dict[int, OwnLichess] = {}
        for club in range(args.clubs if args.own_tokens else 0):
            token = f"lip_club{club}"
            sandbox.add_user(f"ClubBot{club}", title="BOT", token=token)
            own[100 + club] = OwnLichess(gateway(sandbox.url, token, time_), token)
        services = Services(db, bot, RecordingAnnouncer(), vault, BOT_TOKEN, club_lichess=own)
        config = Config(database=Path(folder) / "bench.sqlite3", director=DirectorSettings(poll_interval=20.0))
        app = await build(config, clock, services, scheduled=False)
        director, scheduler = app.director, app.scheduler
        start = clock.now() + timedelta(hours=1)
        times = tuple(start + timedelta(minutes=args.interval * r) for r in range(args.rounds))
        events: list[int] = []
        members: list[tuple[Actor, int]] = []
        print(f"{args.clubs} clubs x {args.events} events x {args.players} players: linking and joining", flush=True)
        for club in range(args.clubs):
            for index in range(args.events):
                settings = EventSettings(
                    name=f"Club {club} event {index}", rounds=args.rounds, clock_limit=300, clock_increment=3,
                    start_at=start, round_interval=None, round_times=times, no_show_seconds=600,
                )  # fmt: skip
                event = await director.create_event(ORGANISER, 100 + club, 200 + club, settings)
                await director.open_event(ORGANISER, event.id)
                events.append(event.id)
                for p in range(args.players):
                    discord_id = 10_000 + len(members)
                    name = f"c{club}e{index}p{p}"
                    actor = await link_by_oauth(db, vault, sandbox, name, discord_id, clock.now())
                    await director.join(actor, event.id)
                    members.append((actor, event.id))
        typing = random.Random(args.seed).sample(members, min(args.members, len(members)))
        for number, due in enumerate(times, start=1):
            before = len(sandbox.state.requests)
            limited = sum(r.status == 429 for r in sandbox.state.requests)
            sample = RoundSample(number)
            began = time.perf_counter()
            await start_round(director, scheduler, clock, sandbox, events, number, due, typing, sample)
            clock.advance(120)
            await play_all(director, sandbox, events, number)
            await finish_round(director, scheduler, clock, events, number)
            log = sandbox.state.requests[before:]
            sample.requests = Counter(f"{r.method} {_endpoint(r.path)}" for r in log)
            sample.limited = sum(r.status == 429 for r in sandbox.state.requests) - limited
            samples.append(sample)
            print(
                f"  round {number}: {sample.boards} boards ({sample.bulk_games} bulk, {sample.open_games} open),"
                f" {sample.late} late, games within {sample.slowest_games:.0f} s ({sample.ready_wall:.1f} s of work),"
                f" {sample.limited} 429s,"
                f" {sum(sample.requests.values())} requests, {time.perf_counter() - began:.1f} s",
                flush=True,
            )
        await services.close()
    return samples


def _endpoint(path: str) -> str:
    for prefix in ("/api/user/", "/api/stream/games/", "/api/challenge/", "/api/bulk-pairing/", "/api/games/user/"):
        if path.startswith(prefix) and path != prefix.rstrip("/"):
            return prefix + "…"
    return path


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) >= 2 else (values[0] if values else 0.0)


INTRO = (
    "`bench/clubs.py`: N clubs x M events x P players on one bot process, every event starting at the same time"
    " with its rounds at fixed times, against the local Lichess with lichess.org's limits (bulk pairing and"
    " `POST /api/users`) on the benchmark's clock: a 429's pause (a minute, doubling) passes in virtual time and"
    " shows as games created late. *Last game after pairing* is on that clock; *all games, wall time* is the work"
    " itself (pairing, storing, creating every event's games) from the rounds' time. While the rounds start, the"
    " members ask for the standings, the pairings or their game at once (the work after a command's defer); the"
    " event loop's lag is what a command's first answer, its defer, waits before it goes out."
)


def title(args: argparse.Namespace) -> str:
    """The subsection's title: the configuration."""
    tokens = "a token per club" if args.own_tokens else "one token"
    return (
        f"{args.clubs} club(s) x {args.events} event(s) x {args.players} players, {tokens},"
        f" rounds every {args.interval:g} minutes"
    )


def report(args: argparse.Namespace, samples: list[RoundSample]) -> str:
    """The Markdown subsection."""
    lines = [
        f"### {title(args)}",
        "",
        f"`bench/clubs.py --clubs {args.clubs} --events {args.events} --players {args.players} --rounds {args.rounds}"
        f" --interval {args.interval:g}{' --own-tokens' if args.own_tokens else ''} --members {args.members}`"
        f" ({platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"{min(args.members, args.clubs * args.events * args.players)} members typing).",
        "",
        "| round | boards | bulk / open | rounds late | last game after pairing | all games, wall time | 429s"
        " | Lichess requests | member commands p50 / p95 | loop lag p95 / max |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in samples:
        answers = sorted(s.answers)
        lags = s.lags or [0.0]
        top = ", ".join(f"{name} {count}" for name, count in s.requests.most_common(4))
        median = statistics.median(answers or [0.0])
        lines.append(
            f"| {s.number} | {s.boards} | {s.bulk_games} / {s.open_games} | {s.late} | {s.slowest_games:.0f} s"
            f" | {s.ready_wall:.1f} s | {s.limited} | {sum(s.requests.values())} ({top}) | {median:.2f} s /"
            f" {_p95(answers):.2f} s | {_p95(lags) * 1000:.0f} ms / {max(lags) * 1000:.0f} ms |"
        )
    return "\n".join(lines) + "\n"


def write_section(text: str, heading: str) -> None:
    """Replace (or add) the configuration's subsection under '## Many clubs' in docs/benchmarks.md."""
    doc = DOC.read_text(encoding="utf-8") if DOC.exists() else "# Benchmarks\n"
    if HEADING + "\n" not in doc:
        doc = doc.rstrip("\n") + f"\n\n{HEADING}\n\n{INTRO}\n"
    start = doc.index(HEADING + "\n")
    end = doc.find("\n## ", start + len(HEADING))
    section, rest = (doc[start:], "") if end < 0 else (doc[start:end], doc[end:])
    mark = f"### {heading}\n"
    if mark in section:
        at = section.index(mark)
        after = section.find("\n### ", at + len(mark))
        section = section[:at] + text + ("" if after < 0 else section[after:])
    else:
        section = section.rstrip("\n") + "\n\n" + text
    DOC.write_text(doc[:start] + section.rstrip("\n") + "\n" + rest, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clubs", type=int, default=4)
    parser.add_argument("--events", type=int, default=5, help="events per club")
    parser.add_argument("--players", type=int, default=50, help="players per event")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--interval", type=float, default=10.0, help="minutes between rounds")
    parser.add_argument("--own-tokens", action="store_true", help="every club brings its own Lichess account")
    parser.add_argument("--members", type=int, default=300, help="members typing a command as the rounds start")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-write", action="store_true", help="print the report only")
    args = parser.parse_args(argv)
    if args.clubs < 1 or args.events < 1 or args.players < 2 or args.rounds < 1:
        parser.error("at least 1 club, 1 event, 2 players and 1 round")
    text = report(args, asyncio.run(bench(args)))
    print(text)
    if not args.no_write:
        write_section(text, title(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
