"""The tournament director: every use case of an event, combining pairing, storage and Lichess."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from bot.announce import Announcer
from bot.clock import Clock
from bot.director_models import (
    Actor,
    Correction,
    Crosstable,
    Entry,
    Event,
    EventSettings,
    EventStatus,
    Job,
    LinkChallenge,
    LinkedAccount,
    MyGame,
    RoundView,
    StandingRow,
)
from bot.settings import DirectorSettings

BeforePairingHook = Callable[[int, int], Awaitable[None]]


class Director:
    """The use cases of events; the Discord cogs, the scheduler and the demo all call these."""

    def __init__(
        self,
        db: Any,
        lichess: Any,
        announcer: Announcer,
        clock: Clock,
        settings: DirectorSettings | None = None,
    ) -> None:
        self.db = db
        self.lichess = lichess
        self.announcer = announcer
        self.clock = clock
        self.settings = settings or DirectorSettings()
        self.on_change: Callable[[], None] | None = None
        self.before_pairing: BeforePairingHook | None = None

    # -- members ---------------------------------------------------------------------------------

    async def start_link(self, actor: Actor, lichess_username: str) -> LinkChallenge:
        """Issue a one-time code for the player to put in their Lichess profile bio."""
        raise NotImplementedError

    async def complete_link(self, actor: Actor) -> LinkedAccount:
        """Read the bio back; link when the code is there (one account per user and vice versa)."""
        raise NotImplementedError

    async def linked_account(self, discord_id: int) -> LinkedAccount | None:
        """The verified Lichess account of a Discord user, if any."""
        raise NotImplementedError

    async def join(self, actor: Actor, event_id: int) -> Entry:
        """Enter an event (rating limits, account state, bans, team, late join with one half-point bye)."""
        raise NotImplementedError

    async def withdraw(self, actor: Actor, event_id: int) -> Entry:
        """Leave an event: not paired again, points kept; may rejoin while joining is open."""
        raise NotImplementedError

    async def request_bye(self, actor: Actor, event_id: int, round_number: int | None = None) -> int:
        """Ask for a half-point bye in a coming round (the next one by default); returns the round."""
        raise NotImplementedError

    # -- queries ---------------------------------------------------------------------------------

    async def list_events(self, guild_id: int, statuses: Sequence[EventStatus] | None = None) -> list[Event]:
        """The club's events, newest first."""
        raise NotImplementedError

    async def event(self, event_id: int) -> Event:
        """One event."""
        raise NotImplementedError

    async def entries(self, event_id: int) -> list[Entry]:
        """The event's players by starting number."""
        raise NotImplementedError

    async def standings(self, event_id: int) -> list[StandingRow]:
        """The standings now, with the event's tie-breaks (disqualified players unranked)."""
        raise NotImplementedError

    async def pairings(self, event_id: int, round_number: int | None = None) -> RoundView:
        """A round (the current one by default) with names, links and results."""
        raise NotImplementedError

    async def my_game(self, actor: Actor, event_id: int | None = None) -> MyGame | None:
        """The actor's board in the current round of an event (their running event by default)."""
        raise NotImplementedError

    async def crosstable(self, event_id: int) -> Crosstable:
        """Each player's results by round."""
        raise NotImplementedError

    # -- organisers ------------------------------------------------------------------------------

    async def create_event(self, actor: Actor, guild_id: int, channel_id: int, settings: EventSettings) -> Event:
        """Create an event (a draft until opened)."""
        raise NotImplementedError

    async def edit_event(self, actor: Actor, event_id: int, settings: EventSettings) -> Event:
        """Change an event's settings (the number of rounds only before it starts)."""
        raise NotImplementedError

    async def open_event(self, actor: Actor, event_id: int) -> Event:
        """Accept entries."""
        raise NotImplementedError

    async def start_event(self, actor: Actor, event_id: int) -> Event:
        """Start now, instead of at the start time."""
        raise NotImplementedError

    async def pause(self, actor: Actor, event_id: int) -> Event:
        """No new round starts until resumed (the round being played goes on)."""
        raise NotImplementedError

    async def resume(self, actor: Actor, event_id: int) -> Event:
        """Undo a pause."""
        raise NotImplementedError

    async def next_round(self, actor: Actor, event_id: int) -> RoundView:
        """Start the next round now (manual scheduling, or to skip the wait)."""
        raise NotImplementedError

    async def set_result(
        self, actor: Actor, event_id: int, round_number: int, board: int, result: str, reason: str
    ) -> Correction:
        """Set or correct a board's result (audited); says if a later round was already paired."""
        raise NotImplementedError

    async def forbid(self, actor: Actor, event_id: int, a: str, b: str) -> None:
        """Two players (Lichess names) must not be paired together."""
        raise NotImplementedError

    async def remove(self, actor: Actor, event_id: int, player: str) -> Entry:
        """Remove a player from the event (not paired again)."""
        raise NotImplementedError

    async def unban(self, actor: Actor, guild_id: int, player: str) -> None:
        """Lift a no-show ban."""
        raise NotImplementedError

    async def disqualify(self, actor: Actor, event_id: int, player: str, reason: str) -> Entry:
        """Take a player out of the ranking (everyone's scores unchanged)."""
        raise NotImplementedError

    async def finish(self, actor: Actor, event_id: int) -> Event:
        """End the event now, with final standings."""
        raise NotImplementedError

    async def cancel(self, actor: Actor, event_id: int) -> Event:
        """Cancel the event."""
        raise NotImplementedError

    async def export(self, event_id: int, fmt: str) -> bytes:
        """The event as `trf`, `pgn` or `json`."""
        raise NotImplementedError

    # -- driven by the scheduler -------------------------------------------------------------------

    async def start_round(self, event_id: int, round_number: int) -> None:
        """Pair, store, create every game, announce; idempotent (does only what is missing)."""
        raise NotImplementedError

    async def poll_round(self, event_id: int) -> None:
        """Read the round's games, adjudicate, store results; when all are in, standings and next round."""
        raise NotImplementedError

    async def noshow_deadline(self, event_id: int, round_number: int) -> None:
        """Adjudicate the boards whose game never started; withdraw and ban the absent."""
        raise NotImplementedError

    async def remind(self, event_id: int, round_number: int) -> None:
        """Remind the players of a coming round."""
        raise NotImplementedError

    async def due_jobs(self, now: Any = None) -> list[Job]:
        """Every job the database implies right now (the scheduler's whole state)."""
        raise NotImplementedError
