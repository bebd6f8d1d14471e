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
from datetime import datetime, timedelta
from typing import Any

from bot import director_members as members
from bot import director_views as views
from bot.announce import Announcer
from bot.clock import Clock
from bot.director_models import (
    SYSTEM_ACTOR,
    Actor,
    Correction,
    Crosstable,
    Job,
    JobKind,
    LinkChallenge,
    LinkedAccount,
    MyGame,
    RoundView,
    StandingRow,
)
from bot.director_results import Decision, decide
from bot.director_storage import (
    ACTIVE_EVENT_STATUSES,
    OVER,
    active_entries,
    get_event,
    get_round,
    latest_games,
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
from bot.lichess import LichessError, LichessGateway
from bot.settings import DirectorSettings
from pairing import dutch
from pairing.errors import NoValidPairing, PairingError
from pairing.tiebreak_codes import parse_tiebreak
from storage import audit as storage_audit
from storage import entries as storage_entries
from storage import errors as storage_errors
from storage import events as storage_events
from storage import games as storage_games
from storage import players as storage_players
from storage import results as storage_results
from storage import rounds as storage_rounds
from storage.db import Database
from storage.export import export_event
from storage.history import load_tournament
from storage.records import (
    BoardRow,
    Entry,
    EntryStatus,
    Event,
    EventSettings,
    EventStatus,
    GameRow,
    GameStatus,
    Result,
    RoundStatus,
    Schedule,
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
        await self._set_next_round_at(event_id, self.clock.now())
        await self.start_round(event_id, 1)
        return await self.event(event_id)

    async def _set_next_round_at(self, event_id: int, when: datetime | None) -> None:
        await storage_events.set_next_round_at(self.db, event_id, when)
        self.changed()

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
        await self._set_next_round_at(event_id, self.clock.now())
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
                await self._finish_round(event_id, round_number)
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
            await self._finish_event(event_id, "finished by an organiser", actor)
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

    # -- the round cycle (scheduler) ---------------------------------------------------------------

    async def start_round(self, event_id: int, round_number: int) -> None:
        """Pair, store, create every game, announce; idempotent (does only what is missing)."""
        async with self.lock(event_id):
            async with self.db.snapshot():
                event = await get_event(self.db, event_id)
                rounds = await storage_rounds.list_rounds(self.db, event_id)
            if any(r.round.number == round_number for r in rounds):
                await self._ensure_games(event_id, round_number)
                return
            if event.status not in (EventStatus.OPEN, EventStatus.RUNNING):
                return
            if round_number != len(rounds) + 1 or round_number > event.settings.rounds:
                return
            if rounds and rounds[-1].round.status is not RoundStatus.FINISHED:
                return
            if self.before_pairing is not None:
                await self.before_pairing(event_id, round_number)
            if await self._pair(event_id, round_number):
                await self._ensure_games(event_id, round_number)
        self.changed()

    async def _pair(self, event_id: int, round_number: int) -> bool:
        """Pair and store a round; False if the event ended (or had to wait) instead."""
        now = self.clock.now()
        async with self.db.snapshot():
            event = await get_event(self.db, event_id)
            active = active_entries(await storage_entries.list_entries(self.db, event_id))
        if event.status is EventStatus.OPEN:
            if len(active) < self.settings.min_players:
                later = now + timedelta(seconds=max(self.settings.retry_after, 60.0))
                await self._set_next_round_at(event_id, later)
                await self.announcer.notice(event, f"Not enough players to start; trying again at {later:%H:%M} UTC.")
                return False
            try:
                await storage_events.start_event(self.db, event_id, at=now, actor=SYSTEM_ACTOR.name)
            except storage_errors.WrongStatus as exc:
                raise InvalidState(str(exc)) from None
        tournament = await load_tournament(self.db, event_id)
        if len(tournament.views(round_number).to_pair()) < 2:
            await self._finish_event(event_id, "not enough players left")
            return False
        try:
            pairing = await asyncio.to_thread(dutch.pair, tournament, round_number)
        except NoValidPairing:
            await self._finish_event(event_id, f"no valid pairing exists for round {round_number}")
            return False
        except PairingError as exc:
            await self.announcer.notice(event, f"Round {round_number} could not be paired ({exc}); retrying.")
            raise
        async with self.db.transaction():
            await storage_rounds.store_pairing(
                self.db, event_id, round_number, pairing, at=now, actor=SYSTEM_ACTOR.name
            )
            await storage_events.set_next_round_at(self.db, event_id, None)
        self.changed()
        return True

    def challenge_name(self, event: Event, round_number: int, board: int, attempt: int) -> str:
        """The Lichess challenge's name: unique per event, round, board and attempt (looked up after a restart)."""
        name = f"{event.name[:80]} #{event.id} R{round_number} B{board}"
        return name if attempt == 1 else f"{name} G{attempt}"

    async def _ensure_games(self, event_id: int, round_number: int) -> None:
        """Create the Lichess game of every undecided board that lacks one; start the round when all exist."""
        async with self.db.snapshot():
            event = await get_event(self.db, event_id)
            people = {e.player_id: e for e in await storage_entries.list_entries(self.db, event_id)}
            summary = await get_round(self.db, event, round_number)
            all_games = await storage_games.games_of_round(self.db, event_id, round_number)
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
                created = await self._create_game(event, board, game, white, black, known_ids)
            except LichessError as exc:
                failures.append(f"board {board.board_no}: {exc}")
                break  # Lichess is in trouble: leave the rest for the next attempt
            known_ids.add(created)
        if failures:
            await self.announcer.notice(
                event, f"Lichess did not create every game of round {round_number} ({failures[0]}); retrying shortly."
            )
            return
        if summary.round.status is RoundStatus.PAIRED:
            await storage_rounds.mark_round_started(self.db, event_id, round_number, at=self.clock.now())
        await self._announce_round(event, round_number)

    async def _announce_round(self, event: Event, round_number: int) -> None:
        """Post a started round's pairings (and DM the players) once; marked after the announcer returns, so a
        restart before that announces them again rather than never."""
        summary = await get_round(self.db, event, round_number)
        if summary.round.pairings_announced_at is not None:
            return
        view = await self.pairings(event.id, round_number)
        await self.announcer.round_paired(event, view)
        for board_view in view.boards:
            for me, other, colour in (
                (board_view.white, board_view.black, "white"),
                (board_view.black, board_view.white, "black"),
            ):
                if me.discord_id:
                    await self.announcer.dm(
                        me.discord_id,
                        f"{event.name} round {round_number}: you play {other.name} with {colour}: {board_view.url}",
                    )
        await storage_rounds.mark_pairings_announced(self.db, event.id, round_number, at=self.clock.now())

    async def _create_game(
        self, event: Event, board: BoardRow, game: GameRow | None, white: str, black: str, known: set[str]
    ) -> str:
        """Resolve a pending attempt or start a new one; the game's id is stored at once."""
        now = self.clock.now()
        found: str | None = None
        if game is not None and game.status is GameStatus.CREATING:
            # We may have died after Lichess created it: look before creating again.
            row = game
            found = await self._find_created(white, black, game.challenge_name, known)
        else:
            if game is not None and game.status is GameStatus.FAILED:
                # A failed create's fate can be unknown: it may have reached Lichess after all.
                found = await self._find_created(white, black, game.challenge_name, known)
            attempt = 1 if game is None else game.attempt + 1
            name = self.challenge_name(event, board.round, board.board_no, attempt)
            row = await storage_games.begin_game(self.db, board.id, name, at=now)
        if found is not None:
            await storage_games.game_created(self.db, row.id, found, at=now)
            return found
        try:
            challenge = await self.lichess.create_game(
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
            await storage_games.game_failed(self.db, row.id, at=self.clock.now())
            raise
        await storage_games.game_created(self.db, row.id, challenge.game_id, at=self.clock.now())
        return challenge.game_id

    async def _find_created(self, white: str, black: str, name: str, known: set[str]) -> str | None:
        """A challenge or game Lichess already has for this attempt (pending by name, or started, ongoing too)."""
        found = await self.lichess.find_created_game(white, black, name=name, since_ms=0, exclude=known)
        return found.game_id if found is not None else None

    async def poll_round(self, event_id: int) -> None:
        """Read the round's games, adjudicate, store results; when all are in, standings and next round."""
        async with self.lock(event_id):
            await self._poll(event_id)
        self.changed()

    async def _poll(self, event_id: int) -> None:
        async with self.db.snapshot():
            event = await get_event(self.db, event_id)
            last = await storage_rounds.last_round(self.db, event_id)
        if last is None or last.round.status is RoundStatus.FINISHED or event.status in OVER:
            return
        number = last.round.number
        await self._ensure_games(event_id, number)
        async with self.db.snapshot():
            summary = await get_round(self.db, event, number)
            games = await storage_games.games_of_round(self.db, event_id, number)
            people = {e.player_id: e for e in await storage_entries.list_entries(self.db, event_id)}
        rnd = summary.round
        latest = latest_games(games)
        boards = [b for b in summary.boards if b.result is None]
        live = {b.id: latest[b.id] for b in boards if b.id in latest and latest[b.id].status is GameStatus.CREATED}
        if boards and rnd.started_at is not None and live:
            try:
                exported = await self.lichess.export_games([g.lichess_id for g in live.values() if g.lichess_id])
            except LichessError as exc:
                await self.announcer.notice(event, f"Could not read the games of round {number} ({exc}); retrying.")
                return
            data = {g.id: g for g in exported}
            now = self.clock.now()
            noshow = timedelta(seconds=event.settings.no_show_seconds)
            decisions: list[tuple[BoardRow, GameRow, Decision, Any]] = []
            for board in boards:
                game = live.get(board.id)
                if game is None or game.lichess_id is None:
                    continue
                got = data.get(game.lichess_id)
                # From when the game really exists on Lichess: the row's last update made it 'created'.
                deadline = max(rnd.started_at, game.updated_at) + noshow
                replayed = any(g.board_id == board.id and g.attempt < game.attempt and g.lichess_id for g in games)
                decision = decide(
                    got,
                    deadline_passed=now >= deadline,
                    policy=event.settings.early_draw_policy,
                    early_draw_moves=event.settings.early_draw_moves,
                    recreated_before=replayed,
                )
                if decision.result is not None or decision.replay or decision.review:
                    decisions.append((board, game, decision, dict(got.raw) if got else None))
            if decisions:
                await self._apply(event, decisions, people)
        if all(b.result is not None for b in (await get_round(self.db, event, number)).boards):
            await self._finish_round(event_id, number)

    async def _apply(
        self, event: Event, decisions: list[tuple[BoardRow, GameRow, Decision, Any]], people: dict[int, Entry]
    ) -> None:
        now = self.clock.now()
        notices: list[str] = []
        dms: list[tuple[int, str]] = []
        replays = False
        system = SYSTEM_ACTOR.name
        async with self.db.transaction():
            for board, game, decision, raw in decisions:
                subject = f"round:{board.round}:board:{board.board_no}"
                if decision.replay:
                    await storage_games.update_game(self.db, game.id, GameStatus.REPLACED, at=now, data=raw)
                    await storage_audit.record_action(
                        self.db,
                        at=now,
                        actor=system,
                        action="game.replay",
                        subject=subject,
                        event_id=event.id,
                        before=game.lichess_id,
                        reason=decision.detail,
                    )
                    notices.append(f"Round {board.round} board {board.board_no}: {decision.detail}.")
                    replays = True
                    continue
                if decision.review:
                    if not await storage_audit.logged(
                        self.db, event_id=event.id, action="result.review", subject=subject
                    ):
                        await storage_audit.record_action(
                            self.db,
                            at=now,
                            actor=system,
                            action="result.review",
                            subject=subject,
                            event_id=event.id,
                            reason=decision.detail,
                        )
                        notices.append(
                            f"Round {board.round} board {board.board_no}: {decision.detail} (/swiss result)."
                        )
                    continue
                assert decision.result is not None
                await storage_results.record_result(
                    self.db,
                    board.id,
                    decision.result,
                    at=now,
                    actor=system,
                    game_id=game.lichess_id,
                    game_data=raw,
                    reason=decision.detail,
                )
                ended = GameStatus.FINISHED if raw else GameStatus.ABORTED
                await storage_games.update_game(self.db, game.id, ended, at=now, data=raw)
                for colour in decision.absent:
                    entry = people[board.white_id if colour == "white" else board.black_id]
                    dms.append(await self._noshow_penalty(event, entry, board.round, now))
        for text in notices:
            await self.announcer.notice(event, text)
        for discord_id, text in dms:
            await self.announcer.dm(discord_id, text)
        if replays:
            await self._ensure_games(event.id, decisions[0][0].round)
        if any(d.result is not None for _, _, d, _ in decisions):
            await self.announcer.results_updated(event, await self.pairings(event.id, decisions[0][0].round))

    async def _noshow_penalty(self, event: Event, entry: Entry, round_number: int, now: datetime) -> tuple[int, str]:
        """Withdraw a player who never moved and ban them from joining the club's events for a while."""
        system = SYSTEM_ACTOR.name
        if entry.status is EntryStatus.ACTIVE:
            await storage_entries.set_entry_status(
                self.db,
                event.id,
                entry.player_id,
                EntryStatus.ABSENT,
                at=now,
                actor=system,
                reason=f"no-show in round {round_number}",
            )
        previous = await storage_players.get_ban(self.db, event.guild_id, entry.player_id)
        count = previous.count if previous else 0
        until = now + timedelta(hours=self.settings.ban_policy.hours(count))
        await storage_players.set_ban(
            self.db,
            event.guild_id,
            entry.player_id,
            until=until,
            count=count + 1,
            reason=f"no-show in {event.name} round {round_number}",
            at=now,
            actor=system,
        )
        return entry.discord_id, (
            f"You did not play your game in {event.name} round {round_number}: you are withdrawn from the event"
            f" and cannot join the club's events until {until:%Y-%m-%d %H:%M} UTC."
        )

    async def _finish_round(self, event_id: int, number: int) -> None:
        """Mark a decided round finished (and when the next one starts), then announce its results."""
        now = self.clock.now()
        async with self.db.transaction():
            event = await get_event(self.db, event_id)
            summary = await get_round(self.db, event, number)
            if summary.round.status is not RoundStatus.FINISHED:
                await storage_rounds.finish_round(self.db, event_id, number, at=now, actor=SYSTEM_ACTOR.name)
                if number < event.settings.rounds:
                    await storage_events.set_next_round_at(self.db, event_id, self._next_start(event, number, now))
        await self._announce_results(event_id, number)

    async def announce_results(self, event_id: int, number: int) -> None:
        """Announce a finished round's results and standings if that has not been done (a restart's catch-up)."""
        async with self.lock(event_id):
            await self._announce_results(event_id, number)
        self.changed()

    async def _announce_results(self, event_id: int, number: int) -> None:
        """The standings after a finished round (the final ones after the last round), once: marked in the
        database after the announcer returns, so a restart before that announces them rather than never."""
        event = await get_event(self.db, event_id)
        summary = await get_round(self.db, event, number)
        if summary.round.status is not RoundStatus.FINISHED or summary.round.results_announced_at is not None:
            return
        if number >= event.settings.rounds:
            if event.status not in OVER:
                await self._finish_event(event_id, f"all {event.settings.rounds} rounds played")
            else:  # finished, but perhaps stopped before the end was announced
                await self._announce_end(event_id)
        elif event.status not in OVER:  # once over, the final standings say it all
            await self.announcer.standings(event, await self.standings(event_id), False)
        await storage_rounds.mark_results_announced(self.db, event_id, number, at=self.clock.now())

    def _next_start(self, event: Event, finished_round: int, now: datetime) -> datetime | None:
        s = event.settings
        if s.schedule is Schedule.INTERVAL and s.round_interval is not None:
            return now + timedelta(seconds=s.round_interval)
        if s.schedule is Schedule.FIXED and finished_round < len(s.round_times):
            return max(now, s.round_times[finished_round])
        return None

    async def _finish_event(self, event_id: int, reason: str, actor: Actor = SYSTEM_ACTOR) -> None:
        """Finish the event, then announce its end (the jobs are rebuilt even if the announcement fails)."""
        async with self.db.transaction():
            event = await get_event(self.db, event_id)
            if event.status in OVER:
                return
            await storage_events.set_event_status(
                self.db, event_id, EventStatus.FINISHED, at=self.clock.now(), actor=actor.audit_name, reason=reason
            )
        try:
            await self._announce_end(event_id)
        finally:
            self.changed()

    async def announce_end(self, event_id: int) -> None:
        """Announce a finished event's end if that has not been done (a restart's catch-up)."""
        async with self.lock(event_id):
            await self._announce_end(event_id)
        self.changed()

    async def _announce_end(self, event_id: int) -> None:
        """A finished event's end and final standings, once: marked in the database after the announcer returns,
        so a restart before that announces them rather than never."""
        event = await get_event(self.db, event_id)
        if event.status is not EventStatus.FINISHED or event.finish_announced_at is not None:
            return
        reason = event.finish_reason or f"finished after round {event.current_round}"
        await self.announcer.event_finished(event, await self.standings(event_id), reason)
        await storage_events.mark_finish_announced(self.db, event_id, at=self.clock.now())

    async def noshow_deadline(self, event_id: int, round_number: int) -> None:
        """Adjudicate the boards whose game never started; withdraw and ban the absent."""
        event = await get_event(self.db, event_id)
        if event.current_round == round_number:
            await self.poll_round(event_id)

    async def remind(self, event_id: int, round_number: int) -> None:
        """Remind the active players that a round is coming (once)."""
        subject = f"round:{round_number}"
        async with self.db.transaction():
            event = await get_event(self.db, event_id)
            if await storage_audit.logged(self.db, event_id=event_id, action="round.remind", subject=subject):
                return
            await storage_audit.record_action(
                self.db, at=self.clock.now(), actor=SYSTEM_ACTOR.name, action="round.remind", subject=subject,
                event_id=event_id,
            )  # fmt: skip
            players = active_entries(await storage_entries.list_entries(self.db, event_id))
        when = event.next_round_at
        at = f" at {when:%H:%M} UTC" if when else " soon"
        for entry in players:
            await self.announcer.dm(entry.discord_id, f"{event.name}: round {round_number} starts{at}.")

    def _reminder_lead(self, event: Event) -> timedelta | None:
        """How long before a round its players are reminded: the event's own lead, else the bot's (None: never)."""
        seconds = event.settings.reminder_seconds
        if seconds is None:
            return timedelta(seconds=self.settings.reminder_before)
        return timedelta(seconds=seconds) if seconds > 0 else None

    async def due_jobs(self, now: datetime | None = None) -> list[Job]:
        """Every job the database implies right now (the scheduler's whole state)."""
        now = now or self.clock.now()
        jobs: list[Job] = []
        async with self.db.snapshot():
            unannounced = {(r.event_id, r.number) for r in await storage_rounds.rounds_to_announce(self.db)}
            for event_id, number in sorted(unannounced):
                jobs.append(Job(JobKind.ANNOUNCE, event_id, number, now))
            waiting = {event_id for event_id, _ in unannounced}
            for event in await storage_events.finishes_to_announce(self.db):
                if event.id not in waiting:  # a last round's announcement carries the end with it
                    jobs.append(Job(JobKind.ANNOUNCE_END, event.id, event.current_round, now))
            active = frozenset(ACTIVE_EVENT_STATUSES)
            for event in await storage_events.list_events(self.db, statuses=active):
                if event.id in waiting:
                    continue  # the last round's results go out before anything else happens
                rounds = [r.round for r in await storage_rounds.list_rounds(self.db, event.id)]
                last = rounds[-1] if rounds else None
                if last is not None and last.status is not RoundStatus.FINISHED:
                    jobs.append(Job(JobKind.POLL, event.id, last.number, now))
                    if last.started_at is not None:
                        deadline = last.started_at + timedelta(seconds=event.settings.no_show_seconds)
                        if deadline > now:
                            jobs.append(Job(JobKind.NOSHOW, event.id, last.number, deadline))
                    continue
                if event.status is EventStatus.PAUSED or len(rounds) >= event.settings.rounds:
                    continue
                start = event.next_round_at
                if start is None:
                    continue
                number = len(rounds) + 1
                jobs.append(Job(JobKind.START_ROUND, event.id, number, start))
                lead = self._reminder_lead(event)
                subject = f"round:{number}"
                if (
                    lead is not None
                    and start > now
                    and not await storage_audit.logged(
                        self.db, event_id=event.id, action="round.remind", subject=subject
                    )
                ):
                    jobs.append(Job(JobKind.REMIND, event.id, number, max(start - lead, now)))
        return sorted(jobs, key=lambda j: (j.due_at, j.event_id, j.kind.value))

    async def run_job(self, job: Job) -> None:
        """Run one scheduler job."""
        if job.kind is JobKind.START_ROUND:
            await self.start_round(job.event_id, job.round_number)
        elif job.kind is JobKind.POLL:
            await self.poll_round(job.event_id)
        elif job.kind is JobKind.NOSHOW:
            await self.noshow_deadline(job.event_id, job.round_number)
        elif job.kind is JobKind.ANNOUNCE:
            await self.announce_results(job.event_id, job.round_number)
        elif job.kind is JobKind.ANNOUNCE_END:
            await self.announce_end(job.event_id)
        else:
            await self.remind(job.event_id, job.round_number)


# -- module helpers ------------------------------------------------------------------------------------


def _lichess_id(entry: Entry) -> str:
    if entry.lichess_id is None:  # entries are made for linked players only; an unlink cannot get here
        raise InvalidState(f"{entry.name} has no linked Lichess account.")
    return entry.lichess_id


__all__ = ["Director", "SwissbotError", "parse_result"]
