"""The tournament director: every use case of an event, combining pairing, storage and Lichess.

Nothing here knows Discord. Each scheduler-driven method re-reads the database and does only what is
still missing, so a restart at any moment (or a job run twice) changes nothing that was already done.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Any

from bot import director_store as store
from bot.announce import Announcer
from bot.clock import Clock
from bot.director_models import (
    SYSTEM_ACTOR,
    Actor,
    BoardResult,
    BoardView,
    ByeKind,
    ByeView,
    Correction,
    Crosstable,
    Entry,
    EntryStatus,
    Event,
    EventSettings,
    EventStatus,
    Job,
    JobKind,
    LinkChallenge,
    LinkedAccount,
    MyGame,
    PlayerRef,
    RoundSchedule,
    RoundStatus,
    RoundView,
    StandingRow,
)
from bot.director_results import Decision, History, build_tournament, decide
from bot.director_store import BoardRow, EntryRow, GameRow
from bot.errors import (
    AlreadyJoined,
    AlreadyLinked,
    Banned,
    BoardNotFound,
    ByeLimitReached,
    EventNotFound,
    InvalidSetting,
    InvalidState,
    JoiningClosed,
    LichessAccountRefused,
    LichessUnavailable,
    LinkCodeMissing,
    NotEntered,
    NotLinked,
    NotOrganiser,
    NotTeamMember,
    RatingOutOfRange,
    RoundNotFound,
    SwissbotError,
)
from bot.lichess import LichessError, LichessGateway, LichessUser, LichessUserNotFound
from bot.settings import DirectorSettings
from pairing import dutch
from pairing.errors import NoValidPairing, PairingError
from pairing.standings import compute_standings
from pairing.tiebreak_codes import parse_tiebreak
from storage import entries as storage_entries
from storage import errors as storage_errors
from storage import events as storage_events
from storage import rounds as storage_rounds
from storage.db import Connection, Database
from storage.history import load_tournament
from storage.records import DEFAULT_RULES

LOG = logging.getLogger(__name__)

BeforePairingHook = Callable[[int, int], Awaitable[None]]
ACTIVE_EVENT_STATUSES = (EventStatus.OPEN, EventStatus.RUNNING, EventStatus.PAUSED)
_RESULT_ALIASES = {
    "1-0": BoardResult.WHITE_WINS,
    "0-1": BoardResult.BLACK_WINS,
    "1/2-1/2": BoardResult.DRAW,
    "½-½": BoardResult.DRAW,
    "=": BoardResult.DRAW,
    "+/-": BoardResult.WHITE_FORFEIT_WIN,
    "+-": BoardResult.WHITE_FORFEIT_WIN,
    "-/+": BoardResult.BLACK_FORFEIT_WIN,
    "-+": BoardResult.BLACK_FORFEIT_WIN,
    "-/-": BoardResult.DOUBLE_FORFEIT,
    "--": BoardResult.DOUBLE_FORFEIT,
}


def parse_result(text: str) -> BoardResult:
    """A result as an organiser types it: 1-0, 0-1, 1/2-1/2 (or ½-½), +/- and -/+ (forfeits), -/-."""
    found = _RESULT_ALIASES.get(text.strip().replace(" ", ""))
    if found is None:
        raise InvalidSetting(f"Unknown result {text!r}: use 1-0, 0-1, 1/2-1/2, +/-, -/+ or -/-.")
    return found


def _who(actor: Actor) -> str:
    return f"{actor.name} ({actor.discord_id})" if actor.discord_id else actor.name


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

    def _lock(self, event_id: int) -> asyncio.Lock:
        return self._locks.setdefault(event_id, asyncio.Lock())

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    @staticmethod
    def _organiser(actor: Actor) -> None:
        if not actor.is_organiser:
            raise NotOrganiser()

    async def _event(self, conn: Connection, event_id: int) -> Event:
        found = await store.get_event(conn, event_id)
        if found is None:
            raise EventNotFound(f"There is no event #{event_id}.")
        return found

    async def _history(self, conn: Connection, event: Event) -> History:
        return History(
            event,
            await store.entries(conn, event.id),
            await store.boards(conn, event.id),
            await store.round_byes(conn, event.id),
            await store.forbidden_pairs(conn, event.id),
        )

    async def _user(self, username: str) -> LichessUser:
        try:
            return await self.lichess.get_user(username)
        except LichessUserNotFound as exc:
            raise LichessAccountRefused(str(exc)) from None
        except LichessError as exc:
            raise LichessUnavailable() from exc

    @staticmethod
    def _refuse_account(user: LichessUser) -> None:
        if user.disabled:
            raise LichessAccountRefused(f"The Lichess account {user.username} is closed.")
        if user.tos_violation:
            raise LichessAccountRefused(
                f"The Lichess account {user.username} is flagged for a terms-of-service violation."
            )
        if user.is_bot:
            raise LichessAccountRefused(f"{user.username} is a BOT account; BOT accounts cannot play in events.")

    async def _linked(self, conn: Connection, actor: Actor) -> store.PlayerRow:
        player = await store.player_by_discord(conn, actor.discord_id)
        if player is None or player.lichess_id is None:
            raise NotLinked()
        return player

    async def _player_in_event(self, conn: Connection, event_id: int, who: str) -> EntryRow:
        """An entry found by Lichess name, Discord id or starting number."""
        key = who.strip().lstrip("@").lower()
        for e in await store.entries(conn, event_id):
            if key in (e.lichess_id, e.name.lower(), str(e.discord_id)) or (
                e.number is not None and key == f"#{e.number}"
            ):
                return e
        raise NotEntered(f"{who} is not in this event.")

    # -- members ---------------------------------------------------------------------------------

    async def start_link(self, actor: Actor, lichess_username: str) -> LinkChallenge:
        """Issue a one-time code for the player to put in their Lichess profile bio."""
        user = await self._user(lichess_username)
        self._refuse_account(user)
        now = self.clock.now()
        async with self.db.transaction() as conn:
            mine = await store.player_by_discord(conn, actor.discord_id)
            if mine is not None and mine.lichess_id is not None:
                raise AlreadyLinked(f"You are already linked to {mine.lichess_name}.")
            other = await store.player_by_lichess(conn, user.id)
            if other is not None and other.discord_id != actor.discord_id:
                raise AlreadyLinked(f"The Lichess account {user.username} is linked to another member.")
            await store.ensure_player(conn, actor.discord_id, actor.name, now)
            code = self.settings.link_code_prefix + secrets.token_hex(4)
            expires = now + timedelta(seconds=self.settings.link_code_lifetime)
            await store.put_link_code(conn, actor.discord_id, user.id, code, now, expires)
        return LinkChallenge(code, user.username, expires)

    async def complete_link(self, actor: Actor) -> LinkedAccount:
        """Read the bio back; link when the code is there (one account per user and vice versa)."""
        now = self.clock.now()
        async with self.db.snapshot() as conn:
            pending = await store.get_link_code(conn, actor.discord_id)
        if pending is None:
            raise LinkCodeMissing("Start with /link and your Lichess username.")
        lichess_id, code, expires = pending
        if now > expires:
            raise LinkCodeMissing("Your code expired: run /link again for a new one.")
        user = await self._user(lichess_id)
        self._refuse_account(user)
        if code not in user.bio:
            raise LinkCodeMissing(
                f"The code {code} is not in the bio of {user.username} yet (lichess.org/account/profile)."
            )
        async with self.db.transaction() as conn:
            player = await store.ensure_player(conn, actor.discord_id, actor.name, now)
            if player.lichess_id is not None:
                raise AlreadyLinked(f"You are already linked to {player.lichess_name}.")
            other = await store.player_by_lichess(conn, user.id)
            if other is not None:
                raise AlreadyLinked(f"The Lichess account {user.username} is linked to another member.")
            await store.set_link(conn, player.id, user.id, user.username, now)
            await store.delete_link_code(conn, actor.discord_id)
            await store.audit(conn, now, _who(actor), "player.link", None, f"player:{player.id}", after=user.id)
        return LinkedAccount(actor.discord_id, user.id, user.username, now)

    async def linked_account(self, discord_id: int) -> LinkedAccount | None:
        """The verified Lichess account of a Discord user, if any."""
        async with self.db.snapshot() as conn:
            player = await store.player_by_discord(conn, discord_id)
        if player is None or player.lichess_id is None or player.linked_at is None:
            return None
        return LinkedAccount(discord_id, player.lichess_id, player.lichess_name or player.lichess_id, player.linked_at)

    async def join(self, actor: Actor, event_id: int) -> Entry:
        """Enter an event (rating limits, account state, bans, team, late join with one half-point bye)."""
        now = self.clock.now()
        async with self.db.snapshot() as conn:
            event = await self._event(conn, event_id)
            player = await self._linked(conn, actor)
            current = await store.entry(conn, event_id, player.id)
            ban = await store.ban(conn, event.guild_id, player.id)
        if event.status not in ACTIVE_EVENT_STATUSES:
            raise JoiningClosed(f"{event.name} is not open for entries.")
        if event.current_round > event.settings.rounds // 2:
            raise JoiningClosed(f"More than half of the rounds of {event.name} have started: joining is closed.")
        if current is not None and current.status == EntryStatus.ACTIVE.value:
            raise AlreadyJoined(f"You are already in {event.name}.")
        if ban is not None and ban[0] > now:
            raise Banned(ban[0])
        assert player.lichess_id is not None
        user = await self._user(player.lichess_id)
        self._refuse_account(user)
        rating = user.ratings.get(event.settings.speed, 1500)
        low, high = event.settings.rating_min, event.settings.rating_max
        if (low is not None and rating < low) or (high is not None and rating > high):
            limits = f"{low if low is not None else '…'} to {high if high is not None else '…'}"
            raise RatingOutOfRange(f"Your {event.settings.speed} rating {rating} is outside {limits} for {event.name}.")
        if event.settings.team:
            try:
                member = await self.lichess.is_team_member(event.settings.team, user.id)
            except LichessError as exc:
                raise LichessUnavailable() from exc
            if not member:
                raise NotTeamMember(f"{event.name} is for members of the Lichess team {event.settings.team}.")
        late_bye = 1 if current is None and event.status is not EventStatus.OPEN and event.current_round >= 1 else None
        try:
            await storage_entries.join_event(
                self.db, event_id, player.id, rating, at=now, actor=_who(actor), late_bye_round=late_bye
            )
        except storage_errors.AlreadyJoined as exc:
            raise AlreadyJoined(str(exc)) from None
        except (storage_errors.EntryBarred, storage_errors.WrongStatus) as exc:
            raise JoiningClosed(str(exc).capitalize() + ".") from None
        self._changed()
        return await self._entry_view(event_id, player.id)

    async def _entry_view(self, event_id: int, player_id: int) -> Entry:
        async with self.db.snapshot() as conn:
            row = await store.entry(conn, event_id, player_id)
        assert row is not None
        return _entry(row)

    async def withdraw(self, actor: Actor, event_id: int) -> Entry:
        """Leave an event: not paired again, points kept; may rejoin while joining is open."""
        now = self.clock.now()
        async with self.db.transaction() as conn:
            event = await self._event(conn, event_id)
            player = await self._linked(conn, actor)
            row = await store.entry(conn, event_id, player.id)
            if row is None or row.status != EntryStatus.ACTIVE.value:
                raise NotEntered(f"You are not playing in {event.name}.")
            await store.set_entry_status(conn, event_id, player.id, EntryStatus.WITHDRAWN.value)
            await store.audit(
                conn, now, _who(actor), "entry.withdraw", event_id, f"player:{player.id}", "active", "withdrawn"
            )
        self._changed()
        return await self._entry_view(event_id, player.id)

    async def request_bye(self, actor: Actor, event_id: int, round_number: int | None = None) -> int:
        """Ask for a half-point bye in a coming round (the next one by default); returns the round."""
        now = self.clock.now()
        async with self.db.snapshot() as conn:
            event = await self._event(conn, event_id)
            player = await self._linked(conn, actor)
            row = await store.entry(conn, event_id, player.id)
        if row is None or row.status != EntryStatus.ACTIVE.value:
            raise NotEntered(f"You are not playing in {event.name}.")
        target = round_number if round_number is not None else event.current_round + 1
        try:
            await storage_entries.request_bye(self.db, event_id, player.id, target, at=now, actor=_who(actor))
        except storage_errors.ByeNotAllowed as exc:
            raise ByeLimitReached(str(exc).capitalize() + ".") from None
        self._changed()
        return target

    # -- queries ---------------------------------------------------------------------------------

    async def list_events(self, guild_id: int, statuses: Sequence[EventStatus] | None = None) -> list[Event]:
        """The club's events, newest first."""
        async with self.db.snapshot() as conn:
            return await store.list_events(conn, guild_id, [s.value for s in statuses] if statuses else None)

    async def event(self, event_id: int) -> Event:
        """One event."""
        async with self.db.snapshot() as conn:
            return await self._event(conn, event_id)

    async def entries(self, event_id: int) -> list[Entry]:
        """The event's players by starting number."""
        async with self.db.snapshot() as conn:
            await self._event(conn, event_id)
            return [_entry(e) for e in await store.entries(conn, event_id)]

    async def standings(self, event_id: int) -> list[StandingRow]:
        """The standings now, with the event's tie-breaks (disqualified players unranked, listed last)."""
        async with self.db.snapshot() as conn:
            event = await self._event(conn, event_id)
            history = await self._history(conn, event)
        return _standings(history)

    async def pairings(self, event_id: int, round_number: int | None = None) -> RoundView:
        """A round (the current one by default) with names, links and results."""
        async with self.db.snapshot() as conn:
            event = await self._event(conn, event_id)
            number = round_number if round_number is not None else event.current_round
            return await self._round_view(conn, event, number)

    async def _round_view(self, conn: Connection, event: Event, number: int) -> RoundView:
        rounds = {r.number: r for r in await store.rounds(conn, event.id)}
        if number not in rounds:
            raise RoundNotFound(f"Round {number} of {event.name} is not paired.")
        rnd = rounds[number]
        people = {e.player_id: e for e in await store.entries(conn, event.id)}
        games = _latest_games(await store.games_of_round(conn, event.id, number))
        boards = []
        for b in await store.boards(conn, event.id, number):
            game = games.get(b.id)
            game_id = b.game_id if b.result is not None and b.game_id else (game.lichess_id if game else None)
            url = f"{self.lichess.base_url}/{game_id}" if game_id else None
            boards.append(
                BoardView(b.board_no, _ref(people[b.white_id]), _ref(people[b.black_id]), game_id, url, b.result)
            )
        byes = []
        for rnd_no, player_id, kind in await store.round_byes(conn, event.id):
            if rnd_no == number and kind in ("pab", "half_bye") and player_id in people:
                byes.append(ByeView(_ref(people[player_id]), ByeKind.PAB if kind == "pab" else ByeKind.HALF))
        return RoundView(event.id, number, rnd.status, rnd.started_at, tuple(boards), tuple(byes))

    async def my_game(self, actor: Actor, event_id: int | None = None) -> MyGame | None:
        """The actor's board in the current round of an event (their running event by default)."""
        async with self.db.snapshot() as conn:
            player = await self._linked(conn, actor)
            if event_id is None:
                for candidate in await store.list_events(conn, None, ["running", "paused"]):
                    if await store.entry(conn, candidate.id, player.id) is not None:
                        event_id = candidate.id
                        break
                else:
                    return None
            event = await self._event(conn, event_id)
            if event.current_round == 0:
                return None
            view = await self._round_view(conn, event, event.current_round)
        for board in view.boards:
            if actor.discord_id in (board.white.discord_id, board.black.discord_id):
                white = board.white.discord_id == actor.discord_id
                return MyGame(
                    event, view.number, board, "white" if white else "black", board.black if white else board.white
                )
        return None

    async def crosstable(self, event_id: int) -> Crosstable:
        """Each player's results by round: opponent number, colour and score, or the kind of bye."""
        async with self.db.snapshot() as conn:
            event = await self._event(conn, event_id)
            history = await self._history(conn, event)
        tournament = build_tournament(history)
        refs = {e.number: _ref(e) for e in history.entries if e.number is not None}
        rows = []
        for p in tournament.players:
            cells = []
            for rec in p.rounds:
                points = tournament.scoring.points(rec)
                mark = "1" if points == 1 else "½" if points == Fraction(1, 2) else "0"
                if rec.opponent is not None:
                    colour = rec.colour.value if rec.colour else ""
                    mark = {"forfeit_win": "+", "forfeit_loss": "-"}.get(rec.kind.value, mark)
                    cells.append(f"{rec.opponent}{colour}{mark}")
                else:
                    cells.append({"pab": "U", "half_bye": "H", "full_bye": "F"}.get(rec.kind.value, "-"))
            total = sum((tournament.scoring.points(r) for r in p.rounds), Fraction(0))
            rows.append((refs[p.number], tuple(cells), total))
        return Crosstable(event.settings.rounds, tuple(rows))

    # -- organisers ------------------------------------------------------------------------------

    @staticmethod
    def _validate(settings: EventSettings) -> None:
        problems = []
        if not settings.name.strip():
            problems.append("the name is empty")
        if not 1 <= settings.rounds <= 50:
            problems.append("rounds must be between 1 and 50")
        if (
            settings.clock_limit < 0
            or settings.clock_increment < 0
            or settings.clock_limit + settings.clock_increment == 0
        ):
            problems.append("the clock needs a positive limit or increment")
        if settings.system != "dutch":
            problems.append(f"unknown pairing system {settings.system!r} (dutch)")
        if settings.schedule is RoundSchedule.FIXED and len(settings.fixed_times) != settings.rounds:
            problems.append("fixed times need one time per round")
        if settings.schedule is RoundSchedule.INTERVAL and settings.round_interval_minutes <= 0:
            problems.append("the round interval must be positive")
        if settings.noshow_minutes <= 0:
            problems.append("the no-show deadline must be positive")
        if settings.max_byes < 0:
            problems.append("the bye limit cannot be negative")
        if (
            settings.rating_min is not None
            and settings.rating_max is not None
            and settings.rating_min > settings.rating_max
        ):
            problems.append("the minimum rating is above the maximum")
        for code in settings.tiebreaks:
            try:
                parse_tiebreak(code)
            except ValueError as exc:
                problems.append(str(exc))
        if problems:
            raise InvalidSetting("Invalid event settings: " + "; ".join(problems) + ".")

    async def create_event(self, actor: Actor, guild_id: int, channel_id: int, settings: EventSettings) -> Event:
        """Create an event (a draft until opened)."""
        self._organiser(actor)
        self._validate(settings)
        now = self.clock.now()
        async with self.db.transaction() as conn:
            event_id = await store.insert_event(conn, guild_id, channel_id, settings, actor.discord_id, now)
            await store.audit(
                conn, now, _who(actor), "event.create", event_id, f"event:{event_id}", after=settings.name
            )
            return await self._event(conn, event_id)

    async def edit_event(self, actor: Actor, event_id: int, settings: EventSettings) -> Event:
        """Change an event's settings (the number of rounds only before it starts)."""
        self._organiser(actor)
        self._validate(settings)
        now = self.clock.now()
        async with self.db.transaction() as conn:
            event = await self._event(conn, event_id)
            if event.status in (EventStatus.FINISHED, EventStatus.CANCELLED):
                raise InvalidState(f"{event.name} is over.")
            if event.current_round and settings.rounds < event.current_round:
                raise InvalidSetting(f"{event.name} has already paired {event.current_round} rounds.")
            await store.update_event_settings(conn, event_id, settings)
            await store.audit(
                conn, now, _who(actor), "event.edit", event_id, f"event:{event_id}", event.settings.name, settings.name
            )
            updated = await self._event(conn, event_id)
        self._changed()
        return updated

    async def open_event(self, actor: Actor, event_id: int) -> Event:
        """Accept entries; the first round is due at the start time (if any)."""
        self._organiser(actor)
        now = self.clock.now()
        async with self.db.transaction() as conn:
            event = await self._event(conn, event_id)
            if event.status is not EventStatus.DRAFT:
                raise InvalidState(f"{event.name} is already {event.status.value}.")
            await store.set_event_status(conn, event_id, EventStatus.OPEN)
            await store.set_event_times(conn, event_id, next_round_at=event.settings.start_at)
            await store.audit(conn, now, _who(actor), "event.status", event_id, f"event:{event_id}", "draft", "open")
            event = await self._event(conn, event_id)
        await self.announcer.event_opened(event)
        self._changed()
        return event

    async def start_event(self, actor: Actor, event_id: int) -> Event:
        """Start now, instead of at the start time (pairs round 1)."""
        self._organiser(actor)
        async with self.db.snapshot() as conn:
            event = await self._event(conn, event_id)
            active = [e for e in await store.entries(conn, event_id) if e.status == "active"]
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
        async with self.db.transaction() as conn:
            await store.set_event_times(conn, event_id, next_round_at=when)
        self._changed()

    async def pause(self, actor: Actor, event_id: int) -> Event:
        """No new round starts until resumed (the round being played goes on)."""
        self._organiser(actor)
        return await self._set_status(actor, event_id, EventStatus.PAUSED, (EventStatus.OPEN, EventStatus.RUNNING))

    async def resume(self, actor: Actor, event_id: int) -> Event:
        """Undo a pause: a round whose time has passed starts at once."""
        self._organiser(actor)
        async with self.db.snapshot() as conn:
            event = await self._event(conn, event_id)
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
        now = self.clock.now()
        async with self.db.transaction() as conn:
            event = await self._event(conn, event_id)
            if event.status not in allowed:
                raise InvalidState(f"{event.name} is {event.status.value}.")
            await store.set_event_status(conn, event_id, status)
            await store.audit(
                conn,
                now,
                _who(actor),
                "event.status",
                event_id,
                f"event:{event_id}",
                event.status.value,
                status.value,
                reason,
            )
            updated = await self._event(conn, event_id)
        self._changed()
        return updated

    async def next_round(self, actor: Actor, event_id: int) -> RoundView:
        """Start the next round now (manual scheduling, or to skip the wait)."""
        self._organiser(actor)
        async with self.db.snapshot() as conn:
            event = await self._event(conn, event_id)
            rounds = await store.rounds(conn, event_id)
        if event.status not in (EventStatus.OPEN, EventStatus.RUNNING):
            raise InvalidState(f"{event.name} is {event.status.value}.")
        if rounds and rounds[-1].status is not RoundStatus.FINISHED:
            raise InvalidState(f"Round {rounds[-1].number} of {event.name} is still being played.")
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
        async with self._lock(event_id):
            async with self.db.transaction() as conn:
                event = await self._event(conn, event_id)
                found = [b for b in await store.boards(conn, event_id, round_number) if b.board_no == board]
                if not found:
                    if round_number not in {r.number for r in await store.rounds(conn, event_id)}:
                        raise RoundNotFound(f"Round {round_number} of {event.name} is not paired.")
                    raise BoardNotFound(f"Round {round_number} has no board {board}.")
                row = found[0]
                await store.set_board_result(conn, row.id, new, None, None, now)
                subject = f"round:{round_number}:board:{board}"
                old = row.result.value if row.result else None
                await store.audit(conn, now, _who(actor), "result.correct", event_id, subject, old, new.value, reason)
                later = [r.number for r in await store.rounds(conn, event_id) if r.number > round_number]
            correction = Correction(event_id, round_number, board, row.result, new, later[0] if later else None)
            if correction.later_round_paired is not None:
                await self.announcer.notice(event, correction.message)
            view = await self.pairings(event_id, round_number)
            await self.announcer.results_updated(event, view)
            if view.status is RoundStatus.FINISHED or event.status is EventStatus.FINISHED:
                rows = await self.standings(event_id)
                await self.announcer.standings(await self.event(event_id), rows, event.status is EventStatus.FINISHED)
            elif view.decided and round_number == event.current_round:
                await self._finish_round(event_id, round_number)
        self._changed()
        return correction

    async def forbid(self, actor: Actor, event_id: int, a: str, b: str) -> None:
        """Two players (Lichess names) must not be paired together."""
        self._organiser(actor)
        now = self.clock.now()
        async with self.db.transaction() as conn:
            first = await self._player_in_event(conn, event_id, a)
            second = await self._player_in_event(conn, event_id, b)
            if first.player_id == second.player_id:
                raise InvalidSetting("A player cannot be forbidden from playing themselves.")
            await store.insert_forbidden(conn, event_id, first.player_id, second.player_id, now)
            await store.audit(
                conn, now, _who(actor), "pair.forbid", event_id, f"{first.lichess_id}:{second.lichess_id}"
            )

    async def remove(self, actor: Actor, event_id: int, player: str) -> Entry:
        """Remove a player from the event (not paired again, cannot rejoin)."""
        self._organiser(actor)
        return await self._set_entry(actor, event_id, player, EntryStatus.BANNED, "entry.remove", None)

    async def disqualify(self, actor: Actor, event_id: int, player: str, reason: str) -> Entry:
        """Take a player out of the ranking (everyone's scores unchanged)."""
        self._organiser(actor)
        return await self._set_entry(actor, event_id, player, EntryStatus.DISQUALIFIED, "entry.disqualify", reason)

    async def _set_entry(
        self, actor: Actor, event_id: int, player: str, status: EntryStatus, action: str, reason: str | None
    ) -> Entry:
        now = self.clock.now()
        async with self.db.transaction() as conn:
            await self._event(conn, event_id)
            row = await self._player_in_event(conn, event_id, player)
            await store.set_entry_status(conn, event_id, row.player_id, status.value)
            await store.audit(
                conn, now, _who(actor), action, event_id, f"player:{row.player_id}", row.status, status.value, reason
            )
        self._changed()
        return await self._entry_view(event_id, row.player_id)

    async def unban(self, actor: Actor, guild_id: int, player: str) -> None:
        """Lift a no-show ban (by Lichess name or Discord id)."""
        self._organiser(actor)
        now = self.clock.now()
        async with self.db.transaction() as conn:
            found = await store.player_by_lichess(conn, player.strip().lstrip("@"))
            if found is None and player.strip().isdigit():
                found = await store.player_by_discord(conn, int(player.strip()))
            if found is None:
                raise NotEntered(f"{player} is not a linked member.")
            current = await store.ban(conn, guild_id, found.id)
            if current is None or current[0] <= now:
                raise InvalidState(f"{player} is not banned.")
            await store.lift_ban(conn, guild_id, found.id, now)
            await store.audit(
                conn, now, _who(actor), "ban.lift", None, f"player:{found.id}", current[0].isoformat(), None
            )

    async def finish(self, actor: Actor, event_id: int) -> Event:
        """End the event now, with final standings."""
        self._organiser(actor)
        async with self.db.snapshot() as conn:
            event = await self._event(conn, event_id)
        if event.status not in ACTIVE_EVENT_STATUSES:
            raise InvalidState(f"{event.name} is {event.status.value}.")
        async with self._lock(event_id):
            await self._finish_event(event_id, "finished by an organiser", actor)
        return await self.event(event_id)

    async def cancel(self, actor: Actor, event_id: int) -> Event:
        """Cancel the event."""
        self._organiser(actor)
        allowed = (EventStatus.DRAFT, *ACTIVE_EVENT_STATUSES)
        return await self._set_status(actor, event_id, EventStatus.CANCELLED, allowed, "cancelled")

    async def export(self, event_id: int, fmt: str) -> bytes:
        """The event as `trf`, `pgn` or `json`."""
        from bot.demo_output import event_json, event_pgn, event_trf

        async with self.db.snapshot() as conn:
            event = await self._event(conn, event_id)
            history = await self._history(conn, event)
            games = await store.board_game_data(conn, event_id)
        if fmt == "trf":
            return event_trf(history).encode()
        if fmt == "pgn":
            return event_pgn(event, history, games).encode()
        if fmt == "json":
            return json.dumps(event_json(event, history, _standings(history)), indent=2, default=str).encode()
        raise InvalidSetting(f"Unknown export format {fmt!r}: trf, pgn or json.")

    # -- the round cycle (scheduler) ---------------------------------------------------------------

    async def start_round(self, event_id: int, round_number: int) -> None:
        """Pair, store, create every game, announce; idempotent (does only what is missing)."""
        async with self._lock(event_id):
            async with self.db.snapshot() as conn:
                event = await self._event(conn, event_id)
                rounds = await store.rounds(conn, event_id)
            if any(r.number == round_number for r in rounds):
                await self._ensure_games(event_id, round_number)
                return
            if event.status not in (EventStatus.OPEN, EventStatus.RUNNING):
                return
            if round_number != len(rounds) + 1 or round_number > event.settings.rounds:
                return
            if rounds and rounds[-1].status is not RoundStatus.FINISHED:
                return
            if self.before_pairing is not None:
                await self.before_pairing(event_id, round_number)
            if await self._pair(event_id, round_number):
                await self._ensure_games(event_id, round_number)
        self._changed()

    async def _pair(self, event_id: int, round_number: int) -> bool:
        """Pair and store a round; False if the event ended (or had to wait) instead."""
        now = self.clock.now()
        async with self.db.snapshot() as conn:
            event = await self._event(conn, event_id)
            active = [e for e in await store.entries(conn, event_id) if e.status == "active"]
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
        await storage_rounds.store_pairing(self.db, event_id, round_number, pairing, at=now, actor=SYSTEM_ACTOR.name)
        await self._set_next_round_at(event_id, None)
        return True

    def challenge_name(self, event: Event, round_number: int, board: int, attempt: int) -> str:
        """The Lichess challenge's name: unique per event, round, board and attempt (looked up after a restart)."""
        name = f"{event.name[:80]} #{event.id} R{round_number} B{board}"
        return name if attempt == 1 else f"{name} G{attempt}"

    async def _ensure_games(self, event_id: int, round_number: int) -> None:
        """Create the Lichess game of every undecided board that lacks one; start the round when all exist."""
        async with self.db.snapshot() as conn:
            event = await self._event(conn, event_id)
            people = {e.player_id: e for e in await store.entries(conn, event_id)}
            boards = await store.boards(conn, event_id, round_number)
            all_games = await store.games_of_round(conn, event_id, round_number)
            rnd = next(r for r in await store.rounds(conn, event_id) if r.number == round_number)
        latest = _latest_games(all_games)
        known_ids = {g.lichess_id for g in all_games if g.lichess_id}
        failures: list[str] = []
        for board in boards:
            if board.result is not None:
                continue
            game = latest.get(board.id)
            if game is not None and game.status in ("created", "finished"):
                continue
            white, black = people[board.white_id].lichess_id, people[board.black_id].lichess_id
            try:
                created = await self._create_game(event, board, game, white, black, known_ids)
            except LichessError as exc:
                failures.append(f"board {board.board_no}: {exc}")
                break  # Lichess is in trouble: leave the rest for the next attempt
            if created:
                known_ids.add(created)
        if failures:
            await self.announcer.notice(
                event, f"Lichess did not create every game of round {round_number} ({failures[0]}); retrying shortly."
            )
            return
        if rnd.status is RoundStatus.PAIRED:
            now = self.clock.now()
            async with self.db.transaction() as conn:
                await store.set_round(conn, event_id, round_number, RoundStatus.PLAYING, started_at=now)
                await store.audit(conn, now, SYSTEM_ACTOR.name, "round.start", event_id, f"round:{round_number}")
        await self._announce_round(event, round_number)

    async def _announce_round(self, event: Event, round_number: int) -> None:
        """Post a started round's pairings (and DM the players) once; recorded so a restart does not lose it."""
        subject = f"round:{round_number}"
        async with self.db.snapshot() as conn:
            if await store.audited(conn, event.id, "round.announce", subject):
                return
            view = await self._round_view(conn, await self._event(conn, event.id), round_number)
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
        now = self.clock.now()
        async with self.db.transaction() as conn:
            await store.audit(conn, now, SYSTEM_ACTOR.name, "round.announce", event.id, subject)

    async def _create_game(
        self, event: Event, board: BoardRow, game: GameRow | None, white: str, black: str, known: set[str]
    ) -> str | None:
        """Resolve a pending attempt or start a new one; the game's id is stored at once."""
        now = self.clock.now()
        if game is None or game.status == "replaced":
            attempt = 1 if game is None else game.attempt + 1
            name = self.challenge_name(event, board.round, board.board_no, attempt)
            async with self.db.transaction() as conn:
                row_id = await store.insert_game(conn, board.id, attempt, name, now)
        else:
            # 'creating' (we may have died after Lichess created it) or 'failed': look before creating again.
            row_id, name = game.id, game.challenge_name
            found = await self._find_created(white, black, name, known)
            if found is not None:
                async with self.db.transaction() as conn:
                    await store.set_game(conn, row_id, "created", now, found)
                return found
            if game.status == "failed":
                async with self.db.transaction() as conn:
                    await store.set_game(conn, row_id, "creating", now)
        try:
            challenge = await self.lichess.create_game(
                white,
                black,
                clock_limit=event.settings.clock_limit,
                clock_increment=event.settings.clock_increment,
                name=name,
                rated=event.settings.rated,
                rules=DEFAULT_RULES,
                exclude=known,
            )
        except LichessError:
            async with self.db.transaction() as conn:
                await store.set_game(conn, row_id, "failed", self.clock.now())
            raise
        async with self.db.transaction() as conn:
            await store.set_game(conn, row_id, "created", self.clock.now(), challenge.game_id)
        return challenge.game_id

    async def _find_created(self, white: str, black: str, name: str, known: set[str]) -> str | None:
        """A challenge or game Lichess already has for this attempt (pending by name, or started, ongoing too)."""
        found = await self.lichess.find_created_game(white, black, name=name, since_ms=0, exclude=known)
        return found.game_id if found is not None else None

    async def poll_round(self, event_id: int) -> None:
        """Read the round's games, adjudicate, store results; when all are in, standings and next round."""
        async with self._lock(event_id):
            await self._poll(event_id)
        self._changed()

    async def _poll(self, event_id: int) -> None:
        async with self.db.snapshot() as conn:
            event = await self._event(conn, event_id)
            rounds = await store.rounds(conn, event_id)
        if (
            not rounds
            or rounds[-1].status is RoundStatus.FINISHED
            or event.status in (EventStatus.FINISHED, EventStatus.CANCELLED)
        ):
            return
        number = rounds[-1].number
        await self._ensure_games(event_id, number)
        async with self.db.snapshot() as conn:
            rnd = next(r for r in await store.rounds(conn, event_id) if r.number == number)
            boards = [b for b in await store.boards(conn, event_id, number) if b.result is None]
            latest = _latest_games(await store.games_of_round(conn, event_id, number))
            people = {e.player_id: e for e in await store.entries(conn, event_id)}
        live = {b.id: latest[b.id] for b in boards if b.id in latest and latest[b.id].status == "created"}
        if boards and rnd.started_at is not None and live:
            try:
                exported = await self.lichess.export_games([g.lichess_id for g in live.values() if g.lichess_id])
            except LichessError as exc:
                await self.announcer.notice(event, f"Could not read the games of round {number} ({exc}); retrying.")
                return
            data = {g.id: g for g in exported}
            now = self.clock.now()
            noshow = timedelta(minutes=event.settings.noshow_minutes)
            decisions: list[tuple[BoardRow, GameRow, Decision, Any]] = []
            for board in boards:
                game = live.get(board.id)
                if game is None or game.lichess_id is None:
                    continue
                got = data.get(game.lichess_id)
                # From when the game really exists on Lichess: the row's last update made it 'created'.
                deadline = max(rnd.started_at, game.updated_at) + noshow
                decision = decide(
                    got,
                    deadline_passed=now >= deadline,
                    policy=event.settings.early_draw,
                    early_draw_moves=event.settings.early_draw_moves,
                    attempt=game.attempt,
                )
                if decision.result is not None or decision.replay or decision.review:
                    decisions.append((board, game, decision, dict(got.raw) if got else None))
            if decisions:
                await self._apply(event, decisions, people)
        async with self.db.snapshot() as conn:
            remaining = [b for b in await store.boards(conn, event_id, number) if b.result is None]
        if not remaining:
            await self._finish_round(event_id, number)

    async def _apply(
        self, event: Event, decisions: list[tuple[BoardRow, GameRow, Decision, Any]], people: dict[int, EntryRow]
    ) -> None:
        now = self.clock.now()
        notices: list[str] = []
        dms: list[tuple[int, str]] = []
        replays = False
        async with self.db.transaction() as conn:
            for board, game, decision, raw in decisions:
                subject = f"round:{board.round}:board:{board.board_no}"
                if decision.replay:
                    await store.set_game(conn, game.id, "replaced", now, data=raw)
                    await store.audit(
                        conn,
                        now,
                        SYSTEM_ACTOR.name,
                        "game.replay",
                        event.id,
                        subject,
                        game.lichess_id,
                        None,
                        decision.detail,
                    )
                    notices.append(f"Round {board.round} board {board.board_no}: {decision.detail}.")
                    replays = True
                    continue
                if decision.review:
                    if not await store.audited(conn, event.id, "result.review", subject):
                        await store.audit(
                            conn,
                            now,
                            SYSTEM_ACTOR.name,
                            "result.review",
                            event.id,
                            subject,
                            None,
                            None,
                            decision.detail,
                        )
                        notices.append(
                            f"Round {board.round} board {board.board_no}: {decision.detail} (/swiss result)."
                        )
                    continue
                assert decision.result is not None
                await store.set_board_result(conn, board.id, decision.result, game.lichess_id, raw, now)
                await store.set_game(conn, game.id, "finished" if raw else "aborted", now, data=raw)
                await store.audit(
                    conn,
                    now,
                    SYSTEM_ACTOR.name,
                    "result.record",
                    event.id,
                    subject,
                    None,
                    decision.result.value,
                    decision.detail,
                )
                for colour in decision.absent:
                    entry = people[board.white_id if colour == "white" else board.black_id]
                    dms.append(await self._noshow_penalty(conn, event, entry, board.round, now))
        for text in notices:
            await self.announcer.notice(event, text)
        for discord_id, text in dms:
            await self.announcer.dm(discord_id, text)
        if replays:
            await self._ensure_games(event.id, decisions[0][0].round)
        if any(d.result is not None for _, _, d, _ in decisions):
            async with self.db.snapshot() as conn:
                view = await self._round_view(conn, event, decisions[0][0].round)
            await self.announcer.results_updated(event, view)

    async def _noshow_penalty(
        self, conn: Connection, event: Event, entry: EntryRow, round_number: int, now: datetime
    ) -> tuple[int, str]:
        """Withdraw a player who never moved and ban them from joining the club's events for a while."""
        subject = f"player:{entry.player_id}"
        if entry.status == EntryStatus.ACTIVE.value:
            await store.set_entry_status(conn, event.id, entry.player_id, EntryStatus.ABSENT.value)
            await store.audit(
                conn,
                now,
                SYSTEM_ACTOR.name,
                "entry.absent",
                event.id,
                subject,
                "active",
                "absent",
                f"no-show in round {round_number}",
            )
        previous = await store.ban(conn, event.guild_id, entry.player_id)
        count = previous[1] if previous else 0
        hours = self.settings.ban_policy.hours(count)
        until = now + timedelta(hours=hours)
        await store.put_ban(
            conn,
            event.guild_id,
            entry.player_id,
            until,
            count + 1,
            f"no-show in {event.name} round {round_number}",
            now,
        )
        await store.audit(
            conn,
            now,
            SYSTEM_ACTOR.name,
            "ban.set",
            event.id,
            subject,
            None,
            until.isoformat(),
            f"no-show, ban #{count + 1}",
        )
        return entry.discord_id, (
            f"You did not play your game in {event.name} round {round_number}: you are withdrawn from the event"
            f" and cannot join the club's events until {until:%Y-%m-%d %H:%M} UTC."
        )

    async def _finish_round(self, event_id: int, number: int) -> None:
        now = self.clock.now()
        async with self.db.transaction() as conn:
            event = await self._event(conn, event_id)
            rnd = next(r for r in await store.rounds(conn, event_id) if r.number == number)
            if rnd.status is RoundStatus.FINISHED:
                return
            if rnd.started_at is None:
                await store.set_round(conn, event_id, number, RoundStatus.PLAYING, started_at=now)
            await store.set_round(conn, event_id, number, RoundStatus.FINISHED, finished_at=now)
            await store.audit(conn, now, SYSTEM_ACTOR.name, "round.finish", event_id, f"round:{number}")
            last = number >= event.settings.rounds
            if not last:
                await store.set_event_times(conn, event_id, next_round_at=self._next_start(event, number, now))
        event = await self.event(event_id)
        if last:
            await self._finish_event(event_id, f"all {event.settings.rounds} rounds played")
            return
        await self.announcer.standings(event, await self.standings(event_id), False)

    def _next_start(self, event: Event, finished_round: int, now: datetime) -> datetime | None:
        s = event.settings
        if s.schedule is RoundSchedule.INTERVAL:
            return now + timedelta(minutes=s.round_interval_minutes)
        if s.schedule is RoundSchedule.FIXED and finished_round < len(s.fixed_times):
            return max(now, s.fixed_times[finished_round])
        return None

    async def _finish_event(self, event_id: int, reason: str, actor: Actor = SYSTEM_ACTOR) -> None:
        now = self.clock.now()
        async with self.db.transaction() as conn:
            event = await self._event(conn, event_id)
            if event.status in (EventStatus.FINISHED, EventStatus.CANCELLED):
                return
            await store.set_event_status(conn, event_id, EventStatus.FINISHED)
            await store.set_event_times(conn, event_id, finished_at=now, next_round_at=None)
            await store.audit(
                conn, now, _who(actor), "finish", event_id, f"event:{event_id}", event.status.value, "finished", reason
            )
        event = await self.event(event_id)
        await self.announcer.event_finished(event, await self.standings(event_id), reason)
        self._changed()

    async def noshow_deadline(self, event_id: int, round_number: int) -> None:
        """Adjudicate the boards whose game never started; withdraw and ban the absent."""
        async with self.db.snapshot() as conn:
            event = await self._event(conn, event_id)
        if event.current_round == round_number:
            await self.poll_round(event_id)

    async def remind(self, event_id: int, round_number: int) -> None:
        """Remind the active players that a round is coming (once)."""
        now = self.clock.now()
        async with self.db.transaction() as conn:
            event = await self._event(conn, event_id)
            if await store.audited(conn, event_id, "round.remind", f"round:{round_number}"):
                return
            await store.audit(conn, now, SYSTEM_ACTOR.name, "round.remind", event_id, f"round:{round_number}")
            times = await store.event_times(conn, event_id)
            players = [e for e in await store.entries(conn, event_id) if e.status == "active"]
        when = times.get("next_round_at")
        at = f" at {when:%H:%M} UTC" if when else " soon"
        for entry in players:
            await self.announcer.dm(entry.discord_id, f"{event.name}: round {round_number} starts{at}.")

    async def due_jobs(self, now: datetime | None = None) -> list[Job]:
        """Every job the database implies right now (the scheduler's whole state)."""
        now = now or self.clock.now()
        jobs: list[Job] = []
        async with self.db.snapshot() as conn:
            for event in await store.list_events(conn, None, [s.value for s in ACTIVE_EVENT_STATUSES]):
                rounds = await store.rounds(conn, event.id)
                last = rounds[-1] if rounds else None
                if last is not None and last.status is not RoundStatus.FINISHED:
                    jobs.append(Job(JobKind.POLL, event.id, last.number, now))
                    if last.started_at is not None:
                        deadline = last.started_at + timedelta(minutes=event.settings.noshow_minutes)
                        if deadline > now:
                            jobs.append(Job(JobKind.NOSHOW, event.id, last.number, deadline))
                    continue
                if event.status is EventStatus.PAUSED or len(rounds) >= event.settings.rounds:
                    continue
                start = (await store.event_times(conn, event.id)).get("next_round_at")
                if start is None:
                    continue
                number = len(rounds) + 1
                jobs.append(Job(JobKind.START_ROUND, event.id, number, start))
                remind_at = start - timedelta(seconds=self.settings.reminder_before)
                if start > now and not await store.audited(conn, event.id, "round.remind", f"round:{number}"):
                    jobs.append(Job(JobKind.REMIND, event.id, number, max(remind_at, now)))
        return sorted(jobs, key=lambda j: (j.due_at, j.event_id, j.kind.value))

    async def run_job(self, job: Job) -> None:
        """Run one scheduler job."""
        if job.kind is JobKind.START_ROUND:
            await self.start_round(job.event_id, job.round_number)
        elif job.kind is JobKind.POLL:
            await self.poll_round(job.event_id)
        elif job.kind is JobKind.NOSHOW:
            await self.noshow_deadline(job.event_id, job.round_number)
        else:
            await self.remind(job.event_id, job.round_number)


# -- module helpers ------------------------------------------------------------------------------------


def _entry(row: EntryRow) -> Entry:
    return Entry(
        row.event_id,
        row.number or 0,
        row.discord_id,
        row.lichess_id,
        row.name,
        row.rating,
        EntryStatus(row.status),
        row.joined_round,
    )


def _ref(row: EntryRow) -> PlayerRef:
    return PlayerRef(row.number or 0, row.name, row.discord_id, row.rating)


def _latest_games(games: Sequence[GameRow]) -> dict[int, GameRow]:
    latest: dict[int, GameRow] = {}
    for game in games:
        if game.board_id not in latest or game.attempt > latest[game.board_id].attempt:
            latest[game.board_id] = game
    return latest


def _standings(history: History) -> list[StandingRow]:
    tournament = build_tournament(history)
    by_number = {e.number: e for e in history.entries if e.number is not None}
    disqualified = [n for n, e in by_number.items() if e.status == EntryStatus.DISQUALIFIED.value]
    if not tournament.players:
        return [StandingRow(None, _ref(e), Fraction(0)) for e in history.entries if e.status == "active"]
    rows = compute_standings(tournament, history.event.settings.tiebreaks, exclude=disqualified)
    out = [
        StandingRow(
            r.rank, _ref(by_number[r.number]), r.points, dict(r.tiebreaks), EntryStatus(by_number[r.number].status)
        )
        for r in rows
    ]
    scores = {p.number: sum((tournament.scoring.points(x) for x in p.rounds), Fraction(0)) for p in tournament.players}
    for n in sorted(disqualified):
        out.append(StandingRow(None, _ref(by_number[n]), scores[n], {}, EntryStatus.DISQUALIFIED))
    return out


__all__ = ["Director", "SwissbotError", "parse_result"]
