"""`swissbot commands`: print the slash-command payloads the bot would sync, for review without Discord."""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from bot.cli import COMMANDS
from bot.cli.exit_codes import ExitCode, describe
from bot.discord.commands_payload import command_payloads

EXITS = {ExitCode.OK: "printed"}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `commands` subcommand."""
    parser = sub.add_parser("commands", help=COMMANDS["commands"], description=describe(EXITS))
    parser.add_argument("--json", action="store_true", help="the exact payloads, as a JSON list")
    parser.set_defaults(handler=run)


def summary(payloads: list[dict[str, Any]]) -> list[str]:
    """One line per command and subcommand: its name and description."""
    lines = []
    for command in payloads:
        lines.append(f"/{command['name']}  {command['description']}")
        for option in command.get("options", []):
            if option["type"] == 1:  # a subcommand
                lines.append(f"/{command['name']} {option['name']}  {option['description']}")
            elif option["type"] == 2:  # a group of subcommands (/swiss team ...)
                for sub in option.get("options", []):
                    lines.append(f"/{command['name']} {option['name']} {sub['name']}  {sub['description']}")
    return lines


def run(args: argparse.Namespace) -> ExitCode:
    """Print the payloads."""
    payloads = asyncio.run(command_payloads())
    if args.json:
        print(json.dumps(payloads, indent=2, ensure_ascii=False, sort_keys=True))
    else:
        print("\n".join(summary(payloads)))
    return ExitCode.OK
