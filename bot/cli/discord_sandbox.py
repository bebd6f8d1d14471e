"""`swissbot discord-sandbox`: a local Discord the bot logs into unchanged (docs/discord-sandbox.md)."""

from __future__ import annotations

import argparse
import asyncio
import sys

from bot.cli import COMMANDS
from bot.cli.exit_codes import ExitCode, describe
from bot.cli.listening import DISCORD_SANDBOX_PORT, cannot_listen

EXITS = {
    ExitCode.OK: "stopped",
    ExitCode.USAGE: "an invalid port",
    ExitCode.CANNOT_LISTEN: "it cannot listen on the address",
}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `discord-sandbox` subcommand."""
    parser = sub.add_parser(
        "discord-sandbox",
        help=COMMANDS["discord-sandbox"],
        description="Serve Discord's REST API and gateway for the bot, plus the /sandbox/ control API "
        "(docs/discord-sandbox.md). Point the bot at it with [discord] api_url = the printed URL. " + describe(EXITS),
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    parser.add_argument(
        "--port",
        type=int,
        default=DISCORD_SANDBOX_PORT,
        help=f"port (default: {DISCORD_SANDBOX_PORT}; 0 picks a free one)",
    )
    parser.add_argument("--seed", type=int, default=None, help="make ids and tokens reproducible")
    parser.add_argument("--token", default=None, help="the bot token it accepts (default: it makes one)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> ExitCode:
    """Serve until Ctrl-C; the exit code."""
    from sandbox.discord import serve

    if not 0 <= args.port <= 65535:
        print(f"swissbot discord-sandbox: invalid port {args.port}", file=sys.stderr)
        return ExitCode.USAGE
    try:
        asyncio.run(serve(args.host, args.port, args.seed, args.token))
    except OSError as exc:
        change = "start it with another --port"
        print(cannot_listen("discord-sandbox", args.host, args.port, exc, change), file=sys.stderr)
        return ExitCode.CANNOT_LISTEN
    except KeyboardInterrupt:
        pass
    return ExitCode.OK
