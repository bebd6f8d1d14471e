"""The `swissbot` command line: one module per subcommand, imported only when that subcommand runs."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

# name: one-line help. A command's module is bot.cli.<name> ('-' becomes '_'), with `register(sub)`.
COMMANDS: dict[str, str] = {
    "pair": "pair the next round of a TRF file",
    "check": "re-pair a tournament file round by round and report every discrepancy",
    "generate": "write a random tournament paired round by round by the engine (TRF)",
    "standings": "print the standings of a tournament file with FIDE tie-breaks",
    "export": "write an event from the database (TRF, PGN or JSON)",
    "repair": "pair an event's last round again before its games began (its games on Lichess cancelled)",
    "sandbox": "run a local Lichess (sandbox) for development and the demo",
    "discord-sandbox": "run a local Discord that the bot logs into (development, tests, the demo)",
    "local-club": "start the local Discord and Lichess with a club in them, and write its config for `run`",
    "member": "type a slash command as a member of the local club (`local-club`) and print the bot's answer",
    "demo": "run a whole Swiss event on the local Lichess with simulated members",
    "run": "run the Discord bot",
    "sync": "sync the slash commands to Discord (DISCORD_TOKEN from the environment)",
    "commands": "print the slash commands the bot registers (no Discord needed)",
    "scenario": "run scripted club events (scenario files) through the real director on a scripted clock",
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser: every subcommand listed, but only `command`'s module imported to add its arguments."""
    parser = argparse.ArgumentParser(prog="swissbot", description="Swiss chess tournaments on Lichess from Discord.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, help_text in COMMANDS.items():
        if name == command:
            importlib.import_module(f"bot.cli.{name.replace('-', '_')}").register(sub)
        else:
            sub.add_parser(name, help=help_text)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run a subcommand and return its exit code."""
    # numpy (the Fast engine's columns) does no linear algebra here: OpenBLAS's thread pool would cost each process
    # that imports it (the command, every worker) about 40 ms of CPU and a thread a core.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    args_list = list(sys.argv[1:] if argv is None else argv)
    command = next((arg for arg in args_list if not arg.startswith("-")), None)
    args = build_parser(command).parse_args(args_list)
    code: int = args.handler(args)
    return code
