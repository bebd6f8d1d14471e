"""`swissbot sync [--guild ID]`: push the slash commands to Discord, on demand only."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

import discord

from bot.cli import COMMANDS
from bot.cli.exit_codes import ExitCode, describe
from bot.config import Config, ConfigError, load_config, load_discord_token
from bot.discord.commands_payload import offline_bot

EXITS = {
    ExitCode.OK: "synced",
    ExitCode.CONFIG: "a bad configuration or token",
    ExitCode.UNREACHABLE: "Discord refused the sync",
}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `sync` subcommand."""
    parser = sub.add_parser(
        "sync",
        help=COMMANDS["sync"],
        description="Discord allows 200 command creates per day per server: sync after a change, not on every start. "
        + describe(EXITS),
    )
    parser.add_argument("--guild", type=int, metavar="ID", help="sync to one server at once (else globally, ~1 h)")
    parser.add_argument(
        "--config", type=Path, default=None, help="the bot's TOML file, for its [discord] api_url (default: Discord's)"
    )
    parser.set_defaults(handler=run)


async def sync(token: str, guild_id: int | None, config: Config | None = None) -> list[str]:
    """Log in over HTTP only (no gateway), sync, and return the synced command names."""
    bot = await offline_bot(config)
    try:
        await bot.login(token)
        guild = discord.Object(id=guild_id) if guild_id else None
        if guild is not None:
            bot.tree.copy_global_to(guild=guild)
        synced = await bot.tree.sync(guild=guild)
        return [command.name for command in synced]
    finally:
        await bot.close()


def run(args: argparse.Namespace) -> ExitCode:
    """Sync and report."""
    try:
        token = load_discord_token()
        config = load_config(args.config) if args.config is not None else None
    except ConfigError as error:
        print(f"swissbot sync: {error}", file=sys.stderr)
        return ExitCode.CONFIG
    try:
        names = asyncio.run(sync(token, args.guild, config))
    except discord.LoginFailure:
        print("swissbot sync: Discord refused the token in DISCORD_TOKEN", file=sys.stderr)
        return ExitCode.CONFIG
    except discord.HTTPException as error:
        print(f"swissbot sync: Discord refused the sync: {error}", file=sys.stderr)
        return ExitCode.UNREACHABLE
    where = f"server {args.guild}" if args.guild else "every server (global commands take up to an hour to appear)"
    print(f"synced {len(names)} commands to {where}: {', '.join('/' + n for n in names)}")
    return ExitCode.OK
