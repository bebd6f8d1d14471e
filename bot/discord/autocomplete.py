"""Event names for autocomplete and for resolving an `event` option, served from a small cache."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Collection
from datetime import UTC, datetime

from discord import app_commands

from bot.errors import EventNotFound
from domain.event import Event, EventStatus

MAX_CHOICES = 25
CHOICE_NAME_LIMIT = 100
LIVE = frozenset({EventStatus.OPEN, EventStatus.RUNNING, EventStatus.PAUSED})
NOT_OVER = LIVE | {EventStatus.DRAFT}


EventLoader = Callable[[int], Awaitable[list[Event]]]


class EventCache:
    """A guild's events (from `load`, e.g. the director's list_events), reloaded after `ttl` seconds or on demand."""

    def __init__(self, load: EventLoader, ttl: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.load = load
        self.ttl = ttl
        self.clock = clock
        self._events: dict[int, tuple[float, list[Event]]] = {}

    def invalidate(self, guild_id: int | None = None) -> None:
        """Forget one guild's events (or every guild's)."""
        if guild_id is None:
            self._events.clear()
        else:
            self._events.pop(guild_id, None)

    async def events(self, guild_id: int) -> list[Event]:
        """The guild's events, newest first."""
        cached = self._events.get(guild_id)
        if cached is not None and self.clock() - cached[0] < self.ttl:
            return cached[1]
        events = await self.load(guild_id)
        self._events[guild_id] = (self.clock(), events)
        return events

    async def choices(
        self, guild_id: int | None, current: str, statuses: Collection[EventStatus] = NOT_OVER
    ) -> list[app_commands.Choice[str]]:
        """At most 25 events whose name contains what was typed, live ones first; the value is the event id."""
        if guild_id is None:
            return []
        typed = current.strip().casefold()
        wanted = [e for e in await self.events(guild_id) if e.status in statuses and typed in e.name.casefold()]
        wanted.sort(key=lambda e: (e.status not in LIVE, not e.name.casefold().startswith(typed)))
        return [app_commands.Choice(name=choice_name(e), value=str(e.id)) for e in wanted[:MAX_CHOICES]]

    async def resolve(
        self,
        guild_id: int | None,
        value: str | None,
        statuses: Collection[EventStatus] = LIVE,
        *,
        otherwise: Callable[[list[Event]], Event | None] | None = None,
    ) -> Event:
        """The event an option names (an id from autocomplete, or a typed name); the only live one if omitted, or
        when there is none, the one `otherwise` picks among the guild's events (e.g. the next, the last finished)."""
        if guild_id is None:
            raise EventNotFound("Events live in a server; use this command there.")
        events = await self.events(guild_id)
        if value is None or not value.strip():
            candidates = [e for e in events if e.status in statuses]
            if len(candidates) == 1:
                return candidates[0]
            if not candidates:
                chosen = None if otherwise is None else otherwise(events)
                if chosen is not None:
                    return chosen
                raise EventNotFound("There is no event in progress here.")
            names = ", ".join(e.name for e in candidates[:5])
            raise EventNotFound(f"Several events are in progress ({names}); pick one with the event option.")
        text = value.strip()
        if text.isdigit():
            by_id = [e for e in events if e.id == int(text)]
            if by_id:
                return by_id[0]
        by_name = [e for e in events if e.name.casefold() == text.casefold()]
        if not by_name:
            by_name = [e for e in events if e.name.casefold().startswith(text.casefold())]
        if len(by_name) == 1:
            return by_name[0]
        if len(by_name) > 1:
            live = [e for e in by_name if e.status in statuses]
            if len(live) == 1:
                return live[0]
            raise EventNotFound(f"Several events match '{text}'; pick one from the list.")
        raise EventNotFound(f"No event called '{text}' here.")


def choice_name(event: Event) -> str:
    """How an event appears in the autocomplete list (at most 100 characters)."""
    suffix = f" ({event.status.value})"
    return event.name[: CHOICE_NAME_LIMIT - len(suffix)] + suffix


PLAYING = frozenset({EventStatus.RUNNING, EventStatus.PAUSED})


def next_to_start(events: list[Event]) -> Event | None:
    """The open event that starts first (one without a start time after those with one), or None."""
    waiting = [e for e in events if e.status is EventStatus.OPEN]
    far = datetime.max.replace(tzinfo=UTC)
    return min(waiting, key=lambda e: (e.next_round_at or far, e.id), default=None)


def last_finished(events: list[Event]) -> Event | None:
    """The event that finished last, or None."""
    done = [e for e in events if e.status is EventStatus.FINISHED and e.finished_at is not None]
    return max(done, key=lambda e: e.finished_at or datetime.min.replace(tzinfo=UTC), default=None)


def standings_event(events: list[Event]) -> Event | None:
    """With no event in play: the last finished one's standings, else the next one's entrants."""
    return last_finished(events) or next_to_start(events)


def pairings_event(events: list[Event]) -> Event | None:
    """With no event in play: the next one to start, else the last finished."""
    return next_to_start(events) or last_finished(events)
