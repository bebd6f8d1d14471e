"""The demo: a whole event on the local Lichess, with simulated members, a fast clock and the console announcer.

Members link their Lichess accounts through the local Lichess's OAuth page and the bot's real web endpoint (the
demo plays their browsers), so their games go out as bulk pairings whose clocks start by themselves; one member
links with the bio code, so its boards show the open-challenge fallback. The local Lichess's clock is kept in
step with the demo's fast clock (`POST /sandbox/clock`), so the clocks it starts run on event time.

Everything the simulated members do happens at fixed points of the event (before the event starts, or
just before a given round is paired) and is idempotent, so a run stopped at any moment and started
again with the same database finishes the same event, pairing for pairing and result for result.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import signal
import sys
import tempfile
import time
from contextlib import AsyncExitStack, suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TextIO

import aiohttp

from bot.clock import FastClock
from bot.config import ClubConfig, WebConfig
from bot.demo.console import ConsoleAnnouncer
from bot.demo.output import write_outputs
from bot.director.api import Director
from bot.director.bulk import bot_may_bulk
from bot.director.models import Actor
from bot.director.streaming import StreamFeeder
from bot.errors import SwissbotError
from bot.lichess.gateway import LichessGateway
from bot.pages.site import page_routes
from bot.scheduling import Scheduler
from bot.settings import DirectorSettings
from bot.token_vault import TokenVault
from bot.web.app import WebServer, default_route_modules
from sandbox.lichess.server import run_sandbox
from sandbox.lichess.state import BOT_TOKEN
from storage.db import open_database
from storage.records import EarlyDrawPolicy, EntryStatus, EventSettings, EventStatus

DEMO_GUILD = 424242
DEMO_CHANNEL = 434343
ORGANISER = Actor(1, "demo-organiser", True)
EVENT_NAME = "swissbot demo"
# The default seed: its event shows each rare case of the local Lichess about once (an early draw replayed in
# round 1, a no-show in rounds 2, 3 and 5, an aborted game re-created in round 4).
DEFAULT_SEED = 7
MAX_JOB_ERRORS = 200  # a job that fails this often means a bug, not a passing Lichess hiccup
NAMES = (
    "Anand",
    "Botvinnik",
    "Capablanca",
    "Dvoretsky",
    "Euwe",
    "Fischer",
    "Gelfand",
    "Hou",
    "Ivanchuk",
    "Judit",
    "Karpov",
    "Lasker",
    "Morphy",
    "Najdorf",
    "Oparin",
    "Petrosian",
    "Quinteros",
    "Reshevsky",
    "Smyslov",
    "Tal",
    "Unzicker",
    "Vachier",
    "Wei",
    "Xie",
    "Yusupov",
    "Zukertort",
    "Alekhine",
    "Bronstein",
    "Carlsen",
    "Ding",
    "Eljanov",
    "Firouzja",
    "Giri",
    "Harikrishna",
    "Ivanisevic",
    "Jobava",
    "Kasparov",
    "Leko",
    "Mamedyarov",
    "Nakamura",
)


@dataclass(frozen=True)
class DemoOptions:
    """The demo's knobs (see `swissbot demo --help`)."""

    players: int = 24
    rounds: int = 5
    seed: int = DEFAULT_SEED
    db: Path | None = None
    out: Path = Path("demo-output")
    lichess_url: str | None = None
    speed: float = 60.0
    autoplay_delay: float = 0.4
    serve: int | None = None  # a port: serve the event's pages on 127.0.0.1 during the event and after it


@dataclass(frozen=True)
class Member:
    """A simulated club member."""

    actor: Actor
    username: str
    rating: int


def members(opts: DemoOptions) -> list[Member]:
    """The simulated members, the same for a given seed."""
    rng = random.Random(opts.seed)
    out = []
    for i in range(opts.players):
        base = NAMES[i % len(NAMES)]
        username = f"{base}{i // len(NAMES) + 1}" if i >= len(NAMES) else base
        out.append(Member(Actor(100 + i, username), username, rng.randint(1200, 2400)))
    return out


class DemoMembers:
    """What the simulated members do, each step idempotent: link, join, and the scripted moments."""

    def __init__(self, director: Director, http: aiohttp.ClientSession, url: str, people: list[Member], out: TextIO):
        self.director = director
        self.http = http
        self.url = url
        self.people = people
        self.out = out
        # One member links with the code in the Lichess bio (its boards are open challenges); the others
        # sign in on Lichess (OAuth) when the bot's web endpoint is up.
        self.bio_member = people[1] if len(people) > 1 else people[0]
        # Scripted moments: the last member joins late, one withdraws before round 3, one asks for a bye.
        self.late = people[-1]
        self.withdrawer = people[len(people) // 3]
        self.bye_taker = people[len(people) // 2]

    def say(self, text: str) -> None:
        """Progress line."""
        print(f"[demo] {text}", file=self.out, flush=True)

    async def _account(self, member: Member, bio: str = "") -> None:
        body = {"username": member.username, "rating": member.rating, "bio": bio}
        async with self.http.post(f"{self.url}/sandbox/users", json=body) as reply:
            if reply.status >= 400:
                raise SwissbotError(f"the local Lichess refused the account {member.username}: {await reply.text()}")

    async def link(self, member: Member) -> None:
        """Create the Lichess account and link it (OAuth, or the bio code), as a real member does."""
        if await self.director.linked_account(member.actor.discord_id) is not None:
            return
        await self._account(member)
        if member is not self.bio_member and self.director.oauth_enabled:
            await self._sign_in(member)
            return
        challenge = await self.director.start_link(member.actor, member.username)
        await self._account(member, bio=f"Club member. {challenge.code}")
        await self.director.complete_link(member.actor)

    async def _sign_in(self, member: Member) -> None:
        """Play the member's browser: the bot's link to Lichess's page, approve there, back to the bot's callback."""
        url = await self.director.start_oauth_link(member.actor)
        async with self.http.get(f"{url}&sandbox_user={member.username}", allow_redirects=False) as reply:
            callback = reply.headers.get("Location", "")
            if reply.status != 302 or not callback:
                raise SwissbotError(f"the local Lichess did not send {member.username} back: {await reply.text()}")
        async with self.http.get(callback) as page:
            if page.status != 200:
                raise SwissbotError(f"the bot's callback refused {member.username}: {await page.text()}")

    async def join(self, event_id: int, member: Member) -> None:
        """Link if needed, then join (once)."""
        await self.link(member)
        if any(e.discord_id == member.actor.discord_id for e in await self.director.entries(event_id)):
            return
        entry = await self.director.join(member.actor, event_id)
        if entry.joined_round > 1:
            self.say(f"{member.username} joins late (from round {entry.joined_round}, with a half-point bye)")

    async def register(self, event_id: int) -> None:
        """Everyone but the late joiner links and joins; one member asks for a bye in round 2."""
        for member in self.people:
            if member is not self.late:
                await self.join(event_id, member)
        if (await self.director.event(event_id)).settings.rounds >= 2:
            try:
                await self.director.request_bye(self.bye_taker.actor, event_id, 2)
            except SwissbotError:
                pass  # already paired (a resumed run): the request was made before
            else:
                self.say(f"{self.bye_taker.username} asks for a half-point bye in round 2")

    async def before_pairing(self, event_id: int, round_number: int) -> None:
        """The scripted moments, just before a round is paired."""
        if round_number == 2:
            await self.join(event_id, self.late)
        if round_number == 3:
            entries = {e.discord_id: e for e in await self.director.entries(event_id)}
            mine = entries.get(self.withdrawer.actor.discord_id)
            if mine is not None and mine.status is EntryStatus.ACTIVE:
                await self.director.withdraw(self.withdrawer.actor, event_id)
                self.say(f"{self.withdrawer.username} withdraws before round 3")


def demo_settings(opts: DemoOptions, start: datetime) -> EventSettings:
    """The demo event: blitz, rounds a minute apart, five minutes to start a game, early draws replayed."""
    return EventSettings(
        name=EVENT_NAME,
        rounds=opts.rounds,
        clock_limit=180,
        clock_increment=2,
        start_at=start,
        round_interval=60,
        no_show_seconds=240,
        early_draw_policy=EarlyDrawPolicy.REPLAY,
        max_byes=1,
    )


def demo_clock(db_path: Path, speed: float) -> FastClock:
    """A fast clock anchored in a file next to the database, so event time keeps running while the demo is
    stopped (as real time would) and a resumed run continues the same timeline."""
    anchor = db_path.with_name(db_path.name + ".clock")
    try:
        data = json.loads(anchor.read_text())
        event_start = datetime.fromisoformat(data["event"])
        wall_start, speed = float(data["wall"]), float(data["speed"])
    except (OSError, ValueError, KeyError):
        event_start, wall_start = datetime.now(UTC), time.time()
        tmp = anchor.with_name(anchor.name + ".tmp")
        tmp.write_text(json.dumps({"event": event_start.isoformat(), "wall": wall_start, "speed": speed}))
        os.replace(tmp, anchor)
    return FastClock(speed, start=event_start + timedelta(seconds=max(0.0, time.time() - wall_start) * speed))


async def _until_stopped() -> None:
    """Wait for Ctrl-C (SIGINT) or SIGTERM: the demo then ends normally, its event being over."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        await stop.wait()
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)


async def _keep_sandbox_time(stack: AsyncExitStack, http: aiohttp.ClientSession, url: str, clock: FastClock) -> None:
    """Move the local Lichess's clock along with the demo's (it only moves forward), so the bulk games' clocks
    start and fall on event time; nothing happens if the server has no control API."""

    async def step() -> float | None:
        async with http.post(f"{url}/sandbox/clock", json={"advance": 0}) as reply:
            if reply.status != 200:
                return None
            now_ms = float((await reply.json())["now"])
        ahead = clock.now().timestamp() - now_ms / 1000
        if ahead > 0:
            async with http.post(f"{url}/sandbox/clock", json={"advance": ahead}) as reply:
                await reply.read()
        return ahead

    if await step() is None:
        return

    async def follow() -> None:
        while True:
            await asyncio.sleep(0.1)
            with suppress(aiohttp.ClientError):  # the local Lichess is busy: the next step catches up
                await step()

    task = asyncio.create_task(follow())

    async def stop() -> None:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    stack.push_async_callback(stop)


async def _oauth_and_bulk(stack: AsyncExitStack, director: Director, db_path: Path, serve: int | None) -> str:
    """The bot's web endpoint on loopback (on port `serve` with the demo club's public event pages, when
    given), the token key (from SWISSBOT_TOKEN_KEY, else a key file beside the demo's database, so a resumed
    run opens the tokens it stored), and bulk pairing when the bot's token may; the endpoint's address."""
    vault = TokenVault.from_env()
    if vault is None:
        key_file = db_path.with_name(db_path.name + ".key")
        if not key_file.exists():
            tmp = key_file.with_name(key_file.name + ".tmp")
            tmp.write_text(TokenVault.new_key())
            os.replace(tmp, key_file)
        vault = TokenVault(key_file.read_text())
    routes = None
    if serve is not None:
        club = ClubConfig(DEMO_GUILD, "organisers", DEMO_CHANNEL, name="swissbot demo club", public=True)
        routes = [*default_route_modules(), page_routes([club], refresh_seconds=2.0)]
    config = WebConfig(host="127.0.0.1", port=serve or 0, public_url="http://127.0.0.1")
    endpoint = WebServer(config, director, routes)
    await endpoint.start()
    stack.push_async_callback(endpoint.close)
    director.ctx.vault = vault
    director.ctx.public_url = endpoint.local_url
    await bot_may_bulk(director.ctx, BOT_TOKEN)
    return endpoint.local_url


async def _refuse_resume_on_a_new_lichess(director: Director, event_id: int) -> None:
    """An unfinished event's accounts and games lived in the previous run's in-process Lichess, which is gone:
    going on would forfeit every game in play, so refuse with what to do instead."""
    event = await director.event(event_id)
    if event.status in (EventStatus.FINISHED, EventStatus.CANCELLED) or not await director.entries(event_id):
        return
    raise SwissbotError(
        f"event #{event_id} is not finished and its games and accounts were on the in-process Lichess of the run "
        "that stopped; resuming on a new one would forfeit the round in play. Run the demo with --lichess-url and "
        "a `swissbot sandbox --autoplay` that stays up (as the restart test does), or without --db for a new event"
    )


async def _demo_event(director: Director) -> int | None:
    events = await director.list_events(DEMO_GUILD)
    return events[-1].id if events else None


async def run_demo(opts: DemoOptions, out: TextIO = sys.stdout) -> int:
    """Run (or resume) the demo event to its end and write the outputs; the exit code."""
    logging.getLogger("apscheduler").setLevel(logging.ERROR)  # "skipped: already running" is expected here
    async with AsyncExitStack() as stack:
        if opts.lichess_url is None:
            sandbox = await stack.enter_async_context(
                run_sandbox(seed=opts.seed, autoplay=True, autoplay_delay=opts.autoplay_delay)
            )
            url = sandbox.url
            print(f"[demo] local Lichess (autoplay, seed {opts.seed}) at {url}", file=out, flush=True)
        else:
            url = opts.lichess_url.rstrip("/")
            print(f"[demo] using the Lichess at {url}", file=out, flush=True)
        if opts.db is None:
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="swissbot-demo-"))
            db_path = Path(folder) / "demo.sqlite3"
        else:
            db_path = opts.db
        db = await open_database(db_path)
        stack.push_async_callback(db.close)
        clock = demo_clock(db_path, opts.speed)
        gateway = LichessGateway(url, BOT_TOKEN, rate_limit_pause=1.0, retry_backoff=0.2, timeout=10.0)
        stack.push_async_callback(gateway.close)
        announcer = ConsoleAnnouncer(out, show_dms=False)
        settings = DirectorSettings(poll_interval=15.0, reminder_before=30.0, retry_after=10.0)
        director = Director(db, gateway, announcer, clock, settings)
        http = await stack.enter_async_context(aiohttp.ClientSession())
        await _keep_sandbox_time(stack, http, url, clock)
        pages = await _oauth_and_bulk(stack, director, db_path, opts.serve)
        people = DemoMembers(director, http, url, members(opts), out)
        director.ctx.before_pairing = people.before_pairing

        event_id = await _demo_event(director)
        if event_id is None:
            start = clock.now() + timedelta(minutes=2)
            event = await director.create_event(ORGANISER, DEMO_GUILD, DEMO_CHANNEL, demo_settings(opts, start))
            event_id = event.id
            people.say(f"created '{EVENT_NAME}' ({opts.rounds} rounds, {opts.players} members, seed {opts.seed})")
        else:
            people.say(f"resuming event #{event_id} from {db_path}")
            if opts.lichess_url is None:
                await _refuse_resume_on_a_new_lichess(director, event_id)
        event = await director.event(event_id)
        if event.status is EventStatus.DRAFT:
            await director.open_event(ORGANISER, event_id)
            event = await director.event(event_id)
        if event.status is EventStatus.OPEN and event.current_round == 0:
            how = "on Lichess's OAuth page" if director.oauth_enabled else "with the bio code"
            people.say(f"members link their Lichess accounts ({how}; {people.bio_member.username} with the bio code)")
            await people.register(event_id)
            people.say(f"{len(await director.entries(event_id))} players entered; round 1 starts shortly")

        if opts.serve is not None:
            people.say(f"the event's pages, live: {pages}/events/{event_id}")

        scheduler = Scheduler(director, clock)
        await scheduler.start()
        stack.push_async_callback(scheduler.shutdown)
        feeder = StreamFeeder(director.ctx, BOT_TOKEN, sync_interval=0.3, backoff=0.2)
        await feeder.start()
        stack.push_async_callback(feeder.close)
        while (await director.event(event_id)).status not in (EventStatus.FINISHED, EventStatus.CANCELLED):
            if len(scheduler.errors) > MAX_JOB_ERRORS:
                job, error = scheduler.errors[-1]
                raise SwissbotError(f"the event is stuck: job {job} keeps failing ({error})")
            await asyncio.sleep(0.2)
        await scheduler.shutdown()  # waits for the job that finished the event (it posts the final standings)
        await feeder.close()
        people.say(f"{len(feeder.finished)} game ends came through Lichess's game stream (polling is the fallback)")

        event = await director.event(event_id)
        if event.status is not EventStatus.FINISHED:
            raise SwissbotError(f"the event was {event.status.value} before its last round; no files written")
        rows = await director.standings(event_id)
        written = await write_outputs(opts.out, db, event, rows, site=url)
        people.say("wrote " + ", ".join(str(p) for p in written))
        if opts.serve is not None:
            people.say(f"serving the event's pages at {pages}/events/{event_id} until Ctrl-C")
            await _until_stopped()
        return 0
