"""Runs a scenario: the real director, scheduler, SQLite and the in-process local Lichess on the scenario's clock.

The scheduler's timing is played as APScheduler would play it: after every change the jobs the database
implies are planned `Scheduler.wall_delay` after the moment they were planned (poll jobs at once, then every
poll interval), and a planned job runs when the clock reaches its time, whatever its `due_at` says. Moving
the clock to a step's time fires every planned job on the way, in order.
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import tempfile
from collections.abc import Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TextIO

import aiohttp

from bot.assembly import App, Services, build
from bot.config import Config
from bot.demo.console import format_round, format_standings
from bot.director.api import Director
from bot.director.models import Actor, Job, JobKind
from bot.discord.mentions import player_key
from bot.discord.options import apply_changes, describe_settings, settings_changes
from bot.errors import SwissbotError, user_sentence
from bot.lichess.gateway import LichessGateway
from bot.rendering.teams import team_game_text, team_line, team_standings_lines
from bot.scenario.channel import ScenarioChannel
from bot.scenario.clock import ScenarioClock
from bot.scenario.format import (
    ORGANISER_COMMANDS,
    PLAY_RESULTS,
    SETTING_OPTIONS,
    Member,
    Scenario,
    Step,
    parse_time,
)
from bot.scheduling import Scheduler
from domain.event import Event
from sandbox.lichess.server import Sandbox, run_sandbox
from storage.db import Database, open_database

GUILD = 1000
CHANNEL = 2000
TEAM_ROLE = 3000  # the Discord role a `team` step's `role` members stand for
ORGANISER = Actor(1, "organiser", True)
APOLOGY = "Sorry, something went wrong on our side."  # what Discord shows for an error that is no SwissbotError
BUSY_TIMEOUT_MS = 300  # a locked database is felt in 0.3 s, not the bot's 5 s
MAX_FIRINGS = 20_000  # a scenario that runs this many jobs in one jump is stuck (a round that never ends)


class ExpectationFailed(AssertionError):
    """An expectation of the scenario did not hold: the message names the file, the step, wanted and found."""


@dataclass
class _Timer:
    at: datetime
    job: Job


class ScenarioRun:
    """One scenario being run (use `run_scenario`)."""

    def __init__(self, scenario: Scenario, out: TextIO, workdir: Path) -> None:
        self.scenario = scenario
        self.out = out
        self.db_path = workdir / "scenario.sqlite3"
        self.clock = ScenarioClock(scenario.start)
        self.channel = ScenarioChannel(self.clock.now, out)
        self.members = {m.name.lower(): m for m in scenario.members}
        self.channel.names = {m.discord_id: m.name for m in scenario.members}
        self.events: list[int] = []
        self.timers: dict[str, _Timer] = {}
        self.sandbox: Sandbox
        self.db: Database
        self.gateway: LichessGateway
        self.app: App
        self.director: Director
        self.scheduler: Scheduler
        self._lock_holder: sqlite3.Connection | None = None

    # -- the bot's life -------------------------------------------------------------------------------

    async def boot(self) -> None:
        """A bot process: the database opened, a gateway, a director and a scheduler (nothing planned yet)."""
        self.db = await open_database(self.db_path, busy_timeout_ms=BUSY_TIMEOUT_MS)
        self.gateway = LichessGateway(
            self.sandbox.url, self.sandbox.bot_token, rate_limit_pause=0.05, retry_backoff=0.01, timeout=5.0
        )
        config = Config(database=self.db_path, director=self.scenario.director)
        self.app = await build(config, self.clock, Services(self.db, self.gateway, self.channel), scheduled=False)
        self.director = self.app.director
        self.scheduler = self.app.scheduler
        self.timers = {}

    async def stop(self) -> None:
        """The bot process ends (its planned jobs are forgotten, as APScheduler's are)."""
        await self.app.close()

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
            await self.plan()
        raise ExpectationFailed(f"{self.scenario.path}: more than {MAX_FIRINGS} jobs ran before {when:%Y-%m-%d %H:%M}")

    def say(self, text: str) -> None:
        """A line of the runner's own (not the channel's)."""
        print(f"[{self.clock.now():%a %Y-%m-%d %H:%M:%S}] * {text}", file=self.out)

    # -- set-up ---------------------------------------------------------------------------------------

    async def setup(self) -> None:
        """The members' Lichess accounts and links, and the `[event]` created, opened and joined."""
        for member in self.scenario.members:
            self.sandbox.add_user(member.name, rating=member.rating, **dict(member.account))
            if member.linked:
                await self.link(member)
        if self.scenario.event is not None:
            reply = await self.create(ORGANISER, self.scenario.event)
            self.say(f"organiser: /swiss create → {reply}")
            if self.scenario.open_event:
                await self.director.open_event(ORGANISER, self.events[-1])
                for member in self.scenario.members:
                    if member.join and member.linked:
                        await self.director.join(self.actor(member), self.events[-1])
        await self.plan()

    async def link(self, member: Member) -> None:
        """Link a member's account the way a member does: the code into the bio, then `/link` again."""
        actor = self.actor(member)
        challenge = await self.director.start_link(actor, member.name)
        self.sandbox.state.users[member.name.lower()].bio = f"chess fan {challenge.code}"
        await self.director.complete_link(actor)

    def actor(self, member: Member) -> Actor:
        """The Discord member as the cogs describe them to the director."""
        return Actor(member.discord_id, member.name, member.organiser)

    # -- steps ----------------------------------------------------------------------------------------

    async def run(self) -> None:
        """Set up, then every step in order (ExpectationFailed on the first that does not hold)."""
        await self.setup()
        for step in self.scenario.steps:
            await self.advance_to(step.at)
            await self.step(step)
            await self.advance_to(self.clock.now())

    async def step(self, step: Step) -> None:
        """One step of the timeline."""
        v = step.values
        if step.do in ORGANISER_COMMANDS or step.do in (
            "link",
            "unlink",
            "join",
            "withdraw",
            "bye",
            "mygame",
            "standings",
            "pairings",
        ):
            await self.command(step)
        elif step.do == "wait":
            return
        elif step.do == "restart":
            self.say("the bot is restarted")
            await self.stop()
            await self.boot()
        elif step.do == "play":
            await self.play(step)
        elif step.do == "lichess":
            await self.lichess(step)
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
            self.channel.down = bool(v["down"])
            self.say("Discord is down" if self.channel.down else "Discord is back")
        elif step.do == "storage":
            await self.storage(str(v["trouble"]))
        else:
            await self.expect(step)

    async def command(self, step: Step) -> None:
        """A slash command run by a member or an organiser; its reply or refusal checked."""
        by = step.values.get("by")
        member = self.members.get(str(by).lower()) if by else None
        actor = self.actor(member) if member else ORGANISER
        options = dict(step.options)
        shown = " ".join(f"{k}:{val}" for k, val in options.items())
        try:
            reply = await self.call(step.do, actor, options)
            refused = False
        except Exception as exc:  # as Discord's error handler shows it: a refusal's sentence, else the apology
            known = user_sentence(exc)
            reply, refused = known or f"{APOLOGY} ({type(exc).__name__}: {exc})", True
        self.say(f"{actor.name}: /{step.do} {shown}".rstrip() + f" → {'refused: ' if refused else ''}{reply}")
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

    async def event_id(self, options: Mapping[str, Any]) -> int:
        """The event named by the `event` option (id or name), else the last one the scenario created."""
        named = options.get("event")
        if named is None:
            if not self.events:
                raise SwissbotError("There is no event yet.")
            return self.events[-1]
        for event in await self.director.list_events(GUILD):
            if str(named) in (str(event.id), event.name) or str(named).lower() == event.name.lower():
                return event.id
        raise SwissbotError(f"No event {named!r} in this server.")

    async def create(self, actor: Actor, options: Mapping[str, Any]) -> str:
        """`/swiss create`, with the cog's own option parsing."""
        director = self.director
        defaults = director.new_event_settings(str(options["name"]).strip(), int(options["rounds"]))
        changes = settings_changes(**_setting_options(options))
        settings = apply_changes(defaults, changes, default_interval=director.default_round_interval)
        event = await director.create_event(actor, GUILD, CHANNEL, settings)
        self.events.append(event.id)
        return f"Created {event.name} (draft): {describe_settings(event.settings)}."

    async def call(self, do: str, actor: Actor, options: dict[str, Any]) -> str:
        """Run one command through the director as its cog does; the reply's text."""
        d = self.director
        if do == "create":
            return await self.create(actor, options)
        if do == "link":
            username = options.get("username")
            if username:
                challenge = await d.start_link(actor, str(username).strip())
                user = self.sandbox.state.users.get(str(username).strip().lower())
                if user is not None:  # the member puts the code in the bio, as told
                    user.bio = f"chess fan {challenge.code}"
                return f"Put this code in your Lichess profile bio: {challenge.code}"
            account = await d.complete_link(actor)
            return f"Linked: you are {account.lichess_username} on Lichess."
        if do == "unlink":
            return f"Unlinked: you are no longer {await d.unlink(actor)} here."
        if do == "unban":
            await d.unban(actor, GUILD, player_key(str(options["player"])))
            return f"{options['player']} may join events again."
        event_id = await self.event_id(options)
        this = await d.event(event_id)
        name = this.name
        if do == "edit":
            event = await d.event(event_id)
            changes = settings_changes(**_setting_options(options))
            if "name" in options:
                changes["name"] = str(options["name"]).strip()
            if "rounds" in options:
                changes["rounds"] = options["rounds"]
            if not changes:
                raise SwissbotError("Nothing to change: give at least one option.")
            settings = apply_changes(event.settings, changes, default_interval=d.default_round_interval)
            updated = await d.edit_event(actor, event_id, settings)
            return f"Updated {updated.name}: {describe_settings(updated.settings)}."
        if do == "open":
            await d.open_event(actor, event_id)
            return f"{name} is open for entries."
        if do == "start":
            await d.start_event(actor, event_id)
            return f"{name} has started."
        if do == "pause":
            await d.pause(actor, event_id)
            return f"{name} is paused."
        if do == "resume":
            await d.resume(actor, event_id)
            return f"{name} is running again."
        if do == "next-round":
            view = await d.next_round(actor, event_id)
            return f"Round {view.number} of {name} is paired ({len(view.boards)} boards) and announced."
        if do == "result":
            correction = await d.set_result(
                actor,
                event_id,
                int(options["round"]),
                int(options["board"]),
                str(options["result"]),
                str(options["reason"]),
            )
            return correction.message
        if do == "forbid":
            await d.forbid(actor, event_id, player_key(str(options["player_a"])), player_key(str(options["player_b"])))
            return f"{options['player_a']} and {options['player_b']} will not be paired together in {name}."
        if do == "allow":
            await d.allow(actor, event_id, player_key(str(options["player_a"])), player_key(str(options["player_b"])))
            return f"{options['player_a']} and {options['player_b']} may be paired together in {name} again."
        if do == "reinstate":
            entry = await d.reinstate(actor, event_id, player_key(str(options["player"])))
            return f"{entry.name} is back in {name} from the next round."
        if do == "remove":
            entry = await d.remove(actor, event_id, player_key(str(options["player"])))
            return f"{entry.name} is removed from {name}."
        if do == "disqualify":
            entry = await d.disqualify(actor, event_id, player_key(str(options["player"])), str(options["reason"]))
            return f"{entry.name} is disqualified from {name}."
        if do == "finish":
            await d.finish(actor, event_id)
            return f"{name} is finished."
        if do == "cancel":
            await d.cancel(actor, event_id)
            return f"{name} is cancelled."
        if do == "export":
            return (await d.export(event_id, str(options.get("format", "trf")))).decode()
        if do == "team":
            return await self.team(actor, event_id, name, options)
        if do == "teams":
            return "\n".join(team_line(t) for t in await d.list_teams(event_id)) or f"{name} has no teams yet."
        if do == "join":
            entry = await d.join(actor, event_id)
            text = f"You are in {name} as {entry.name} ({entry.rating})."
            return text + (f" You join from {this.round_name(entry.joined_round)}." if entry.joined_round > 1 else "")
        if do == "withdraw":
            await d.withdraw(actor, event_id)
            return f"You have withdrawn from {name}."
        if do == "bye" and options.get("cancel"):
            taken = await d.cancel_bye(actor, event_id, options.get("round"))
            return f"Your bye in {this.bye_name(taken)} of {name} is cancelled: you will be paired."
        if do == "bye":
            granted = await d.request_bye(actor, event_id, options.get("round"))
            return f"You have a half-point bye in {this.bye_name(granted)} of {name}."
        if do == "mygame":
            game = await d.my_game(actor, event_id, GUILD)
            if game is None:
                return "You have no game right now."
            board = game.board
            result = f" Result: {board.result.value}." if board.result else f" Your game: {board.url}"
            if game.team is not None:
                return team_game_text(game) + result
            return (
                f"{game.event.name}, round {game.round_number}, board {board.number}: you play {game.colour} "
                f"against {game.opponent.name}.{result}"
            )
        if do == "standings":
            event = await d.event(event_id)
            if event.settings.pairing_system.team:
                return "\n".join(team_standings_lines(await d.team_standings(event_id)))
            return "\n".join(format_standings(await d.standings(event_id), event.settings.tiebreaks))
        view = await d.pairings(event_id, options.get("round"))
        return "\n".join(format_round(view))

    async def team(self, actor: Actor, event_id: int, name: str, options: Mapping[str, Any]) -> str:
        """`/swiss team`: add a team of named members (board order) or of a role's members, or remove one."""
        d = self.director
        team_name = str(options["name"])
        if options.get("remove"):
            gone = await d.remove_team(actor, event_id, team_name)
            return f"Team {gone.name} is removed from {name}."
        if "role" in options:  # the role's members, as the cog resolves a Discord role
            ids = [self.members[str(m).lower()].discord_id for m in options["role"] if str(m).lower() in self.members]
            view = await d.add_team_from_role(actor, event_id, team_name, TEAM_ROLE, ids)
        else:
            view = await d.add_team(
                actor, event_id, team_name, [player_key(str(m)) for m in options.get("members", [])]
            )
        return f"Team added to {name}: {team_line(view)}"

    async def play(self, step: Step) -> None:
        """A board's game on Lichess ends the given way (both players play it through the control API)."""
        v = step.values
        event_id = self.events[-1] if self.events else None
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
        async with (
            aiohttp.ClientSession() as http,
            http.post(f"{self.sandbox.url}/sandbox/games/{board.game_id}/play", json=body) as reply,
        ):
            if reply.status >= 300:
                raise self.failed(step, f"game {board.game_id} to be played", await reply.text())
        self.say(f"round {view.number} board {board.number} ({board.game_id}) ends: {status} {winner or ''}".rstrip())

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
        event: Event | None = await d.event(self.events[-1]) if self.events else None
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
        if "player" in v:
            want = v["player"]
            entry = next((e for e in await d.entries(event.id) if e.name.lower() == want["name"].lower()), None)
            if entry is None:
                raise self.failed(step, f"{want['name']} entered", "not entered")
            if "status" in want and entry.status.value != want["status"]:
                raise self.failed(step, f"{want['name']} {want['status']}", entry.status.value)
        posted = v.get("posted")
        if posted is not None:
            text, times = (posted, None) if isinstance(posted, str) else (posted["text"], posted.get("times"))
            count = self.channel.count(text)
            if (times is None and count == 0) or (times is not None and count != times):
                wanted = f"{times} post(s)" if times is not None else "a post"
                raise self.failed(step, f"{wanted} containing {text!r}", f"{count}")
        if "not_posted" in v and self.channel.count(v["not_posted"]):
            first = next(p for p in self.channel.posts if v["not_posted"].lower() in p.text.lower())
            raise self.failed(step, f"no post containing {v['not_posted']!r}", f"one at {first.at:%Y-%m-%d %H:%M}")
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
        self.say(f"{step.where}: expectations hold")


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


def _setting_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options `settings_changes` takes (times given as Unix seconds become text, as Discord sends them)."""
    picked = {k: v for k, v in options.items() if k in SETTING_OPTIONS}
    if isinstance(picked.get("start"), int):
        picked["start"] = str(picked["start"])
    return picked


async def run_scenario(scenario: Scenario, out: TextIO) -> None:
    """Run a scenario to its end; ExpectationFailed on the first expectation that does not hold."""
    with tempfile.TemporaryDirectory(prefix="swissbot-scenario-") as tmp:
        run = ScenarioRun(scenario, out, Path(tmp))
        async with AsyncExitStack() as stack:
            run.sandbox = await stack.enter_async_context(run_sandbox(seed=scenario.seed, autoplay=scenario.autoplay))
            await run.boot()
            try:
                await run.run()
            finally:
                if run._lock_holder is not None:
                    run._lock_holder.close()
                await run.stop()
