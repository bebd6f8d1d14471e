"""`swissbot check`: a pairings checker (FPC) over a complete tournament file."""

from __future__ import annotations

import argparse
import sys

from bot.cli import COMMANDS
from bot.cli.exit_codes import ExitCode, describe
from bot.cli.trf_files import TrfFileError, parse_trf, read_text
from pairing import checker, systems, trf
from pairing.errors import TeamError
from pairing.team import check as team_check

EXITS = {
    ExitCode.OK: "no discrepancy",
    ExitCode.FAILED: "discrepancies",
    ExitCode.BAD_INPUT: "a bad file",
    ExitCode.ENGINE_MISSING: "the engine is not available",
    ExitCode.UNREADABLE: "the file cannot be read",
}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `check` subcommand."""
    parser = sub.add_parser(
        "check",
        help=COMMANDS["check"],
        description=(
            "Rebuild the tournament round by round, check each round against the absolute pairing criteria, "
            "and compare it with the engine's pairing (not the rounds an XXM record names as paired by an arbiter). "
            "Prints one line per discrepancy, and one per manual round. " + describe(EXITS)
        ),
    )
    parser.add_argument(
        "--system",
        choices=[*systems.choices(), "none"],
        default="dutch",
        help="pairing system to compare with ('auto': chosen by the players to pair, as Lichess does; "
        "'none': absolute criteria only)",
    )
    parser.add_argument("file", metavar="FILE.trf", help="tournament report file (TRF16/TRF26)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> ExitCode:
    """Check the file and print the discrepancies."""
    path: str = args.file
    try:
        text = read_text(path)
        tournament = parse_trf(path, text, require_rounds=False)
    except TrfFileError as error:
        return error.report()
    if not any(line.startswith(("XXR", "142")) for line in text.splitlines()):
        print(
            f"{path}: no XXR/142 record; taking the {tournament.total_rounds} rounds present as the total",
            file=sys.stderr,
        )
    system = None if args.system == "none" else str(args.system)
    try:
        manual = trf.manual_rounds(tournament)
    except trf.TrfError as error:
        print(f"{path}: {error}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    try:
        if system is not None and systems.of_choice(system).team:
            found = team_check.check_tournament(tournament)
        else:
            found = checker.check_tournament(tournament, system, manual=manual)
    except TeamError as error:
        print(f"{path}: {error}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    except ImportError as error:
        print(f"the {system} engine is not available: {error}", file=sys.stderr)
        return ExitCode.ENGINE_MISSING
    for item in found:
        print(item)
    for number in sorted(manual):
        print(f"round {number}: manual: paired by an arbiter (XXM), held to the absolute criteria only")
    rounds = tournament.rounds_completed
    against = f" against the {system} engine" if system else ""
    verdict = f"{len(found)} discrepancies" if found else "no discrepancy"
    print(f"{path}: {rounds} rounds checked{against}: {verdict}", file=sys.stderr)
    return ExitCode.FAILED if found else ExitCode.OK
