"""Team Swiss events (FIDE C.04.6): forming teams, pairing a team round onto board games, a member's match.

A team round is paired by `pairing.team.pair_event` on the stored history and rosters; each match becomes
`team_boards` board games (board k: each team's k-th available roster player, withdrawn players and requested
byes skipped, so reserves step in), with the colours `pairing.team.boards` gives, stored as the round's boards
so that the games, results and polling of any round serve it unchanged. Match points come from the board
results (`pairing.team` derives every team record from its players' records).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from bot.director.context import Context
from bot.director.endings import finish_event
from bot.director.lookups import get_event, sentence
from bot.director.models import (
    SYSTEM_ACTOR,
    Actor,
    MyGame,
    PlayerRef,
    TeamGame,
    TeamView,
)
from bot.director.round_pairing import pair_or_finish
from bot.errors import InvalidSetting, InvalidState, NotEntered, NotLinked, NotOrganiser
from domain.entry import Entry, EntryStatus
from domain.event import Event
from pairing.errors import TeamError
from pairing.model import Pairing, RecordKind
from pairing.team.engine import pair_event
from pairing.team.matches import boards
from pairing.team.model import TeamEvent
from storage import entries as storage_entries
from storage import errors as storage_errors
from storage import events as storage_events
from storage import players as storage_players
from storage import teams as storage_teams
from storage.history import History, build_tournament
from storage.teams import TeamRow


def is_team_event(event: Event) -> bool:
    """The event is paired by a team system (the Swiss Team system)."""
    return event.settings.pairing_system.team


def _organiser(actor: Actor) -> None:
    if not actor.is_organiser:
        raise NotOrganiser()


def _refused(exc: storage_errors.StorageError) -> InvalidSetting:
    return InvalidSetting(sentence(str(exc)))


async def _resolve(ctx: Context, event: Event, who: str, entries: Sequence[Entry]) -> int:
    """A member named by Discord id or Lichess name, as the player id of their entry."""
    key = who.strip().lower()
    for entry in entries:
        if key in (str(entry.discord_id), entry.name.lower(), entry.lichess_id or ""):
            if entry.status is not EntryStatus.ACTIVE:
                raise NotEntered(f"{entry.name} is {entry.status.value} in {event.name}.")
            return entry.player_id
    player = None
    if key.isdigit():
        player = await storage_players.player_by_discord(ctx.db, int(key))
    else:
        player = await storage_players.player_by_lichess(ctx.db, key)
    if player is None or player.lichess_id is None:
        raise NotLinked(f"{who} has not linked a Lichess account (/link), so cannot be in a team.")
    raise NotEntered(f"{player.lichess_name or who} has not joined {event.name} (/join).")


async def _team_event_for_change(ctx: Context, actor: Actor, event_id: int) -> Event:
    _organiser(actor)
    event = await get_event(ctx.db, event_id)
    if not is_team_event(event):
        raise InvalidState(f"{event.name} is not a team event (its system is {event.settings.system}).")
    return event


async def add_team(
    ctx: Context, actor: Actor, event_id: int, name: str, members: Sequence[str], role_id: int | None = None
) -> TeamView:
    """Form a team from members named in board order (Discord ids or Lichess names)."""
    event = await _team_event_for_change(ctx, actor, event_id)
    entries = await storage_entries.list_entries(ctx.db, event_id)
    players = [await _resolve(ctx, event, who, entries) for who in members if who.strip()]
    try:
        row = await storage_teams.add_team(
            ctx.db, event_id, name, players, at=ctx.clock.now(), actor=actor.audit_name, role_id=role_id
        )
    except (storage_errors.TeamRefused, storage_errors.NotFound) as exc:
        raise _refused(exc) from None
    ctx.changed()
    return _view(event, row, {e.player_id: e for e in entries})


async def add_team_from_role(
    ctx: Context, actor: Actor, event_id: int, name: str, role_id: int, member_ids: Sequence[int]
) -> TeamView:
    """Form a team from a Discord role's members (the caller resolves the role): those who joined the event,
    in board order by their rating in it (then name); the role's members who did not join are left out."""
    event = await _team_event_for_change(ctx, actor, event_id)
    entries = await storage_entries.list_entries(ctx.db, event_id)
    wanted = set(member_ids)
    chosen = sorted(
        (e for e in entries if e.discord_id in wanted and e.status is EntryStatus.ACTIVE),
        key=lambda e: (-e.rating, e.name.casefold()),
    )
    try:
        row = await storage_teams.add_team(
            ctx.db,
            event_id,
            name,
            [e.player_id for e in chosen],
            at=ctx.clock.now(),
            actor=actor.audit_name,
            role_id=role_id,
        )
    except (storage_errors.TeamRefused, storage_errors.NotFound) as exc:
        raise _refused(exc) from None
    ctx.changed()
    return _view(event, row, {e.player_id: e for e in entries})


async def remove_team(ctx: Context, actor: Actor, event_id: int, name: str) -> TeamView:
    """Remove a team before the event starts (its players stay entered)."""
    event = await _team_event_for_change(ctx, actor, event_id)
    try:
        row = await storage_teams.remove_team(ctx.db, event_id, name, at=ctx.clock.now(), actor=actor.audit_name)
    except (storage_errors.TeamRefused, storage_errors.NotFound) as exc:
        raise _refused(exc) from None
    ctx.changed()
    entries = await storage_entries.list_entries(ctx.db, event_id)
    return _view(event, row, {e.player_id: e for e in entries})


async def set_roster(ctx: Context, actor: Actor, event_id: int, name: str, members: Sequence[str]) -> TeamView:
    """Set a team's roster anew, in board order, before the event starts."""
    event = await _team_event_for_change(ctx, actor, event_id)
    entries = await storage_entries.list_entries(ctx.db, event_id)
    players = [await _resolve(ctx, event, who, entries) for who in members if who.strip()]
    try:
        row = await storage_teams.reorder_team(
            ctx.db, event_id, name, players, at=ctx.clock.now(), actor=actor.audit_name
        )
    except (storage_errors.TeamRefused, storage_errors.NotFound) as exc:
        raise _refused(exc) from None
    ctx.changed()
    return _view(event, row, {e.player_id: e for e in entries})


async def list_teams(ctx: Context, event_id: int) -> list[TeamView]:
    """The event's teams by pairing number."""
    event = await get_event(ctx.db, event_id)
    async with ctx.db.snapshot():
        rows = await storage_teams.list_teams(ctx.db, event_id)
        entries = {e.player_id: e for e in await storage_entries.list_entries(ctx.db, event_id)}
    return [_view(event, row, entries) for row in rows]


def _view(event: Event, row: TeamRow, entries: dict[int, Entry]) -> TeamView:
    players = tuple(_ref(entries[p]) for p in row.players if p in entries)
    return TeamView(row.number, row.name, players, event.settings.team_boards, row.role_id)


def _ref(entry: Entry) -> PlayerRef:
    return PlayerRef(entry.number or 0, entry.name, entry.discord_id, entry.rating)


# --- pairing a team round ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TeamRound:
    """A team round laid out: the board games (starting numbers), the byes, the teams that could not play, and
    the players who default their boards (absent from a line-up their team could not fill with others)."""

    boards: tuple[tuple[int, int], ...]
    byes: dict[int, RecordKind]
    short: tuple[str, ...]
    defaulted: frozenset[int] = frozenset()


def line_ups(event: TeamEvent, round_number: int) -> dict[int, tuple[int, ...]]:
    """Each team's line-up for a round, in roster order: its first available roster players (reserves stepping
    in); a team with fewer available players than boards adds its first absent roster players, who default their
    boards (as a club match is played a player short); a team with nobody available sits the round out. Boards
    keep roster order because a TRF without record 300 reads a team's boards in that order."""
    boards = event.rules.boards
    tournament = event.tournament
    fielded: dict[int, tuple[int, ...]] = {}
    for t in event.teams:
        free = tuple(p for p in t.players if tournament.player(p).record(round_number).kind is RecordKind.NOT_PAIRED)
        if free:  # the absent fill up from the top of the roster; the line-up keeps roster order (TRF's boards)
            chosen = set(free[:boards] + tuple(p for p in t.players if p not in free)[: max(0, boards - len(free))])
            fielded[t.number] = tuple(p for p in t.players if p in chosen)
    return fielded


def lay_out(event: TeamEvent, round_number: int) -> tuple[TeamRound, Pairing]:
    """Pair a team round (`pairing.team.pair_event`) and lay its matches out as board games."""
    fielded = line_ups(event, round_number)
    short = tuple(t.name for t in event.teams if t.number not in fielded)
    free = {p.number for p in event.tournament.players if p.record(round_number).kind is RecordKind.NOT_PAIRED}
    pairing = pair_event(event, round_number)
    games: list[tuple[int, int]] = []
    for match in pairing.boards:
        games.extend(boards(fielded[match.white], fielded[match.black], True, event.rules.pattern))
    byes: dict[int, RecordKind] = {}
    if pairing.bye is not None:
        byes.update((p, RecordKind.PAB) for p in fielded[pairing.bye] if p in free)
    defaulted = frozenset(p for pair in games for p in pair if p not in free)
    return TeamRound(tuple(games), byes, short, defaulted), pairing


async def pair_team_round(ctx: Context, history: History, round_number: int) -> Event | None:
    """Pair and store a team round on the event's state the job read; the event's row as storing left it, or None
    if the event ended instead (too few teams, no valid pairing)."""
    now = ctx.clock.now()
    event = history.event
    event_id = event.id
    rows = await storage_teams.list_teams(ctx.db, event_id)
    if round_number == 1:  # pairing numbers by strength, once the ratings are those of the start
        await storage_teams.number_teams(
            ctx.db, event_id, storage_teams.seeded_order(history, rows), at=now, actor=SYSTEM_ACTOR.name
        )
        rows = await storage_teams.list_teams(ctx.db, event_id)
    try:
        event_now = storage_teams.team_event(history, rows, build_tournament(history))
    except TeamError as exc:
        await ctx.announcer.notice(event, f"Round {round_number} could not be paired: {sentence(str(exc))}")
        raise
    if len(event_now.to_pair(round_number)) < 2:
        await finish_event(ctx, event_id, "not enough teams left")
        return None
    paired = await pair_or_finish(ctx, event, round_number, lambda: lay_out(event_now, round_number))
    if paired is None:
        return None
    laid, _ = paired
    async with ctx.db.transaction():
        await storage_teams.store_team_round(
            ctx.db, event_id, round_number, laid.boards, laid.byes, at=now, actor=SYSTEM_ACTOR.name,
            defaulted=laid.defaulted,
        )  # fmt: skip
        stored = await storage_events.set_next_round_at(ctx.db, event_id, None)
    dropped = tuple(r.name for r in rows if r.number not in event_now.by_number)
    if laid.short or dropped:
        names = ", ".join((*dropped, *laid.short))
        await ctx.announcer.notice(
            event, f"Round {round_number}: {names} cannot field {event.settings.team_boards} players and sit out."
        )
    if laid.defaulted:
        numbers = {e.number: e for e in history.entries if e.number}
        gone = ", ".join(sorted(numbers[n].name for n in laid.defaulted if n in numbers))
        await ctx.announcer.notice(
            event, f"Round {round_number}: {gone} cannot play, and their teams have no reserve left: those boards "
            "are lost by default.",
        )  # fmt: skip
    ctx.changed()
    return stored


# --- a member's match -------------------------------------------------------------------------------------------


async def my_team_game(ctx: Context, game: MyGame) -> MyGame:
    """A member's board with their team, the opposing team and the match (a team event's game)."""
    if not is_team_event(game.event):
        return game
    boards = game.event.settings.team_boards
    rows = await storage_teams.list_teams(ctx.db, game.event.id)
    entries = await storage_entries.list_entries(ctx.db, game.event.id)
    by_number = {e.number: e.player_id for e in entries if e.number is not None}
    mine = by_number.get(game.board.white.number if game.colour == "white" else game.board.black.number)
    theirs = by_number.get(game.opponent.number)
    team_of = {p: r.name for r in rows for p in r.players}
    match = (game.board.number - 1) // boards + 1
    within = (game.board.number - 1) % boards + 1
    found = TeamGame(team_of.get(mine or 0, "?"), team_of.get(theirs or 0, "?"), match, within)
    return replace(game, team=found)
