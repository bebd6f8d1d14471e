"""Every post the Discord announcer makes is a record written before it is sent and completed with its message id
after, sent with its nonce and `enforce_nonce`: through the real announcer and director against the local Discord,
a post lands once whatever fails between Discord and the database (issue #24)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import aiohttp
import discord
import pytest
from discord.gateway import DiscordWebSocket
from discord.http import Route

from bot.assembly import App, Services, build
from bot.config import ClubConfig, Config
from bot.director.announcer import AnnouncementFailed
from bot.director.models import Actor, BoardView, JobKind, PlayerRef, RoundView
from bot.discord import announcer as announcer_module
from bot.discord.announcer import DiscordAnnouncer
from bot.lichess.memory import MemoryLichess
from domain.event import Event, EventStatus
from domain.result import Result
from domain.rounds import RoundStatus
from domain.settings import EventSettings
from sandbox.discord import DiscordSandbox, run_discord_sandbox
from sandbox.lichess.control import play_to
from storage.db import Database, open_database
from storage.errors import DatabaseLocked
from storage.messages import get_message
from storage.messages import set_message as store
from storage.outbox import PostKind, pending_posts
from storage.results import record_result
from storage.rounds import board_by_number
from tests.support.clock import ManualClock

GUILD, CHANNEL = 720000000000000001, 720000000000000011
ORGANISER = Actor(720000000000000099, "olga", True)
TIMEOUT = aiohttp.ClientTimeout(total=20)


class Killed(BaseException):
    """The process died here (not an error the bot could catch)."""


async def _control(sandbox: DiscordSandbox, method: str, path: str, body: Any = None) -> Any:
    async with (
        aiohttp.ClientSession(timeout=TIMEOUT) as http,
        http.request(method, sandbox.url + path, json=body) as reply,
    ):
        assert reply.status < 300, f"{path}: {reply.status} {await reply.text()}"
        return await reply.json(content_type=None)


async def in_channel(sandbox: DiscordSandbox) -> list[dict[str, Any]]:
    """Every message the bot posted in the club's channel, as the local Discord shows them."""
    messages: list[dict[str, Any]] = await _control(sandbox, "GET", f"/sandbox/channels/{CHANNEL}/messages")
    return messages


def texts(messages: list[dict[str, Any]]) -> list[str]:
    """Each message's content and embed titles, one string a message."""
    out = []
    for message in messages:
        titles = [embed.get("title") or "" for embed in message.get("embeds") or []]
        out.append(" | ".join([message.get("content") or "", *titles]))
    return out


@pytest.fixture
async def local_discord(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[DiscordSandbox]:
    """The local Discord with the club's server; discord.py's class-level addresses restored afterwards."""
    monkeypatch.setattr(Route, "BASE", Route.BASE)
    monkeypatch.setattr(DiscordWebSocket, "DEFAULT_GATEWAY", DiscordWebSocket.DEFAULT_GATEWAY)
    async with run_discord_sandbox(seed=3) as sandbox:
        Route.BASE = f"{sandbox.url}/api/v10"
        guild = {"id": str(GUILD), "name": "Chess Club", "channels": [{"id": str(CHANNEL), "name": "tournaments"}]}
        await _control(sandbox, "POST", "/sandbox/guilds", guild)
        yield sandbox


@dataclass
class Process:
    """One run of the bot: its Discord client (REST only), announcer and application on the shared database."""

    client: discord.Client
    announcer: DiscordAnnouncer
    app: App


@dataclass
class Club:
    """The local Discord, the in-memory Lichess, the database file and the clock the bot's processes share."""

    discord: DiscordSandbox
    lichess: MemoryLichess
    path: Path
    clock: ManualClock
    db: Database | None = None

    @contextlib.asynccontextmanager
    async def process(self) -> AsyncIterator[Process]:
        """A bot process: a new client logged into the local Discord, a new announcer and director."""
        self.db = await open_database(self.path)
        client = discord.Client(intents=discord.Intents.none())
        await client.login(self.discord.token)
        config = Config(database=self.path, clubs=(ClubConfig(GUILD, "Organiser", CHANNEL),))
        announcer = DiscordAnnouncer(client, self.db, config)
        app = await build(config, self.clock, Services(self.db, self.lichess, announcer), scheduled=False)
        announcer.director = app.director
        try:
            yield Process(client, announcer, app)
        finally:
            await client.close()
            await self.db.close()


@pytest.fixture
async def club(local_discord: DiscordSandbox, tmp_path: Path) -> AsyncIterator[Club]:
    """The shared services of the bot's processes."""
    lichess = MemoryLichess(seed=1)
    try:
        yield Club(local_discord, lichess, tmp_path / "club.sqlite3", ManualClock())
    finally:
        await lichess.close()


async def _event(process: Process, club: Club, *, players: int = 4, rounds: int = 2) -> Event:
    """An event with `players` linked and joined members, starting in five minutes."""
    director = process.app.director
    settings = EventSettings(name="Nonce Cup", rounds=rounds, start_at=club.clock.now() + timedelta(minutes=5))
    event = await director.create_event(ORGANISER, GUILD, CHANNEL, settings)
    await director.open_event(ORGANISER, event.id)
    for index in range(players):
        actor = Actor(730000000000000000 + index, f"m{index}")
        club.lichess.state.add_user(f"nonce{index}", rating=1800 - 20 * index)
        challenge = await director.start_link(actor, f"nonce{index}")
        club.lichess.state.users[f"nonce{index}"].bio = challenge.code
        await director.complete_link(actor)
        await director.join(actor, event.id)
    return event


async def _start(process: Process, club: Club, event: Event) -> None:
    """Run the jobs until round 1 is paired and announced."""
    club.clock.advance(6 * 60)
    await process.app.scheduler.run_due()
    assert (await process.app.director.event(event.id)).current_round == 1


def _round(event: Event, boards: int) -> RoundView:
    """A round of `boards` boards whose players all have Discord ids (so the pairings post pings them)."""
    views = []
    for index in range(boards):
        white = PlayerRef(2 * index + 1, f"white{index}", 740000000000000000 + 2 * index, 1500)
        black = PlayerRef(2 * index + 2, f"black{index}", 740000000000000001 + 2 * index, 1400)
        views.append(BoardView(index + 1, white, black, f"g{index:07d}", f"https://lichess.org/g{index:07d}", None))
    return RoundView(event.id, 1, RoundStatus.PLAYING, None, tuple(views))


async def test_a_post_whose_id_cannot_be_stored_lands_once_across_retries(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with club.process() as process:
        settings = EventSettings(name="Locked Cup", rounds=3)
        event = await process.app.director.create_event(ORGANISER, GUILD, CHANNEL, settings)
        refusals = 3

        async def locked_then_fine(*args: Any, **kwargs: Any) -> Any:
            nonlocal refusals
            if refusals:  # Discord took the post; the database is locked for longer than its busy timeout
                refusals -= 1
                raise DatabaseLocked()
            return await store(*args, **kwargs)

        monkeypatch.setattr(announcer_module, "set_message", locked_then_fine)
        for _ in range(3):
            with pytest.raises(AnnouncementFailed):  # not marked posted: the director tries it again
                await process.announcer.round_paired(event, _round(event, 3))
        await process.announcer.round_paired(event, _round(event, 3))

    (message,) = await in_channel(club.discord)
    assert message["content"].startswith("Round 1 of **Locked Cup** is paired:")
    assert club.db is not None
    async with club.process():
        record = await get_message(club.db, event.id, "round:0", round_number=1)
        assert record is not None and str(record.message_id) == message["id"]


async def test_a_kill_between_a_post_and_its_record_lands_once_after_the_restart(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def dies(*args: Any, **kwargs: Any) -> Any:
        raise Killed()

    async with club.process() as process:
        settings = EventSettings(name="Killed Cup", rounds=3)
        event = await process.app.director.create_event(ORGANISER, GUILD, CHANNEL, settings)
        monkeypatch.setattr(announcer_module, "set_message", dies)
        with pytest.raises(Killed):
            await process.announcer.round_paired(event, _round(event, 2))
        with pytest.raises(Killed):
            await process.announcer.bulletin(event, "the event is cancelled by the organisers.")
        with pytest.raises(Killed):
            await process.announcer.event_finished(event, [], "cancelled")
    assert len(await in_channel(club.discord)) == 3  # each reached Discord; none has its message id stored

    monkeypatch.setattr(announcer_module, "set_message", store)
    async with club.process() as restarted:  # a new process re-announces what it finds unmarked
        await restarted.announcer.round_paired(event, _round(event, 2))
        await restarted.announcer.bulletin(event, "the event is cancelled by the organisers.")
        await restarted.announcer.event_finished(event, [], "cancelled")
        shown = await in_channel(club.discord)
        assert len(shown) == 3 and not any(m["edits"] for m in shown)  # Discord returned each by its nonce
        assert shown[0]["content"].count("<@") == 4  # the pings went out once, with the first post
        for kind in ("round:0", "end"):
            record = await get_message(restarted.announcer.db, event.id, kind, round_number=1 if kind != "end" else 0)
            assert record is not None and record.posted


async def test_an_edit_missed_before_a_restart_is_made_after_it(club: Club, monkeypatch: pytest.MonkeyPatch) -> None:
    async with club.process() as process:
        event = await _event(process, club)
        await _start(process, club, event)

        async def dies(self: DiscordAnnouncer, event: Event, round: RoundView) -> None:
            raise Killed()

        edit = DiscordAnnouncer.results_updated
        monkeypatch.setattr(DiscordAnnouncer, "results_updated", dies)
        board = (await process.app.director.pairings(event.id, 1)).boards[0]
        assert board.game_id is not None
        game = club.lichess.state.games[board.game_id]
        play_to(club.lichess.state, game, winner="white", status="resign", plies=60)
        club.clock.advance(30)
        with pytest.raises(Killed):  # the result is stored; the bot dies before the round's message shows it
            await process.app.scheduler.run_due()
    (round_post,) = [m for m in await in_channel(club.discord) if "is paired" in (m.get("content") or "")]
    assert round_post["embeds"][0]["title"] == "Nonce Cup — round 1 (0/2 results)"

    monkeypatch.setattr(DiscordAnnouncer, "results_updated", edit)
    async with club.process() as restarted:
        club.clock.advance(30)
        ran = await restarted.app.scheduler.run_due()
        assert JobKind.POSTS in [job.kind for job in ran]
        (round_post,) = [m for m in await in_channel(club.discord) if "is paired" in (m.get("content") or "")]
        assert round_post["embeds"][0]["title"] == "Nonce Cup — round 1 (1/2 results)"  # edited, not posted again
        assert await pending_posts(restarted.announcer.db) == []


async def test_a_cancellation_during_an_outage_is_posted_once_when_discord_answers_again(club: Club) -> None:
    async with club.process() as process:
        event = await _event(process, club)
        await _start(process, club, event)
        before = len(await in_channel(club.discord))
        fault = {"path": f"/api/v10/channels/{CHANNEL}/messages", "status": 403, "count": 1000}
        await _control(club.discord, "POST", "/sandbox/faults", fault)  # the bot may no longer post in the channel

        cancelled = await process.app.director.cancel(ORGANISER, event.id)  # the command answers its success
        assert cancelled.status is EventStatus.CANCELLED
        (pending,) = await pending_posts(process.announcer.db, event.id)  # (the round's post shows it already)
        assert pending.kind is PostKind.BULLETIN and "cancelled" in pending.text
        club.clock.advance(60)
        await process.app.scheduler.run_due()  # still refused: still pending
        assert len(await in_channel(club.discord)) == before

    await _control(club.discord, "DELETE", "/sandbox/faults")  # Discord answers again, and the bot restarted
    async with club.process() as restarted:
        for _ in range(3):
            club.clock.advance(60)
            await restarted.app.scheduler.run_due()
        shown = texts(await in_channel(club.discord))
        assert sum("the event is cancelled by the organisers during round 1" in text for text in shown) == 1
        assert len(shown) == before + 1  # the round's post was edited, not posted again
        assert await pending_posts(restarted.announcer.db) == []


async def test_the_join_card_refused_at_the_opening_is_posted_once_discord_answers_again(club: Club) -> None:
    async with club.process() as process:
        director = process.app.director
        settings = EventSettings(name="Card Cup", rounds=3, start_at=club.clock.now() + timedelta(hours=2))
        event = await director.create_event(ORGANISER, GUILD, CHANNEL, settings)
        fault = {"path": f"/api/v10/channels/{CHANNEL}/messages", "status": 503, "count": 1000}
        await _control(club.discord, "POST", "/sandbox/faults", fault)
        opened = await director.open_event(ORGANISER, event.id)  # the command answers: the event takes entries
        assert opened.status is EventStatus.OPEN
        (pending,) = await pending_posts(process.announcer.db, event.id)
        assert pending.kind is PostKind.OPENED and await in_channel(club.discord) == []

        await _control(club.discord, "DELETE", "/sandbox/faults")
        for _ in range(3):
            club.clock.advance(60)
            await process.app.scheduler.run_due()
        (card,) = await in_channel(club.discord)
        assert card["embeds"][0]["title"] == "Card Cup — open for entries" and card["components"]
        assert await pending_posts(process.announcer.db) == []


async def test_a_large_rounds_pings_each_land_once_when_the_bot_dies_among_them(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def dies_at_the_second_ping(*args: Any, **kwargs: Any) -> Any:
        if args[2] == "pings:2":
            raise Killed()
        return await store(*args, **kwargs)

    async with club.process() as process:
        settings = EventSettings(name="Crowd Cup", rounds=3)
        event = await process.app.director.create_event(ORGANISER, GUILD, CHANNEL, settings)
        monkeypatch.setattr(announcer_module, "set_message", dies_at_the_second_ping)
        with pytest.raises(Killed):
            await process.announcer.round_paired(event, _round(event, 300))
    monkeypatch.setattr(announcer_module, "set_message", store)
    async with club.process() as restarted:
        await restarted.announcer.round_paired(event, _round(event, 300))
        await restarted.announcer.round_paired(event, _round(event, 300))  # once more: nothing new
    shown = await in_channel(club.discord)
    pinged = [user for message in shown for user in re.findall(r"<@(\d+)>", message["content"] or "")]
    assert len(pinged) == 600 == len(set(pinged))  # every player pinged, once
    assert sum(1 for m in shown if m["content"] and "<@" in m["content"]) >= 3  # the pings took several messages


async def test_a_finished_rounds_message_shows_every_result_whichever_path_decided_the_last_board(
    club: Club,
) -> None:
    async with club.process() as process:
        event = await _event(process, club)
        await _start(process, club, event)
        db = process.announcer.db
        for number in (1, 2):  # decided without the round's message hearing of it (as a path that forgets it would)
            board = await board_by_number(db, event.id, 1, number)
            await record_result(db, board.id, Result.DRAW, at=club.clock.now(), actor="test", reason="agreed")
        assert await pending_posts(db) == []
        club.clock.advance(30)
        await process.app.scheduler.run_due()  # the poll finds the round decided and finishes it
        (round_post,) = [m for m in await in_channel(club.discord) if "is paired" in (m.get("content") or "")]
        assert round_post["embeds"][0]["title"] == "Nonce Cup — round 1 (complete)"
        assert len(round_post["edits"]) == 1
