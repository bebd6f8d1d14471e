"""`swissbot pair`: pair the next round of a TRF file, printing the engine output format."""

from __future__ import annotations

import argparse
import sys

from bot.cli import COMMANDS
from bot.cli.exit_codes import ExitCode, describe
from bot.cli.trf_files import TrfFileError, read_trf
from pairing import systems
from pairing.errors import NoValidPairing, PairingError, TeamError

EXITS = {
    ExitCode.OK: "paired",
    ExitCode.FAILED: "no valid pairing exists",
    ExitCode.USAGE: "an unknown system",
    ExitCode.BAD_INPUT: "bad input (naming the line) or every round already paired",
    ExitCode.UNREADABLE: "the file cannot be read",
    ExitCode.ENGINE_GAVE_UP: "the engine gave up",
}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `pair` subcommand."""
    parser = sub.add_parser(
        "pair",
        help=COMMANDS["pair"],
        description="Pair the next round of a TRF file and print it: the number of pairs, then "
        "'white black' lines of starting numbers, the pairing-allocated bye as 'id 0' (with --system team: team "
        "numbers, White being the first board's colour). "
        + describe(EXITS),
    )
    parser.add_argument(
        "--system",
        default="dutch",
        help=f"pairing system: {', '.join(systems.SYSTEMS)}, or {systems.AUTO} (by the players to pair, as Lichess)",
    )
    parser.add_argument("file", metavar="FILE.trf", help="tournament file (TRF16/TRF26)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> ExitCode:
    """Pair the file named in `args` and print the result; return the exit code."""
    choice = str(args.system).lower()
    if choice not in systems.choices():
        known = ", ".join(systems.choices())
        print(f"swissbot pair: unknown system {args.system!r} (supported: {known})", file=sys.stderr)
        return ExitCode.USAGE
    try:
        tournament = read_trf(args.file, require_rounds=True)
    except TrfFileError as exc:
        return exc.report("swissbot pair: ")
    if tournament.round_to_pair > tournament.total_rounds:
        print(
            f"swissbot pair: {args.file}: all {tournament.total_rounds} rounds are already paired",
            file=sys.stderr,
        )
        return ExitCode.BAD_INPUT
    try:
        _, pairing = systems.pair(tournament, choice)
    except NoValidPairing as exc:
        print(f"swissbot pair: no valid pairing: {exc}", file=sys.stderr)
        return ExitCode.FAILED
    except PairingError as exc:
        print(f"swissbot pair: the engine gave up (not a proof that no pairing exists): {exc}", file=sys.stderr)
        return ExitCode.ENGINE_GAVE_UP
    except TeamError as exc:
        print(f"swissbot pair: {args.file}: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    sys.stdout.write("\n".join(pairing.lines()) + "\n")
    return ExitCode.OK
