"""The bot's own Lichess challenges and games that can no longer be played: cancelled as lila allows it (best
effort; for a correction, all or nothing checked first), marked aborted; and the board of a player who left during a
round, lost by forfeit at once."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bot.director.context import Context
from bot.director.endings import decide_board, finish_round, show_results
from bot.director.lookups import OVER, get_event, get_round, latest_games
from bot.director.models import Actor
from bot.director.outcome import UNFINISHED_STATUSES
from bot.director.queries import pairings
from bot.director.tokens import valid_tokens
from bot.lichess.errors import LichessError
from bot.lichess.payloads import GameData
from domain.entry import Entry
from domain.event import Event
from domain.result import GameRow, GameStatus, Result
from domain.rounds import BoardRow, RoundSummary
from pairing.model import RecordKind
from storage import bulks as storage_bulks
from storage import games as storage_games
from storage import rounds as storage_rounds

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


@dataclass(frozen=True)
class Planned:
    """How one attempt is cancelled on Lichess: the bot's (the club's) pending challenge with its token; a game that
    exists by one of its players with the other's token as `opponentToken`; a bulk not paired yet by deleting it."""

    game: GameRow
    board_no: int
    tokens: tuple[str, str] | None = None  # a player's token and the opponent's (a game that exists, or may soon)
    bulk: str | None = None  # the Lichess id of the bulk not paired yet that holds it


@dataclass(frozen=True)
class CancelPlan:
    """A set of attempts to cancel: how each is cancelled, and the boards' attempts that cannot be (with why)."""

    planned: tuple[Planned, ...]
    refused: tuple[tuple[int, str], ...]  # (board number, why), in board order


async def plan_cancel(
    ctx: Context, guild_id: int, games: Sequence[GameRow], exported: Sequence[GameData] | None = None
) -> CancelPlan:
    """How each of these 'created' attempts can be cancelled on Lichess (lila's `apiCancel`: only the challenger
    cancels a pending challenge, only a player aborts a game that exists, and a game under `noAbort` or with moves
    only with the other player's token too), read from what Lichess shows (`exported`, else exported here) and the
    players' tokens in the vault; finished games are left out. Raises `LichessError` when Lichess cannot tell."""
    live = [g for g in games if g.status is GameStatus.CREATED and g.lichess_id]
    if not live:
        return CancelPlan((), ())
    lichess = ctx.lichess_of(guild_id)
    if exported is None:
        exported = await lichess.export_games([str(g.lichess_id) for g in live])
    shown = {g.id: g for g in exported}
    boards = await _boards(ctx, {g.board_id for g in live})
    bulk_of = {
        g.game_row_id: b for b in await storage_bulks.bulks_of_games(ctx.db, [g.id for g in live]) for g in b.games
    }
    unshown_bulks = {bulk_of[g.id].lichess_id for g in live if g.id in bulk_of and g.lichess_id not in shown}
    unpaired: set[str] = set()
    if unshown_bulks:
        unpaired = {b.id for b in await lichess.list_bulks() if b.id in unshown_bulks and b.paired_at is None}
    wanted = {g.id for g in live}
    needs_tokens = [
        g for g in live if g.lichess_id in shown or (g.id in bulk_of and bulk_of[g.id].lichess_id in unpaired)
    ]
    players = {p for g in needs_tokens for p in (boards[g.board_id].white_id, boards[g.board_id].black_id)}
    tokens = await valid_tokens(ctx, players, context="cancelling a game") if players else {}
    planned: list[Planned] = []
    refused: list[tuple[int, str]] = []
    for game in live:
        board = boards[game.board_id]
        pair = (tokens.get(board.white_id), tokens.get(board.black_id))
        both = (pair[0], pair[1]) if pair[0] is not None and pair[1] is not None else None
        data = shown.get(str(game.lichess_id))
        bulk = bulk_of.get(game.id)
        if data is not None:
            if data.finished:
                continue  # over on Lichess: nothing to cancel
            if both is None:
                refused.append((board.board_no, _no_tokens(data, pair)))
                continue
            planned.append(Planned(game, board.board_no, tokens=both))
        elif bulk is not None and bulk.lichess_id in unpaired:
            if not {g.game_row_id for g in bulk.games} <= wanted:
                refused.append((board.board_no, "its bulk pairing is not paired yet and holds other boards' games"))
                continue
            planned.append(Planned(game, board.board_no, tokens=both, bulk=bulk.lichess_id))
        else:
            planned.append(Planned(game, board.board_no))  # a pending challenge of the bot's (or gone: a 404)
    return CancelPlan(tuple(planned), tuple(sorted(refused)))


def _no_tokens(data: GameData, tokens: tuple[str | None, str | None]) -> str:
    """Why a game that exists cannot be cancelled: whose Lichess permission the bot does not hold."""
    missing = [name for name, token in zip((data.white, data.black), tokens, strict=True) if token is None]
    whose = " and ".join(missing)
    return f"the game exists on Lichess and the bot holds no valid Lichess permission (token) of {whose} to abort it"


async def _boards(ctx: Context, board_ids: Iterable[int]) -> dict[int, BoardRow]:
    async with ctx.db.snapshot() as conn:
        return {b: await storage_rounds.load_board(conn, b) for b in board_ids}


async def carry_out(ctx: Context, guild_id: int, plan: CancelPlan) -> list[GameRow]:
    """Cancel what `plan` holds on Lichess (best effort: a refusal or Lichess in trouble leaves that attempt as it
    is); the attempts cancelled are marked aborted and returned."""
    lichess = ctx.lichess_of(guild_id)
    done: list[GameRow] = []
    bulks = {p.bulk for p in plan.planned if p.bulk is not None}
    created: set[str] = set()
    for bulk_id in sorted(bulks):
        ids = [str(p.game.lichess_id) for p in plan.planned if p.bulk == bulk_id]
        try:
            await lichess.cancel_bulk(bulk_id)
            created |= {g.id for g in await lichess.export_games(ids)}  # paired meanwhile: its games exist
        except LichessError as exc:
            LOG.info("Lichess: could not cancel the bulk pairing %s: %s", bulk_id, exc)
            created |= set(ids)
    for step in plan.planned:
        lichess_id = str(step.game.lichess_id)
        if step.bulk is not None and lichess_id not in created:
            done.append(await _aborted(ctx, step.game))
            continue
        if step.bulk is not None and step.tokens is None:
            continue
        token, opponent = step.tokens if step.tokens is not None else (None, None)
        try:
            cancelled = await lichess.cancel_challenge(lichess_id, token=token, opponent_token=opponent)
        except LichessError as exc:
            LOG.info("Lichess: could not cancel %s: %s", lichess_id, exc)
            continue
        if cancelled:
            done.append(await _aborted(ctx, step.game))
    return done


async def _aborted(ctx: Context, game: GameRow) -> GameRow:
    return await storage_games.update_game(ctx.db, game.id, GameStatus.ABORTED, at=ctx.clock.now())


async def cancel_games(ctx: Context, guild_id: int, games: Iterable[GameRow]) -> list[GameRow]:
    """Cancel these attempts on Lichess as `plan_cancel` says, with the token of the club (`guild_id`) that made them
    or the players' own; the ones Lichess cancelled are marked aborted and returned. A game in play that the
    players' tokens cannot abort, or Lichess in trouble, is left as it is (best effort)."""
    try:
        plan = await plan_cancel(ctx, guild_id, list(games))
    except LichessError as exc:
        LOG.info("Lichess: could not tell how to cancel games: %s", exc)
        return []
    for board_no, why in plan.refused:
        LOG.info("Lichess: board %d's game is not cancelled: %s", board_no, why)
    return await carry_out(ctx, guild_id, plan)


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
    await decide_board(ctx, board, result, actor=actor.audit_name, reason=f"{entry.name} {left}")
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
    bye = held.byes.get(entry.player_id)
    if not on_board and bye not in (RecordKind.PAB, RecordKind.HALF_BYE):
        return
    until = held.round.review_until
    fate = (
        "loses the board by forfeit"
        if on_board
        else f"loses the {'pairing-allocated' if bye is RecordKind.PAB else 'half-point'} bye (a zero-point bye)"
    )
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
