"""`swissbot repair`: pair an event's last round again before any of its games began (its games cancelled)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from bot.assembly import Services, build, open_lichess
from bot.cli import COMMANDS
from bot.cli.exit_codes import ExitCode, describe
from bot.clock import SystemClock
from bot.config import Config, ConfigError, load_config, load_lichess_tokens
from bot.director.arbiter import CorrectionOutcome
from bot.director.models import Actor, RoundView, StandingRow
from bot.errors import EventNotFound, SwissbotError
from bot.token_vault import TOKEN_KEY_ENV, TokenVault, VaultError
from domain.corrections import CorrectionKind
from domain.event import Event
from storage.db import open_database
from storage.errors import DatabaseError, DatabaseUnavailable
from storage.events import latest_event

EXITS = {
    ExitCode.OK: "re-paired",
    ExitCode.FAILED: "the new pairing breaks FIDE criteria and was not applied (give --accept)",
    ExitCode.BAD_INPUT: "no such event, or its last round cannot be re-paired",
    ExitCode.NO_DATABASE: "the database cannot be opened",
    ExitCode.CONFIG: "a bad configuration, LICHESS_TOKEN (or a club's own Lichess token) not set, or an unusable "
    "SWISSBOT_TOKEN_KEY",
}
CLI_ACTOR = Actor(0, "swissbot repair (command line)", is_organiser=True)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `repair` subcommand."""
    parser = sub.add_parser(
        "repair",
        help=COMMANDS["repair"],
        description="Pair the event's last round again from scratch, as the event stands now (after a late "
        "withdrawal or a forgotten bye request), before any of its games began: the games already created on "
        "Lichess are cancelled, and the running bot creates and announces the new ones at its next poll. The "
        "new pairing is checked against the system's absolute criteria first. LICHESS_TOKEN comes from the "
        "environment, with the own Lichess token of each [[clubs]] that names one (lichess_token_env), as the bot "
        "reads them: a club's games are cancelled with its own token. SWISSBOT_TOKEN_KEY (the bot's) opens the "
        "members' tokens that abort bulk-paired games. " + describe(EXITS),
    )
    parser.add_argument("--config", type=Path, default=Path("config.toml"), help="the TOML file (default config.toml)")
    parser.add_argument("--event", type=int, metavar="ID", help="the event id (default: the latest event)")
    parser.add_argument("--accept", action="store_true", help="apply it even if it breaks FIDE criteria")
    parser.set_defaults(handler=run)


class PrintedNotices:
    """The command line's announcer: the organisers' notices printed; nothing is posted (the bot posts)."""

    async def event_opened(self, event: Event) -> None:
        """Not posted from the command line."""

    async def round_paired(self, event: Event, round: RoundView) -> None:
        """Not posted from the command line (the bot announces the round when it creates its games)."""

    async def results_updated(self, event: Event, round: RoundView) -> None:
        """Not posted from the command line."""

    async def standings(self, event: Event, rows: Sequence[StandingRow], final: bool) -> None:
        """Not posted from the command line."""

    async def event_finished(self, event: Event, rows: Sequence[StandingRow], reason: str) -> None:
        """Not posted from the command line."""

    async def bulletin(self, event: Event, text: str) -> None:
        """Not posted from the command line."""

    async def notice(self, event: Event, text: str) -> None:
        """Printed on standard error."""
        print(f"{event.name}: {text}", file=sys.stderr)

    async def dm(self, discord_id: int, text: str) -> None:
        """Not sent from the command line."""


def outcome_lines(outcome: CorrectionOutcome) -> list[str]:
    """The new pairing and the criteria it breaks, as printed."""
    lines = [f"round {outcome.round_number}:"]
    lines.extend(f"{i}. {white} - {black}" for i, (white, black) in enumerate(outcome.boards, start=1))
    if outcome.bye is not None:
        lines.append(f"bye: {outcome.bye}")
    lines.extend(f"breaks: {problem}" for problem in outcome.problems)
    lines.append("applied" if outcome.applied else "not applied (give --accept to apply it anyway)")
    return lines


def run(args: argparse.Namespace) -> ExitCode:
    """Re-pair and return the exit code."""
    try:
        config = load_config(args.config)
        token, club_tokens = load_lichess_tokens(clubs=config.clubs)
    except ConfigError as error:
        print(f"swissbot repair: {error}", file=sys.stderr)
        return ExitCode.CONFIG
    try:
        vault = TokenVault.from_env()
    except VaultError as error:
        print(f"swissbot repair: {TOKEN_KEY_ENV}: {error}", file=sys.stderr)
        return ExitCode.CONFIG
    try:
        outcome = asyncio.run(repair(config, token, args.event, args.accept, vault, club_tokens))
    except (DatabaseUnavailable, DatabaseError) as error:
        print(f"swissbot repair: {error}", file=sys.stderr)
        return ExitCode.NO_DATABASE
    except SwissbotError as error:
        print(f"swissbot repair: {error}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    print("\n".join(outcome_lines(outcome)))
    return ExitCode.OK if outcome.applied else ExitCode.FAILED


async def repair(
    config: Config,
    token: str,
    event_id: int | None,
    accept: bool,
    vault: TokenVault | None = None,
    club_tokens: Mapping[int, str] | None = None,
) -> CorrectionOutcome:
    """Re-pair the event's last round through the director, on the configured database and Lichess with the bot's
    `token` and the clubs' own (`club_tokens`, by guild id: the event's club's games are its account's); `vault`
    (the bot's, `SWISSBOT_TOKEN_KEY`) opens the members' tokens that abort the round's bulk games."""
    db = await open_database(config.database, create=False)
    gateway, own = open_lichess(config, token, club_tokens or {})
    services = Services(db, gateway, PrintedNotices(), vault, club_lichess=own)
    try:
        app = await build(config, SystemClock(), services, scheduled=False)
        if event_id is None:
            latest = await latest_event(db)
            if latest is None:
                raise EventNotFound(f"The database {config.database} holds no event yet.")
            event_id = latest.id
        return await app.director.correct_pairing(CLI_ACTOR, event_id, CorrectionKind.REPAIR, (), accept)
    finally:
        await services.close()
