"""`swissbot demo`: a whole event on the local Lichess, shown as the channel would show it."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from bot.cli import COMMANDS
from bot.cli.exit_codes import ExitCode, describe
from bot.cli.listening import cannot_listen, is_listen_error
from bot.demo.runner import DEFAULT_SEED, DemoOptions, run_demo
from bot.errors import SwissbotError
from pairing import systems

EXITS = {
    ExitCode.OK: "the event finished and the files were written",
    ExitCode.FAILED: "the event did not finish (the reason is printed)",
    ExitCode.USAGE: "fewer than 2 players or 1 round",
    ExitCode.CANNOT_LISTEN: "the pages cannot be served on --serve's port",
    ExitCode.INTERRUPTED: "stopped by Ctrl-C",
}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `demo` subcommand."""
    parser = sub.add_parser(
        "demo",
        help=COMMANDS["demo"],
        description="Run a whole event: simulated members link and join, rounds are paired, games played on the "
        "local Lichess, results and standings shown; writes tournament.trf, games.pgn, standings.txt and "
        "standings.png. With --db, running it again resumes the event where it stopped. " + describe(EXITS),
    )
    parser.add_argument("--players", type=int, default=24, help="simulated members (default 24)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    parser.add_argument(
        "--seed",
        type=int,
        default=DEFAULT_SEED,
        help=f"makes members, games and results reproducible (default {DEFAULT_SEED})",
    )
    parser.add_argument("--db", type=Path, default=None, help="SQLite file (default: a temporary one)")
    parser.add_argument("--out", type=Path, default=Path("demo-output"), help="output folder (default ./demo-output)")
    parser.add_argument("--lichess-url", default=None, help="an already running `swissbot sandbox --autoplay`")
    parser.add_argument(
        "--speed", type=float, default=60.0, help="how many times faster than real time the event runs (default 60)"
    )
    parser.add_argument(
        "--serve",
        type=int,
        metavar="PORT",
        default=None,
        help="serve the event's web pages on 127.0.0.1:PORT while it runs, and after it until Ctrl-C",
    )
    parser.add_argument(
        "--system",
        choices=systems.choices(),
        default=systems.AUTO,
        help="the pairing system; double: two-game matches (--rounds counts games, even); team: a Team Swiss "
        "event, the members formed into teams (default auto)",
    )
    parser.add_argument("--boards", type=int, default=2, help="boards a match of a team event (default 2)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> ExitCode:
    """Run the demo; the exit code."""
    if args.players < 2 or args.rounds < 1:
        print("swissbot demo: at least 2 players and 1 round", file=sys.stderr)
        return ExitCode.USAGE
    opts = DemoOptions(
        players=args.players,
        rounds=args.rounds,
        seed=args.seed,
        db=args.db,
        out=args.out,
        lichess_url=args.lichess_url,
        speed=args.speed,
        serve=args.serve,
        system=args.system,
        boards=args.boards,
    )
    try:
        asyncio.run(run_demo(opts))
    except SwissbotError as exc:
        print(f"swissbot demo: {exc}", file=sys.stderr)
        return ExitCode.FAILED
    except OSError as exc:
        if args.serve is None or not is_listen_error(exc):
            raise
        print(cannot_listen("demo", "127.0.0.1", args.serve, exc, "give --serve another port"), file=sys.stderr)
        return ExitCode.CANNOT_LISTEN
    except KeyboardInterrupt:
        print("swissbot demo: stopped (run it again with the same --db to resume)", file=sys.stderr)
        return ExitCode.INTERRUPTED
    return ExitCode.OK
