"""The discord.py bot: `setup_hook` builds the director, the cogs and the persistent Join button."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
import yarl
from discord.ext import commands
from discord.gateway import DiscordWebSocket
from discord.http import Route

from bot.clock import Clock, SystemClock
from bot.config import DISCORD_URL, Config, ConfigError, Secrets
from bot.director.api import Director
from bot.discord.announcer import DiscordAnnouncer
from bot.discord.autocomplete import EventCache
from bot.discord.cogs.member import MemberCog
from bot.discord.cogs.organiser import OrganiserCog
from bot.discord.errors import on_app_command_error
from bot.discord.views import JoinButton
from bot.scheduling import Scheduler
from domain.event import Event

if TYPE_CHECKING:
    from bot.director.context import BeforePairingHook
    from bot.director.streaming import StreamFeeder

log = logging.getLogger(__name__)

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
        director: Director | None = None,
        clock: Clock | None = None,
        commands_only: bool = False,
        before_pairing: BeforePairingHook | None = None,
    ) -> None:
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False  # no voice here: no warning
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents(),
            help_command=None,
            allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=True),
        )
        self.config = config
        self.secrets = secrets
        self.clock = clock or SystemClock()
        self._director = director
        self.events = EventCache(self._load_events)
        self.tree.on_error = on_app_command_error  # type: ignore[method-assign]
        self.startup_problems: list[str] = []
        self._owned: list[Any] = []
        self._checked_channels = False
        self.commands_only = commands_only
        self.before_pairing = before_pairing  # the demo's scripted members act here (set before any job runs)
        self.scheduler: Scheduler | None = None
        self.web: Any = None  # bot.web.app.WebServer once started (imported only when [web] is on)
        self.feeder: StreamFeeder | None = None  # the Lichess game stream, once logged in
        point_at(config.discord.api_url)

    @property
    def director(self) -> Director:
        """The director (built in `setup_hook`, or given at construction)."""
        if self._director is None:
            raise RuntimeError("the bot has no director yet (setup_hook builds it at login)")
        return self._director

    async def _load_events(self, guild_id: int) -> list[Event]:
        return await self.director.list_events(guild_id)

    async def add_commands(self) -> None:
        """Register the member commands and the /swiss group (no network: syncing is a separate step)."""
        if self.get_cog("Members") is None:
            await self.add_cog(MemberCog(self))
        if self.get_cog("OrganiserCog") is None:
            await self.add_cog(OrganiserCog(self))

    async def build_director(self) -> Director:
        """Open the database and the Lichess gateway, and build the director with the Discord announcer."""
        from bot.lichess.gateway import LichessGateway
        from storage.db import open_database

        if self.secrets is None:
            raise ConfigError("the bot needs its tokens (DISCORD_TOKEN, LICHESS_TOKEN) to run")
        db = await open_database(self.config.database)
        self._owned.append(db)
        lichess = LichessGateway(
            self.config.lichess.base_url,
            self.secrets.lichess_token,
            timeout=self.config.lichess.timeout_seconds,
            rate_limit_pause=self.config.director.lichess_pause,
        )
        self._owned.append(lichess)
        announcer = DiscordAnnouncer(self, db, self.config)
        director = Director(db, lichess, announcer, self.clock, self.config.director)
        director.ctx.before_pairing = self.before_pairing
        announcer.director = director
        await self.setup_linking(director)
        return director

    async def setup_linking(self, director: Director) -> None:
        """OAuth linking and bulk pairing: the token key, the public address, the bot token's scope (said at start)."""
        from bot.director.bulk import bot_may_bulk
        from bot.token_vault import TOKEN_KEY_ENV, TokenVault, VaultError

        try:
            director.ctx.vault = TokenVault.from_env()
        except VaultError as exc:
            raise ConfigError(str(exc)) from None
        director.ctx.public_url = self.config.web.public_url
        if director.ctx.vault is None:
            log.warning(
                "%s is not set: the bot stores no member's Lichess token, so /link uses the bio code and every"
                " board is an open challenge",
                TOKEN_KEY_ENV,
            )
        elif director.ctx.public_url is None:
            log.warning("[web] public_url is not set: /link uses the bio code (no OAuth callback to come back to)")
        if self.secrets is not None and director.ctx.vault is not None:
            problem = await bot_may_bulk(director.ctx, self.secrets.lichess_token)
            if problem:
                log.warning("bulk pairing is off: %s", problem)

    async def setup_hook(self) -> None:
        """At login: the director, the commands, the Join button for every event (rebuilt from its id)."""
        if self.config.discord.api_url != DISCORD_URL:
            # Another Discord (a local one): its gateway is where its /gateway/bot says, as Discord's docs advise.
            _, gateway, _ = await self.http.get_bot_gateway()
            DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)
        if self.commands_only:  # `swissbot sync`: the commands are all it needs
            await self.add_commands()
            return
        built = self._director is None
        if self._director is None:
            self._director = await self.build_director()
        director = self._director
        await self.add_commands()
        self.add_dynamic_items(JoinButton)
        if built and self.secrets is not None:
            from bot.director.streaming import StreamFeeder

            self.feeder = StreamFeeder(director.ctx, self.secrets.lichess_token)
            await self.feeder.start()
            self._owned.append(self.feeder)
        if self.config.web.enabled and self.web is None:
            from bot.pages.site import page_routes
            from bot.web.app import WebServer, default_route_modules

            routes = [*default_route_modules(), page_routes(self.config.clubs)]
            self.web = WebServer(self.config.web, director, routes)
            await self.web.start()
            self._owned.append(self.web)
        if built:
            self.scheduler = Scheduler(director, self.clock)
            await self.scheduler.start()  # it takes director.ctx.on_change to rebuild its jobs
        rebuild = director.ctx.on_change
        events = self.events

        def changed() -> None:
            events.invalidate()
            if rebuild is not None:
                rebuild()

        director.ctx.on_change = changed

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
        """Close Discord, then the scheduler, the gateway and the database."""
        await super().close()
        if self.scheduler is not None:
            await self.scheduler.shutdown()
            self.scheduler = None
        for resource in reversed(self._owned):
            try:
                await resource.close()
            except Exception:  # closing must not hide the reason we stop
                log.exception("could not close %r", resource)
        self._owned.clear()
        self.web = None


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
