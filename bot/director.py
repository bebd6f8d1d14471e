"""The tournament director: every use case of an event, combining pairing, storage and Lichess.

Nothing here knows Discord, and nothing here runs SQL: every read and write goes through `storage`'s
repository functions (several of them in one `db.transaction()` when they belong together). Each
scheduler-driven method re-reads the database and does only what is still missing, so a restart at any
moment (or a job run twice) changes nothing that was already done.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from datetime import datetime

from bot import director_endings as endings
from bot import director_jobs as jobs
from bot import director_members as members
from bot import director_polling as polling
from bot import director_rounds as rounds
from bot import director_views as views
from bot.announce import Announcer
from bot.clock import Clock
from bot.director_models import (
    Actor,
    Correction,
    Crosstable,
    Job,
    LinkChallenge,
    LinkedAccount,
    MyGame,
    RoundView,
    StandingRow,
)
from bot.director_rounds import set_next_round_at
from bot.director_storage import (
    ACTIVE_EVENT_STATUSES,
    OVER,
    active_entries,
    get_event,
    sentence,
)
from bot.errors import (
    BoardNotFound,
    InvalidSetting,
    InvalidState,
    NotEntered,
    NotOrganiser,
    RoundNotFound,
    SwissbotError,
)
from bot.lichess import LichessGateway
from bot.settings import DirectorSettings
from pairing.tiebreak_codes import parse_tiebreak
from storage import entries as storage_entries
from storage import errors as storage_errors
from storage import events as storage_events
from storage import players as storage_players
from storage import results as storage_results
from storage import rounds as storage_rounds
from storage.db import Database
from storage.export import export_event
from storage.records import (
    Entry,
    EntryStatus,
    Event,
    EventSettings,
    EventStatus,
    Result,
    RoundStatus,
)

LOG = logging.getLogger(__name__)

BeforePairingHook = Callable[[int, int], Awaitable[None]]
_RESULT_ALIASES = {
    "1-0": Result.WHITE_WINS,
    "0-1": Result.BLACK_WINS,
    "1/2-1/2": Result.DRAW,
    "½-½": Result.DRAW,
    "=": Result.DRAW,
    "+/-": Result.WHITE_WINS_FORFEIT,
    "+-": Result.WHITE_WINS_FORFEIT,
    "-/+": Result.BLACK_WINS_FORFEIT,
    "-+": Result.BLACK_WINS_FORFEIT,
    "-/-": Result.DOUBLE_FORFEIT,
    "--": Result.DOUBLE_FORFEIT,
}


def parse_result(text: str) -> Result:
    """A result as an organiser types it: 1-0, 0-1, 1/2-1/2 (or ½-½), +/- and -/+ (forfeits), -/-."""
    found = _RESULT_ALIASES.get(text.strip().replace(" ", ""))
    if found is None:
        raise InvalidSetting(f"Unknown result {text!r}: use 1-0, 0-1, 1/2-1/2, +/-, -/+ or -/-.")
    return found


class Director:
    """The use cases of events; the Discord cogs, the scheduler and the demo all call these."""

    def __init__(
        self,
        db: Database,
        lichess: LichessGateway,
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
        self._locks: dict[int, asyncio.Lock] = {}

    # -- helpers ---------------------------------------------------------------------------------

    def lock(self, event_id: int) -> asyncio.Lock:
        """The event's lock: the use cases that change its rounds run one at a time."""
        return self._locks.setdefault(event_id, asyncio.Lock())

    def changed(self) -> None:
        """Tell the scheduler (`on_change`) that the jobs may have changed."""
        if self.on_change is not None:
            self.on_change()

    @staticmethod
    def _organiser(actor: Actor) -> None:
        if not actor.is_organiser:
            raise NotOrganiser()

    async def _player_in_event(self, event_id: int, who: str) -> Entry:
        """An entry found by Lichess name, Discord id or starting number."""
        key = who.strip().lstrip("@").lower()
        for e in await storage_entries.list_entries(self.db, event_id):
            if key in (e.lichess_id, e.name.lower(), str(e.discord_id)) or (
                e.number is not None and key == f"#{e.number}"
            ):
                return e
        raise NotEntered(f"{who} is not in this event.")

    # -- members (bot.director_members) ----------------------------------------------------------

    async def start_link(self, actor: Actor, lichess_username: str) -> LinkChallenge:
        return await members.start_link(self, actor, lichess_username)

    async def complete_link(self, actor: Actor) -> LinkedAccount:
        return await members.complete_link(self, actor)

    async def linked_account(self, discord_id: int) -> LinkedAccount | None:
        return await members.linked_account(self, discord_id)

    async def join(self, actor: Actor, event_id: int) -> Entry:
        return await members.join(self, actor, event_id)

    async def withdraw(self, actor: Actor, event_id: int) -> Entry:
        return await members.withdraw(self, actor, event_id)

    async def request_bye(self, actor: Actor, event_id: int, round_number: int | None = None) -> int:
        return await members.request_bye(self, actor, event_id, round_number)

    # -- queries (bot.director_views) -----------------------------------------------------------

    async def list_events(self, guild_id: int, statuses: Sequence[EventStatus] | None = None) -> list[Event]:
        return await views.list_events(self, guild_id, statuses)

    async def event(self, event_id: int) -> Event:
        return await get_event(self.db, event_id)

    async def entries(self, event_id: int) -> list[Entry]:
        return await views.entries(self, event_id)

    async def standings(self, event_id: int) -> list[StandingRow]:
        return await views.standings(self, event_id)

    async def pairings(self, event_id: int, round_number: int | None = None) -> RoundView:
        return await views.pairings(self, event_id, round_number)

    async def my_game(self, actor: Actor, event_id: int | None = None) -> MyGame | None:
        return await views.my_game(self, actor, event_id)

    async def crosstable(self, event_id: int) -> Crosstable:
        return await views.crosstable(self, event_id)

    # -- organisers ------------------------------------------------------------------------------

    @staticmethod
    def _validate(settings: EventSettings) -> None:
        """The director's own limits first (rounds, system, tie-break codes), then storage's checks."""
        problems = []
        if not 1 <= settings.rounds <= 50:
            problems.append("rounds must be between 1 and 50")
        if settings.system != "dutch":
            problems.append(f"unknown pairing system {settings.system!r} (dutch)")
        for code in settings.tiebreaks:
            try:
                parse_tiebreak(code)
            except ValueError as exc:
                problems.append(str(exc))
        if problems:
            raise InvalidSetting("Invalid event settings: " + "; ".join(problems) + ".")
        try:
            storage_events.validate_settings(settings)
        except storage_errors.InvalidInput as exc:
            raise InvalidSetting(sentence(str(exc))) from None

    @property
    def default_round_interval(self) -> int:
        """Seconds between rounds when an organiser asks for the interval schedule without a length."""
        return round(self.settings.default_round_interval_minutes * 60)

    def new_event_settings(self, name: str, rounds: int) -> EventSettings:
        """A new event's settings before the organiser's options: the configured no-show time and round interval."""
        return EventSettings(
            name=name,
            rounds=rounds,
            round_interval=self.default_round_interval,
            no_show_seconds=round(self.settings.default_noshow_minutes * 60),
        )

    async def create_event(self, actor: Actor, guild_id: int, channel_id: int, settings: EventSettings) -> Event:
        """Create an event (a draft until opened)."""
        self._organiser(actor)
        settings = replace(settings, guild_id=guild_id, channel_id=channel_id)
        self._validate(settings)
        return await storage_events.create_event(self.db, settings, created_by=actor.discord_id, at=self.clock.now())

    async def edit_event(self, actor: Actor, event_id: int, settings: EventSettings) -> Event:
        """Change an event's settings (once started: not its pairing system, acceleration or paired rounds)."""
        self._organiser(actor)
        event = await get_event(self.db, event_id)
        settings = replace(settings, guild_id=event.guild_id, channel_id=event.channel_id)
        self._validate(settings)
        if event.status in OVER:
            raise InvalidState(f"{event.name} is over.")
        if event.current_round and settings.rounds < event.current_round:
            raise InvalidSetting(f"{event.name} has already paired {event.current_round} rounds.")
        edit = (
            storage_events.edit_event if event.status in storage_events.EDITABLE else storage_events.edit_started_event
        )
        try:
            updated = await edit(self.db, event_id, settings, at=self.clock.now(), actor=actor.audit_name)
        except storage_errors.WrongStatus as exc:
            raise InvalidState(sentence(str(exc))) from None
        self.changed()
        return updated

    async def open_event(self, actor: Actor, event_id: int) -> Event:
        """Accept entries; the first round is due at the start time (if any)."""
        self._organiser(actor)
        now = self.clock.now()
        async with self.db.transaction():
            event = await get_event(self.db, event_id)
            if event.status is not EventStatus.DRAFT:
                raise InvalidState(f"{event.name} is already {event.status.value}.")
            await storage_events.set_event_status(self.db, event_id, EventStatus.OPEN, at=now, actor=actor.audit_name)
            event = await storage_events.set_next_round_at(self.db, event_id, event.settings.start_at)
        await self.announcer.event_opened(event)
        self.changed()
        return event

    async def start_event(self, actor: Actor, event_id: int) -> Event:
        """Start now, instead of at the start time (pairs round 1)."""
        self._organiser(actor)
        async with self.db.snapshot():
            event = await get_event(self.db, event_id)
            active = active_entries(await storage_entries.list_entries(self.db, event_id))
        if event.status is EventStatus.DRAFT:
            await self.open_event(actor, event_id)
        elif event.status is not EventStatus.OPEN:
            raise InvalidState(f"{event.name} has already started.")
        if len(active) < self.settings.min_players:
            raise InvalidState(f"{event.name} needs at least {self.settings.min_players} players to start.")
        await set_next_round_at(self, event_id, self.clock.now())
        await self.start_round(event_id, 1)
        return await self.event(event_id)

    async def pause(self, actor: Actor, event_id: int) -> Event:
        """No new round starts until resumed (the round being played goes on)."""
        self._organiser(actor)
        return await self._set_status(actor, event_id, EventStatus.PAUSED, (EventStatus.OPEN, EventStatus.RUNNING))

    async def resume(self, actor: Actor, event_id: int) -> Event:
        """Undo a pause: a round whose time has passed starts at once."""
        self._organiser(actor)
        event = await get_event(self.db, event_id)
        target = EventStatus.RUNNING if event.current_round else EventStatus.OPEN
        return await self._set_status(actor, event_id, target, (EventStatus.PAUSED,))

    async def _set_status(
        self,
        actor: Actor,
        event_id: int,
        status: EventStatus,
        allowed: Sequence[EventStatus],
        reason: str | None = None,
    ) -> Event:
        async with self.db.transaction():
            event = await get_event(self.db, event_id)
            if event.status not in allowed:
                raise InvalidState(f"{event.name} is {event.status.value}.")
            updated = await storage_events.set_event_status(
                self.db, event_id, status, at=self.clock.now(), actor=actor.audit_name, reason=reason
            )
        self.changed()
        return updated

    async def next_round(self, actor: Actor, event_id: int) -> RoundView:
        """Start the next round now (manual scheduling, or to skip the wait)."""
        self._organiser(actor)
        async with self.db.snapshot():
            event = await get_event(self.db, event_id)
            rounds = await storage_rounds.list_rounds(self.db, event_id)
        if event.status not in (EventStatus.OPEN, EventStatus.RUNNING):
            raise InvalidState(f"{event.name} is {event.status.value}.")
        if rounds and rounds[-1].round.status is not RoundStatus.FINISHED:
            raise InvalidState(f"Round {rounds[-1].round.number} of {event.name} is still being played.")
        number = len(rounds) + 1
        if number > event.settings.rounds:
            raise InvalidState(f"{event.name} has no round {number}.")
        await set_next_round_at(self, event_id, self.clock.now())
        await self.start_round(event_id, number)
        return await self.pairings(event_id, number)

    async def set_result(
        self, actor: Actor, event_id: int, round_number: int, board: int, result: str, reason: str
    ) -> Correction:
        """Set or correct a board's result (audited); says if a later round was already paired."""
        self._organiser(actor)
        new = parse_result(result)
        if not reason.strip():
            raise InvalidSetting("A correction needs a reason.")
        now = self.clock.now()
        async with self.lock(event_id):
            async with self.db.transaction():
                event = await get_event(self.db, event_id)
                try:
                    row = await storage_rounds.board_by_number(self.db, event_id, round_number, board)
                except storage_errors.NotFound:
                    if not 1 <= round_number <= event.current_round:
                        raise RoundNotFound(f"Round {round_number} of {event.name} is not paired.") from None
                    raise BoardNotFound(f"Round {round_number} has no board {board}.") from None
                if row.result is None:
                    await storage_results.record_result(
                        self.db, row.id, new, at=now, actor=actor.audit_name, game_id=row.game_id, reason=reason
                    )
                else:
                    await storage_results.correct_result(
                        self.db, row.id, new, at=now, actor=actor.audit_name, reason=reason
                    )
            later = round_number + 1 if round_number < event.current_round else None
            correction = Correction(event_id, round_number, board, row.result, new, later)
            if correction.later_round_paired is not None:
                await self.announcer.notice(event, correction.message)
            view = await self.pairings(event_id, round_number)
            await self.announcer.results_updated(event, view)
            if view.status is RoundStatus.FINISHED or event.status is EventStatus.FINISHED:
                rows = await self.standings(event_id)
                await self.announcer.standings(await self.event(event_id), rows, event.status is EventStatus.FINISHED)
            elif view.decided and round_number == event.current_round:
                await endings.finish_round(self, event_id, round_number)
        self.changed()
        return correction

    async def forbid(self, actor: Actor, event_id: int, a: str, b: str) -> None:
        """Two players (Lichess names) must not be paired together."""
        self._organiser(actor)
        async with self.db.transaction():
            await get_event(self.db, event_id)
            first = await self._player_in_event(event_id, a)
            second = await self._player_in_event(event_id, b)
            if first.player_id == second.player_id:
                raise InvalidSetting("A player cannot be forbidden from playing themselves.")
            await storage_entries.add_forbidden_pair(
                self.db, event_id, first.player_id, second.player_id, at=self.clock.now(), actor=actor.audit_name
            )

    async def remove(self, actor: Actor, event_id: int, player: str) -> Entry:
        """Remove a player from the event (not paired again, cannot rejoin)."""
        self._organiser(actor)
        return await self._set_entry(actor, event_id, player, EntryStatus.BANNED, None)

    async def disqualify(self, actor: Actor, event_id: int, player: str, reason: str) -> Entry:
        """Take a player out of the ranking (everyone's scores unchanged)."""
        self._organiser(actor)
        return await self._set_entry(actor, event_id, player, EntryStatus.DISQUALIFIED, reason)

    async def _set_entry(
        self, actor: Actor, event_id: int, player: str, status: EntryStatus, reason: str | None
    ) -> Entry:
        async with self.db.transaction():
            await get_event(self.db, event_id)
            entry = await self._player_in_event(event_id, player)
            changed = await storage_entries.set_entry_status(
                self.db, event_id, entry.player_id, status, at=self.clock.now(), actor=actor.audit_name, reason=reason
            )
        self.changed()
        return changed

    async def unban(self, actor: Actor, guild_id: int, player: str) -> None:
        """Lift a no-show ban (by Lichess name or Discord id); a later no-show still doubles it."""
        self._organiser(actor)
        async with self.db.transaction():
            found = await storage_players.player_by_lichess(self.db, player.strip().lstrip("@"))
            if found is None and player.strip().isdigit():
                found = await storage_players.player_by_discord(self.db, int(player.strip()))
            if found is None:
                raise NotEntered(f"{player} is not a linked member.")
            lifted = await storage_players.lift_ban(
                self.db, guild_id, found.id, at=self.clock.now(), actor=actor.audit_name
            )
            if lifted is None:
                raise InvalidState(f"{player} is not banned.")

    async def finish(self, actor: Actor, event_id: int) -> Event:
        """End the event now, with final standings."""
        self._organiser(actor)
        event = await get_event(self.db, event_id)
        if event.status not in ACTIVE_EVENT_STATUSES:
            raise InvalidState(f"{event.name} is {event.status.value}.")
        async with self.lock(event_id):
            await endings.finish_event(self, event_id, "finished by an organiser", actor)
        return await self.event(event_id)

    async def cancel(self, actor: Actor, event_id: int) -> Event:
        """Cancel the event."""
        self._organiser(actor)
        allowed = (EventStatus.DRAFT, *ACTIVE_EVENT_STATUSES)
        return await self._set_status(actor, event_id, EventStatus.CANCELLED, allowed, "cancelled")

    async def export(self, event_id: int, fmt: str) -> bytes:
        """The event as `trf`, `pgn` or `json` (storage's export; PGN links to the Lichess the games were played on)."""
        await get_event(self.db, event_id)
        try:
            return (await export_event(self.db, event_id, fmt, site=self.lichess.base_url)).encode()
        except ValueError:
            raise InvalidSetting(f"Unknown export format {fmt!r}: trf, pgn or json.") from None

    # -- the round cycle, driven by the scheduler (bot.director_rounds, _polling, _endings, _jobs) -----

    async def start_round(self, event_id: int, round_number: int) -> None:
        await rounds.start_round(self, event_id, round_number)

    async def poll_round(self, event_id: int) -> None:
        await polling.poll_round(self, event_id)

    async def noshow_deadline(self, event_id: int, round_number: int) -> None:
        await polling.noshow_deadline(self, event_id, round_number)

    async def announce_results(self, event_id: int, number: int) -> None:
        await endings.announce_results(self, event_id, number)

    async def announce_end(self, event_id: int) -> None:
        await endings.announce_end(self, event_id)

    async def remind(self, event_id: int, round_number: int) -> None:
        await jobs.remind(self, event_id, round_number)

    async def due_jobs(self, now: datetime | None = None) -> list[Job]:
        return await jobs.due_jobs(self, now)

    async def run_job(self, job: Job) -> None:
        await jobs.run_job(self, job)


__all__ = ["Director", "SwissbotError", "parse_result"]
