"""`swissbot run --config config.toml`: the real bot (tokens from the environment)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from pathlib import Path

import aiohttp
import discord

from bot.cli import COMMANDS, preflight
from bot.cli.exit_codes import ExitCode, describe
from bot.cli.listening import cannot_listen, is_listen_error
from bot.config import Config, ConfigError, Secrets, load_config, load_secrets
from bot.discord.bot import SwissBot
from storage.errors import DatabaseError, DatabaseUnavailable

log = logging.getLogger(__name__)

EXITS = {
    ExitCode.OK: "stopped",
    ExitCode.NO_DATABASE: "the database cannot be used",
    ExitCode.CONFIG: "a bad configuration or token (Discord's or Lichess's), an organiser role missing from its "
    "server, or a configured channel unusable",
    ExitCode.UNREACHABLE: "Discord cannot be reached or refused the start",
    ExitCode.CANNOT_LISTEN: "the web endpoint cannot listen on [web] host and port",
}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `run` subcommand."""
    parser = sub.add_parser(
        "run",
        help=COMMANDS["run"],
        description="Run the bot. DISCORD_TOKEN and LICHESS_TOKEN come from the environment; "
        "everything else from the TOML file (see config.example.toml). " + describe(EXITS),
    )
    parser.add_argument("--config", type=Path, default=Path("config.toml"), help="the TOML file (default config.toml)")
    parser.set_defaults(handler=run)


def setup_logging(level: str) -> None:
    """Log to stderr at the configured level (discord.py's own chatter at WARNING unless DEBUG)."""
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)-7s %(name)s: %(message)s", stream=sys.stderr)
    if level != "DEBUG":
        logging.getLogger("discord").setLevel(logging.WARNING)


async def serve(config: Config, secrets: Secrets) -> ExitCode:
    """Check the clubs and tokens, then run until stopped; CONFIG when something is half-configured."""
    found = await preflight.problems(config, secrets)
    for problem in found:
        print(f"swissbot run: {problem}", file=sys.stderr)
    if found:
        return ExitCode.CONFIG
    bot = SwissBot(config, secrets)
    stopping: set[asyncio.Task[None]] = set()

    def stop_gracefully() -> None:
        log.info("SIGTERM: stopping (the running jobs finish first)")
        task = asyncio.create_task(bot.close())
        stopping.add(task)
        task.add_done_callback(stopping.discard)

    # a service manager (systemd, docker, a script's `kill`) stops with SIGTERM: the same graceful stop as Ctrl-C
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop_gracefully)
    async with bot:
        await bot.start(secrets.discord_token)
    await bot.close()  # discord.py's `async with` waits only for its own part of a close already under way
    log.info("stopped")
    return ExitCode.CONFIG if bot.startup_problems else ExitCode.OK


def run(args: argparse.Namespace) -> ExitCode:
    """Load the configuration, then run the bot."""
    try:
        config = load_config(args.config)
        secrets = load_secrets(clubs=config.clubs)
    except ConfigError as error:
        print(f"swissbot run: {error}", file=sys.stderr)
        return ExitCode.CONFIG
    setup_logging(config.log_level)
    try:
        return asyncio.run(serve(config, secrets))
    except discord.LoginFailure:
        print("swissbot run: Discord refused the token in DISCORD_TOKEN", file=sys.stderr)
        return ExitCode.CONFIG
    except ConfigError as error:
        print(f"swissbot run: {error}", file=sys.stderr)
        return ExitCode.CONFIG
    except (DatabaseUnavailable, DatabaseError) as error:
        print(f"swissbot run: {error}", file=sys.stderr)
        return ExitCode.NO_DATABASE
    except OSError as error:  # also what aiohttp's connection errors and TimeoutError are
        if isinstance(error, aiohttp.ClientConnectionError | TimeoutError):
            return unreachable(config, error)
        if not is_listen_error(error):
            raise
        change = f"set another [web] port in {args.config} (or stop what listens there)"
        print(cannot_listen("run", config.web.host, config.web.port, error, change), file=sys.stderr)
        return ExitCode.CANNOT_LISTEN
    except (aiohttp.ClientConnectionError, discord.GatewayNotFound) as error:
        return unreachable(config, error)
    except discord.HTTPException as error:
        print(
            f"swissbot run: Discord answered {error.status} at start-up ({error.text or 'no reason given'}); "
            "try again in a minute (nothing was changed)",
            file=sys.stderr,
        )
        return ExitCode.UNREACHABLE
    except KeyboardInterrupt:
        log.info("stopped")
        return ExitCode.OK


def unreachable(config: Config, error: BaseException) -> ExitCode:
    """Discord could not be reached: one sentence, UNREACHABLE."""
    reason = str(error) or type(error).__name__
    print(
        f"swissbot run: cannot reach Discord at {config.discord.api_url} ({reason}); check the network and "
        "[discord] api_url, then start it again (nothing was changed)",
        file=sys.stderr,
    )
    return ExitCode.UNREACHABLE
