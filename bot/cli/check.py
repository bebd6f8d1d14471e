"""`swissbot check`: a pairings checker (FPC) over a complete tournament file."""

from __future__ import annotations

import argparse
import sys

from bot.cli import COMMANDS
from bot.cli.trf_files import EXIT_BAD_INPUT, TrfFileError, parse_trf, read_text
from pairing import checker, systems
from pairing.errors import TeamError
from pairing.team import check as team_check

EXIT_OK = 0
EXIT_DISCREPANCIES = 1
EXIT_ENGINE_MISSING = 4


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `check` subcommand."""
    parser = sub.add_parser(
        "check",
        help=COMMANDS["check"],
        description=(
            "Rebuild the tournament round by round, check each round against the absolute pairing criteria, "
            "and compare it with the engine's pairing. Prints one line per discrepancy; exit code 0 when there "
            "is none, 1 when there are discrepancies, 3 on a bad file, 5 when the file cannot be read."
        ),
    )
    parser.add_argument(
        "--system",
        choices=[*systems.SYSTEMS, systems.AUTO, "none"],
        default="dutch",
        help="pairing system to compare with ('auto': chosen by the players to pair, as Lichess does; "
        "'none': absolute criteria only)",
    )
    parser.add_argument("file", metavar="FILE.trf", help="tournament report file (TRF16/TRF26)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
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
        if system == "team":
            found = team_check.check_tournament(tournament)
        else:
            found = checker.check_tournament(tournament, system)
    except TeamError as error:
        print(f"{path}: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except ImportError as error:
        print(f"the {system} engine is not available: {error}", file=sys.stderr)
        return EXIT_ENGINE_MISSING
    for item in found:
        print(item)
    rounds = tournament.rounds_completed
    against = f" against the {system} engine" if system else ""
    verdict = f"{len(found)} discrepancies" if found else "no discrepancy"
    print(f"{path}: {rounds} rounds checked{against}: {verdict}", file=sys.stderr)
    return EXIT_DISCREPANCIES if found else EXIT_OK
