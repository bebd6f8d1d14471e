"""`swissbot pair`: pair the next round of a TRF file, printing the engine output format."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from bot.cli import COMMANDS
from bot.cli.exit_codes import ExitCode, describe
from bot.cli.trf_files import TrfFileError, parse_trf, read_bytes, read_text
from pairing import systems
from pairing.errors import NoValidPairing, PairingError, TeamError
from pairing.model import Pairing

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
        "numbers, White being the first board's colour). " + describe(EXITS),
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
        if choice == "fast":
            return _pair_fast(args.file)
        tournament = parse_trf(args.file, read_text(args.file), require_rounds=True)
    except TrfFileError as exc:
        return exc.report("swissbot pair: ")
    return _pair(
        args.file, tournament.round_to_pair, tournament.total_rounds, lambda: systems.pair(tournament, choice)[1]
    )


def _pair_fast(path: str) -> ExitCode:
    """Pair with the Fast engine, reading a plain file straight into its columns (`fast_trf`) and any other through
    the model: the same output and exit codes either way, without a `Tournament` for the big files."""
    from pairing.systems import fast, fast_trf

    read = fast_trf.read_event(read_bytes(path))  # the bytes are let go once read: not held while pairing
    if read is None:
        tournament = parse_trf(path, read_text(path), require_rounds=True)
        return _pair(path, tournament.round_to_pair, tournament.total_rounds, lambda: fast.pair(tournament))
    event = read.event
    return _pair(path, read.round_to_pair, read.total_rounds, lambda: fast.pairing_of(event, fast.pair_event(event)))


def _pair(path: str, round_to_pair: int, total_rounds: int, pair: Callable[[], Pairing]) -> ExitCode:
    """Print the pairing `pair` gives for the next round, or why there is none; the exit code."""
    if round_to_pair > total_rounds:
        print(f"swissbot pair: {path}: all {total_rounds} rounds are already paired", file=sys.stderr)
        return ExitCode.BAD_INPUT
    try:
        pairing = pair()
    except NoValidPairing as exc:
        print(f"swissbot pair: no valid pairing: {exc}", file=sys.stderr)
        return ExitCode.FAILED
    except PairingError as exc:
        print(f"swissbot pair: the engine gave up (not a proof that no pairing exists): {exc}", file=sys.stderr)
        return ExitCode.ENGINE_GAVE_UP
    except TeamError as exc:
        print(f"swissbot pair: {path}: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    sys.stdout.write("\n".join(pairing.lines()) + "\n")
    return ExitCode.OK
