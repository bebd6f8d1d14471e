"""`swissbot local-club`: the local Discord and the local Lichess in one process, with a club in them, and the config
file and tokens `swissbot run` starts on (README, *Try it as a club*)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import shlex
import signal
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from bot.cli import COMMANDS
from bot.cli.exit_codes import ExitCode, describe
from bot.cli.listening import DISCORD_SANDBOX_PORT, LICHESS_SANDBOX_PORT, cannot_listen, is_listen_error
from bot.token_vault import TOKEN_KEY_ENV

if TYPE_CHECKING:
    from sandbox.discord.state import DiscordState

T = TypeVar("T")

EXITS = {
    ExitCode.OK: "stopped",
    ExitCode.USAGE: "an invalid port",
    ExitCode.UNWRITABLE: "the folder or its files cannot be written",
    ExitCode.NO_DATABASE: "the folder's database cannot be used",
    ExitCode.CANNOT_LISTEN: "a local service cannot listen on its port",
}

GUILD_ID = 900000000000000001
CHANNEL_ID = 900000000000000011
ORGANISER_ROLE_ID = 900000000000000021
ORGANISER_ROLE = "Organiser"
MANAGE_EVENTS = 1 << 33  # what /swiss and /arbiter ask of a member, before the bot checks the organiser role
ORGANISER = "olga"
UNLINKED = "heidi"  # the member who shows /link (bio code)
PLAYERS = (
    ("alice", 1850),
    ("bob", 1720),
    ("carol", 1640),
    ("dave", 1580),
    ("erin", 1530),
    ("frank", 1470),
    ("grace", 1410),
    (UNLINKED, 1350),
)
FIRST_USER_ID = 910000000000000001
WEB_PORT = 8081  # `[web] port`'s default: the bot's pages and /link's sign-in, served by `swissbot run`
CLUB_FILE = "club.json"  # what `swissbot member` reads: where the local Discord is, the server, the members' ids


@dataclass(frozen=True)
class LocalClub:
    """The club's folder and the two services' addresses."""

    folder: Path
    discord_url: str
    discord_token: str
    lichess_url: str
    lichess_token: str
    web_host: str = "127.0.0.1"
    web_port: int = WEB_PORT

    @property
    def web_url(self) -> str:
        """Where `swissbot run` serves the club's pages and /link's sign-in (`[web] public_url`)."""
        return f"http://{self.web_host}:{self.web_port}"

    @property
    def config(self) -> Path:
        """The config file `swissbot run --config` takes."""
        return self.folder / "config.toml"

    @property
    def env(self) -> Path:
        """The tokens as `export` lines."""
        return self.folder / "env"


def members() -> dict[str, int]:
    """Every member's Discord user id by name: the organiser first, then the players."""
    names = [ORGANISER, *(name for name, _ in PLAYERS)]
    return {name: FIRST_USER_ID + index for index, name in enumerate(names)}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `local-club` subcommand."""
    parser = sub.add_parser(
        "local-club",
        help=COMMANDS["local-club"],
        description="Start the local Discord and the local Lichess (simulated players play every game) with a "
        f"club: the server 'Chess Club', its channel #tournaments, the role {ORGANISER_ROLE!r}, the organiser "
        f"{ORGANISER} and eight members linked to their Lichess accounts of the same name (all but {UNLINKED}). "
        "Writes FOLDER/config.toml (with the bot's web endpoint on --web-port: the club's pages and /link's sign-in on "
        "the local Lichess) and FOLDER/env (the tokens and the members' token key as export lines) for `swissbot "
        "sync` and `swissbot run`, and FOLDER/club.json for `swissbot member`. Runs until Ctrl-C. " + describe(EXITS),
    )
    parser.add_argument("--dir", type=Path, default=Path("local-club"), help="the club's folder (default local-club)")
    parser.add_argument("--host", default="127.0.0.1", help="address both services listen on (default 127.0.0.1)")
    parser.add_argument(
        "--discord-port",
        type=int,
        default=DISCORD_SANDBOX_PORT,
        help=f"the local Discord's port (default {DISCORD_SANDBOX_PORT}; 0 picks a free one)",
    )
    parser.add_argument(
        "--lichess-port",
        type=int,
        default=LICHESS_SANDBOX_PORT,
        help=f"the local Lichess's port (default {LICHESS_SANDBOX_PORT}; 0 picks a free one)",
    )
    parser.add_argument(
        "--autoplay-delay",
        type=float,
        default=3.0,
        help="seconds from a challenge to the end of its game (default 3)",
    )
    parser.add_argument(
        "--web-port",
        type=int,
        default=WEB_PORT,
        help=f"the port `swissbot run` serves the club's pages and /link's sign-in on, [web] port (default {WEB_PORT})",
    )
    parser.add_argument("--seed", type=int, default=None, help="make every game's course reproducible")
    parser.set_defaults(handler=run)


class _CannotListen(Exception):
    """A service could not listen: the sentence to print."""


async def _enter(
    stack: contextlib.AsyncExitStack,
    service: contextlib.AbstractAsyncContextManager[T],
    option: str,
    host: str,
    port: int,
) -> T:
    """Start a service on the stack; an address it cannot take becomes one sentence naming `option`."""
    try:
        return await stack.enter_async_context(service)
    except OSError as error:
        if not is_listen_error(error):
            raise
        raise _CannotListen(
            cannot_listen("local-club", host, port, error, f"start it with another {option}")
        ) from error


def set_up_discord(state: DiscordState) -> None:
    """The club's server on the local Discord: a channel, the organiser role, the organiser and the players."""
    from sandbox.discord.state import User

    ids = members()
    guild = state.add_guild(GUILD_ID, "Chess Club", owner_id=ids[ORGANISER])
    state.add_channel(guild, CHANNEL_ID, "tournaments")
    state.add_role(guild, ORGANISER_ROLE_ID, ORGANISER_ROLE, MANAGE_EVENTS)
    for name, user_id in ids.items():
        roles = [ORGANISER_ROLE_ID] if name == ORGANISER else []
        state.add_member(guild, User(user_id, name), roles)


async def link_members(database: Path) -> None:
    """Link every player but heidi to the Lichess account of the same name in the bot's database (as a finished
    `/link` would); a member linked already stays as they are."""
    from storage import players
    from storage.db import open_database
    from storage.errors import AccountTaken

    db = await open_database(database)
    try:
        now = datetime.now(UTC)
        ids = members()
        for name, _ in PLAYERS:
            if name == UNLINKED:
                continue
            await players.ensure_player(db, ids[name], name, at=now)
            with contextlib.suppress(AccountTaken):  # linked already (to this account or, by hand, another)
                await players.link_account(db, ids[name], name, at=now, actor="swissbot local-club")
    finally:
        await db.close()


def config_text(club: LocalClub) -> str:
    """The config file of the club, for `swissbot run` (tokens in the env file, never here)."""
    return f"""# Written by `swissbot local-club`: a club on the local Discord and the local Lichess
# (README, "Try it as a club"). Tokens come from the environment: `. {club.env}` first. Every key: config.example.toml.

[bot]
database = "swissbot.sqlite3"

[discord]
api_url = "{club.discord_url}"

[lichess]
base_url = "{club.lichess_url}"

[director]
poll_interval = 5.0
default_round_interval_minutes = 1.0
default_noshow_minutes = 3.0

[web]
host = "{club.web_host}"
port = {club.web_port}
public_url = "{club.web_url}"

[[clubs]]
guild_id = {GUILD_ID}
organiser_role = "{ORGANISER_ROLE}"
channel_id = {CHANNEL_ID}
name = "Chess Club"
public = true
"""


def token_key(env: Path) -> str:
    """The key of the members' stored Lichess tokens: the env file's own when it has one (a new key would make the
    tokens of members who linked through Lichess unreadable), else a new one."""
    from cryptography.fernet import Fernet

    with contextlib.suppress(OSError):
        for line in env.read_text().splitlines():
            if line.startswith(f"export {TOKEN_KEY_ENV}="):
                return shlex.split(line.split("=", 1)[1])[0]
    return Fernet.generate_key().decode()


def write_files(club: LocalClub) -> None:
    """config.toml, env and club.json in the club's folder."""
    club.folder.mkdir(parents=True, exist_ok=True)
    club.config.write_text(config_text(club))
    tokens = {
        "DISCORD_TOKEN": club.discord_token,
        "LICHESS_TOKEN": club.lichess_token,
        TOKEN_KEY_ENV: token_key(club.env),
    }
    club.env.write_text("".join(f"export {name}={shlex.quote(value)}\n" for name, value in tokens.items()))
    about = {
        "discord_url": club.discord_url,
        "lichess_url": club.lichess_url,
        "guild_id": str(GUILD_ID),
        "channel_id": str(CHANNEL_ID),
        "members": {name: str(user_id) for name, user_id in members().items()},
    }
    (club.folder / CLUB_FILE).write_text(json.dumps(about, indent=2) + "\n")


def banner(club: LocalClub) -> str:
    """What the command prints once both services run: where they are, the club, the next commands."""
    players = ", ".join(name for name, _ in PLAYERS)
    server = f'server "Chess Club" ({GUILD_ID}), channel #tournaments, role {ORGANISER_ROLE}'
    return f"""Local Discord at {club.discord_url}: {server}
Local Lichess at {club.lichess_url}: simulated players play every game they are challenged to
The club's pages and /link's sign-in on Lichess: {club.web_url}/ (served by `swissbot run`)
Members: {ORGANISER} (organiser), {players} (all but {UNLINKED} linked to the Lichess account of the same name)
Wrote {club.config}, {club.env} and {club.folder / CLUB_FILE}
In another terminal:
  . {club.env}
  swissbot sync --config {club.config} --guild {GUILD_ID}
  swissbot run --config {club.config}
Then type as a member: swissbot member --dir {club.folder} {ORGANISER} /swiss create name:"Club Night" rounds:3
Ctrl-C stops."""


async def serve(args: argparse.Namespace) -> None:
    """Start both services, set up the club, write its files, and wait for a stop signal."""
    from sandbox.discord import run_discord_sandbox
    from sandbox.lichess import run_sandbox

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):  # not on Windows
            loop.add_signal_handler(signum, stop.set)
    async with contextlib.AsyncExitStack() as stack:
        discord_service = run_discord_sandbox(args.host, args.discord_port, args.seed)
        local_discord = await _enter(stack, discord_service, "--discord-port", args.host, args.discord_port)
        lichess_service = run_sandbox(
            host=args.host, port=args.lichess_port, seed=args.seed, autoplay=True, autoplay_delay=args.autoplay_delay
        )
        local_lichess = await _enter(stack, lichess_service, "--lichess-port", args.host, args.lichess_port)
        set_up_discord(local_discord.state)
        for name, rating in PLAYERS:
            local_lichess.add_user(name, rating=rating)
        club = LocalClub(
            args.dir,
            local_discord.url,
            local_discord.token,
            local_lichess.url,
            local_lichess.bot_token,
            args.host,
            args.web_port,
        )
        write_files(club)
        await link_members(args.dir / "swissbot.sqlite3")
        print(banner(club), flush=True)
        await stop.wait()
    print("Local club stopped.", flush=True)


def run(args: argparse.Namespace) -> ExitCode:
    """Run the local club until stopped; the exit code."""
    from storage.errors import DatabaseError, DatabaseUnavailable

    # 0 lets a local service pick a free port; the web port is written in the config, so it must be a real one
    for port, lowest in ((args.discord_port, 0), (args.lichess_port, 0), (args.web_port, 1)):
        if not lowest <= port <= 65535:
            print(f"swissbot local-club: invalid port {port}", file=sys.stderr)
            return ExitCode.USAGE
    try:
        asyncio.run(serve(args))
    except _CannotListen as error:
        print(error, file=sys.stderr)
        return ExitCode.CANNOT_LISTEN
    except (DatabaseUnavailable, DatabaseError) as error:
        print(f"swissbot local-club: {error}", file=sys.stderr)
        return ExitCode.NO_DATABASE
    except OSError as error:
        print(f"swissbot local-club: cannot write {args.dir}: {error.strerror or error}", file=sys.stderr)
        return ExitCode.UNWRITABLE
    except KeyboardInterrupt:
        pass
    return ExitCode.OK
