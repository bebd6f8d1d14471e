"""`swissbot export`: write an event from the database as TRF, PGN or JSON."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from bot.cli import COMMANDS
from bot.cli.exit_codes import ExitCode, describe
from storage.db import open_database
from storage.errors import DatabaseError, DatabaseUnavailable, NotFound, StorageError
from storage.events import get_event, latest_event
from storage.export import FORMATS, LICHESS_URL, export_event

EXITS = {
    ExitCode.OK: "written",
    ExitCode.BAD_INPUT: "no such event",
    ExitCode.UNWRITABLE: "the output file cannot be written",
    ExitCode.NO_DATABASE: "the database cannot be opened",
}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `export` subcommand."""
    parser = sub.add_parser(
        "export",
        help=COMMANDS["export"],
        description="Write an event from the database: TRF for arbiters, the PGN of its games, JSON for the rest. "
        + describe(EXITS),
    )
    parser.add_argument("--db", required=True, metavar="FILE", help="the swissbot SQLite database")
    parser.add_argument("--event", type=int, metavar="ID", help="the event id (default: the latest event)")
    parser.add_argument("--format", required=True, choices=FORMATS, help="trf, pgn or json")
    parser.add_argument(
        "--site",
        default=LICHESS_URL,
        metavar="URL",
        help=f"the Lichess the games were played on, for the PGN's links (default {LICHESS_URL})",
    )
    parser.add_argument("--output", "-o", metavar="FILE", help="write here instead of standard output")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> ExitCode:
    """Export and return the exit code."""
    try:
        text = asyncio.run(_export(args.db, args.event, args.format, args.site))
    except (DatabaseUnavailable, DatabaseError) as exc:
        print(f"swissbot export: {exc}", file=sys.stderr)
        return ExitCode.NO_DATABASE
    except StorageError as exc:
        print(f"swissbot export: {exc}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as exc:
            print(f"swissbot export: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr)
            return ExitCode.UNWRITABLE
    else:
        sys.stdout.write(text)
    return ExitCode.OK


async def _export(path: str, event_id: int | None, fmt: str, site: str) -> str:
    db = await open_database(path, create=False)
    try:
        if event_id is None:
            event = await latest_event(db)
            if event is None:
                raise NotFound(f"the database {path} holds no event yet")
        else:
            event = await get_event(db, event_id)
        return await export_event(db, event.id, fmt, site=site, private=True)
    finally:
        await db.close()
