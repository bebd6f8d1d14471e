"""The queries: events, entries, standings, a round's pairings, a player's game and the crosstable."""

from __future__ import annotations

from collections.abc import Sequence

from bot.director import team_standings
from bot.director.context import Context
from bot.director.lookups import get_event, get_round, latest_games, linked_player
from bot.director.models import (
    Actor,
    BoardView,
    ByeView,
    Crosstable,
    MyGame,
    RoundView,
    StandingRow,
    shown_bye,
)
from bot.director.tables import EventTables, player_ref
from bot.errors import EventNotFound
from domain.entry import Entry
from domain.event import Event, EventStatus
from domain.result import GameRow
from domain.rounds import BoardRow
from pairing.standings.crosstable import CrosstableCell
from storage import bulks as storage_bulks
from storage import entries as storage_entries
from storage import errors as storage_errors
from storage import events as storage_events
from storage import games as storage_games
from storage import rounds as storage_rounds
from storage import versions
from storage.audit import audit_log


async def list_events(ctx: Context, guild_id: int, statuses: Sequence[EventStatus] | None) -> list[Event]:
    """The club's events, newest first."""
    wanted = frozenset(statuses) if statuses else None
    return list(reversed(await storage_events.list_events(ctx.db, guild_id=guild_id, statuses=wanted)))


async def entries(ctx: Context, event_id: int) -> list[Entry]:
    """The event's players by starting number."""
    try:
        return await storage_entries.list_entries(ctx.db, event_id)
    except storage_errors.NotFound:
        raise EventNotFound(f"There is no event #{event_id}.") from None


async def standings(ctx: Context, event_id: int, after_round: int | None = None) -> list[StandingRow]:
    """The standings now (or after a round: later rounds left out), with the event's tie-breaks
    (disqualified players unranked, listed last); computed once per change of the event (`tables`)."""
    return list((await event_tables(ctx, event_id, after_round)).standings)


async def event_tables(ctx: Context, event_id: int, after_round: int | None = None) -> EventTables:
    """The event's standings, cells and crosstable at its current version: from the director's cache, or read
    and computed in a worker (the version is read first, so a write in between only costs a recompute)."""
    version = await last_change(ctx, event_id)
    try:
        return await ctx.tables.get((event_id, after_round), version, ctx.db)
    except storage_errors.NotFound:
        raise EventNotFound(f"There is no event #{event_id}.") from None


async def pairings(ctx: Context, event_id: int, round_number: int | None) -> RoundView:
    """A round (the current one by default) with names, links and results."""
    async with ctx.db.snapshot():
        event = await get_event(ctx.db, event_id)
        number = round_number if round_number is not None else event.current_round
        return await _round_view(ctx, event, number)


async def my_game(ctx: Context, actor: Actor, event_id: int | None, guild_id: int | None = None) -> MyGame | None:
    """The actor's board in the current round of an event (by default their running event of the guild)."""
    async with ctx.db.snapshot():
        player = await linked_player(ctx.db, actor)
        if event_id is None:
            running = frozenset({EventStatus.RUNNING, EventStatus.PAUSED})
            found = await storage_events.list_events(ctx.db, guild_id=guild_id, statuses=running)
            for candidate in reversed(found):
                if await storage_entries.find_entry(ctx.db, candidate.id, player.id) is not None:
                    event_id = candidate.id
                    break
            else:
                return None
        event = await get_event(ctx.db, event_id)
        if guild_id is not None and event.guild_id != guild_id:
            raise EventNotFound(f"There is no event #{event_id} here.")
        if event.current_round == 0:
            return None
        view = await _round_view(ctx, event, event.current_round)
    for board in view.boards:
        if actor.discord_id in (board.white.discord_id, board.black.discord_id):
            white = board.white.discord_id == actor.discord_id
            return MyGame(
                event, view.number, board, "white" if white else "black", board.black if white else board.white
            )
    return None


async def crosstable(ctx: Context, event_id: int) -> Crosstable:
    """Each player's results by round: opponent number, colour and score, or the kind of bye."""
    return (await event_tables(ctx, event_id)).crosstable


async def last_change(ctx: Context, event_id: int) -> int:
    """The id of the event's latest audit line: a finished event's pages stay the same until it moves."""
    lines = await audit_log(ctx.db, event_id=event_id, limit=1)
    return lines[-1].id if lines else 0


async def content_version(ctx: Context, event_id: int) -> str:
    """A version that moves whenever what the event's pages show may have changed (`storage.versions`)."""
    return await versions.content_version(ctx.db, event_id)


async def records(ctx: Context, event_id: int) -> dict[int, tuple[CrosstableCell, ...]]:
    """Each numbered player's event round by round: pairing's crosstable cells, with the points of each."""
    return dict((await event_tables(ctx, event_id)).records)


async def _round_view(ctx: Context, event: Event, number: int) -> RoundView:
    people = {e.player_id: e for e in await storage_entries.list_entries(ctx.db, event.id)}
    return await round_view(ctx, event, number, people)


async def round_view(ctx: Context, event: Event, number: int, people: dict[int, Entry]) -> RoundView:
    """A round with names, links and results, for a job that holds the event and its entries (by player id)."""
    summary = await get_round(ctx.db, event, number)
    games = latest_games(await storage_games.games_of_round(ctx.db, event.id, number))
    bulk = {
        g.game_row_id for attempt in await storage_bulks.bulks_of_round(ctx.db, event.id, number) for g in attempt.games
    }
    boards = [_board_view(ctx, b, people, games.get(b.id), bulk) for b in summary.boards]
    boards = await team_standings.label_matches(ctx, event, boards, people)  # a team event's boards name their match
    byes = [
        ByeView(player_ref(people[player_id]), shown)
        for player_id, kind in sorted(summary.byes.items())
        if (shown := shown_bye(kind)) is not None and player_id in people
    ]
    rnd = summary.round
    return RoundView(event.id, number, rnd.status, rnd.started_at, tuple(boards), tuple(byes))


def _board_view(
    ctx: Context,
    b: BoardRow,
    people: dict[int, Entry],
    game: GameRow | None,
    bulk: frozenset[int] | set[int] = frozenset(),
) -> BoardView:
    game_id = b.game_id if b.result is not None and b.game_id else (game.lichess_id if game else None)
    url = f"{ctx.lichess.base_url}/{game_id}" if game_id else None
    in_bulk = game is not None and game.id in bulk
    return BoardView(
        b.board_no, player_ref(people[b.white_id]), player_ref(people[b.black_id]), game_id, url, b.result, bulk=in_bulk
    )


async def player_boards(ctx: Context, event_id: int, number: int) -> dict[int, BoardView]:
    """A player's board in each round they were paired in, by round number (one read of their boards, one of their
    boards' games)."""
    async with ctx.db.snapshot():
        entries = await storage_entries.list_entries(ctx.db, event_id)
        people = {e.player_id: e for e in entries}
        player = next((e.player_id for e in entries if e.number == number), None)
        found: dict[int, BoardView] = {}
        if player is None:
            return found
        games = latest_games(await storage_games.games_of_player(ctx.db, event_id, player))
        for board in await storage_rounds.boards_of_player(ctx.db, event_id, player):
            found[board.round] = _board_view(ctx, board, people, games.get(board.id))
        return found
