"""`swissbot generate`: a random tournament paired round by round by the engine, written as a TRF file."""

from __future__ import annotations

import argparse
import sys
from functools import partial

from bot.cli import COMMANDS
from bot.cli.exit_codes import ExitCode, describe
from pairing import acceleration, generator, systems, trf
from pairing.model import Pairing, Tournament
from pairing.team import check as team_check
from pairing.team.model import TeamRules
from pairing.team.trf import to_tournament

EXITS = {
    ExitCode.OK: "written",
    ExitCode.USAGE: "a value the generator refuses",
    ExitCode.UNWRITABLE: "the file cannot be written",
}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `generate` subcommand."""
    parser = sub.add_parser(
        "generate",
        help=COMMANDS["generate"],
        description="The random tournament generator of FIDE pairing programs: players with random ratings, "
        "every round paired by the engine, results drawn by rating (with a few byes, forfeits and "
        "withdrawals), written as TRF. The same arguments always give the same file. " + describe(EXITS),
    )
    parser.add_argument("--system", default="dutch", choices=systems.choices(), help="pairing system (default dutch)")
    parser.add_argument("--players", type=int, required=True, help="number of players (teams with --system team)")
    parser.add_argument("--boards", type=int, default=4, help="boards per team with --system team (default 4)")
    parser.add_argument("--rounds", type=int, required=True, help="number of rounds (of matches for double)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--points", default="1/0.5/0", help="points for a win, a draw and a loss (default 1/0.5/0)")
    parser.add_argument("--pab", default=None, help="points of the pairing-allocated bye (default: a win's)")
    parser.add_argument("--baku", action="store_true", help="Baku acceleration (C.04.7); --acceleration baku")
    parser.add_argument(
        "--acceleration",
        choices=acceleration.METHODS,
        default=None,
        help="accelerated pairings: FIDE's Baku method or US Chess rule 28R1 (added score) or 28R2 (non-winners)",
    )
    parser.add_argument("--encoding", default="utf-8", choices=trf.ENCODINGS, help="file encoding (default utf-8)")
    parser.add_argument("-o", "--output", default="-", metavar="FILE.trf", help="where to write (default: stdout)")
    parser.set_defaults(handler=run)


def _pair_with(choice: str, tournament: Tournament) -> Pairing:
    return systems.pair(tournament, choice)[1]


def run(args: argparse.Namespace) -> ExitCode:
    """Generate the event and write it; return the exit code."""
    try:
        if systems.of_choice(args.system).team:
            return _write(args, _team_event(args))
        scoring = generator.parse_scoring(args.points, args.pab)
        matches = systems.of_choice(args.system).two_game_matches  # --rounds counts matches, two game columns each
        columns = 2 * args.rounds if matches else args.rounds
        tournament = generator.generate(
            args.seed,
            args.players,
            columns,
            pair=partial(_pair_with, args.system),
            scoring=scoring,
            accelerated=args.baku or args.acceleration is not None,
            acceleration_method=args.acceleration or "baku",
            two_game_matches=matches,
        )
    except (ValueError, trf.TrfError) as error:
        print(f"swissbot generate: {error}", file=sys.stderr)
        return ExitCode.USAGE
    return _write(args, tournament)


def _team_event(args: argparse.Namespace) -> Tournament:
    """A random team event (`--players` teams of `--boards` boards), as the players' tournament with team records."""
    if args.points != "1/0.5/0" or args.pab is not None or args.baku:
        raise ValueError(
            "--system team plays boards 1/0.5/0 with a drawn match as the PAB; --points, --pab and --baku do not apply"
        )
    event = team_check.generate_event(args.seed, args.players, args.rounds, rules=TeamRules(boards=args.boards))
    return to_tournament(event)


def _write(args: argparse.Namespace, tournament: Tournament) -> ExitCode:
    """Write the generated event; the exit code."""
    try:
        data = trf.dump_bytes(tournament, args.encoding)
    except (ValueError, trf.TrfError) as error:
        print(f"swissbot generate: {error}", file=sys.stderr)
        return ExitCode.USAGE
    columns = args.rounds * systems.of_choice(args.system).games_per_match
    if tournament.rounds_completed < columns:
        print(
            f"swissbot generate: stopped after {tournament.rounds_completed} of {columns} rounds "
            "(no valid pairing for the next round, or fewer than two players left)",
            file=sys.stderr,
        )
    if args.output == "-":
        sys.stdout.buffer.write(data)
        return ExitCode.OK
    try:
        with open(args.output, "wb") as handle:
            handle.write(data)
    except OSError as error:
        print(f"swissbot generate: cannot write {args.output}: {error}", file=sys.stderr)
        return ExitCode.UNWRITABLE
    return ExitCode.OK
