"""`swissbot scenario FILE.toml...`: run scripted events through the real director on a scripted clock."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from pathlib import Path

from bot.cli import COMMANDS
from bot.cli.exit_codes import ExitCode, describe

EXITS = {
    ExitCode.OK: "every expectation holds",
    ExitCode.FAILED: "an expectation failed (named)",
    ExitCode.BAD_INPUT: "a malformed file (with its line)",
}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `scenario` subcommand."""
    parser = sub.add_parser(
        "scenario",
        help=COMMANDS["scenario"],
        description="Run each scenario file (docs/scenarios.md): members, commands, games, outages and restarts "
        "at scripted times, through the real director, scheduler, SQLite and the in-process local Lichess. "
        "Prints what the channel shows and stops at the first file that fails. " + describe(EXITS),
    )
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE.toml", help="scenario files")
    parser.add_argument("--quiet", action="store_true", help="print only the verdict of each file")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> ExitCode:
    """Run every file and report each: FAILED when one failed, else BAD_INPUT when one could not be read."""
    from bot.scenario.format import ScenarioError, load
    from bot.scenario.runner import ExpectationFailed, run_scenario

    logging.basicConfig(level=logging.CRITICAL)
    failed = bad = 0
    for path in args.files:
        try:
            scenario = load(path)
        except ScenarioError as exc:
            print(f"swissbot scenario: {exc}", file=sys.stderr)
            bad += 1
            continue
        out = open(os.devnull, "w") if args.quiet else sys.stdout  # noqa: SIM115
        print(f"== scenario {scenario.name} ({path}) ==", file=out)
        try:
            asyncio.run(run_scenario(scenario, out))
        except ExpectationFailed as exc:
            out.flush()
            print(f"FAILED {exc}", file=sys.stderr)
            failed += 1
            continue
        finally:
            if out is not sys.stdout:
                out.close()
        print(f"ok {path}")
    total = len(args.files)
    if failed or bad:
        print(f"{total - failed - bad} of {total} scenario(s) held; {failed} failed, {bad} unreadable", file=sys.stderr)
    return ExitCode.FAILED if failed else ExitCode.BAD_INPUT if bad else ExitCode.OK
