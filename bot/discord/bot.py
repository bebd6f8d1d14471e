"""The discord.py bot: `setup_hook` builds the application (`bot.assembly`), the cogs and the persistent Join button."""

from __future__ import annotations

import asyncio
import logging

import discord
import yarl
from discord.ext import commands
from discord.gateway import DiscordWebSocket
from discord.http import Route

from bot.assembly import App, build, open_services
from bot.clock import Clock, SystemClock
from bot.config import DISCORD_URL, Config, ConfigError, Secrets
from bot.director.api import Director
from bot.director.context import BeforePairingHook
from bot.discord.announcer import DiscordAnnouncer
from bot.discord.autocomplete import EventCache
from bot.discord.cogs.arbiter import ArbiterCog
from bot.discord.cogs.fide import FideCog
from bot.discord.cogs.member import MemberCog
from bot.discord.cogs.organiser import OrganiserCog
from bot.discord.components import JoinButton
from bot.discord.errors import on_app_command_error
from domain.event import Event

log = logging.getLogger(__name__)

# discord.py's DEBUG lines carry gateway events and request routes with interaction tokens (each lets anyone answer
# that interaction for 15 minutes): kept out of even a DEBUG-level log.
QUIET_LOGGERS = ("discord.gateway", "discord.http", "discord.webhook.async_", "discord.client", "discord.state")


def _above_debug(record: logging.LogRecord) -> bool:
    return record.levelno > logging.DEBUG


for _name in QUIET_LOGGERS:
    logging.getLogger(_name).addFilter(_above_debug)  # a filter, not a level: "discord" at WARNING still rules


REQUIRED_PERMISSIONS = ("view_channel", "send_messages", "embed_links", "attach_files", "read_message_history")


def intents() -> discord.Intents:
    """Slash commands need only the default intents (no privileged ones)."""
    return discord.Intents.default()


def point_at(api_url: str) -> None:
    """discord.py's REST base for this Discord (`[discord] api_url`); the interaction webhooks follow it."""
    Route.BASE = f"{api_url.rstrip('/')}/api/v10"


class SwissBot(commands.Bot):
    """The club's tournament bot. Construct it offline; `setup_hook` (at login) opens everything.

    With `commands_only` the bot registers its commands and nothing else (syncing, payloads).
    """

    def __init__(
        self,
        config: Config,
        secrets: Secrets | None = None,
        *,
        app: App | None = None,
        clock: Clock | None = None,
        commands_only: bool = False,
        before_pairing: BeforePairingHook | None = None,
    ) -> None:
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False  # no voice here: no warning
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents(),
            help_command=None,
            allowed_mentions=discord.AllowedMentions.none(),  # a message pings only whom it names (`replies.pinging`)
        )
        self.config = config
        self.secrets = secrets
        self.clock = clock or SystemClock()
        self._app = app
        self._shutdown: asyncio.Task[None] | None = None
        self.events = EventCache(self._load_events)
        self.tree.on_error = on_app_command_error  # type: ignore[method-assign]
        self.startup_problems: list[str] = []
        self._checked_channels = False
        self.commands_only = commands_only
        self.before_pairing = before_pairing  # the demo's scripted members act here (set before any job runs)
        point_at(config.discord.api_url)

    @property
    def app(self) -> App:
        """The application (built in `setup_hook`, or given at construction)."""
        if self._app is None:
            raise RuntimeError("the bot has no application yet (setup_hook builds it at login)")
        return self._app

    @property
    def director(self) -> Director:
        """The application's director."""
        return self.app.director

    async def _load_events(self, guild_id: int) -> list[Event]:
        return await self.director.list_events(guild_id)

    async def add_commands(self) -> None:
        """Register the member commands, the /swiss and /arbiter groups (no network: syncing is a separate step)."""
        if self.get_cog("Members") is None:
            await self.add_cog(MemberCog(self))
        if self.get_cog("OrganiserCog") is None:
            await self.add_cog(OrganiserCog(self))
        if self.get_cog("ArbiterCog") is None:
            await self.add_cog(ArbiterCog(self))
        if self.get_cog("Fide") is None:
            await self.add_cog(FideCog(self))

    async def build_app(self) -> App:
        """The application of `swissbot run`: the configured database and Lichess, the Discord announcer."""
        if self.secrets is None:
            raise ConfigError("the bot needs its tokens (DISCORD_TOKEN, LICHESS_TOKEN) to run")
        services = await open_services(self.config, self.secrets, lambda db: DiscordAnnouncer(self, db, self.config))
        try:
            app = await build(self.config, self.clock, services, before_pairing=self.before_pairing)
        except BaseException:
            await services.close()
            raise
        if isinstance(services.announcer, DiscordAnnouncer):
            services.announcer.director = app.director  # the crosstable at an event's end
        return app

    async def setup_hook(self) -> None:
        """At login: the application (started), the commands, the Join button for every event (rebuilt from its id)."""
        if self.config.discord.api_url != DISCORD_URL:
            # Another Discord (a local one): its gateway is where its /gateway/bot says, as Discord's docs advise.
            _, gateway, _ = await self.http.get_bot_gateway()
            DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)
        if self.commands_only:  # `swissbot sync`: the commands are all it needs
            await self.add_commands()
            return
        if self._app is None:
            self._app = await self.build_app()
        await self.add_commands()
        self.add_dynamic_items(JoinButton)
        self.app.director.add_listener(self.events.invalidate)
        await self.app.start()

    async def on_ready(self) -> None:
        """Once connected: check that every configured channel takes the bot's messages."""
        if self._checked_channels:
            return
        self._checked_channels = True
        self.startup_problems = channel_problems(self, self.config)
        for problem in self.startup_problems:
            log.critical("%s", problem)
        if self.startup_problems:
            await self.close()
            return
        log.info("ready as %s in %d server(s)", self.user, len(self.guilds))

    async def close(self) -> None:
        """A graceful stop: no new work and the running jobs finish (`App.stop`), then Discord closes, then the
        services (Lichess, the database): a job still posting a notice never meets a closed Discord session. Every
        caller (a SIGTERM, the end of `async with`) waits for the one stop, so none returns before the database is
        closed (an open aiosqlite thread would keep the process alive)."""
        if self._shutdown is None:
            self._shutdown = asyncio.ensure_future(self._stop_everything())
        await asyncio.shield(self._shutdown)

    async def _stop_everything(self) -> None:
        if self._app is not None:
            await self._app.stop()
        await super().close()
        if self._app is not None:
            await self._app.close()


def channel_problems(client: discord.Client, config: Config) -> list[str]:
    """Why the bot could not post in a configured club channel (one line each; empty when all is well)."""
    problems = []
    for club in config.clubs:
        guild = client.get_guild(club.guild_id)
        if guild is None:
            problems.append(f"the bot is not in the server {club.guild_id} ([[clubs]] guild_id): invite it first")
            continue
        channel = guild.get_channel(club.channel_id)
        if channel is None:
            problems.append(f"no channel {club.channel_id} in the server {guild.name} ([[clubs]] channel_id)")
            continue
        permissions = channel.permissions_for(guild.me)
        missing = [name for name in REQUIRED_PERMISSIONS if not getattr(permissions, name)]
        if missing:
            names = ", ".join(name.replace("_", " ") for name in missing)
            problems.append(f"the bot cannot post in #{channel.name} of {guild.name}: it lacks {names}")
    return problems
