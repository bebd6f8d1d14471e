"""The demo: a whole event run by the real bot (`SwissBot`, as `swissbot run` starts it) against the local Discord
and the local Lichess, with simulated members and an organiser who type their slash commands, on a fast clock.

The organiser creates, opens and starts the event with `/swiss`; members `/link` (through the local Lichess's
OAuth page and the bot's real web endpoint, the demo playing their browsers; one member with the bio code, so its
boards show the open-challenge fallback) and `/join`; one asks for a bye, one joins late, one withdraws. The
console shows the club's channel as members read it. The local Lichess's clock is kept in step with the demo's
fast clock (`POST /sandbox/clock`), so the clocks it starts run on event time.

Everything the simulated members do happens at fixed points of the event (before it starts, or just before a
given round is paired) and is idempotent, so a run stopped at any moment and started again with the same
database (and the same `--lichess-url`) finishes the same event, pairing for pairing and result for result.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import socket
import sys
import tempfile
import time
from contextlib import AsyncExitStack, suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TextIO

import aiohttp
import discord

from bot.clock import FastClock
from bot.config import ClubConfig, Config, DiscordConfig, LichessConfig, Secrets, WebConfig
from bot.demo.channel import ChannelView
from bot.demo.club import DEMO_CHANNEL, DEMO_GUILD, ORGANISER_ID, ORGANISER_NAME, DemoClub, Member, members
from bot.demo.output import write_outputs
from bot.director.api import Director
from bot.discord.bot import SwissBot
from bot.errors import SwissbotError
from bot.settings import DirectorSettings
from bot.token_vault import TOKEN_KEY_ENV, TokenVault
from domain.entry import EntryStatus
from domain.event import EventStatus
from pairing import systems
from sandbox.discord import run_discord_sandbox
from sandbox.lichess.server import run_sandbox
from sandbox.lichess.state import BOT_TOKEN
from storage.db import fetchone, open_database

__all__ = ["DEFAULT_SEED", "DemoOptions", "members", "run_demo"]

EVENT_NAME = "swissbot demo"
# The default seed: its event meets each rare case of the local Lichess (aborted games created again in rounds 1
# and 4, players who never move in rounds 2 and 4: forfeit, withdrawn and banned, an early draw played again in
# round 3), as the organisers' notices in the channel show.
DEFAULT_SEED = 2
MAX_JOB_ERRORS = 200  # a job that fails this often means a bug, not a passing Lichess hiccup
READY_SECONDS = 30.0


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
    system: str = systems.AUTO  # a team system: the members formed into teams by the organiser
    boards: int = 2  # a team event's boards a match


class DemoMembers:
    """What the simulated members do, each step idempotent: link, join, and the scripted moments."""

    def __init__(self, club: DemoClub, people: list[Member], out: TextIO, *, teams: bool = False):
        self.club = club
        self.bot: SwissBot | None = None
        self.people = people
        self.out = out
        self.bio_member = people[1] if len(people) > 1 else people[0]
        # Scripted moments: the last member joins late, one withdraws before round 3, one asks for a bye. In a
        # team event nobody joins late (teams are formed before the start): a reserve steps in for the others.
        self.late: Member | None = None if teams else people[-1]
        self.withdrawer = people[len(people) // 3]
        self.bye_taker = people[len(people) // 2]
        self.ready = asyncio.Event()  # set once the bot is logged in and its commands synced: members can type
        self.typing: set[asyncio.Task[tuple[str, list[dict[str, Any]]]]] = set()  # commands whose answer comes later

    @property
    def director(self) -> Director:
        """The bot's director (for what members see: their link, the entries, the event)."""
        if self.bot is None:
            raise RuntimeError("the demo's members act once the bot is there")
        return self.bot.director

    def say(self, text: str) -> None:
        """Progress line."""
        print(f"[demo] {text}", file=self.out, flush=True)

    async def link(self, member: Member) -> None:
        """Create the Lichess account and link it (OAuth, or the bio code), as a real member does."""
        if await self.director.linked_account(member.discord_id) is not None:
            return
        await self.club.account(member)
        if member is not self.bio_member and self.director.oauth_enabled:
            await self.club.link_with_oauth(member)
        else:
            await self.club.link_with_bio_code(member)

    async def join(self, event_id: int, member: Member) -> None:
        """Link if needed, then `/join` (once)."""
        await self.link(member)
        if any(e.discord_id == member.discord_id for e in await self.director.entries(event_id)):
            return
        text, _ = await self.club.command(member.discord_id, "join")
        entry = next((e for e in await self.director.entries(event_id) if e.discord_id == member.discord_id), None)
        if entry is None:
            raise SwissbotError(f"{member.username} could not join: {text}")
        if entry.joined_round > 1:
            self.say(f"{member.username} joins late (from round {entry.joined_round}, with a half-point bye)")

    async def register(self, event_id: int) -> None:
        """Everyone but the late joiner links and joins; one member asks for a bye in round 2."""
        for member in self.people:
            if member is not self.late:
                await self.join(event_id, member)
        if (await self.director.event(event_id)).settings.rounds >= 2:
            text, _ = await self.club.command(self.bye_taker.discord_id, "bye", round=2)
            if text.startswith("You have a half-point bye"):  # else: asked already (a resumed run)
                self.say(f"{self.bye_taker.username} asks for a half-point bye in round 2: /bye round:2")

    async def form_teams(self, event_id: int, boards: int) -> None:
        """The organiser forms teams of the entered members (by rating, `boards` players and a reserve each while
        there are enough; the last players left join the last team as reserves) with `/swiss team add`."""
        entered = {e.discord_id: e for e in await self.director.entries(event_id)}
        ranked = sorted((m for m in self.people if m.discord_id in entered), key=lambda m: -m.rating)
        size = boards + 1
        groups = [ranked[i : i + size] for i in range(0, len(ranked), size)]
        if len(groups) > 1 and len(groups[-1]) < boards:
            groups[-2] += groups.pop()
        if await self.director.list_teams(event_id):
            return  # formed already (a resumed run)
        for index, group in enumerate(groups, start=1):
            if len(group) < boards:
                continue
            mentions = " ".join(f"<@{m.discord_id}>" for m in group)
            text, _ = await self.club.command(ORGANISER_ID, "swiss team add", name=f"Team {index}", members=mentions)
            self.say(f"{ORGANISER_NAME}: /swiss team add Team {index} → {text}")

    async def before_pairing(self, event_id: int, round_number: int) -> None:
        """The scripted moments, just before a round is paired (a resumed run's first job may come before the bot
        is connected: the members wait for it)."""
        await self.ready.wait()
        if round_number == 2 and self.late is not None:
            await self.join(event_id, self.late)
        if round_number == 3:
            entries = {e.discord_id: e for e in await self.director.entries(event_id)}
            mine = entries.get(self.withdrawer.discord_id)
            if mine is not None and mine.status is EntryStatus.ACTIVE:
                await self.withdraw_during_the_pairing_job(event_id, self.withdrawer)
                self.say(f"{self.withdrawer.username} withdraws before round 3: /withdraw")

    async def stop_typing(self) -> None:
        """Cancel the commands still waiting for their answer (a run stopped mid-way)."""
        for task in list(self.typing):
            task.cancel()
        await asyncio.gather(*self.typing, return_exceptions=True)

    async def withdraw_during_the_pairing_job(self, event_id: int, member: Member) -> None:
        """`/withdraw`, typed while the pairing job runs: the withdrawal is stored at once, but the command then
        waits for the event's lock (to forfeit a board in play), which this job holds until the round is paired, so
        its answer comes after the job. The member waits for the stored withdrawal, not for the answer (waiting for
        the answer held the job until the local Discord gave up on it, 10 s of every demo)."""
        typed = asyncio.create_task(self.club.command(member.discord_id, "withdraw"))
        self.typing.add(typed)
        typed.add_done_callback(self.typing.discard)
        while not typed.done():
            entries = await self.director.entries(event_id)
            if any(e.discord_id == member.discord_id and e.status is EntryStatus.WITHDRAWN for e in entries):
                return
            await asyncio.sleep(0.02)
        typed.result()  # answered before the withdrawal was seen: a refusal raises here


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


def _token_key(stack: AsyncExitStack, db_path: Path) -> None:
    """The key that seals members' Lichess tokens, as `swissbot run` reads it (SWISSBOT_TOKEN_KEY): the
    environment's, else a key file beside the demo's database, so a resumed run opens the tokens it stored."""
    if os.environ.get(TOKEN_KEY_ENV):
        return
    key_file = db_path.with_name(db_path.name + ".key")
    if not key_file.exists():
        tmp = key_file.with_name(key_file.name + ".tmp")
        tmp.write_text(TokenVault.new_key())
        os.replace(tmp, key_file)
    os.environ[TOKEN_KEY_ENV] = key_file.read_text().strip()
    stack.callback(os.environ.pop, TOKEN_KEY_ENV, None)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def _stored_event(db_path: Path) -> tuple[int, EventStatus, int] | None:
    """The demo's event in the database (id, status, entries), read before the bot starts."""
    if not db_path.exists():
        return None
    db = await open_database(db_path)
    try:
        async with db.snapshot() as conn:
            row = await fetchone(
                conn,
                "SELECT e.id, e.status, (SELECT COUNT(*) FROM entries WHERE event_id = e.id) FROM events e"
                " WHERE e.guild_id = ? ORDER BY e.id DESC LIMIT 1",
                (DEMO_GUILD,),
            )
    finally:
        await db.close()
    return None if row is None else (int(row[0]), EventStatus(row[1]), int(row[2]))


def _refuse_resume_on_a_new_lichess(event_id: int, status: EventStatus, entries: int) -> None:
    """An unfinished event's accounts and games lived in the previous run's in-process Lichess, which is gone:
    going on would forfeit every game in play, so refuse with what to do instead."""
    if status in (EventStatus.FINISHED, EventStatus.CANCELLED) or not entries:
        return
    raise SwissbotError(
        f"event #{event_id} is not finished and its games and accounts were on the in-process Lichess of the run "
        "that stopped; resuming on a new one would forfeit the round in play. Run the demo with --lichess-url and "
        "a `swissbot sandbox --autoplay` that stays up (as the restart test does), or without --db for a new event"
    )


async def start_bot(stack: AsyncExitStack, bot: SwissBot, token: str, guild_id: int) -> asyncio.Task[None]:
    """Log the bot into the local Discord (as `swissbot run`) and sync its commands to the club's server (as
    `swissbot sync --guild`); it is closed when `stack` closes (the demo and the scenario runner use it)."""
    task = asyncio.create_task(bot.start(token))

    async def close() -> None:
        await bot.close()
        task.cancel()
        with suppress(asyncio.CancelledError, discord.DiscordException, OSError):
            await task

    stack.push_async_callback(close)
    ready = asyncio.create_task(bot.wait_until_ready())
    done, _ = await asyncio.wait({ready, task}, timeout=READY_SECONDS, return_when=asyncio.FIRST_COMPLETED)
    if ready not in done:
        ready.cancel()
        if task in done:
            task.result()  # the reason it stopped (a database in trouble, a refused token)
        raise SwissbotError(f"the bot did not connect to the local Discord within {READY_SECONDS:.0f} s")
    guild = discord.Object(guild_id)
    bot.tree.copy_global_to(guild=guild)
    await bot.tree.sync(guild=guild)
    return task


def _config(opts: DemoOptions, db_path: Path, discord_url: str, lichess_url: str, port: int) -> Config:
    """What `swissbot run` would read from its TOML file for the demo club (timings for a fast clock)."""
    return Config(
        database=db_path,
        log_level="WARNING",
        clubs=(ClubConfig(DEMO_GUILD, "organisers", DEMO_CHANNEL, name="swissbot demo club", public=True),),
        discord=DiscordConfig(api_url=discord_url),
        lichess=LichessConfig(base_url=lichess_url, timeout_seconds=10.0),
        director=DirectorSettings(poll_interval=15.0, reminder_before=30.0, retry_after=10.0, lichess_pause=1.0),
        web=WebConfig(host="127.0.0.1", port=port, public_url=f"http://127.0.0.1:{port}"),
    )


async def run_demo(opts: DemoOptions, out: TextIO = sys.stdout) -> int:
    """Run (or resume) the demo event to its end and write the outputs; the exit code."""
    logging.getLogger("apscheduler").setLevel(logging.ERROR)  # "skipped: already running" is expected here
    async with AsyncExitStack() as stack:
        if opts.db is None:
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="swissbot-demo-"))
            db_path = Path(folder) / "demo.sqlite3"
        else:
            db_path = opts.db
        stored = await _stored_event(db_path)
        if stored is not None and opts.lichess_url is None:
            _refuse_resume_on_a_new_lichess(*stored)
        if opts.lichess_url is None:
            sandbox = await stack.enter_async_context(
                run_sandbox(seed=opts.seed, autoplay=True, autoplay_delay=opts.autoplay_delay)
            )
            url = sandbox.url
            print(f"[demo] local Lichess (autoplay, seed {opts.seed}) at {url}", file=out, flush=True)
        else:
            url = opts.lichess_url.rstrip("/")
            print(f"[demo] using the Lichess at {url}", file=out, flush=True)
        local_discord = await stack.enter_async_context(run_discord_sandbox(seed=opts.seed))
        print(f"[demo] local Discord at {local_discord.url}", file=out, flush=True)
        clock = demo_clock(db_path, opts.speed)
        http = await stack.enter_async_context(aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=120)))
        await _keep_sandbox_time(stack, http, url, clock)
        people = members(opts.players, opts.seed)
        club = DemoClub(http, local_discord.url, url, out)
        await club.server(people)

        _token_key(stack, db_path)
        port = opts.serve or free_port()
        config = _config(opts, db_path, local_discord.url, url, port)
        scripted = DemoMembers(club, people, out, teams=systems.of_choice(opts.system).team)
        stack.push_async_callback(scripted.stop_typing)
        bot = SwissBot(
            config, Secrets(local_discord.token, BOT_TOKEN), clock=clock, before_pairing=scripted.before_pairing
        )
        scripted.bot = bot
        bot_task = await start_bot(stack, bot, local_discord.token, DEMO_GUILD)
        scripted.ready.set()
        director = bot.director
        view = ChannelView(http, local_discord.url, DEMO_CHANNEL, out)
        view.names = {ORGANISER_ID: ORGANISER_NAME} | {m.discord_id: m.username for m in people}
        view.start()
        stack.push_async_callback(view.stop)

        if stored is None:
            text, _ = await club.command(
                ORGANISER_ID,
                "swiss create",
                name=EVENT_NAME,
                rounds=opts.rounds,
                minutes=3,
                increment=2,
                schedule="interval",
                interval=1,
                noshow=4,
                reminder=0.5,
                **{"early-draw": "replay", "max-byes": 1},
                **({"system": opts.system} if opts.system != systems.AUTO else {}),
                **({"boards": opts.boards} if systems.of_choice(opts.system).team else {}),
            )
            scripted.say(f"{ORGANISER_NAME}: /swiss create → {text}")
            scripted.say(f"({opts.rounds} rounds, {opts.players} members, seed {opts.seed})")
            events = await director.list_events(DEMO_GUILD)
            if not events:
                raise SwissbotError(f"/swiss create made no event: {text}")
            event_id = events[-1].id
        else:
            event_id = stored[0]
            scripted.say(f"resuming event #{event_id} from {db_path}")
        event = await director.event(event_id)
        if event.status is EventStatus.DRAFT:
            await club.command(ORGANISER_ID, "swiss open")
            event = await director.event(event_id)
        if event.status is EventStatus.OPEN and event.current_round == 0:
            how = "on Lichess's OAuth page" if director.oauth_enabled else "with the bio code"
            scripted.say(
                f"members /link their Lichess accounts ({how}; {scripted.bio_member.username} with the bio code)"
                " and /join"
            )
            await scripted.register(event_id)
            if event.settings.pairing_system.team:
                await scripted.form_teams(event_id, event.settings.team_boards)
            scripted.say(f"{len(await director.entries(event_id))} players entered; the organiser starts round 1")
            text, _ = await club.command(ORGANISER_ID, "swiss start")
            scripted.say(f"{ORGANISER_NAME}: /swiss start → {text}")

        if opts.serve is not None:
            scripted.say(f"the event's pages, live: {config.web.public_url}/events/{event_id}")

        scheduler = bot.app.scheduler
        while (await director.event(event_id)).status not in (EventStatus.FINISHED, EventStatus.CANCELLED):
            if bot_task.done():
                raise SwissbotError(f"the bot stopped: {bot_task.exception() or 'closed'}")
            if len(scheduler.errors) > MAX_JOB_ERRORS:
                job, error = scheduler.errors[-1]
                raise SwissbotError(f"the event is stuck: job {job} keeps failing ({error})")
            await asyncio.sleep(0.2)
        await scheduler.shutdown()  # waits for the job that finished the event (it posts the final standings)
        await view.stop()
        if bot.app.feeder is not None:
            ends = len(bot.app.feeder.finished)
            scripted.say(f"{ends} game ends came through Lichess's game stream (polling is the fallback)")

        event = await director.event(event_id)
        if event.status is not EventStatus.FINISHED:
            raise SwissbotError(f"the event was {event.status.value} before its last round; no files written")
        rows = await director.standings(event_id)
        written = await write_outputs(opts.out, bot.app.services.db, event, rows, site=url)
        scripted.say("wrote " + ", ".join(str(p) for p in written))
        if opts.serve is not None:
            scripted.say(f"serving the event's pages at {config.web.public_url}/events/{event_id} until Ctrl-C")
            await _until_stopped()
        return 0
