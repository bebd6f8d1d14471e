"""The bot's own Lichess challenges that can no longer be played: cancelled (best effort), marked aborted; and the
board of a player who left during a round, lost by forfeit at once."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

from bot.director.context import Context
from bot.director.endings import finish_round, show_results
from bot.director.lookups import OVER, get_event, get_round, latest_games
from bot.director.models import Actor
from bot.director.outcome import UNFINISHED_STATUSES
from bot.director.queries import pairings
from bot.lichess.errors import LichessError
from domain.entry import Entry
from domain.event import Event
from domain.result import GameRow, GameStatus, Result
from domain.rounds import RoundSummary
from pairing.model import RecordKind
from storage import games as storage_games
from storage import outbox as storage_outbox
from storage import results as storage_results
from storage import rounds as storage_rounds
from storage.outbox import PostKind

LOG = logging.getLogger(__name__)


async def open_games(
    ctx: Context, event_id: int, round_number: int, board_ids: Iterable[int] | None = None
) -> list[GameRow]:
    """The round's latest attempts still 'created' (a challenge or a game on Lichess), of some boards if given."""
    wanted = None if board_ids is None else set(board_ids)
    games = await storage_games.games_of_round(ctx.db, event_id, round_number)
    return [
        g
        for g in latest_games(games).values()
        if g.status is GameStatus.CREATED and g.lichess_id and (wanted is None or g.board_id in wanted)
    ]


async def cancel_games(ctx: Context, guild_id: int, games: Iterable[GameRow]) -> list[GameRow]:
    """Cancel these attempts' challenges on Lichess, with the token of the club (`guild_id`) that made them (a game
    nobody has moved in is aborted); the ones Lichess cancelled are marked aborted and returned. A game in play, or
    Lichess in trouble, is left as it is."""
    cancelled = []
    for game in games:
        if game.status is not GameStatus.CREATED or game.lichess_id is None:
            continue
        try:
            done = await ctx.lichess_of(guild_id).cancel_challenge(game.lichess_id)
        except LichessError as exc:
            LOG.info("Lichess: could not cancel %s: %s", game.lichess_id, exc)
            continue
        if done:
            row = await storage_games.update_game(ctx.db, game.id, GameStatus.ABORTED, at=ctx.clock.now())
            cancelled.append(row)
    return cancelled


async def forfeit_departed(ctx: Context, actor: Actor, event_id: int, entry: Entry, left: str) -> None:
    """A player who left (`left`: "withdrew", "was removed"...) during a round loses their undecided board of it by
    forfeit at once: its game on Lichess is cancelled (best effort; a game they start afterwards counts for nothing,
    as a decided board is never read again), the opponent is told, and a round now decided ends. A game already
    over on Lichess is left to the round's poll, which records how it ended. A round whose
    pairing is held for review is left to the organisers, who are told (they can re-pair it; else
    `rounds._forfeit_gone` decides the board when its games are created). Call under the event's lock."""
    event = await get_event(ctx.db, event_id)
    if event.status in OVER or event.current_round < 1:
        return
    current = await get_round(ctx.db, event, event.current_round)
    if current.round.held(ctx.clock.now()):
        await _held_names(ctx, event, current, entry, left)
        return
    board = await storage_rounds.board_of_player(ctx.db, event_id, event.current_round, entry.player_id)
    if board is None or board.result is not None:
        return
    live = await open_games(ctx, event_id, board.round, [board.id])
    if await _ended_on_lichess(ctx, event.guild_id, live):
        return  # the game was played before they left: the round's poll records its result
    await cancel_games(ctx, event.guild_id, live)
    white_left = board.white_id == entry.player_id
    result = Result.BLACK_WINS_FORFEIT if white_left else Result.WHITE_WINS_FORFEIT
    async with ctx.db.transaction():  # with the result: a stop before the round's message shows it edits it later
        await storage_results.record_result(
            ctx.db, board.id, result, at=ctx.clock.now(), actor=actor.audit_name, reason=f"{entry.name} {left}"
        )
        await storage_outbox.queue_post(ctx.db, event_id, PostKind.RESULTS, board.round, at=ctx.clock.now())
    view = await pairings(ctx, event_id, board.round)
    shown = next(b for b in view.boards if b.number == board.board_no)
    opponent = shown.black if white_left else shown.white
    where = f"{event.round_name(board.round).capitalize()} board {board.board_no}"
    await ctx.announcer.notice(event, f"{where}: {entry.name} {left}, so {opponent.name} wins by forfeit.")
    if opponent.discord_id:
        await ctx.announcer.dm(
            opponent.discord_id,
            f"{event.name} {event.round_name(board.round)}: {entry.name} {left}; you win your board by forfeit, no"
            " game to play.",
        )
    await show_results(ctx, event, view)  # through the outbox: a post Discord refuses now is sent later
    if view.decided:
        await finish_round(ctx, event_id, board.round)


async def _held_names(ctx: Context, event: Event, held: RoundSummary, entry: Entry, left: str) -> None:
    """A player who left is still in a pairing held for review: the organisers are told, and that they can pair
    the round again without them (the games do not exist yet, so nothing is forfeited now)."""
    on_board = any(entry.player_id in (b.white_id, b.black_id) for b in held.boards if b.result is None)
    if not on_board and held.byes.get(entry.player_id) is not RecordKind.PAB:
        return
    until = held.round.review_until
    fate = "loses the board by forfeit" if on_board else "keeps the pairing-allocated bye"
    await ctx.announcer.notice(
        event,
        f"{event.round_name(held.round.number).capitalize()}'s pairing, held for review until {until:%H:%M} UTC,"
        f" names {entry.name}, who {left}: /arbiter repair pairs the round again without them; left as it is,"
        f" {entry.name} {fate} when the games are created.",
    )


async def _ended_on_lichess(ctx: Context, guild_id: int, games: Sequence[GameRow]) -> bool:
    """Whether one of these games has ended on Lichess (False when Lichess cannot tell)."""
    ids = [g.lichess_id for g in games if g.lichess_id]
    if not ids:
        return False
    try:
        exported = await ctx.lichess_of(guild_id).export_games(ids)
    except LichessError:
        return False
    return any(game.status not in UNFINISHED_STATUSES for game in exported)
