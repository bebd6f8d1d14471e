"""The real bot (`SwissBot`, as `swissbot run` starts it) against the local Discord and the local Lichess: members
and organisers type slash commands and press buttons through the local Discord's control API, as Discord's client
would send them, and the channel shows what the bot posted."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import discord
import pytest
from discord.gateway import DiscordWebSocket
from discord.http import Route

from bot.cli import main as swissbot
from bot.config import ClubConfig, Config, DiscordConfig, LichessConfig, Secrets
from bot.discord.bot import SwissBot
from bot.settings import DirectorSettings
from sandbox.discord import DiscordSandbox, run_discord_sandbox
from sandbox.lichess import Sandbox, run_sandbox

pytestmark = pytest.mark.slow  # the real bot against both local services

GUILD, CHANNEL = 710000000000000001, 710000000000000011
ORGANISER_ROLE, HELPER_ROLE = 710000000000000021, 710000000000000022
OLGA, ALICE, BOB, CAROL = 810000000000000001, 810000000000000002, 810000000000000003, 810000000000000004
MANAGE_EVENTS = 1 << 33
TIMEOUT = aiohttp.ClientTimeout(total=30)


@dataclass
class Club:
    """The two local services and the running bot."""

    discord: DiscordSandbox
    lichess: Sandbox
    bot: SwissBot

    async def control(self, path: str, body: Any, *, lichess: bool = False) -> Any:
        base = self.lichess.url if lichess else self.discord.url
        async with aiohttp.ClientSession(timeout=TIMEOUT) as http, http.post(base + path, json=body) as reply:
            assert reply.status < 300, f"{path}: {reply.status} {await reply.text()}"
            return await reply.json(content_type=None)

    async def command(self, user: int, command: str, **options: Any) -> list[dict[str, Any]]:
        """A member runs a slash command in the club's channel; the bot's answers."""
        body: dict[str, Any] = {"guild_id": str(GUILD), "channel_id": str(CHANNEL), "user_id": str(user)}
        body |= {"command": command, "options": options}
        async with (
            aiohttp.ClientSession(timeout=TIMEOUT) as http,
            http.post(self.discord.url + "/sandbox/interactions", json=body) as reply,
        ):
            answer = await reply.json(content_type=None)
            assert reply.status == 200, f"/{command}: {reply.status} {answer}"
        assert "error" not in answer, f"/{command}: {answer['error']}"
        responses: list[dict[str, Any]] = answer["responses"]
        return responses

    async def refused(self, user: int, command: str, **options: Any) -> int:
        """The status the local Discord answers when its client would not even send the command."""
        body: dict[str, Any] = {"guild_id": str(GUILD), "channel_id": str(CHANNEL), "user_id": str(user)}
        body |= {"command": command, "options": options}
        async with (
            aiohttp.ClientSession(timeout=TIMEOUT) as http,
            http.post(self.discord.url + "/sandbox/interactions", json=body) as reply,
        ):
            return reply.status

    async def channel(self) -> list[dict[str, Any]]:
        """Every message the bot posted in the club's channel."""
        async with (
            aiohttp.ClientSession(timeout=TIMEOUT) as http,
            http.get(f"{self.discord.url}/sandbox/channels/{CHANNEL}/messages") as reply,
        ):
            messages: list[dict[str, Any]] = await reply.json()
            return messages


def text_of(responses: list[dict[str, Any]]) -> str:
    """Everything the answers say: contents and embed titles and descriptions."""
    parts = []
    for response in responses:
        parts.append(response.get("content") or "")
        for embed in response.get("embeds") or []:
            parts += [embed.get("title") or "", embed.get("description") or ""]
    return "\n".join(parts)


async def populate(discord_sandbox: DiscordSandbox) -> None:
    guild = {
        "id": str(GUILD),
        "name": "Chess Club",
        "channels": [{"id": str(CHANNEL), "name": "tournaments"}],
        "roles": [
            {"id": str(ORGANISER_ROLE), "name": "Organiser", "permissions": str(MANAGE_EVENTS)},
            {"id": str(HELPER_ROLE), "name": "Helper", "permissions": str(MANAGE_EVENTS)},
        ],
    }
    async with aiohttp.ClientSession(timeout=TIMEOUT) as http:
        async with http.post(discord_sandbox.url + "/sandbox/guilds", json=guild) as reply:
            assert reply.status == 201
        for user, name, roles in (
            (OLGA, "olga", [ORGANISER_ROLE]),
            (ALICE, "alice", []),
            (BOB, "bob", []),
            (CAROL, "carol", [HELPER_ROLE]),
        ):
            member = {"guild_id": str(GUILD), "user": {"id": str(user), "name": name}, "roles": [str(r) for r in roles]}
            async with http.post(discord_sandbox.url + "/sandbox/members", json=member) as reply:
                assert reply.status == 201


@contextlib.asynccontextmanager
async def services() -> AsyncIterator[tuple[Sandbox, DiscordSandbox]]:
    """The local Lichess (simulated players who play every game) and the local Discord with the club's server."""
    async with run_sandbox(seed=5, autoplay=True, autoplay_delay=0.0) as lichess, run_discord_sandbox(seed=3) as dsb:
        await populate(dsb)
        for name, rating in (("alice", 1800), ("bob", 1700)):
            lichess.add_user(name, rating=rating)
        yield lichess, dsb


@contextlib.asynccontextmanager
async def running_bot(lichess: Sandbox, dsb: DiscordSandbox, database: Path) -> AsyncIterator[Club]:
    """The bot logged into the local Discord, its commands synced to the club's server (as `swissbot run`)."""
    config = Config(
        database=database,
        clubs=(ClubConfig(GUILD, "Organiser", CHANNEL),),
        discord=DiscordConfig(api_url=dsb.url),
        lichess=LichessConfig(base_url=lichess.url, timeout_seconds=5.0),
        director=DirectorSettings(poll_interval=1.0, default_round_interval_minutes=0.05),
    )
    bot = SwissBot(config, Secrets(dsb.token, lichess.bot_token))
    task = asyncio.create_task(bot.start(dsb.token))
    try:
        ready = asyncio.create_task(bot.wait_until_ready())
        done, _ = await asyncio.wait({ready, task}, timeout=20, return_when=asyncio.FIRST_COMPLETED)
        if ready not in done:
            ready.cancel()
            if task in done:
                task.result()
            raise AssertionError("the bot did not become ready")
        guild = discord.Object(GUILD)
        bot.tree.copy_global_to(guild=guild)  # what `swissbot sync --guild` does
        await bot.tree.sync(guild=guild)
        yield Club(dsb, lichess, bot)
    finally:
        await asyncio.wait_for(bot.close(), 20)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, discord.DiscordException, OSError):
            await task


@contextlib.asynccontextmanager
async def running_club(tmp_path: Path) -> AsyncIterator[Club]:
    """Both local services and the bot."""
    async with services() as (lichess, dsb), running_bot(lichess, dsb, tmp_path / "club.sqlite3") as club:
        yield club


@pytest.fixture
async def club(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Club]:
    """discord.py's class-level addresses are restored after the test."""
    monkeypatch.setattr(Route, "BASE", Route.BASE)
    monkeypatch.setattr(DiscordWebSocket, "DEFAULT_GATEWAY", DiscordWebSocket.DEFAULT_GATEWAY)
    async with running_club(tmp_path) as running:
        yield running


async def link(club: Club, user: int, name: str) -> None:
    """The bio-code link, as a member does it: /link NAME, the code into the bio, /link."""
    answer = text_of(await club.command(user, "link", **{"lichess-username": name}))
    code = re.search(r"`([^`]+)`", answer)
    assert code is not None, answer
    club.lichess.state.users[name].bio = f"hello {code.group(1)}"
    assert "Linked: you are **" + name in text_of(await club.command(user, "link"))


async def wait_for(check: Any, seconds: float = 40.0) -> None:
    for _ in range(int(seconds / 0.25)):
        if await check():
            return
        await asyncio.sleep(0.25)
    raise AssertionError("timed out")


async def test_a_club_event_through_discord_from_creation_to_final_standings(club: Club) -> None:
    # Discord's client does not offer /swiss to a member without Manage Events; the bot refuses a member
    # who has the permission but not the club's organiser role.
    assert await club.refused(ALICE, "swiss create", name="Blitz", rounds=1) == 403
    refusal = await club.command(CAROL, "swiss create", name="Blitz", rounds=1)
    assert "organiser" in text_of(refusal).lower() and refusal[-1]["ephemeral"]
    # A value Discord's client would never send is refused before the bot sees it.
    assert await club.refused(OLGA, "swiss create", name="Blitz", rounds=99) == 400

    created = await club.command(OLGA, "swiss create", name="Club Blitz", rounds=1, schedule="manual")
    assert "Club Blitz" in text_of(created)
    opened = await club.command(OLGA, "swiss open")
    assert opened and "error" not in opened[-1]
    join_message = next(m for m in await club.channel() if m["components"])
    button = join_message["components"][0]["components"][0]["custom_id"]

    await link(club, ALICE, "alice")
    await link(club, BOB, "bob")
    joined = await club.command(ALICE, "join")
    assert joined[-1]["ephemeral"] and "Club Blitz" in text_of(joined)
    body = {"message_id": join_message["id"], "custom_id": button, "user_id": str(BOB)}
    pressed = await club.control("/sandbox/components", body)
    assert pressed["responses"] and pressed["responses"][-1]["ephemeral"]
    assert len(await club.bot.director.entries(1)) == 2

    started = await club.command(OLGA, "swiss start")
    assert started and "error" not in started[-1]

    async def finished() -> bool:
        return (await club.bot.director.event(1)).status.value == "finished"

    async def end_posted() -> bool:  # the event is marked finished before its end is posted
        posted = "\n".join(text_of([m]) for m in await club.channel()).lower()
        return "final standings" in posted or "finished" in posted

    await wait_for(finished)
    await wait_for(end_posted)
    posted = "\n".join(text_of([m]) for m in await club.channel())
    assert "alice" in posted and "bob" in posted
    standings = await club.command(ALICE, "standings", event="1")
    assert "alice" in text_of(standings) or any(r["attachments"] for r in standings)
    # The event exported from the bot's database passes the checker (the Done-when of the local Discord issue).
    trf_file = club.bot.config.database.with_name("club.trf")
    trf_file.write_bytes(await club.bot.director.export(1, "trf"))
    assert swissbot(["check", str(trf_file)]) == 0


async def test_autocomplete_and_a_discord_outage_during_the_pairings(club: Club) -> None:
    await club.command(OLGA, "swiss create", name="Rapid Night", rounds=1, schedule="manual")
    await club.command(OLGA, "swiss open")
    body = {"guild_id": str(GUILD), "channel_id": str(CHANNEL), "user_id": str(ALICE), "command": "join"}
    answer = await club.control("/sandbox/autocomplete", {**body, "options": {"event": "Rap"}, "focused": "event"})
    assert [c["name"] for c in answer["choices"]] and "Rapid Night" in answer["choices"][0]["name"]
    await link(club, ALICE, "alice")
    await link(club, BOB, "bob")
    await club.command(ALICE, "join")
    await club.command(BOB, "join")
    # Discord answers 500 to the bot's next two posts in the channel: the pairings still get there.
    fault = {"path": f"/api/v10/channels/{CHANNEL}/messages", "status": 500, "count": 2}
    await club.control("/sandbox/faults", fault)
    await club.command(OLGA, "swiss start")

    async def paired_posted() -> bool:
        return any("round 1" in text_of([m]).lower() for m in await club.channel())

    await wait_for(paired_posted)
    async with (
        aiohttp.ClientSession(timeout=TIMEOUT) as http,
        http.get(club.discord.url + "/sandbox/requests") as reply,
    ):
        log = await reply.json()
    failed = [r for r in log if r["path"] == fault["path"] and r["status"] == 500]
    assert len(failed) == 2  # the outage happened, and the posts went through after it


async def test_the_join_button_works_after_the_bot_restarts_and_a_429_is_waited_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Route, "BASE", Route.BASE)
    monkeypatch.setattr(DiscordWebSocket, "DEFAULT_GATEWAY", DiscordWebSocket.DEFAULT_GATEWAY)
    database = tmp_path / "club.sqlite3"
    async with services() as (lichess, dsb):
        async with running_bot(lichess, dsb, database) as first:
            await first.command(OLGA, "swiss create", name="Restart Open", rounds=1, schedule="manual")
            await first.command(OLGA, "swiss open")
            await link(first, ALICE, "alice")
            message = next(m for m in await first.channel() if m["components"])
            button = message["components"][0]["components"][0]["custom_id"]
        # The bot is gone; a new process on the same database rebuilds the persistent Join button.
        async with running_bot(lichess, dsb, database) as second:
            await second.control("/sandbox/faults", {"path": "/api/v10/interactions/", "status": 429, "count": 1})
            pressed = await second.control(
                "/sandbox/components", {"message_id": message["id"], "custom_id": button, "user_id": str(ALICE)}
            )
            assert "Restart Open" in text_of(pressed["responses"]) and pressed["responses"][-1]["ephemeral"]
            assert [e.player.name for e in await second.bot.director.entries(1)] == ["alice"]
            async with (
                aiohttp.ClientSession(timeout=TIMEOUT) as http,
                http.get(dsb.url + "/sandbox/requests") as reply,
            ):
                log = await reply.json()
            assert any(r["status"] == 429 and r["path"].startswith("/api/v10/interactions/") for r in log)


async def test_every_member_and_organiser_command_answers_through_discord(club: Club) -> None:
    """Each command once, as Discord's client sends it: an answer within Discord's 3 seconds (the local Discord
    reports "did not respond" otherwise), and a sentence of its own, never the generic apology."""
    await link(club, ALICE, "alice")
    await link(club, BOB, "bob")
    steps: list[tuple[int, str, dict[str, Any]]] = [
        (OLGA, "swiss create", {"name": "Sweep", "rounds": 3, "schedule": "manual"}),
        (OLGA, "swiss edit", {"event": "1", "rounds": 2}),
        (OLGA, "swiss open", {"event": "1"}),
        (ALICE, "join", {"event": "1"}),
        (BOB, "join", {"event": "1"}),
        (ALICE, "bye", {"event": "1", "round": 2}),
        (ALICE, "bye", {"event": "1", "round": 2, "cancel": True}),
        (OLGA, "swiss forbid", {"event": "1", "player-a": "alice", "player-b": "bob"}),
        (OLGA, "swiss allow", {"event": "1", "player-a": "alice", "player-b": "bob"}),
        (OLGA, "swiss start", {"event": "1"}),
        (ALICE, "pairings", {"event": "1"}),
        (ALICE, "mygame", {"event": "1"}),
        (OLGA, "swiss pause", {"event": "1"}),
        (OLGA, "swiss resume", {"event": "1"}),
        (OLGA, "swiss result", {"event": "1", "round": 1, "board": 1, "result": "1-0", "reason": "sweep"}),
        (OLGA, "swiss next-round", {"event": "1"}),
        (OLGA, "swiss remove", {"event": "1", "player": "bob"}),
        (OLGA, "swiss reinstate", {"event": "1", "player": "bob"}),
        (OLGA, "swiss disqualify", {"event": "1", "player": "bob", "reason": "sweep"}),
        (OLGA, "swiss unban", {"player": "bob"}),
        (BOB, "withdraw", {"event": "1"}),
        (ALICE, "standings", {"event": "1", "crosstable": True}),
        (OLGA, "swiss finish", {"event": "1"}),
        (OLGA, "swiss export", {"event": "1", "format": "trf"}),
        (OLGA, "swiss create", {"name": "Cancelled", "rounds": 1, "schedule": "manual"}),
        (OLGA, "swiss cancel", {"event": "2"}),
        (BOB, "unlink", {}),
    ]
    for user, command, options in steps:
        answers = await club.command(user, command, **options)
        said = text_of(answers) + "".join(a for r in answers for a in r["attachments"])
        assert said.strip(), f"/{command} said nothing"
        assert "something went wrong" not in said.lower(), f"/{command}: {said}"


async def test_the_acceleration_method_is_an_organiser_choice(club: Club) -> None:
    assert await club.refused(OLGA, "swiss create", name="Open", rounds=5, acceleration="us-28r9") == 400
    created = await club.command(OLGA, "swiss create", name="Open", rounds=5, acceleration="us-28r2")
    assert "US Chess 28R2 acceleration" in text_of(created)
    event = (await club.bot.director.list_events(GUILD))[-1]
    assert event.settings.acceleration and event.settings.acceleration_method == "us-28r2"
    edited = await club.command(OLGA, "swiss edit", accelerated=False)
    assert "acceleration" not in text_of(edited).split("Updated")[-1]
