"""`swissbot pair`: pair the next round of a TRF file, printing the engine output format."""

from __future__ import annotations

import argparse
import sys

from bot.cli import COMMANDS
from bot.cli.trf_files import EXIT_BAD_INPUT, TrfFileError, read_trf
from pairing import systems
from pairing.errors import NoValidPairing, PairingError, TeamError

EXIT_PAIRED = 0
EXIT_NO_PAIRING = 1
EXIT_GAVE_UP = 2


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `pair` subcommand."""
    parser = sub.add_parser(
        "pair",
        help=COMMANDS["pair"],
        description="Pair the next round of a TRF file and print it: the number of pairs, then "
        "'white black' lines of starting numbers, the pairing-allocated bye as 'id 0' (with --system team: team "
        "numbers, White being the first board's colour). "
        "Exit codes: 0 paired, 1 no valid pairing exists, 2 the engine gave up, 3 bad input, 5 file cannot be read.",
    )
    parser.add_argument(
        "--system",
        default="dutch",
        help=f"pairing system: {', '.join(systems.SYSTEMS)}, or {systems.AUTO} (by the players to pair, as Lichess)",
    )
    parser.add_argument("file", metavar="FILE.trf", help="tournament file (TRF16/TRF26)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Pair the file named in `args` and print the result; return the exit code."""
    choice = str(args.system).lower()
    if choice not in systems.choices():
        known = ", ".join(systems.choices())
        print(f"swissbot pair: unknown system {args.system!r} (supported: {known})", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        tournament = read_trf(args.file, require_rounds=True)
    except TrfFileError as exc:
        return exc.report("swissbot pair: ")
    if tournament.round_to_pair > tournament.total_rounds:
        print(
            f"swissbot pair: {args.file}: all {tournament.total_rounds} rounds are already paired",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    try:
        _, pairing = systems.pair(tournament, choice)
    except NoValidPairing as exc:
        print(f"swissbot pair: no valid pairing: {exc}", file=sys.stderr)
        return EXIT_NO_PAIRING
    except PairingError as exc:
        print(f"swissbot pair: the engine gave up (not a proof that no pairing exists): {exc}", file=sys.stderr)
        return EXIT_GAVE_UP
    except TeamError as exc:
        print(f"swissbot pair: {args.file}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    sys.stdout.write("\n".join(pairing.lines()) + "\n")
    return EXIT_PAIRED
