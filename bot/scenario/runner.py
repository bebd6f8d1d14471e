"""Runs a scenario: the real director, scheduler, SQLite and the in-process local Lichess on the scenario's clock.

The scheduler's timing is played as APScheduler would play it: after every change the jobs the database
implies are planned `Scheduler.wall_delay` after the moment they were planned (poll jobs at once, then every
poll interval), and a planned job runs when the clock reaches its time, whatever its `due_at` says. Moving
the clock to a step's time fires every planned job on the way, in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import sqlite3
import sys
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TextIO

import aiohttp
import discord
from discord import app_commands

from bot.assembly import App, OwnLichess, Services, build
from bot.config import ClubConfig, Config, DiscordConfig, WebConfig
from bot.demo.club import sign_in_on_lichess
from bot.demo.runner import free_port, start_bot
from bot.director.api import Director
from bot.director.models import Job, JobKind
from bot.director.streaming import StreamFeeder
from bot.discord.announcer import DiscordAnnouncer
from bot.discord.bot import SwissBot
from bot.discord.errors import APOLOGY, user_message
from bot.errors import SwissbotError
from bot.lichess.gateway import LichessGateway
from bot.lichess.stream import GameStream
from bot.scenario.channel import Outage, Shown, console_text, plain, posted_with_the_end, versions
from bot.scenario.clock import ScenarioClock
from bot.scenario.format import (
    PLAY_RESULTS,
    SUBCOMMANDS,
    TEAM_REMOVE,
    TROUBLE_POINTS,
    Club,
    Member,
    Scenario,
    Step,
    bot_commands,
    parse_duration,
    parse_time,
)
from bot.scheduling import Scheduler
from bot.token_vault import TokenVault
from domain.event import Event
from sandbox.discord import DiscordSandbox, run_discord_sandbox
from sandbox.lichess.autoplay_runner import tick as lichess_tick
from sandbox.lichess.server import Sandbox, run_sandbox
from storage.db import Database, open_database

GUILD = 1000  # the first club's server (its channel, roles); the n-th further [[club]]: 1100 + n, 2100 + n...
CHANNEL = 2000
TEAM_ROLE = 3000  # the Discord role a `team` step's `role` members stand for
ORGANISER_ROLE = 4000
OTHER_GUILD = 1001  # another server the bot and the members are in (no club configured there)
OTHER_CHANNEL = 2001
ORGANISER_ID = 1
ORGANISER_NAME = "organiser"
MANAGE_EVENTS = 1 << 33
BUSY_TIMEOUT_MS = 300  # a locked database is felt in 0.3 s, not the bot's 5 s
STREAM_WAIT = 5.0  # seconds (real) the runner waits for the game stream to bring a played game's end
MAX_FIRINGS = 20_000  # a scenario that runs this many jobs in one jump is stuck (a round that never ends)
AppCommand = app_commands.Command[Any, ..., Any]
ErrorHandler = Callable[[discord.Interaction[SwissBot], app_commands.AppCommandError], Coroutine[Any, Any, None]]


class ExpectationFailed(AssertionError):
    """An expectation of the scenario did not hold: the message names the file, the step, wanted and found."""


class StepError(ExpectationFailed):
    """A step that cannot run (a `play` before any round is paired, an option the command lacks): it names the
    file and the line."""


@dataclass
class _Timer:
    at: datetime
    job: Job


@dataclass(frozen=True)
class Place:
    """A club's server on the local Discord (a `[[club]]`): the ids the runner gave it, and the club's own Lichess
    token ("": it plays with the bot's)."""

    club: Club
    guild: int
    channel: int
    organiser_role: int
    team_role: int
    token: str = ""

    @property
    def lichess_account(self) -> str:
        """The club's own Lichess account's name (when it brings one)."""
        return re.sub(r"[^a-z0-9]+", "-", self.club.name.lower()).strip("-")[:20] + "-bot"


def places(clubs: tuple[Club, ...]) -> tuple[Place, ...]:
    """Each club's server: the first on the ids a one-club scenario always had, the others on their own."""
    found = []
    for index, club in enumerate(clubs):
        step = 0 if index == 0 else 100 + index
        ids = (GUILD + step, CHANNEL + step, ORGANISER_ROLE + step, TEAM_ROLE + step)
        found.append(Place(club, *ids, token=f"lip_club_{index}_token" if club.own_lichess else ""))
    return tuple(found)


class ScenarioRun:
    """One scenario being run (use `run_scenario`)."""

    def __init__(self, scenario: Scenario, out: TextIO, workdir: Path) -> None:
        self.scenario = scenario
        self.out = out
        self.db_path = workdir / "scenario.sqlite3"
        self.clock = ScenarioClock(scenario.start)
        self.outage = Outage()  # Discord down or not, as the bot's announcer meets it
        self.places = places(scenario.clubs)
        self.members = {m.name.lower(): m for m in scenario.members}
        self.names = {m.discord_id: m.name for m in scenario.members} | {ORGANISER_ID: ORGANISER_NAME}
        self.shown: list[Shown] = []  # every post and edit the channels and DMs held, in the order first read
        self._read: set[tuple[str, int]] = set()
        self._read_mark: tuple[int, int, int] = (-1, -1, -1)
        self.events: list[int] = []
        self.event_guild: dict[int, int] = {}  # each created event's server
        self.timers: dict[str, _Timer] = {}
        self.sandbox: Sandbox
        self.discord: DiscordSandbox
        self.http: aiohttp.ClientSession
        self.bot: SwissBot
        self.bot_stack = AsyncExitStack()
        self.refusals: list[str] = []
        self.db: Database
        self.gateway: LichessGateway
        self.app: App
        self.director: Director
        self.scheduler: Scheduler
        self._lock_holder: sqlite3.Connection | None = None
        self.club_gateways: list[LichessGateway] = []
        self.vault = TokenVault(TokenVault.new_key())  # members' Lichess tokens, kept across restarts
        self.web_port = free_port()  # the bot's web endpoint (the OAuth callback)
        self.streamed: dict[str, asyncio.Event] = {}  # game ids the game stream reported over, set once handled
        self.casual: set[str] = set()  # the games members started themselves from the lobby (`casual game` steps)

    # -- the bot's life -------------------------------------------------------------------------------

    async def boot(self) -> None:
        """A bot process: the database opened, a gateway, a director and a scheduler (nothing planned yet), and the
        real `SwissBot` logged into the local Discord with its commands synced to each club's server."""
        self.db = await open_database(self.db_path, busy_timeout_ms=BUSY_TIMEOUT_MS)
        self.gateway = self.lichess_gateway(self.sandbox.bot_token)
        own = {p.guild: OwnLichess(self.lichess_gateway(p.token), p.token) for p in self.places if p.token}
        self.club_gateways = [o.gateway for o in own.values()]  # the clubs' own accounts' connections to Lichess
        clubs = tuple(ClubConfig(p.guild, p.club.organiser_role, p.channel, name=p.club.name) for p in self.places)
        config = Config(
            database=self.db_path,
            director=self.scenario.director,
            clubs=clubs,
            discord=DiscordConfig(api_url=self.discord.url, dm_players=True),
            web=WebConfig(host="127.0.0.1", port=self.web_port, public_url=f"http://127.0.0.1:{self.web_port}"),
        )
        services = Services(
            self.db, self.gateway, self.outage, vault=self.vault, bot_token=self.sandbox.bot_token, club_lichess=own
        )
        self.app = await build(config, self.clock, services, scheduled=False)
        if self.app.feeder is not None:
            self.noting_stream_ends(self.app.feeder)
        self.director = self.app.director
        self.scheduler = self.app.scheduler
        self.timers = {}
        self.bot = SwissBot(config, app=self.app, clock=self.clock)
        on_discord = DiscordAnnouncer(self.bot, self.db, config)
        on_discord.director = self.app.director  # the crosstable at an event's end, as `SwissBot.build_app` sets it
        self.outage.discord = on_discord
        self.bot.tree.on_error = self.noting_refusals(self.bot.tree.on_error)  # type: ignore[method-assign]
        self.bot_stack = AsyncExitStack()
        await start_bot(self.bot_stack, self.bot, self.discord.token, self.places[0].guild)
        for place in self.places[1:]:  # one bot serving every club: its commands synced to each club's server
            self.bot.tree.copy_global_to(guild=discord.Object(place.guild))
            await self.bot.tree.sync(guild=discord.Object(place.guild))

    def lichess_gateway(self, token: str) -> LichessGateway:
        """A gateway to the local Lichess with a token (the bot's, or a club's own)."""
        return LichessGateway(self.sandbox.url, token, rate_limit_pause=0.05, retry_backoff=0.01, timeout=5.0)

    def noting_stream_ends(self, feeder: StreamFeeder) -> None:
        """The game stream's handler, noting each game whose end it handled (a `play` step waits for it)."""
        stream = feeder.stream
        if not isinstance(stream, GameStream):
            return
        handle = stream.on_finished

        async def noted(game_id: str) -> None:
            try:
                await handle(game_id)
            finally:
                self.streamed.setdefault(game_id, asyncio.Event()).set()

        stream.on_finished = noted

    def noting_refusals(self, handler: ErrorHandler) -> ErrorHandler:
        """The command tree's error handler, noting each refusal it answers (what a member sees as one)."""

        async def noted(interaction: discord.Interaction[SwissBot], error: app_commands.AppCommandError) -> None:
            self.refusals.append(user_message(error) or APOLOGY)
            await handler(interaction, error)

        return noted

    async def stop(self) -> None:
        """The bot process ends (its planned jobs are forgotten, as APScheduler's are)."""
        await self.bot_stack.aclose()

    async def plan(self) -> None:
        """What `Scheduler.rebuild` does: plan exactly the jobs the database implies."""
        now = self.clock.now()
        try:
            jobs = await self.director.due_jobs(now)
        except Exception as exc:  # as the scheduler: logged, tried again at the next rebuild
            self.say(f"could not derive the jobs: {exc}")
            return
        wanted = {job.id: job for job in jobs}
        for job_id in [j for j in self.timers if j not in wanted]:
            del self.timers[job_id]
        for job in jobs:
            existing = self.timers.get(job.id)
            if job.kind is JobKind.POLL:
                if existing is None:
                    self.timers[job.id] = _Timer(now, job)
                continue
            if existing is not None and existing.job == job:
                continue
            delay = self.scheduler.wall_delay(self.scheduler.run_time(job))
            self.timers[job.id] = _Timer(now + timedelta(seconds=delay), job)

    async def advance_to(self, when: datetime) -> None:
        """Move the clock to `when`, running every planned job whose time comes on the way."""
        await self.plan()
        for _ in range(MAX_FIRINGS):
            timer = min(self.timers.values(), key=lambda t: (t.at, t.job.id), default=None)
            if timer is None or timer.at > when:
                self.clock.set(when)
                return
            self.clock.set(timer.at)
            if timer.job.kind is JobKind.POLL:
                timer.at = max(timer.at, self.clock.now()) + timedelta(seconds=self.scheduler.poll_interval)
            else:
                del self.timers[timer.job.id]
            failures = len(self.scheduler.errors)
            await self.scheduler.run_job(timer.job)
            for job_id, exc in self.scheduler.errors[failures:]:
                self.say(f"job {job_id} failed: {exc}")
            await self.read_channel()
            await self.plan()
        raise ExpectationFailed(f"{self.scenario.path}: more than {MAX_FIRINGS} jobs ran before {when:%Y-%m-%d %H:%M}")

    def say(self, text: str) -> None:
        """A line of the runner's own (not the channel's)."""
        print(f"[{self.clock.now():%a %Y-%m-%d %H:%M:%S}] * {text}", file=self.out)

    async def read_channel(self) -> list[Shown]:
        """What the clubs' channels and the members' DMs on the local Discord hold: each post and each edit once, in
        the console's words, stamped with the scenario's time the runner first read it, and printed then (with the
        announcements an outage lost)."""
        stamp = f"{self.clock.now():%a %Y-%m-%d %H:%M:%S}"
        for line in self.outage.lost:
            print(f"[{stamp}] (Discord is down: lost) {line}", file=self.out)
        self.outage.lost.clear()
        held = self.discord.state.messages.values()
        mark = (len(held), sum(len(m.edits) for m in held), sum(m.deleted for m in held))
        if mark == self._read_mark:  # nothing new on the local Discord since the last look
            return self.shown
        self._read_mark = mark
        found: list[tuple[int, dict[str, Any], str | None]] = []
        ends: dict[str, str] = {}  # the final standings an end posted with it → that end's message
        for place in self.places:
            channel = [
                m for m in await self.discord_messages(f"channels/{place.channel}/messages") if not m.get("interaction")
            ]
            found += [(place.channel, m, None) for m in channel]
            ends |= posted_with_the_end(channel)
        for member in self.scenario.members:
            found += [(0, m, member.name) for m in await self.discord_messages(f"dms/{member.discord_id}")]
        brought: dict[str, str] = {}
        for channel_id, message, dm_to in sorted(found, key=lambda f: int(f[1]["id"])):
            for number, version in enumerate(versions(message)):
                if (message["id"], number) in self._read:
                    continue
                self._read.add((message["id"], number))
                text = console_text(version, number, self.names, dm_to)
                if number == 0 and message["id"] in ends:  # shown with the end, as one announcement
                    brought[ends[message["id"]]] = "\n".join(text.splitlines()[1:])
                    continue
                if number == 0 and message["id"] in brought:
                    text = f"{text}\n{brought.pop(message['id'])}"
                self.shown.append(Shown(message["id"], number, channel_id, text, self.clock.now()))
                print(f"[{stamp}] " + "\n    ".join(text.splitlines()), file=self.out)
        return self.shown

    def place_named(self, name: str) -> Place:
        """The club's server a step names."""
        return next(p for p in self.places if p.club.name.casefold() == name.casefold())

    def place_of(self, guild_id: int | None) -> Place:
        """The club's server of a guild id (the first club's for an unknown one)."""
        return next((p for p in self.places if p.guild == guild_id), self.places[0])

    async def place_for(self, step: Step | None, options: Mapping[str, Any]) -> Place:
        """Where a step happens: the club it names, else the club of the event its options name, else the club of the
        event the scenario created last, else the first club."""
        if step is not None and "club" in step.values:
            return self.place_named(str(step.values["club"]))
        named = options.get("event")
        if isinstance(named, int):
            return self.place_of(self.event_guild.get(named))
        if isinstance(named, str) and named:
            for event in await self.all_events():
                if event.name.casefold() == named.casefold():
                    return self.place_of(event.guild_id)
        return self.place_of(self.event_guild.get(self.events[-1])) if self.events else self.places[0]

    async def all_events(self) -> list[Event]:
        """Every club's events."""
        return [e for place in self.places for e in await self.director.list_events(place.guild)]

    # -- set-up ---------------------------------------------------------------------------------------

    async def setup(self) -> None:
        """The club's server on the local Discord, the members' Lichess accounts and links, and the `[event]`
        created, opened and joined, each by its slash command."""
        for member in self.scenario.members:
            self.sandbox.add_user(member.name, rating=member.rating, **dict(member.account))
            if member.linked:
                await self.link(member)
        if self.scenario.event is not None:
            club = self.scenario.event_club
            place = self.place_named(club) if club else self.places[0]
            reply, refused = await self.type_command(None, ORGANISER_ID, "create", dict(self.scenario.event), place)
            self.say(f"{ORGANISER_NAME}: /swiss create → {'refused: ' if refused else ''}{reply}")
            if refused:
                raise ExpectationFailed(f"{self.scenario.path}: [event] could not be created: {reply}")
            if self.scenario.open_event:
                await self.type_command(None, ORGANISER_ID, "open", {}, place)
                for member in self.scenario.members:
                    if member.join and member.linked and self.is_in(member, place):
                        await self.type_command(None, member.discord_id, "join", {}, place)
        await self.read_channel()
        await self.plan()

    def is_in(self, member: Member, place: Place) -> bool:
        """Whether the member is in the club's server (`clubs`; every club's when not said)."""
        return not member.clubs or place.club.name.casefold() in member.clubs

    async def link(self, member: Member) -> None:
        """Link a member's account the way a member does: `/link` and sign in on the local Lichess's OAuth page
        (`link = "oauth"`), or `/link USERNAME`, the code into the bio, `/link` again (`link = "bio"`)."""
        place = next(p for p in self.places if self.is_in(member, p))
        if member.link == "oauth":
            reply, refused, responses = await self.interact(member.discord_id, "link", {}, place)
            if not refused:
                await sign_in_on_lichess(self.http, responses, member.name)
        else:
            await self.type_command(None, member.discord_id, "link", {"username": member.name}, place)
            reply, refused = await self.type_command(None, member.discord_id, "link", {}, place)
        if refused or await self.director.linked_account(member.discord_id) is None:
            raise ExpectationFailed(f"{self.scenario.path}: {member.name} could not link: {reply}")

    async def add_member(self, user_id: int, name: str, roles: list[str], place: Place) -> None:
        """A user in the club's server with those roles (replacing earlier ones)."""
        body = {"guild_id": str(place.guild), "user": {"id": str(user_id), "name": name}, "roles": roles}
        async with self.http.post(f"{self.discord.url}/sandbox/members", json=body) as reply:
            if reply.status >= 300:
                raise SwissbotError(f"the local Discord refused the member {name}: {await reply.text()}")

    # -- steps ----------------------------------------------------------------------------------------

    async def run(self) -> None:
        """Set up, then every step in order (ExpectationFailed on the first that does not hold)."""
        await self.setup()
        for step in self.scenario.steps:
            await self.advance_to(step.at)
            try:
                await self.step(step)
            except SwissbotError as exc:  # e.g. `play` before any round is paired: the step, not a traceback
                raise StepError(f"{self.scenario.path}: {step.where}, {step.do}: cannot run: {exc}") from None
            await self.advance_to(self.clock.now())
            await self.read_channel()

    async def step(self, step: Step) -> None:
        """One step of the timeline."""
        v = step.values
        if step.do in bot_commands():
            await self.command(step)
        elif step.do == "wait":
            return
        elif step.do == "restart":
            await self.stop()
            if "down_for" in v:  # nothing runs while the bot is down; the clock goes on
                self.clock.set(self.clock.now() + parse_duration(str(v["down_for"])))
                self.say(f"the bot was down for {v['down_for']}")
            self.say("the bot is restarted")
            await self.boot()
        elif step.do == "play":
            await self.play(step)
        elif step.do == "click":
            await self.click(step)
        elif step.do == "lichess":
            await self.lichess(step)
        elif step.do == "casual game":
            await self.casual_game(step)
        elif step.do == "account":
            user = self.sandbox.state.users.get(str(v["name"]).lower())
            if user is None:
                raise self.failed(step, f"a Lichess account {v['name']}", "none")
            fields = {"tos_violation": "tos_violation"}
            for key, value in v.items():
                if key == "rating":  # the account's rating at every speed, as [[member]] rating sets it
                    user.ratings = {speed: int(value) for speed in user.ratings}
                elif key != "name":
                    setattr(user, fields.get(key, key), value)
            self.say(f"Lichess account {v['name']}: " + ", ".join(f"{k}={x}" for k, x in v.items() if k != "name"))
        elif step.do == "discord":
            await self.discord_step(step)
        elif step.do == "storage" and "after" in v:
            self.trouble_after(str(v["after"]), str(v["trouble"]))
        elif step.do == "storage":
            await self.storage(str(v["trouble"]))
        else:
            await self.expect(step)

    async def command(self, step: Step) -> None:
        """A slash command typed by a member or an organiser in the club's channel; the cog's answer checked."""
        by = step.values.get("by")
        member = self.members.get(str(by).lower()) if by else None
        user_id, name = (member.discord_id, member.name) if member else (ORGANISER_ID, ORGANISER_NAME)
        options = dict(step.options)
        shown = " ".join(f"{k}:{val}" for k, val in options.items())
        place = await self.place_for(step, options)
        reply, refused = await self.type_command(step, user_id, step.do, options, place)
        where = f" (in {place.club.name})" if len(self.places) > 1 else ""
        self.say(f"{name}{where}: /{step.do} {shown}".rstrip() + f" → {'refused: ' if refused else ''}{reply}")
        if "refused" in step.values:
            wanted = str(step.values["refused"])
            if not refused or wanted.lower() not in reply.lower():
                raise self.failed(
                    step, f"/{step.do} refused with {wanted!r}", ("replied " if not refused else "") + repr(reply)
                )
        elif refused:
            raise self.failed(
                step,
                f"/{step.do} to succeed" + (f" with {step.values['reply']!r}" if "reply" in step.values else ""),
                f"refused: {reply!r}",
            )
        elif "reply" in step.values and str(step.values["reply"]).lower() not in reply.lower():
            raise self.failed(step, f"the reply {step.values['reply']!r}", repr(reply))

    async def type_command(
        self, step: Step | None, user_id: int, do: str, options: dict[str, Any], place: Place
    ) -> tuple[str, bool]:
        """The user types the command in the club's channel (an interaction through the local Discord, answered
        by the bot's cog): the answer as the member reads it, and whether it was a refusal."""
        text, refused, _ = await self.interact(user_id, do, options, place)
        return text, refused

    async def interact(
        self, user_id: int, do: str, options: dict[str, Any], place: Place
    ) -> tuple[str, bool, list[dict[str, Any]]]:
        """`type_command`, with the local Discord's answers themselves (a link button's URL is in them)."""
        command = app_command(self.bot.tree, do, options)
        sent = await self.interaction_options(command, options, place)
        before = len(self.refusals)
        body = {
            "guild_id": str(place.guild),
            "channel_id": str(place.channel),
            "user_id": str(user_id),
            "command": command.qualified_name,
            "options": sent,
            "settle": 0.02,
        }
        async with self.http.post(f"{self.discord.url}/sandbox/interactions", json=body) as answer:
            status, found = answer.status, await answer.json(content_type=None)
        if status >= 400:  # Discord's client would not send it (a permission, a wrong option): refused there
            return str(found.get("error") or found.get("message") or found), True, []
        if "error" in found:
            raise ExpectationFailed(f"{self.scenario.path}: /{command.qualified_name}: {found['error']}")
        text = "\n".join(response_text(r) for r in found["responses"] if response_text(r))
        text += "".join(f"\n{file}" for file in self.files(found["responses"]))
        refused = len(self.refusals) > before
        if do == "create" and not refused:
            known = set(self.events)
            for event_id in sorted(e.id for e in await self.director.list_events(place.guild) if e.id not in known):
                self.events.append(event_id)
                self.event_guild[event_id] = place.guild
        if do == "link" and options.get("username") and not refused:
            code = re.search(r"`([^`]+)`", text)
            user = self.sandbox.state.users.get(str(options["username"]).strip().lower())
            if code is not None and user is not None:  # the member puts the code in the bio, as told
                user.bio = f"chess fan {code.group(1)}"
        return plain(text), refused, found["responses"]

    def files(self, responses: list[dict[str, Any]]) -> list[str]:
        """The text of the files attached to the answers (what a member reads on opening them)."""
        found: list[str] = []
        for response in responses:
            message = self.discord.state.messages.get(int(response.get("message_id") or 0))
            if message is not None and response.get("attachments"):
                found += [a.data.decode("utf-8", "replace") for a in message.attachments]
        return found

    async def interaction_options(
        self, command: AppCommand, options: Mapping[str, Any], place: Place
    ) -> dict[str, Any]:
        """The step's options under the command's own option names (from the app-command tree), as Discord's
        client sends them; the event is the last one the scenario created in that club unless the step names one."""
        params = {p.name: p for p in command.parameters} | {p.display_name: p for p in command.parameters}
        sent: dict[str, Any] = {}
        for key, value in options.items():
            if key == "remove" and command.name == "remove":  # `team` with remove = true is /swiss team remove
                continue
            param = params.get(key)
            if key == "event" and value == "":  # the member leaves the option empty: the cog picks the event
                continue
            if param is None:
                raise SwissbotError(f"/{command.qualified_name} has no option {key!r}")
            if key in ("start", "event") and isinstance(value, int):  # Unix seconds, an event's id: typed as text
                value = str(value)
            elif key == "members" and isinstance(value, list):
                value = " ".join(str(m) for m in value)
            elif key == "role" and isinstance(value, list):
                value = str(await self.team_role([str(m) for m in value], place))
            sent[param.display_name] = value
        here = [e for e in self.events if self.event_guild.get(e) == place.guild]
        if "event" in params and "event" not in options and here:
            sent["event"] = str(here[-1])
        return sent

    async def team_role(self, names: list[str], place: Place) -> int:
        """The Discord role a `team` step's `role` stands for, given to exactly those members (in that club)."""
        wanted = {n.lower() for n in names}
        for member in self.scenario.members:
            if not self.is_in(member, place):
                continue
            roles = ([str(place.organiser_role)] if member.organiser else []) + (
                [str(place.team_role)] if member.name.lower() in wanted else []
            )
            await self.add_member(member.discord_id, member.name, roles, place)
        return place.team_role

    async def event_about(self, step: Step) -> int | None:
        """The event a `play` or `expect` step is about: the one its `about` names, else the last one created."""
        about = step.values.get("about")
        if about is None:
            return self.events[-1] if self.events else None
        for event in await self.all_events():
            if event.name.casefold() == str(about).casefold():
                return event.id
        raise self.failed(step, f"an event called {about!r}", "none")

    async def play(self, step: Step) -> None:
        """A board's game on Lichess ends the given way (both players play it through the control API)."""
        v = step.values
        event_id = await self.event_about(step)
        if event_id is None:
            raise self.failed(step, "an event to play in", "none")
        view = await self.director.pairings(event_id, v.get("round"))
        board = next((b for b in view.boards if b.number == v["board"]), None)
        if board is None or board.game_id is None:
            raise self.failed(step, f"a Lichess game on board {v['board']} of round {view.number}", "none")
        winner, status = PLAY_RESULTS.get(str(v.get("result")), (v.get("winner"), v.get("status")))
        body: dict[str, Any] = {"winner": winner, "status": status, "plies": v.get("plies", 60)}
        if "reason" in v:
            body["reason"] = v["reason"]
        watched = await self.watching(board.game_id)
        async with (
            aiohttp.ClientSession() as http,
            http.post(f"{self.sandbox.url}/sandbox/games/{board.game_id}/play", json=body) as reply,
        ):
            if reply.status >= 300:
                raise self.failed(step, f"game {board.game_id} to be played", await reply.text())
        self.say(f"round {view.number} board {board.number} ({board.game_id}) ends: {status} {winner or ''}".rstrip())
        if watched:  # the game stream brings the end at once, as in production (polling stays the fallback)
            handled = self.streamed.setdefault(board.game_id, asyncio.Event())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(handled.wait(), STREAM_WAIT)

    async def watching(self, game_id: str) -> bool:
        """Whether the game stream watches the game (fed with the live games first, as its feeder does every few
        seconds: in production a game is watched long before it ends)."""
        feeder = self.app.feeder
        if feeder is None or not isinstance(feeder.stream, GameStream) or not feeder.stream.connected.is_set():
            return False
        await feeder.sync()
        return game_id in feeder.stream.watching

    async def casual_game(self, step: Step) -> None:
        """Two members start a game of their own from the lobby (`POST /sandbox/games`: no challenge, no event's), on
        the given clock (default: the [event]'s), and with `result` play it to that end."""
        v = step.values
        event = self.scenario.event or {}
        minutes, increment = v.get("minutes", event.get("minutes", 3)), v.get("increment", event.get("increment", 2))
        white, black = str(v["white"]).lower(), str(v["black"]).lower()
        clock = [round(minutes * 60), increment]
        body = {"white": white, "black": black, "clock": clock, "rated": v.get("rated", False)}
        async with self.http.post(f"{self.sandbox.url}/sandbox/games", json=body) as reply:
            if reply.status >= 300:
                raise self.failed(step, "a casual game the local Lichess makes", await reply.text())
            game_id = str((await reply.json())["id"])
        self.casual.add(game_id)
        self.say(f"{white} and {black} start a casual game {minutes:g}+{increment} from the lobby ({game_id})")
        if "result" not in v:
            return
        winner, status = PLAY_RESULTS[str(v["result"])]
        play = {"winner": winner, "status": status, "plies": v.get("plies", 60)}
        async with self.http.post(f"{self.sandbox.url}/sandbox/games/{game_id}/play", json=play) as reply:
            if reply.status >= 300:
                raise self.failed(step, f"casual game {game_id} to be played", await reply.text())
        self.say(f"casual game {game_id} ends: {status} {winner or ''}".rstrip())

    async def lichess(self, step: Step) -> None:
        """Faults of the local Lichess (or their end)."""
        v = step.values
        async with aiohttp.ClientSession() as http:
            if v.get("clear"):
                async with http.delete(f"{self.sandbox.url}/sandbox/faults") as reply:
                    reply.raise_for_status()
                self.say("Lichess answers normally again")
            if "fault" in v:
                async with http.post(f"{self.sandbox.url}/sandbox/faults", json=dict(v["fault"])) as reply:
                    if reply.status >= 300:
                        raise self.failed(step, "a fault the sandbox takes", await reply.text())
                self.say(f"Lichess fault: {dict(v['fault'])}")

    async def discord_step(self, step: Step) -> None:
        """Discord down or back (every post), or faults of the local Discord per path and count (or their end)."""
        v = step.values
        if "down" in v:
            self.outage.down = bool(v["down"])
            self.say("Discord is down" if self.outage.down else "Discord is back")
        if v.get("clear"):
            async with self.http.delete(f"{self.discord.url}/sandbox/faults") as reply:
                reply.raise_for_status()
            self.say("Discord answers normally again")
        if "fault" in v:
            fault = dict(v["fault"])
            if fault["path"] == "channel":  # the club's channel's messages, where the announcements go
                fault["path"] = f"/api/v10/channels/{(await self.place_for(None, {})).channel}/messages"
            async with self.http.post(f"{self.discord.url}/sandbox/faults", json=fault) as reply:
                if reply.status >= 300:
                    raise self.failed(step, "a fault the local Discord takes", await reply.text())
            self.say(f"Discord fault: {fault}")

    def trouble_after(self, point: str, trouble: str) -> None:
        """Storage trouble that starts inside the next job that reaches `point`: once Lichess answered that call
        (a game created, a bulk pairing made) on the bot's own connection or a club's own account's, and before the
        bot stores what it got."""
        name = TROUBLE_POINTS[point]
        gateways = [self.gateway, *self.club_gateways]

        def then_trouble(gateway: LichessGateway) -> Callable[..., Awaitable[Any]]:
            lichess_call = getattr(gateway, name)

            async def called(*args: Any, **kwargs: Any) -> Any:
                answer = await lichess_call(*args, **kwargs)
                if all(name not in g.__dict__ for g in gateways):
                    return answer  # another call got there first: the trouble has started already
                for each in gateways:  # once, whichever connection made the call
                    each.__dict__.pop(name, None)
                await self.storage(trouble)
                return answer

            return called

        for gateway in gateways:
            setattr(gateway, name, then_trouble(gateway))
        self.say(f"the database will be {trouble} once Lichess answered the next {name}")

    async def storage(self, trouble: str) -> None:
        """Make the database locked by another process, full, read-only, or fine again."""
        conn = self.db.connection
        if self._lock_holder is not None:
            self._lock_holder.rollback()
            self._lock_holder.close()
            self._lock_holder = None
        conn.__dict__.pop("execute", None)
        conn.__dict__.pop("executemany", None)
        await conn.execute("PRAGMA query_only = 0")
        if trouble == "locked":
            holder = sqlite3.connect(self.db_path, timeout=0, isolation_level=None)
            holder.execute("BEGIN EXCLUSIVE")
            self._lock_holder = holder
        elif trouble == "full":
            _fill_disk(conn)
        elif trouble == "readonly":
            await conn.execute("PRAGMA query_only = 1")
        self.say(f"the database is {trouble}")

    # -- expectations ---------------------------------------------------------------------------------

    def failed(self, step: Step, expected: str, found: str) -> ExpectationFailed:
        """The failure of `step`, naming the file, the step, what was expected and what was found."""
        return ExpectationFailed(f"{self.scenario.path}: {step.where}, {step.do}: expected {expected}; found {found}")

    async def expect(self, step: Step) -> None:
        """Every expectation of an `expect` step."""
        v = step.values
        d = self.director
        event_id = await self.event_about(step)
        event: Event | None = await d.event(event_id) if event_id is not None else None
        if event is None:
            raise self.failed(step, "an event", "none was created")
        if "event" in v:
            want = v["event"]
            if "status" in want and event.status.value != want["status"]:
                raise self.failed(step, f"event status {want['status']}", event.status.value)
            if "round" in want and event.current_round != want["round"]:
                raise self.failed(step, f"current round {want['round']}", str(event.current_round))
            if "next_round" in want:
                found = f"{event.next_round_at:%Y-%m-%d %H:%M}" if event.next_round_at else "none"
                wanted = "none" if want["next_round"] == "none" else f"{parse_time(want['next_round']):%Y-%m-%d %H:%M}"
                if found != wanted:
                    raise self.failed(step, f"next round at {wanted}", found)
        if "board" in v:
            want = v["board"]
            try:
                view = await d.pairings(event.id, want["round"])
            except SwissbotError as exc:
                raise self.failed(step, f"round {want['round']}", exc.message) from None
            board = next((b for b in view.boards if b.number == want["board"]), None)
            if board is None:
                raise self.failed(step, f"board {want['board']} in round {want['round']}", "no such board")
            result = board.result.value if board.result else "none"
            if "result" in want and result != want["result"]:
                raise self.failed(step, f"round {want['round']} board {want['board']} result {want['result']}", result)
            for colour in ("white", "black"):
                name = getattr(board, colour).name
                if colour in want and name.lower() != str(want[colour]).lower():
                    raise self.failed(step, f"{colour} {want[colour]} on board {want['board']}", name)
            if "game" in want and (board.game_id is not None) != want["game"]:
                raise self.failed(step, f"a game: {want['game']}", str(board.game_id))
            if "casual" in want and (board.game_id in self.casual) != want["casual"]:
                which = "one of" if want["casual"] else "none of"
                expected = f"the board's game {which} the casual games {sorted(self.casual)}"
                raise self.failed(step, expected, str(board.game_id))
        if "player" in v:
            want = v["player"]
            entry = next((e for e in await d.entries(event.id) if e.name.lower() == want["name"].lower()), None)
            if entry is None:
                raise self.failed(step, f"{want['name']} entered", "not entered")
            if "status" in want and entry.status.value != want["status"]:
                raise self.failed(step, f"{want['name']} {want['status']}", entry.status.value)
        await self.expect_posted(step)
        if "standings" in v:
            names = [row.player.name for row in await d.standings(event.id)][: len(v["standings"])]
            if [n.lower() for n in names] != [n.lower() for n in v["standings"]]:
                raise self.failed(step, f"standings {v['standings']}", str(names))
        if "team_standings" in v:
            teams = [row.name for row in await d.team_standings(event.id)][: len(v["team_standings"])]
            if [n.lower() for n in teams] != [n.lower() for n in v["team_standings"]]:
                raise self.failed(step, f"team standings {v['team_standings']}", str(teams))
        if "trf_contains" in v or "trf_lacks" in v:
            trf = (await d.export(event.id, "trf")).decode()
            if "trf_contains" in v and v["trf_contains"] not in trf:
                raise self.failed(step, f"the TRF to contain {v['trf_contains']!r}", "it does not")
            if "trf_lacks" in v and v["trf_lacks"] in trf:
                raise self.failed(step, f"the TRF to lack {v['trf_lacks']!r}", "it has it")
        if "trf_checks" in v:
            verdict = await _swissbot_check((await d.export(event.id, "trf")).decode(), str(v["trf_checks"]))
            if verdict is not None:
                raise self.failed(step, f"swissbot check --system {v['trf_checks']} to accept the TRF", verdict)
        if "lichess_games" in v:
            await lichess_tick(self.sandbox.app)  # a bulk pairs on the local Lichess's next tick, as on lila's
        if "lichess_games" in v and len(self.sandbox.state.games) != v["lichess_games"]:
            raise self.failed(step, f"{v['lichess_games']} game(s) on Lichess", str(len(self.sandbox.state.games)))
        await self.expect_on_discord(step)
        self.say(f"{step.where}: expectations hold")

    async def expect_posted(self, step: Step) -> None:
        """`posted` and `not_posted`: the announcements the local Discord holds (each post and each edit, in the
        console's words), in every club's channel and the DMs, or with `club` in that club's channel and its DMs."""
        v = step.values
        if "posted" not in v and "not_posted" not in v:
            return
        shown = await self.read_channel()
        if "club" in v:
            place = self.place_named(str(v["club"]))
            events = await self.all_events()
            shown = [s for s in shown if s.channel == place.channel or self.dm_in_club(s, place, events)]
        posted = v.get("posted")
        if posted is not None:
            text, times = (posted, None) if isinstance(posted, str) else (posted["text"], posted.get("times"))
            count = sum(1 for s in shown if str(text).lower() in s.text.lower())
            if (times is None and count == 0) or (times is not None and count != times):
                wanted = f"{times} post(s)" if times is not None else "a post"
                raise self.failed(step, f"{wanted} containing {text!r}", f"{count}")
        if "not_posted" in v:
            first = next((s for s in shown if str(v["not_posted"]).lower() in s.text.lower()), None)
            if first is not None:
                raise self.failed(step, f"no post containing {v['not_posted']!r}", f"one at {first.at:%Y-%m-%d %H:%M}")

    def dm_in_club(self, shown: Shown, place: Place, events: list[Event]) -> bool:
        """Whether a DM is the club's: it names one of the club's events (the longest event name it starts with), or,
        naming none, its member is in the club."""
        found = re.match(r"\[dm ([^\]]+)\] (.*)", shown.text, re.DOTALL)
        if shown.channel != 0 or found is None:
            return False
        to, body = found.group(1), found.group(2).casefold()
        named = [e for e in events if body.startswith(e.name.casefold())]
        if named:
            return max(named, key=lambda e: len(e.name)).guild_id == place.guild
        member = self.members.get(to.lower())
        return member is not None and self.is_in(member, place)

    async def discord_messages(self, path: str) -> list[dict[str, Any]]:
        """Messages the bot posted, read through the local Discord's control API (oldest first)."""
        async with self.http.get(f"{self.discord.url}/sandbox/{path}") as reply:
            reply.raise_for_status()
            found: list[dict[str, Any]] = await reply.json()
        return [m for m in found if not m.get("deleted")]

    async def expect_on_discord(self, step: Step) -> None:
        """`in_channel`, `edited` and `dm`: what the local Discord holds, counted message by message."""
        v = step.values
        checks: list[tuple[str, Any, list[dict[str, Any]]]] = []
        if {"in_channel", "edited", "pings", "files"} & set(v):
            place = await self.place_for(step, {"event": str(v["about"])} if "about" in v else {})
            channel = await self.discord_messages(f"channels/{place.channel}/messages")
            self.expect_pings_and_files(step, channel)
            if "in_channel" in v:
                checks.append(("channel message", v["in_channel"], channel))
            if "edited" in v:
                checks.append(("edited message", v["edited"], [m for m in channel if m.get("edits")]))
        if "dm" in v:
            member = self.members.get(str(v["dm"]["to"]).lower())
            if member is None:
                raise self.failed(step, f"a member called {v['dm']['to']!r}", "none")
            checks.append(
                (f"direct message to {member.name}", v["dm"], await self.discord_messages(f"dms/{member.discord_id}"))
            )
        for what, want, messages in checks:
            text, times = (want, None) if isinstance(want, str) else (want["text"], want.get("times"))
            count = sum(1 for m in messages if text.lower() in plain(response_text(m)).lower())
            if (times is None and count == 0) or (times is not None and count != times):
                wanted = f"{times} {what}(s)" if times is not None else f"a {what}"
                raise self.failed(step, f"{wanted} containing {text!r}", str(count))

    def expect_pings_and_files(self, step: Step, channel: list[dict[str, Any]]) -> None:
        """`pings`: exactly the members the channel's messages pinged so far; `files`: each attached to some message
        in the channel (its current version or an earlier one)."""
        v = step.values
        if "pings" in v:
            pinged = {int(user) for message in channel for user in message.get("mentions") or []}
            found = sorted((self.names.get(i, str(i)) for i in pinged), key=str.lower)
            if [n.lower() for n in found] != sorted(str(n).lower() for n in v["pings"]):
                raise self.failed(step, f"pings of {sorted(v['pings'], key=str.lower)}", str(found))
        if "files" in v:
            attached = {
                name
                for message in channel
                for version in [message, *(message.get("edits") or [])]
                for name in version.get("attachments") or []
            }
            missing = [name for name in v["files"] if name not in attached]
            if missing:
                raise self.failed(step, f"files {missing} in the channel", str(sorted(attached)))

    async def click(self, step: Step) -> None:
        """A member clicks the Join button on the event's card in the channel (or, with `server = "other"`, a card
        carrying that event's button in another server's channel); the answer checked with `reply`."""
        event_id = await self.event_about(step)
        member = self.members[str(step.values["by"]).lower()]
        custom_id = f"swiss:join:{event_id}"
        card: dict[str, Any] | None
        if step.values.get("server") == "other":
            card = await self.crafted_card(custom_id)
        else:
            card = next(
                (
                    m
                    for m in reversed(
                        await self.discord_messages(
                            f"channels/{self.place_of(self.event_guild.get(event_id or 0)).channel}/messages"
                        )
                    )
                    for row in m.get("components") or []
                    for c in row.get("components") or []
                    if c.get("custom_id") == custom_id
                ),
                None,
            )
        if card is None:
            raise self.failed(step, f"a Join button for event #{event_id} in the channel", "none")
        body = {"message_id": card["id"], "custom_id": custom_id, "user_id": str(member.discord_id), "settle": 0.02}
        async with self.http.post(f"{self.discord.url}/sandbox/components", json=body) as answer:
            found = await answer.json(content_type=None)
        if answer.status >= 400 or "error" in found:
            raise self.failed(step, "the click to reach the bot", str(found))
        reply = plain("\n".join(response_text(r) for r in found["responses"] if response_text(r)))
        self.say(f"{member.name} clicks Join → {reply}")
        if "reply" in step.values and str(step.values["reply"]).lower() not in reply.lower():
            raise self.failed(step, f"the reply {step.values['reply']!r}", repr(reply))

    async def crafted_card(self, custom_id: str) -> dict[str, Any]:
        """A message in the other server's channel whose button carries `custom_id` (an event of this server): what
        a crafted custom_id looks like to the bot (posted with the bot's token, as nobody else can add buttons)."""
        button = {"type": 2, "style": 3, "label": "Join", "custom_id": custom_id}
        body = {"content": "Join", "components": [{"type": 1, "components": [button]}]}
        headers = {"Authorization": f"Bot {self.discord.token}"}
        url = f"{self.discord.url}/api/v10/channels/{OTHER_CHANNEL}/messages"
        async with self.http.post(url, json=body, headers=headers) as reply:
            reply.raise_for_status()
            card: dict[str, Any] = await reply.json()
        return card


async def _swissbot_check(trf: str, system: str) -> str | None:
    """Run `swissbot check --system SYSTEM` (the real command, as a process) on an exported TRF: None when it
    accepts it, else what it printed."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "export.trf"
        path.write_text(trf, encoding="utf-8")
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.cli", "check", "--system", system, str(path),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        )  # fmt: skip
        out, _ = await process.communicate()
    return None if process.returncode == 0 else f"exit {process.returncode}: {out.decode().strip()}"


def _fill_disk(conn: Any) -> None:
    """From now on every write on the bot's connection fails as SQLite fails on a full disk (SQLITE_FULL).

    A tiny filesystem cannot be mounted everywhere the tests run, so the error is raised where SQLite
    would raise it: at the connection, under the storage layer that must make sense of it.
    """
    execute, executemany = conn.execute, conn.executemany

    def full(sql: str) -> None:
        if sql.lstrip().split(" ", 1)[0].upper() in ("INSERT", "UPDATE", "DELETE", "REPLACE"):
            raise sqlite3.OperationalError("database or disk is full")

    def execute_full(sql: str, parameters: Any = None) -> Any:
        full(sql)
        return execute(sql, parameters)

    def executemany_full(sql: str, parameters: Any) -> Any:
        full(sql)
        return executemany(sql, parameters)

    conn.execute = execute_full
    conn.executemany = executemany_full


def app_command(tree: app_commands.CommandTree[Any], do: str, options: Mapping[str, Any]) -> AppCommand:
    """The slash command a step's `do` names: a member command, else the `/swiss` subcommand of that name."""
    path = TEAM_REMOVE if do == "team" and options.get("remove") else SUBCOMMANDS.get(do, do)
    for candidate in (path, f"swiss {path}"):
        names = candidate.split()
        found: Any = tree.get_command(names[0])
        for name in names[1:]:
            found = found.get_command(name) if isinstance(found, app_commands.Group) else None
        if isinstance(found, app_commands.Command):
            return found
    raise SwissbotError(f"the bot has no slash command for {do!r}")


def response_text(response: Mapping[str, Any]) -> str:
    """An answer's text as a member reads it: its content, then its embeds' titles, descriptions and fields."""
    parts = [str(response.get("content") or "")]
    for embed in response.get("embeds") or []:
        parts += [str(embed.get("title") or ""), str(embed.get("description") or "")]
        parts += [f"{f.get('name', '')} {f.get('value', '')}" for f in embed.get("fields") or []]
    return "\n".join(p for p in parts if p)


async def setup_server(run: ScenarioRun) -> None:
    """Each club's server on the local Discord: its channel, the organisers' role, the organiser and its members;
    and another server the bot and the members are in, with no club."""
    for place in run.places:
        guild = {
            "id": str(place.guild),
            "name": place.club.name,
            "channels": [{"id": str(place.channel), "name": place.club.channel}],
            "roles": [
                {"id": str(place.organiser_role), "name": place.club.organiser_role, "permissions": str(MANAGE_EVENTS)},
                {"id": str(place.team_role), "name": "team", "permissions": "0"},
            ],
        }
        async with run.http.post(f"{run.discord.url}/sandbox/guilds", json=guild) as reply:
            if reply.status >= 300:
                raise SwissbotError(f"the local Discord refused the club's server: {await reply.text()}")
        await run.add_member(ORGANISER_ID, ORGANISER_NAME, [str(place.organiser_role)], place)
        for member in run.scenario.members:
            if run.is_in(member, place):
                roles = [str(place.organiser_role)] if member.organiser else []
                await run.add_member(member.discord_id, member.name, roles, place)
    other = {"id": str(OTHER_GUILD), "name": "another server", "channels": [{"id": str(OTHER_CHANNEL), "name": "chat"}]}
    async with run.http.post(f"{run.discord.url}/sandbox/guilds", json=other) as reply:
        if reply.status >= 300:
            raise SwissbotError(f"the local Discord refused the other server: {await reply.text()}")
    for member in run.scenario.members:
        body = {"guild_id": str(OTHER_GUILD), "user": {"id": str(member.discord_id), "name": member.name}, "roles": []}
        async with run.http.post(f"{run.discord.url}/sandbox/members", json=body) as reply:
            if reply.status >= 300:
                raise SwissbotError(f"the local Discord refused {member.name} in the other server")


@asynccontextmanager
async def booted(scenario: Scenario, out: TextIO, workdir: Path) -> AsyncIterator[ScenarioRun]:
    """A scenario ready to run: the local Lichess and the local Discord up, the club's server on it, the bot logged
    in; everything is stopped on the way out."""
    run = ScenarioRun(scenario, out, workdir)
    async with AsyncExitStack() as stack:
        on_scenario_time = lambda: run.clock.now().timestamp()  # noqa: E731 - the local Lichess on the scenario's clock
        run.sandbox = await stack.enter_async_context(
            run_sandbox(seed=scenario.seed, autoplay=scenario.autoplay, clock=on_scenario_time)
        )
        run.discord = await stack.enter_async_context(run_discord_sandbox(seed=scenario.seed))
        for place in run.places:  # a club that brings its own Lichess account: the account and its token
            if place.token:
                run.sandbox.add_user(place.lichess_account, title="BOT", token=place.token)
        run.http = await stack.enter_async_context(aiohttp.ClientSession())
        await setup_server(run)
        await run.boot()
        try:
            yield run
        finally:
            if run._lock_holder is not None:
                run._lock_holder.close()
            await run.stop()


async def run_scenario(scenario: Scenario, out: TextIO) -> None:
    """Run a scenario to its end; ExpectationFailed on the first expectation that does not hold."""
    with tempfile.TemporaryDirectory(prefix="swissbot-scenario-") as tmp:
        async with booted(scenario, out, Path(tmp)) as run:
            await run.run()
