"""A round's start: pair, store, create every Lichess game (finding a half-done one first), announce."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from bot.director.context import Context
from bot.director.endings import finish_event
from bot.director.lookups import active_entries, get_event, get_round, latest_games
from bot.director.members import check_entries_at_start
from bot.director.models import SYSTEM_ACTOR
from bot.director.views import pairings
from bot.errors import InvalidState
from bot.lichess.errors import LichessError
from pairing import dutch
from pairing.errors import NoValidPairing, PairingError
from storage import entries as storage_entries
from storage import errors as storage_errors
from storage import events as storage_events
from storage import games as storage_games
from storage import rounds as storage_rounds
from storage.history import load_tournament
from storage.records import BoardRow, Entry, Event, EventStatus, GameRow, GameStatus, RoundStatus

if TYPE_CHECKING:
    pass


async def start_round(ctx: Context, event_id: int, round_number: int) -> None:
    """Pair, store, create every game, announce; idempotent (does only what is missing)."""
    async with ctx.lock(event_id):
        async with ctx.db.snapshot():
            event = await get_event(ctx.db, event_id)
            rounds = await storage_rounds.list_rounds(ctx.db, event_id)
        if any(r.round.number == round_number for r in rounds):
            await ensure_games(ctx, event_id, round_number)
            return
        if event.status not in (EventStatus.OPEN, EventStatus.RUNNING):
            return
        if round_number != len(rounds) + 1 or round_number > event.settings.rounds:
            return
        if rounds and rounds[-1].round.status is not RoundStatus.FINISHED:
            return
        if ctx.before_pairing is not None:
            await ctx.before_pairing(event_id, round_number)
        if await _pair(ctx, event_id, round_number):
            await ensure_games(ctx, event_id, round_number)
    ctx.changed()


async def _pair(ctx: Context, event_id: int, round_number: int) -> bool:
    """Pair and store a round; False if the event ended (or had to wait) instead."""
    now = ctx.clock.now()
    async with ctx.db.snapshot():
        event = await get_event(ctx.db, event_id)
        active = active_entries(await storage_entries.list_entries(ctx.db, event_id))
    if event.status is EventStatus.OPEN:
        await check_entries_at_start(ctx, event_id)  # Lichess's entry conditions again, and today's ratings
        active = active_entries(await storage_entries.list_entries(ctx.db, event_id))
        if len(active) < ctx.settings.min_players:
            later = now + timedelta(seconds=ctx.settings.retry_after)
            await set_next_round_at(ctx, event_id, later)
            await ctx.announcer.notice(event, f"Not enough players to start; trying again at {later:%H:%M} UTC.")
            return False
        try:
            await storage_entries.start_event(ctx.db, event_id, at=now, actor=SYSTEM_ACTOR.name)
        except storage_errors.WrongStatus as exc:
            raise InvalidState(str(exc)) from None
    tournament = await load_tournament(ctx.db, event_id)
    if len(tournament.views(round_number).to_pair()) < 2:
        await finish_event(ctx, event_id, "not enough players left")
        return False
    try:
        pairing = await asyncio.to_thread(dutch.pair, tournament, round_number)
    except NoValidPairing:
        await finish_event(ctx, event_id, f"no valid pairing exists for round {round_number}")
        return False
    except PairingError as exc:
        await ctx.announcer.notice(event, f"Round {round_number} could not be paired ({exc}); retrying.")
        raise
    async with ctx.db.transaction():
        await storage_rounds.store_pairing(
            ctx.db, event_id, round_number, pairing, at=now, actor=SYSTEM_ACTOR.name
        )
        await storage_events.set_next_round_at(ctx.db, event_id, None)
    ctx.changed()
    return True


async def set_next_round_at(ctx: Context, event_id: int, when: datetime | None) -> None:
    """When the event's next round starts (None: not scheduled); the jobs are rebuilt."""
    await storage_events.set_next_round_at(ctx.db, event_id, when)
    ctx.changed()


def challenge_name(event: Event, round_number: int, board: int, attempt: int) -> str:
    """The Lichess challenge's name: unique per event, round, board and attempt (looked up after a restart)."""
    name = f"{event.name[:80]} #{event.id} R{round_number} B{board}"
    return name if attempt == 1 else f"{name} G{attempt}"


async def ensure_games(ctx: Context, event_id: int, round_number: int) -> None:
    """Create the Lichess game of every undecided board that lacks one; start the round when all exist."""
    async with ctx.db.snapshot():
        event = await get_event(ctx.db, event_id)
        people = {e.player_id: e for e in await storage_entries.list_entries(ctx.db, event_id)}
        summary = await get_round(ctx.db, event, round_number)
        all_games = await storage_games.games_of_round(ctx.db, event_id, round_number)
    latest = latest_games(all_games)
    known_ids = {g.lichess_id for g in all_games if g.lichess_id}
    failures: list[str] = []
    for board in summary.boards:
        if board.result is not None:
            continue
        game = latest.get(board.id)
        if game is not None and game.status in (GameStatus.CREATED, GameStatus.FINISHED):
            continue
        white, black = _lichess_id(people[board.white_id]), _lichess_id(people[board.black_id])
        try:
            created = await _create_game(ctx, event, board, game, white, black, known_ids)
        except LichessError as exc:
            failures.append(f"board {board.board_no}: {exc}")
            break  # Lichess is in trouble: leave the rest for the next attempt
        known_ids.add(created)
    if failures:
        await ctx.announcer.notice(
            event, f"Lichess did not create every game of round {round_number} ({failures[0]}); retrying shortly."
        )
        return
    if summary.round.status is RoundStatus.PAIRED:
        await storage_rounds.mark_round_started(ctx.db, event_id, round_number, at=ctx.clock.now())
    await _announce_round(ctx, event, round_number)


async def _announce_round(ctx: Context, event: Event, round_number: int) -> None:
    """Post a started round's pairings (and DM the players) once; marked after the announcer returns, so a
    restart before that announces them again rather than never."""
    summary = await get_round(ctx.db, event, round_number)
    if summary.round.pairings_announced_at is not None:
        return
    view = await pairings(ctx, event.id, round_number)
    if not await ctx.announced(event.id, ctx.announcer.round_paired(event, view)):
        return  # not marked: the next poll of the round posts them again
    for board_view in view.boards:
        for me, other, colour in (
            (board_view.white, board_view.black, "white"),
            (board_view.black, board_view.white, "black"),
        ):
            if me.discord_id:
                await ctx.announcer.dm(
                    me.discord_id,
                    f"{event.name} round {round_number}: you play {other.name} with {colour}: {board_view.url}",
                )
    await storage_rounds.mark_pairings_announced(ctx.db, event.id, round_number, at=ctx.clock.now())


async def _create_game(
    ctx: Context, event: Event, board: BoardRow, game: GameRow | None, white: str, black: str, known: set[str]
) -> str:
    """Resolve a pending attempt or start a new one; the game's id is stored at once."""
    now = ctx.clock.now()
    found: str | None = None
    if game is not None and game.status is GameStatus.CREATING:
        # We may have died after Lichess created it: look before creating again.
        row = game
        found = await _find_created(ctx, white, black, game.challenge_name, known)
    else:
        if game is not None and game.status is GameStatus.FAILED:
            # A failed create's fate can be unknown: it may have reached Lichess after all.
            found = await _find_created(ctx, white, black, game.challenge_name, known)
        attempt = 1 if game is None else game.attempt + 1
        name = challenge_name(event, board.round, board.board_no, attempt)
        row = await storage_games.begin_game(ctx.db, board.id, name, at=now)
    if found is not None:
        await storage_games.game_created(ctx.db, row.id, found, at=now)
        return found
    try:
        challenge = await ctx.lichess.create_game(
            white,
            black,
            clock_limit=event.settings.clock_limit,
            clock_increment=event.settings.clock_increment,
            name=row.challenge_name,
            rated=event.settings.rated,
            rules=event.settings.rules,
            exclude=known,
        )
    except LichessError:
        await storage_games.game_failed(ctx.db, row.id, at=ctx.clock.now())
        raise
    await storage_games.game_created(ctx.db, row.id, challenge.game_id, at=ctx.clock.now())
    return challenge.game_id


async def _find_created(ctx: Context, white: str, black: str, name: str, known: set[str]) -> str | None:
    """A challenge or game Lichess already has for this attempt (pending by name, or started, ongoing too)."""
    found = await ctx.lichess.find_created_game(white, black, name=name, since_ms=0, exclude=known)
    return found.game_id if found is not None else None


def _lichess_id(entry: Entry) -> str:
    """The entry's Lichess account (InvalidState if it has none)."""
    if entry.lichess_id is None:  # entries are made for linked players only; an unlink cannot get here
        raise InvalidState(f"{entry.name} has no linked Lichess account.")
    return entry.lichess_id
