"""The application assembled in one place: `build` makes the context, director, scheduler, game stream and web
endpoint from the configuration and the services; the bot, the demo, the scenario runner and the tests all use it.

The services (the database, the Lichess gateway or anything with its interface, the announcer, the token vault,
the bot's Lichess token) are opened by the caller: `open_services` opens the real ones from the configuration, a
test passes its own. Everything the director needs is decided before its `Context` is built (the OAuth address,
the vault, whether the bot's token may create bulk pairings), so nothing patches the context afterwards.

The application owns the worker processes (`bot.workers`) that pair rounds and compute the standings and the
pages' tables: `App.start` makes the pool (`[director] worker_processes`), `stop` shuts it down; an application
that was built but never started (most tests) runs that work in threads.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field

from bot.clock import Clock
from bot.config import DISCORD_CLIENT_SECRET_ENV, Config, ConfigError, Secrets
from bot.director.announcer import Announcer
from bot.director.api import Director
from bot.director.bulk import bot_may_bulk
from bot.director.context import BeforePairingHook, Context
from bot.director.lichess_port import LichessPort
from bot.director.streaming import StreamFeeder
from bot.director.tables import TablesCache, warm_start
from bot.lichess.gateway import LichessGateway
from bot.scheduling import Scheduler
from bot.token_vault import TOKEN_KEY_ENV, TokenVault, VaultError
from bot.web.app import WebServer, default_route_modules
from bot.web.oauth import DiscordSignIn
from bot.web.pages.site import page_routes
from bot.workers import Workers
from storage.db import Database, open_database

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class OwnLichess:
    """A club's own Lichess account: its token's gateway (the token's own limits and pause) and the token."""

    gateway: LichessGateway
    token: str = field(repr=False)


@dataclass(frozen=True)
class Services:
    """What the application talks to; `vault` None stores no member token, `bot_token` None opens no game stream
    and creates no bulk pairing; `club_lichess`: the clubs that bring their own Lichess account, by guild id (clubs
    naming the same token share one gateway)."""

    db: Database
    lichess: LichessPort
    announcer: Announcer
    vault: TokenVault | None = None
    bot_token: str | None = field(default=None, repr=False)
    discord_client_secret: str | None = field(default=None, repr=False)  # /link's sign-in with Discord
    club_lichess: Mapping[int, OwnLichess] = field(default_factory=dict)

    async def close(self) -> None:
        """Close the gateways, then the database."""
        for gateway in {id(own.gateway): own.gateway for own in self.club_lichess.values()}.values():
            await gateway.close()
        await self.lichess.close()
        await self.db.close()


async def open_services(config: Config, secrets: Secrets, announcer: Callable[[Database], Announcer]) -> Services:
    """The real services of `swissbot run`: the database and Lichess of the configuration, the announcer made on
    the database, the vault of `SWISSBOT_TOKEN_KEY` (a bad key stops the start; no key is said in the log)."""
    try:
        vault = TokenVault.from_env()
    except VaultError as exc:
        raise ConfigError(str(exc)) from None
    if vault is None:
        log.warning(
            "%s is not set: the bot stores no member's Lichess token, so /link uses the bio code and every"
            " board is an open challenge",
            TOKEN_KEY_ENV,
        )
    elif config.web.public_url is None:
        log.warning("[web] public_url is not set: /link uses the bio code (no OAuth callback to come back to)")
    db = await open_database(config.database)
    lichess, own = open_lichess(config, secrets.lichess_token, secrets.club_tokens)
    return Services(
        db,
        lichess,
        announcer(db),
        vault,
        secrets.lichess_token,
        discord_client_secret=secrets.discord_client_secret,
        club_lichess=own,
    )


def open_lichess(
    config: Config, bot_token: str, club_tokens: Mapping[int, str]
) -> tuple[LichessGateway, dict[int, OwnLichess]]:
    """The bot's Lichess gateway and the clubs that bring their own account (`[[clubs]] lichess_token_env`), by guild
    id: which token an event's Lichess calls use (`Context.lichess_of` reads it), for the bot and `swissbot repair`
    alike. One gateway per token (Lichess keeps its limits per token); a club naming the bot's token is the bot's."""
    gateways: dict[str, LichessGateway] = {}

    def gateway(token: str) -> LichessGateway:
        if token not in gateways:
            gateways[token] = LichessGateway(
                config.lichess.base_url,
                token,
                timeout=config.lichess.timeout_seconds,
                rate_limit_pause=config.director.lichess_pause,
            )
        return gateways[token]

    lichess = gateway(bot_token)
    own = {guild_id: OwnLichess(gateway(token), token) for guild_id, token in club_tokens.items() if token != bot_token}
    return lichess, own


@dataclass
class App:
    """The assembled application: `start` asks for the worker processes (made by the first work that needs one),
    opens the game stream, the web endpoint and the scheduler (in that order), `close` stops them the other way round
    and closes the services."""

    services: Services
    director: Director
    scheduler: Scheduler
    feeder: StreamFeeder | None
    web: WebServer | None
    scheduled: bool
    _started: list[StreamFeeder | WebServer] = field(default_factory=list, repr=False)
    _closed: bool = field(default=False, repr=False)
    warming: asyncio.Task[int] | None = field(default=None, repr=False)  # the running events' tables, made at start

    @property
    def workers(self) -> Workers:
        """Where the CPU-heavy work runs (the director's)."""
        return self.director.ctx.workers

    async def start(self) -> None:
        """Ask for the worker processes (the first work sent to them makes them, off the loop), start the game
        stream, the web endpoint, then the scheduler (which runs the jobs due at once)."""
        self.workers.start()
        for part in (self.feeder, self.web):
            if part is not None:
                await part.start()
                self._started.append(part)
        # What imports and the assembly made lives as long as the process: a full garbage collection, which holds
        # the event loop for its whole walk (tens of ms per 100,000 objects), no longer walks it.
        gc.freeze()
        if self.scheduled:
            await self.scheduler.start()
        # After a restart the first reader of a running event would wait for its tie-breaks: make them now.
        self.warming = asyncio.ensure_future(warm_start(self.services.db, self.director.tables))

    async def stop(self) -> None:
        """Take no new work: stop the scheduler (its running jobs finish), the web endpoint, the game stream and the
        worker processes; the services stay open, so the announcer can still post what a finishing job says. A second
        call does nothing."""
        if self.warming is not None and not self.warming.done():
            self.warming.cancel()
            with suppress(asyncio.CancelledError):
                await self.warming
        await self.scheduler.shutdown()
        for part in reversed(self._started):
            try:
                await part.close()
            except Exception:  # closing must not hide the reason we stop
                log.exception("could not close %r", part)
        self._started.clear()
        await self.workers.close()

    async def close(self) -> None:
        """`stop`, then close the services; a second call does nothing."""
        if self._closed:
            return
        self._closed = True
        await self.stop()
        await self.services.close()


async def build(
    config: Config,
    clock: Clock,
    services: Services,
    *,
    before_pairing: BeforePairingHook | None = None,
    scheduled: bool = True,
) -> App:
    """The application over `services`: bulk pairing when the vault and the bot's token allow it, the web endpoint
    when `[web] public_url` is set, the game stream when the bot's token is given; `scheduled` False leaves the jobs
    to the caller (`app.scheduler.run_due`, or the scenario runner's own planning)."""
    bulk_pairing = False
    if services.vault is not None and services.bot_token is not None:
        problem = await bot_may_bulk(services.lichess, services.bot_token)
        if problem:
            log.warning("bulk pairing is off: %s", problem)
        bulk_pairing = problem is None
    club_bulk_pairing: set[int] = set()
    checked: dict[str, str | None] = {}
    for guild_id, own in services.club_lichess.items() if services.vault is not None else ():
        if own.token not in checked:
            checked[own.token] = await bot_may_bulk(own.gateway, own.token)
        if checked[own.token]:
            log.warning("bulk pairing is off for the club %d: %s", guild_id, checked[own.token])
        else:
            club_bulk_pairing.add(guild_id)
    workers = Workers(config.director.worker_processes)
    ctx = Context(
        services.db,
        services.lichess,
        services.announcer,
        clock,
        config.director,
        before_pairing=before_pairing,
        public_url=config.web.public_url,
        vault=services.vault,
        bulk_pairing=bulk_pairing,
        club_lichess={guild_id: own.gateway for guild_id, own in services.club_lichess.items()},
        club_bulk_pairing=frozenset(club_bulk_pairing),
        tables=TablesCache(workers),
        workers=workers,
    )
    director = Director(ctx)
    scheduler = Scheduler(director, clock)
    feeder = StreamFeeder(ctx, services.bot_token) if services.bot_token is not None else None
    web = None
    if config.web.enabled:
        signin = discord_signin(config, services.discord_client_secret)
        web = WebServer(config.web, director, [*default_route_modules(signin), page_routes(config.clubs)])
    return App(services, director, scheduler, feeder, web, scheduled)


def discord_signin(config: Config, client_secret: str | None) -> DiscordSignIn | None:
    """/link's sign-in with Discord when the bot has both its OAuth2 application's id and secret (said otherwise)."""
    client_id = config.discord.oauth_client_id
    if not client_id and not client_secret:
        return None
    if not client_id or not client_secret:
        log.warning(
            "Discord sign-in for /link is off: it needs both [discord] oauth_client_id and %s",
            DISCORD_CLIENT_SECRET_ENV,
        )
        return None
    assert config.web.public_url is not None
    return DiscordSignIn(
        client_id, client_secret, config.discord.api_url, config.web.public_url, config.director.link_code_lifetime
    )
