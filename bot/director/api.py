"""The tournament director: every use case of an event, combining pairing, storage and Lichess.

`Director` is the one entry point: its `Context` holds what the use cases share (the database, the Lichess gateway, the
announcer, the clock, the settings, one lock per event and the change listeners; `bot.assembly.build` makes it) and
hands each call to the module that holds the use case, where its docstring is:

- `members`: linking a Lichess account, joining, withdrawing, byes;
- `oauth`: linking through Lichess's OAuth page, the members' tokens (revoked on unlink, tested before a round);
- `bulk`: a round's games as bulk pairings (players with valid tokens), found again after a restart;
- `organiser`: creating, editing and running an event, corrections, sanctions, export;
- `rounds`: a round's start (pair, store, create the games, announce);
- `polling`: a round in play (read the games back, adjudicate, no-shows and bans);
- `endings`: the end of a round and of an event, announced once;
- `jobs`: the jobs the database implies, running one, the reminder;
- `teams`: Team Swiss events: forming teams, a team round laid out as board games, a member's match;
  `team_standings`: the team standings;
- `queries`: the queries; `lookups`: the storage reads they all share.

Nothing here knows Discord (the cogs turn mentions into ids and names first), and nothing here runs SQL: every
read and write goes through `storage`'s repository functions (several of them in one `db.transaction()` when they
belong together). Each scheduler-driven use case re-reads the database and does only what is still missing, so a
restart at any moment (or a job run twice) changes nothing that was already done.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bot.director import (
    arbiter,
    endings,
    fide,
    jobs,
    members,
    oauth,
    organiser,
    polling,
    queries,
    rounds,
    team_standings,
    teams,
)
from bot.director.arbiter import CorrectionOutcome
from bot.director.context import ChangeListener, Context
from bot.director.lookups import get_event
from bot.director.models import (
    Actor,
    BoardView,
    Correction,
    Crosstable,
    Job,
    LinkChallenge,
    LinkedAccount,
    MyGame,
    RoundView,
    StandingRow,
    TeamStandingView,
    TeamView,
)
from bot.director.tables import Derive, EventTables
from bot.settings import DirectorSettings
from domain.corrections import CorrectionKind
from domain.entry import Entry, PlayerRow
from domain.event import Event, EventStatus
from domain.fide import FideProfile, TrfHeader
from domain.settings import EventSettings
from pairing.standings.crosstable import CrosstableCell


class Director:
    """The use cases of events; the Discord cogs, the scheduler and the demo all call these.

    Each use case runs the function of the same name in the module its section names (`event` is
    `lookups.get_event`).
    """

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    # -- what the front ends read (the cogs, the pages, the scheduler) --------------------------------------

    @property
    def settings(self) -> DirectorSettings:
        """The director's operating settings."""
        return self.ctx.settings

    @property
    def default_round_interval(self) -> int:
        """Seconds between rounds when an organiser asks for the interval schedule without a length."""
        return self.ctx.default_round_interval

    @property
    def lichess_url(self) -> str:
        """The Lichess the games are played on, without a trailing slash."""
        return self.ctx.lichess.base_url.rstrip("/")

    def add_listener(self, listener: ChangeListener) -> None:
        """Tell `listener` of every change of the events (the scheduler rebuilds its jobs, the bot its cache)."""
        self.ctx.add_listener(listener)

    # -- members (bot.director.members) ----------------------------------------------------------

    async def start_link(self, actor: Actor, lichess_username: str) -> LinkChallenge:
        return await members.start_link(self.ctx, actor, lichess_username)

    async def complete_link(self, actor: Actor) -> LinkedAccount:
        return await members.complete_link(self.ctx, actor)

    async def linked_account(self, discord_id: int) -> LinkedAccount | None:
        return await members.linked_account(self.ctx, discord_id)

    # -- OAuth linking (bot.director.oauth) ------------------------------------------------------

    @property
    def oauth_enabled(self) -> bool:
        return oauth.oauth_enabled(self.ctx)

    async def prefers_oauth(self, discord_id: int) -> bool:
        return await oauth.prefers_oauth(self.ctx, discord_id)

    async def start_oauth_link(self, actor: Actor) -> str:
        return await oauth.start_oauth_link(self.ctx, actor)

    async def pending_link(self, state: str) -> oauth.PendingLink | None:
        return await oauth.pending_link(self.ctx, state)

    async def finish_oauth_link(
        self, state: str | None, code: str | None, error: str | None, *, confirmed: bool = True
    ) -> oauth.OAuthOutcome:
        return await oauth.finish_oauth_link(self.ctx, state, code, error, confirmed=confirmed)

    async def revoke_member_token(self, discord_id: int) -> bool:
        return await oauth.revoke_member_token(self.ctx, discord_id)

    async def join(self, actor: Actor, event_id: int) -> Entry:
        return await members.join(self.ctx, actor, event_id)

    async def withdraw(self, actor: Actor, event_id: int) -> Entry:
        return await members.withdraw(self.ctx, actor, event_id)

    async def request_bye(self, actor: Actor, event_id: int, round_number: int | None = None) -> int:
        return await members.request_bye(self.ctx, actor, event_id, round_number)

    async def cancel_bye(self, actor: Actor, event_id: int, round_number: int | None = None) -> int:
        return await members.cancel_bye(self.ctx, actor, event_id, round_number)

    async def unlink(self, actor: Actor) -> str:
        """Unlink the member's account (`members.unlink`), then forget and revoke their OAuth token, if any."""
        name = await members.unlink(self.ctx, actor)
        await oauth.revoke_member_token(self.ctx, actor.discord_id)
        return name

    # -- queries (bot.director.queries) ---------------------------------------------------------

    async def list_events(self, guild_id: int, statuses: Sequence[EventStatus] | None = None) -> list[Event]:
        return await queries.list_events(self.ctx, guild_id, statuses)

    async def event(self, event_id: int) -> Event:
        return await get_event(self.ctx.db, event_id)

    async def entries(self, event_id: int) -> list[Entry]:
        return await queries.entries(self.ctx, event_id)

    async def standings(self, event_id: int, after_round: int | None = None) -> list[StandingRow]:
        return await queries.standings(self.ctx, event_id, after_round)

    async def pairings(self, event_id: int, round_number: int | None = None) -> RoundView:
        return await queries.pairings(self.ctx, event_id, round_number)

    async def my_game(self, actor: Actor, event_id: int | None = None, guild_id: int | None = None) -> MyGame | None:
        """The actor's board now (`queries.my_game`), with their match in a team event (`teams.my_team_game`)."""
        game = await queries.my_game(self.ctx, actor, event_id, guild_id)
        return None if game is None else await teams.my_team_game(self.ctx, game)

    async def crosstable(self, event_id: int) -> Crosstable:
        return await queries.crosstable(self.ctx, event_id)

    async def records(self, event_id: int) -> dict[int, tuple[CrosstableCell, ...]]:
        return await queries.records(self.ctx, event_id)

    async def tables(self, event_id: int) -> EventTables:
        """The event's standings, cells, crosstable and derived views, as computed once for its latest change."""
        return await queries.event_tables(self.ctx, event_id)

    def derive(self, name: str, view: Derive) -> None:
        """Compute `view` of each event's state beside its tables from now on (`bot.director.tables`)."""
        self.ctx.tables.derive[name] = view

    async def player_boards(self, event_id: int, number: int) -> dict[int, BoardView]:
        return await queries.player_boards(self.ctx, event_id, number)

    async def last_change(self, event_id: int) -> int:
        return await queries.last_change(self.ctx, event_id)

    async def content_version(self, event_id: int) -> str:
        return await queries.content_version(self.ctx, event_id)

    # -- organisers (bot.director.organiser) ------------------------------------------------------

    def new_event_settings(self, name: str, rounds: int) -> EventSettings:
        return organiser.new_event_settings(self.ctx, name, rounds)

    async def create_event(self, actor: Actor, guild_id: int, channel_id: int, settings: EventSettings) -> Event:
        return await organiser.create_event(self.ctx, actor, guild_id, channel_id, settings)

    async def edit_event(self, actor: Actor, event_id: int, settings: EventSettings) -> Event:
        return await organiser.edit_event(self.ctx, actor, event_id, settings)

    async def open_event(self, actor: Actor, event_id: int) -> Event:
        return await organiser.open_event(self.ctx, actor, event_id)

    async def start_event(self, actor: Actor, event_id: int) -> Event:
        return await organiser.start_event(self.ctx, actor, event_id)

    async def pause(self, actor: Actor, event_id: int) -> Event:
        return await organiser.pause(self.ctx, actor, event_id)

    async def resume(self, actor: Actor, event_id: int) -> Event:
        return await organiser.resume(self.ctx, actor, event_id)

    async def next_round(self, actor: Actor, event_id: int) -> RoundView:
        return await organiser.next_round(self.ctx, actor, event_id)

    async def set_result(
        self, actor: Actor, event_id: int, round_number: int, board: int, result: str, reason: str
    ) -> Correction:
        return await organiser.set_result(self.ctx, actor, event_id, round_number, board, result, reason)

    async def correct_pairing(
        self, actor: Actor, event_id: int, kind: CorrectionKind, players: tuple[str, ...], accept: bool = False
    ) -> CorrectionOutcome:
        return await arbiter.correct_pairing(self.ctx, actor, event_id, kind, players, accept)

    async def confirm_pairing(self, actor: Actor, event_id: int) -> int:
        return await arbiter.confirm_pairing(self.ctx, actor, event_id)

    async def set_fide_profile(self, actor: Actor, profile: FideProfile, player: str | None = None) -> PlayerRow:
        return await fide.set_fide_profile(self.ctx, actor, profile, player)

    async def set_trf_header(self, actor: Actor, event_id: int, header: TrfHeader) -> Event:
        return await fide.set_trf_header(self.ctx, actor, event_id, header)

    async def forbid(self, actor: Actor, event_id: int, a: str, b: str) -> None:
        await organiser.forbid(self.ctx, actor, event_id, a, b)

    async def allow(self, actor: Actor, event_id: int, a: str, b: str) -> None:
        await organiser.allow(self.ctx, actor, event_id, a, b)

    async def reinstate(self, actor: Actor, event_id: int, player: str) -> Entry:
        return await organiser.reinstate(self.ctx, actor, event_id, player)

    async def remove(self, actor: Actor, event_id: int, player: str) -> Entry:
        return await organiser.remove(self.ctx, actor, event_id, player)

    async def disqualify(self, actor: Actor, event_id: int, player: str, reason: str) -> Entry:
        return await organiser.disqualify(self.ctx, actor, event_id, player, reason)

    async def unban(self, actor: Actor, guild_id: int, player: str) -> None:
        await organiser.unban(self.ctx, actor, guild_id, player)

    async def finish(self, actor: Actor, event_id: int) -> Event:
        return await organiser.finish(self.ctx, actor, event_id)

    async def cancel(self, actor: Actor, event_id: int) -> Event:
        return await organiser.cancel(self.ctx, actor, event_id)

    async def export(self, event_id: int, fmt: str, *, public: bool = False) -> bytes:
        return await organiser.export(self.ctx, event_id, fmt, public=public)

    # -- Team Swiss events (bot.director.teams) ---------------------------------------------------------

    async def add_team(
        self, actor: Actor, event_id: int, name: str, members: Sequence[str], role_id: int | None = None
    ) -> TeamView:
        return await teams.add_team(self.ctx, actor, event_id, name, members, role_id)

    async def add_team_from_role(
        self, actor: Actor, event_id: int, name: str, role_id: int, member_ids: Sequence[int]
    ) -> TeamView:
        return await teams.add_team_from_role(self.ctx, actor, event_id, name, role_id, member_ids)

    async def remove_team(self, actor: Actor, event_id: int, name: str) -> TeamView:
        return await teams.remove_team(self.ctx, actor, event_id, name)

    async def set_roster(self, actor: Actor, event_id: int, name: str, members: Sequence[str]) -> TeamView:
        return await teams.set_roster(self.ctx, actor, event_id, name, members)

    async def list_teams(self, event_id: int) -> list[TeamView]:
        return await teams.list_teams(self.ctx, event_id)

    async def team_standings(self, event_id: int) -> list[TeamStandingView]:
        return await team_standings.standings(self.ctx, event_id)

    # -- the round cycle, driven by the scheduler (bot.director.rounds, polling, endings, jobs) --------

    async def start_round(self, event_id: int, round_number: int) -> None:
        await rounds.start_round(self.ctx, event_id, round_number)

    async def poll_round(self, event_id: int) -> None:
        await polling.poll_round(self.ctx, event_id)

    async def noshow_deadline(self, event_id: int, round_number: int) -> None:
        await polling.noshow_deadline(self.ctx, event_id, round_number)

    async def announce_results(self, event_id: int, number: int) -> None:
        await endings.announce_results(self.ctx, event_id, number)

    async def announce_end(self, event_id: int) -> None:
        await endings.announce_end(self.ctx, event_id)

    async def remind(self, event_id: int, round_number: int) -> None:
        await jobs.remind(self.ctx, event_id, round_number)

    async def due_jobs(self, now: datetime | None = None) -> list[Job]:
        return await jobs.due_jobs(self.ctx, now)

    async def run_job(self, job: Job) -> None:
        await jobs.run_job(self.ctx, job)


__all__ = ["Director"]
