"""What the use cases share: storage reads with storage's errors turned into the domain errors a user sees."""

from __future__ import annotations

from collections.abc import Sequence

from bot.director.models import Actor
from bot.errors import EventNotFound, NotEntered, NotLinked, RoundNotFound
from domain.entry import Entry, EntryStatus, PlayerRow
from domain.event import Event, EventStatus
from domain.result import GameRow
from domain.rounds import RoundSummary
from storage import entries as storage_entries
from storage import errors as storage_errors
from storage import events as storage_events
from storage import players as storage_players
from storage import rounds as storage_rounds
from storage.db import Database
from storage.history import History, load_history

ACTIVE_EVENT_STATUSES = (EventStatus.OPEN, EventStatus.RUNNING, EventStatus.PAUSED)
OVER = (EventStatus.FINISHED, EventStatus.CANCELLED)


async def get_event(db: Database, event_id: int) -> Event:
    """The event, or EventNotFound."""
    try:
        return await storage_events.get_event(db, event_id)
    except storage_errors.NotFound:
        raise EventNotFound(f"There is no event #{event_id}.") from None


async def event_history(db: Database, event_id: int) -> History:
    """The event's whole state (its row, entries, rounds, bye requests, forbidden pairs) in one read, or
    EventNotFound: what a job loads once and passes down. Its boards come without their games' data, which no job
    reads (the exports read it): less to read and to send to the pairing's worker."""
    try:
        async with db.snapshot() as conn:
            return await load_history(conn, event_id, lean=True)
    except storage_errors.NotFound:
        raise EventNotFound(f"There is no event #{event_id}.") from None


async def load_people(db: Database, event_id: int) -> dict[int, Entry]:
    """The event's entries by player id, for a caller that holds the event already (one read of the entries)."""
    async with db.snapshot() as conn:
        return by_player(await storage_entries.load_entries(conn, event_id))


def by_player(entries: Sequence[Entry]) -> dict[int, Entry]:
    """Entries by player id."""
    return {e.player_id: e for e in entries}


async def player_in_event(db: Database, event_id: int, who: str) -> Entry:
    """An entry found by Lichess name, Discord id or starting number ('#3'), or NotEntered."""
    key = who.strip().lower()
    for e in await storage_entries.list_entries(db, event_id):
        if key in (e.lichess_id, e.name.lower(), str(e.discord_id)) or (e.number is not None and key == f"#{e.number}"):
            return e
    raise NotEntered(f"{who} is not in this event.")


async def get_round(db: Database, event: Event, number: int) -> RoundSummary:
    """A paired round with its boards and byes, or RoundNotFound."""
    try:
        return await storage_rounds.get_round(db, event.id, number)
    except storage_errors.NotFound:
        raise RoundNotFound(f"Round {number} of {event.name} is not paired.") from None


async def linked_player(db: Database, actor: Actor) -> PlayerRow:
    """The actor as a player with a verified Lichess account, or NotLinked."""
    player = await storage_players.player_by_discord(db, actor.discord_id)
    if player is None or player.lichess_id is None:
        raise NotLinked()
    return player


def active_entries(entries: Sequence[Entry]) -> list[Entry]:
    """The entries still playing."""
    return [e for e in entries if e.status is EntryStatus.ACTIVE]


def latest_games(games: Sequence[GameRow]) -> dict[int, GameRow]:
    """Each board's latest game attempt, by board id."""
    latest: dict[int, GameRow] = {}
    for game in games:
        if game.board_id not in latest or game.attempt > latest[game.board_id].attempt:
            latest[game.board_id] = game
    return latest


def sentence(text: str) -> str:
    """A storage error's message as a sentence for a user."""
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")
