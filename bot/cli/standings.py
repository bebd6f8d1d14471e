"""`swissbot standings`: the standings (and crosstable) of a tournament file."""

from __future__ import annotations

import argparse
import json
import sys

from bot.cli import COMMANDS
from bot.cli.exit_codes import ExitCode, describe
from bot.cli.trf_files import TrfFileError, read_trf
from pairing.model import Points, Tournament
from pairing.standings.crosstable import crosstable, format_crosstable
from pairing.standings.ranking import StandingRow, compute_standings, format_standings
from pairing.tiebreaks.codes import DEFAULT_TIEBREAKS, UnknownTiebreak, parse_tiebreaks
from pairing.tiebreaks.unplayed import EDITIONS, Edition

EXITS = {
    ExitCode.OK: "printed",
    ExitCode.USAGE: "an unknown tie-break code or a bad --exclude or --round",
    ExitCode.BAD_INPUT: "a bad file (its 202 record included)",
    ExitCode.UNREADABLE: "the file cannot be read",
}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `standings` subcommand."""
    parser = sub.add_parser(
        "standings",
        help=COMMANDS["standings"],
        description=(
            "Rank the players of a TRF file by points, then by the tie-breaks in order (FIDE C.07). " + describe(EXITS)
        ),
    )
    parser.add_argument("file", metavar="FILE.trf", help="tournament report file (TRF16/TRF26)")
    parser.add_argument(
        "--tiebreaks",
        metavar="CODES",
        help=(
            "comma-separated tie-break codes in order, e.g. 'BH/C1,BH,SB,DE' "
            f"(default: the file's 202 record, else {','.join(DEFAULT_TIEBREAKS)})"
        ),
    )
    parser.add_argument("--edition", choices=EDITIONS, default="2026", help="edition of FIDE C.07 (default 2026)")
    parser.add_argument("--json", action="store_true", help="print the standings as JSON rows")
    parser.add_argument("--crosstable", action="store_true", help="also print the crosstable (text output only)")
    parser.add_argument("--lichess-sb", action="store_true", help="compute SB as Lichess does (virtual opponent)")
    parser.add_argument(
        "--exclude", metavar="N[,N...]", default="", help="starting numbers to leave out of the ranking"
    )
    parser.add_argument("--round", type=int, metavar="N", help="standings after round N (default: the last round)")
    parser.set_defaults(handler=run)


def _number(value: Points) -> int | float:
    return int(value) if value.denominator == 1 else float(value)


def _json_rows(rows: list[StandingRow]) -> list[dict[str, object]]:
    return [
        {
            "rank": row.rank,
            "number": row.number,
            "name": row.name,
            "points": _number(row.points),
            "tiebreaks": {code: _number(value) for code, value in row.tiebreaks.items()},
        }
        for row in rows
    ]


def _codes(args: argparse.Namespace, tournament: Tournament) -> tuple[str, ...]:
    if args.tiebreaks is not None:
        return parse_tiebreaks(str(args.tiebreaks))
    for line in tournament.header:
        if line.startswith("202"):
            try:
                return parse_tiebreaks(line[3:])
            except UnknownTiebreak as error:
                raise ValueError(f"record 202 of the file: {error}") from None
    return DEFAULT_TIEBREAKS


def _excluded(text: str) -> list[int]:
    out = []
    for item in text.replace(" ", ",").split(","):
        if item:
            try:
                out.append(int(item))
            except ValueError:
                raise ValueError(f"--exclude takes starting numbers, got {item!r}") from None
    return out


def run(args: argparse.Namespace) -> ExitCode:
    """Print the standings of the file."""
    path: str = args.file
    try:
        tournament = read_trf(path, require_rounds=False)
    except TrfFileError as error:
        return error.report()
    edition: Edition = "2024" if args.edition == "2024" else "2026"
    try:
        codes = _codes(args, tournament)
    except ValueError as error:  # UnknownTiebreak included
        print(f"swissbot standings: {error}", file=sys.stderr)
        return ExitCode.USAGE if args.tiebreaks is not None else ExitCode.BAD_INPUT
    try:
        exclude = _excluded(str(args.exclude))
        rounds = tournament.rounds_completed if args.round is None else int(args.round)
        if not 0 <= rounds <= tournament.rounds_completed:
            raise ValueError(f"--round must be between 0 and {tournament.rounds_completed}, got {rounds}")
        rows = compute_standings(
            tournament, codes, edition=edition, exclude=exclude, through_round=rounds, lichess_sb=args.lichess_sb
        )
    except ValueError as error:
        print(f"swissbot standings: {error}", file=sys.stderr)
        return ExitCode.USAGE
    if args.json:
        print(json.dumps(_json_rows(rows), ensure_ascii=False, indent=2))
        return ExitCode.OK
    title = tournament.name or path
    print(f"{title}: standings after round {rounds} (tie-breaks {', '.join(codes) or 'none'}; C.07 {edition})")
    print(format_standings(rows, codes))
    if args.crosstable:
        print()
        print(format_crosstable(crosstable(tournament, rows, through_round=rounds)))
    return ExitCode.OK
