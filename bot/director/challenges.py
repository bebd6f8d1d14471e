"""The bot's own Lichess challenges that can no longer be played: cancelled (best effort), marked aborted."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from bot.director.context import Context
from bot.director.lookups import latest_games
from bot.lichess.errors import LichessError
from domain.result import GameRow, GameStatus
from storage import games as storage_games

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
