"""Stand-ins for what Discord would send: an Interaction that records answers, members with roles, channels.

Discord cannot be reached from tests; everything behind the interaction (the cogs, the director, SQLite,
the Lichess sandbox) is real.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord
from discord import app_commands

from bot.assembly import Services, build
from bot.config import ClubConfig, Config, WebConfig
from bot.director.api import Director
from bot.director.lichess_port import LichessPort
from bot.director.models import Actor
from bot.discord.bot import SwissBot
from bot.discord.errors import on_app_command_error
from bot.lichess.gateway import LichessGateway
from bot.lichess.memory import MemoryLichess
from bot.settings import DirectorSettings
from bot.token_vault import TokenVault
from sandbox.lichess.server import Sandbox, run_sandbox
from storage.db import Database, open_database
from tests.bot.director.director_world import InMemorySandbox
from tests.support.announcer import RecordingAnnouncer
from tests.support.clock import ManualClock

GUILD = 1000
CHANNEL = 2000
ORGANISER_ROLE = "Arbiter"
_ids = itertools.count(500)


@dataclass
class Call:
    """One answer the command gave: through `response` (first) or `followup`."""

    via: str
    method: str
    content: str | None = None
    ephemeral: bool = False
    embeds: list[discord.Embed] = field(default_factory=list)
    files: list[discord.File] = field(default_factory=list)
    thinking: bool = False


class FakeResponse:
    """`interaction.response`: one answer at most, within 3 s (a defer counts)."""

    def __init__(self, log: list[Call]) -> None:
        self.log = log
        self.done = False
        self.choices: list[app_commands.Choice[str]] = []

    def is_done(self) -> bool:
        return self.done

    def _answer(self) -> None:
        assert not self.done, "an interaction can be answered only once"
        self.done = True

    async def defer(self, *, ephemeral: bool = False, thinking: bool = False) -> None:
        self._answer()
        self.log.append(Call("response", "defer", ephemeral=ephemeral, thinking=thinking))

    async def autocomplete(self, choices: list[app_commands.Choice[str]]) -> None:
        self._answer()
        assert len(choices) <= 25
        self.log.append(Call("response", "autocomplete", ", ".join(c.name for c in choices)))
        self.choices = choices

    async def send_message(self, content: str | None = None, *, ephemeral: bool = False, **kwargs: Any) -> None:
        self._answer()
        self.log.append(Call("response", "send_message", content, ephemeral, kwargs.get("embeds", [])))


class FakeFollowup:
    """`interaction.followup`: messages after a deferral."""

    def __init__(self, log: list[Call], response: FakeResponse) -> None:
        self.log = log
        self.response = response

    async def send(self, content: Any = None, *, ephemeral: bool = False, **kwargs: Any) -> None:
        assert self.response.done, "a followup needs a deferral or a first answer"
        files = list(kwargs.get("files", [])) + ([kwargs["file"]] if "file" in kwargs else [])
        text = None if content is discord.utils.MISSING else content
        self.log.append(Call("followup", "send", text, ephemeral, list(kwargs.get("embeds", [])), files))


@dataclass
class FakeRole:
    id: int
    name: str


@dataclass
class FakeMember:
    id: int
    display_name: str
    roles: list[FakeRole] = field(default_factory=list)


class FakeInteraction:
    """What discord.py hands a command callback, reduced to what the cogs touch."""

    def __init__(self, bot: SwissBot, user: FakeMember, *, guild_id: int | None = GUILD) -> None:
        self.client = bot
        self.user = user
        self.guild_id = guild_id
        self.channel_id = CHANNEL
        self.calls: list[Call] = []
        self.response = FakeResponse(self.calls)
        self.followup = FakeFollowup(self.calls, self.response)
        self.command: Any = None
        self.namespace = SimpleNamespace()

    @property
    def answers(self) -> list[Call]:
        """Every message sent (deferrals left out)."""
        return [call for call in self.calls if call.method != "defer"]

    @property
    def text(self) -> str:
        """The content of every message sent, joined."""
        return "\n".join(call.content or "" for call in self.answers)


def member(name: str, *, organiser: bool = False, discord_id: int | None = None) -> FakeMember:
    """A guild member, with the club's organiser role or not."""
    roles = [FakeRole(1, "@everyone")] + ([FakeRole(77, ORGANISER_ROLE)] if organiser else [])
    return FakeMember(discord_id or next(_ids), name, roles)


def find_command(bot: SwissBot, path: str) -> app_commands.Command[Any, ..., Any]:
    """A command by its path ('join', 'swiss create')."""
    names = path.split()
    command = bot.tree.get_command(names[0])
    for name in names[1:]:
        assert isinstance(command, app_commands.Group)
        command = command.get_command(name)
    assert isinstance(command, app_commands.Command), path
    return command


async def invoke(bot: SwissBot, path: str, interaction: FakeInteraction, **options: Any) -> FakeInteraction:
    """Run a command's callback as the tree would, errors going to the tree's error handler."""
    command = find_command(bot, path)
    interaction.command = command
    interaction.namespace = SimpleNamespace(**options)
    try:
        await command.callback(command.binding, interaction, **options)  # type: ignore[arg-type]
    except Exception as error:
        wrapped = (
            error
            if isinstance(error, app_commands.AppCommandError)
            else app_commands.CommandInvokeError(command, error)
        )
        await on_app_command_error(interaction, wrapped)  # type: ignore[arg-type]
    return interaction


@dataclass
class Env:
    """A bot on a real director: SQLite file, the local Lichess (in memory, or over HTTP), a manual clock."""

    bot: SwissBot
    director: Director
    sandbox: Sandbox | InMemorySandbox
    clock: ManualClock
    announcer: RecordingAnnouncer
    db: Database
    organiser: FakeMember

    def interaction(self, user: FakeMember, **kwargs: Any) -> FakeInteraction:
        return FakeInteraction(self.bot, user, **kwargs)

    async def run(self, path: str, user: FakeMember, **options: Any) -> FakeInteraction:
        return await invoke(self.bot, path, self.interaction(user), **options)

    async def linked(self, name: str, rating: int = 1500, **account: Any) -> FakeMember:
        """A member whose Lichess account is linked (through the director's bio code)."""
        user = member(name)
        self.sandbox.add_user(name, rating=rating, **account)
        actor = Actor(user.id, user.display_name)
        challenge = await self.director.start_link(actor, name)
        self.sandbox.state.users[name.lower()].bio = challenge.code
        await self.director.complete_link(actor)
        return user


@asynccontextmanager
async def local_lichess(*, autoplay: bool, http: bool) -> AsyncIterator[tuple[Sandbox | InMemorySandbox, LichessPort]]:
    """The local Lichess with seed 11: served on loopback behind the real gateway (`http`), or in memory."""
    if not http:
        memory = MemoryLichess(seed=11, autoplay=autoplay)
        try:
            yield InMemorySandbox(memory.base_url, memory.state), memory
        finally:
            await memory.close()
        return
    async with run_sandbox(seed=11, autoplay=autoplay) as sandbox:
        gateway = LichessGateway(sandbox.url, sandbox.bot_token, rate_limit_pause=0.05, retry_backoff=0.01, timeout=5.0)
        try:
            yield sandbox, gateway
        finally:
            await gateway.close()


@asynccontextmanager
async def make_env(
    tmp_path: Path,
    *,
    autoplay: bool = False,
    http: bool = False,
    settings: DirectorSettings | None = None,
    oauth: bool = False,
) -> AsyncIterator[Env]:
    """A bot wired to a real director over a fresh database and local Lichess (in memory unless `http`; `oauth`: a
    public address and a key, so /link goes through Lichess's OAuth page)."""
    async with local_lichess(autoplay=autoplay, http=http) as (sandbox, gateway):
        db = await open_database(tmp_path / "swiss.sqlite3")
        clock = ManualClock()
        announcer = RecordingAnnouncer()
        config = Config(
            database=tmp_path / "swiss.sqlite3",
            clubs=(ClubConfig(GUILD, ORGANISER_ROLE, CHANNEL),),
            director=settings or DirectorSettings(),
            web=WebConfig(port=0, public_url="http://bot.test") if oauth else WebConfig(),
        )
        vault = TokenVault(TokenVault.new_key()) if oauth else None
        app = await build(config, clock, Services(db, gateway, announcer, vault), scheduled=False)
        bot = SwissBot(config, app=app, clock=clock)
        await bot.setup_hook()
        try:
            yield Env(bot, app.director, sandbox, clock, announcer, db, member("Org", organiser=True))
        finally:
            await bot.close()


# --- a channel and a client for the announcer ------------------------------------------------------

_message_ids = itertools.count(9_000)


@dataclass
class Posted:
    """A message the bot posted, with every later edit."""

    id: int
    channel: FakeChannel
    content: str | None
    embeds: list[discord.Embed]
    files: list[discord.File]
    view: discord.ui.View | None
    allowed_mentions: discord.AllowedMentions | None
    edits: list[dict[str, Any]] = field(default_factory=list)
    deleted: bool = False


class FakePartialMessage:
    """`channel.get_partial_message(id)`: editing works while the message exists."""

    def __init__(self, channel: FakeChannel, message_id: int) -> None:
        self.channel = channel
        self.id = message_id

    async def edit(self, **kwargs: Any) -> None:
        posted = self.channel.by_id.get(self.id)
        if posted is None or posted.deleted:
            response: Any = SimpleNamespace(status=404, reason="Not Found")
            raise discord.NotFound(response, {"code": 10008, "message": "Unknown Message"})
        posted.edits.append(kwargs)
        if "embeds" in kwargs:
            posted.embeds = kwargs["embeds"]


class FakeChannel:
    """A text channel that keeps what the bot sends."""

    def __init__(self, channel_id: int, *, fail: bool = False) -> None:
        self.id = channel_id
        self.posted: list[Posted] = []
        self.by_id: dict[int, Posted] = {}
        self.fail = fail

    async def send(self, content: str | None = None, **kwargs: Any) -> Posted:
        if self.fail:
            response: Any = SimpleNamespace(status=403, reason="Forbidden")
            raise discord.Forbidden(response, {"code": 50013, "message": "Missing Permissions"})
        files = list(kwargs.get("files", [])) + ([kwargs["file"]] if "file" in kwargs else [])
        posted = Posted(
            next(_message_ids),
            self,
            content,
            list(kwargs.get("embeds", [])),
            files,
            kwargs.get("view"),
            kwargs.get("allowed_mentions"),
        )
        self.posted.append(posted)
        self.by_id[posted.id] = posted
        return posted

    def get_partial_message(self, message_id: int) -> FakePartialMessage:
        return FakePartialMessage(self, message_id)


class FakeUser:
    def __init__(self, user_id: int, *, closed: bool = False) -> None:
        self.id = user_id
        self.closed = closed
        self.dms: list[str] = []

    async def send(self, content: str, **kwargs: Any) -> None:
        if self.closed:
            response: Any = SimpleNamespace(status=403, reason="Forbidden")
            raise discord.Forbidden(response, {"code": 50007, "message": "Cannot send messages to this user"})
        self.dms.append(content)


class FakeClient:
    """The announcer's view of the bot: channels and users by id."""

    def __init__(self, *channels: FakeChannel) -> None:
        self.channels = {channel.id: channel for channel in channels}
        self.users: dict[int, FakeUser] = {}

    def get_channel(self, channel_id: int) -> FakeChannel | None:
        return self.channels.get(channel_id)

    async def fetch_channel(self, channel_id: int) -> FakeChannel:
        response: Any = SimpleNamespace(status=404, reason="Not Found")
        raise discord.NotFound(response, {"code": 10003, "message": "Unknown Channel"})

    def get_user(self, user_id: int) -> FakeUser:
        return self.users.setdefault(user_id, FakeUser(user_id))

    async def fetch_user(self, user_id: int) -> FakeUser:
        return self.get_user(user_id)
