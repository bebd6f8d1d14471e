"""The organisers' use cases: create, edit, open, start, pause, resume, next round, corrections, forbidden
pairs, removing, disqualifying, unbanning, finishing, cancelling and exporting an event."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from bot.director.challenges import cancel_games, forfeit_departed, open_games
from bot.director.context import Context
from bot.director.endings import (
    bulletin,
    decide_board,
    finish_event,
    finish_round,
    last_finished_round,
    post,
    send_posts,
    show_results,
)
from bot.director.lookups import ACTIVE_EVENT_STATUSES, OVER, active_entries, get_event, player_in_event, sentence
from bot.director.models import Actor, Correction, RoundView
from bot.director.queries import pairings
from bot.director.rounds import set_next_round_at, start_round
from bot.director.timetable import next_start
from bot.errors import BoardNotFound, InvalidSetting, InvalidState, NotEntered, NotOrganiser, RoundNotFound
from bot.lichess.payloads import valid_username
from domain.entry import Entry, EntryStatus
from domain.event import EDITABLE, Event, EventStatus
from domain.result import Result
from domain.rounds import RoundStatus
from domain.settings import EventSettings
from storage import entries as storage_entries
from storage import errors as storage_errors
from storage import events as storage_events
from storage import outbox as storage_outbox
from storage import players as storage_players
from storage import results as storage_results
from storage import rounds as storage_rounds
from storage.export import export_event
from storage.outbox import PostKind

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


MAX_DISCORD_ID = 2**63 - 1  # Discord ids are 64-bit snowflakes (and SQLite integers)


def parse_result(text: str) -> Result:
    """A result as an organiser types it: 1-0, 0-1, 1/2-1/2 (or ½-½), +/- and -/+ (forfeits), -/-."""
    found = _RESULT_ALIASES.get(text.strip().replace(" ", ""))
    if found is None:
        raise InvalidSetting(f"Unknown result {text!r}: use 1-0, 0-1, 1/2-1/2, +/-, -/+ or -/-.")
    return found


def new_event_settings(ctx: Context, name: str, rounds: int) -> EventSettings:
    """A new event's settings before the organiser's options: the configured no-show time and round interval."""
    return EventSettings(
        name=name,
        rounds=rounds,
        round_interval=ctx.default_round_interval,
        no_show_seconds=round(ctx.settings.default_noshow_minutes * 60),
    )


async def create_event(ctx: Context, actor: Actor, guild_id: int, channel_id: int, settings: EventSettings) -> Event:
    """Create an event (a draft until opened)."""
    _organiser(actor)
    settings = replace(settings, guild_id=guild_id, channel_id=channel_id)
    _validate(settings, ctx.clock.now())
    return await storage_events.create_event(ctx.db, settings, created_by=actor.discord_id, at=ctx.clock.now())


async def edit_event(ctx: Context, actor: Actor, event_id: int, settings: EventSettings) -> Event:
    """Change an event's settings (once started: not its pairing system, acceleration or paired rounds)."""
    _organiser(actor)
    event = await get_event(ctx.db, event_id)
    settings = replace(settings, guild_id=event.guild_id, channel_id=event.channel_id)
    _validate(settings, ctx.clock.now(), event.settings, event.current_round)
    if event.status in OVER:
        raise InvalidState(f"{event.name} is over.")
    if event.current_round and settings.rounds < event.current_round:
        raise InvalidSetting(f"{event.name} has already paired {event.current_round} rounds.")
    edit = storage_events.edit_event if event.status in EDITABLE else storage_events.edit_started_event
    try:
        updated = await edit(ctx.db, event_id, settings, at=ctx.clock.now(), actor=actor.audit_name)
    except storage_errors.WrongStatus as exc:
        raise InvalidState(sentence(str(exc))) from None
    if _schedule(event.settings) != _schedule(updated.settings):
        updated = await _reschedule(ctx, event_id)
    if updated.current_round and updated.settings.rounds <= updated.current_round:
        updated = await _end_if_played(ctx, event_id)
    ctx.changed()
    return updated


async def _end_if_played(ctx: Context, event_id: int) -> Event:
    """Rounds cut to those already paired: once the last of them is finished, the event ends (final standings)."""
    async with ctx.lock(event_id):
        event = await get_event(ctx.db, event_id)
        rounds = await storage_rounds.list_rounds(ctx.db, event_id)
        if event.status in ACTIVE_EVENT_STATUSES and rounds and rounds[-1].round.status is RoundStatus.FINISHED:
            await storage_events.set_next_round_at(ctx.db, event_id, None)
            await finish_event(ctx, event_id, f"all {event.settings.rounds} rounds played")
    return await get_event(ctx.db, event_id)


def _schedule(settings: EventSettings) -> tuple[object, ...]:
    """What decides when rounds start."""
    return (settings.start_at, settings.round_interval, settings.round_times)


async def _reschedule(ctx: Context, event_id: int) -> Event:
    """After a schedule edit, the next round's start under the new schedule: the start time before round 1,
    else counted from the end of the last round (a round in play sets it when it ends)."""
    async with ctx.db.transaction():
        event = await get_event(ctx.db, event_id)
        if event.status is EventStatus.DRAFT or event.status in OVER:
            return event
        if event.current_round == 0:
            return await storage_events.set_next_round_at(ctx.db, event_id, event.settings.first_round_at)
        last = (await storage_rounds.list_rounds(ctx.db, event_id))[-1].round
        if last.status is not RoundStatus.FINISHED or last.number >= event.settings.rounds:
            return event
        when = next_start(event, last.number, last.finished_at or ctx.clock.now())
        return await storage_events.set_next_round_at(ctx.db, event_id, when)


async def open_event(ctx: Context, actor: Actor, event_id: int) -> Event:
    """Accept entries; the first round is due at the start time (if any)."""
    _organiser(actor)
    now = ctx.clock.now()
    async with ctx.db.transaction():
        event = await get_event(ctx.db, event_id)
        if event.status is not EventStatus.DRAFT:
            raise InvalidState(f"{event.name} is already {event.status.value}.")
        await storage_events.set_event_status(ctx.db, event_id, EventStatus.OPEN, at=now, actor=actor.audit_name)
        event = await storage_events.set_next_round_at(ctx.db, event_id, event.settings.first_round_at)
        # the card with the Join button, written with the change: an outage or a stop only delays it
        await storage_outbox.queue_post(ctx.db, event_id, PostKind.OPENED, 0, at=now)
    async with ctx.lock(event_id):
        await send_posts(ctx, event_id)
    ctx.changed()
    return event


async def start_event(ctx: Context, actor: Actor, event_id: int) -> Event:
    """Start now, instead of at the start time (pairs round 1)."""
    _organiser(actor)
    async with ctx.db.snapshot():
        event = await get_event(ctx.db, event_id)
        active = active_entries(await storage_entries.list_entries(ctx.db, event_id))
    if event.status is EventStatus.DRAFT:
        await open_event(ctx, actor, event_id)
    elif event.status is not EventStatus.OPEN:
        raise InvalidState(f"{event.name} has already started.")
    if len(active) < ctx.settings.min_players:
        raise InvalidState(f"{event.name} needs at least {ctx.settings.min_players} players to start.")
    await set_next_round_at(ctx, event_id, ctx.clock.now())
    await start_round(ctx, event_id, 1)
    return await get_event(ctx.db, event_id)


async def pause(ctx: Context, actor: Actor, event_id: int) -> Event:
    """No new round starts until resumed (the round being played goes on)."""
    _organiser(actor)
    return await _set_status(ctx, actor, event_id, EventStatus.PAUSED, (EventStatus.OPEN, EventStatus.RUNNING))


async def resume(ctx: Context, actor: Actor, event_id: int) -> Event:
    """Undo a pause: a round whose time has passed starts at once."""
    _organiser(actor)
    event = await get_event(ctx.db, event_id)
    target = EventStatus.RUNNING if event.current_round else EventStatus.OPEN
    return await _set_status(ctx, actor, event_id, target, (EventStatus.PAUSED,))


async def next_round(ctx: Context, actor: Actor, event_id: int) -> RoundView:
    """Start the next round now (manual scheduling, or to skip the wait)."""
    _organiser(actor)
    async with ctx.db.snapshot():
        event = await get_event(ctx.db, event_id)
        rounds = await storage_rounds.list_rounds(ctx.db, event_id)
    if event.status not in (EventStatus.OPEN, EventStatus.RUNNING):
        raise InvalidState(f"{event.name} is {event.status.value}.")
    if rounds and rounds[-1].round.status is not RoundStatus.FINISHED:
        raise InvalidState(f"Round {rounds[-1].round.number} of {event.name} is still being played.")
    number = len(rounds) + 1
    if number > event.settings.rounds:
        raise InvalidState(f"{event.name} has no round {number}.")
    await set_next_round_at(ctx, event_id, ctx.clock.now())
    await start_round(ctx, event_id, number)
    return await pairings(ctx, event_id, number)


async def set_result(
    ctx: Context, actor: Actor, event_id: int, round_number: int, board: int, result: str, reason: str
) -> Correction:
    """Set or correct a board's result (audited); says if a later round was already paired."""
    _organiser(actor)
    new = parse_result(result)
    if not reason.strip():
        raise InvalidSetting("A correction needs a reason.")
    now = ctx.clock.now()
    async with ctx.lock(event_id):
        async with ctx.db.transaction():
            event = await get_event(ctx.db, event_id)
            try:
                row = await storage_rounds.board_by_number(ctx.db, event_id, round_number, board)
            except storage_errors.NotFound:
                if not 1 <= round_number <= event.current_round:
                    raise RoundNotFound(f"Round {round_number} of {event.name} is not paired.") from None
                raise BoardNotFound(f"Round {round_number} has no board {board}.") from None
            first = row.result is None
            if first:
                await decide_board(ctx, row, new, actor=actor.audit_name, game_id=row.game_id, reason=reason, at=now)
            else:
                await storage_results.correct_result(ctx.db, row.id, new, at=now, actor=actor.audit_name, reason=reason)
                # written with the change: a stop before Discord hears of it still shows it after the restart
                await storage_outbox.queue_post(ctx.db, event_id, PostKind.RESULTS, round_number, at=now)
        if first:  # the board is decided: its challenge, if nobody has played it, can no longer count
            await cancel_games(ctx, event.guild_id, await open_games(ctx, event_id, round_number, [row.id]))
        later = round_number + 1 if round_number < event.current_round else None
        correction = Correction(event_id, round_number, board, row.result, new, later)
        if correction.later_round_paired is not None:
            await ctx.announcer.notice(event, correction.message)
        view = await pairings(ctx, event_id, round_number)
        await show_results(ctx, event, view)
        if view.status is RoundStatus.FINISHED or event.status is EventStatus.FINISHED:
            # The standings after the last finished round (a later round in play has no standings yet).
            # Through the outbox: a Discord outage leaves them pending, and the correction still answers its success.
            if event.status is EventStatus.FINISHED:
                await post(ctx, event_id, PostKind.FINAL, 0)
            else:
                await post(ctx, event_id, PostKind.STANDINGS, await last_finished_round(ctx, event_id))
        elif view.decided and round_number == event.current_round:
            await finish_round(ctx, event_id, round_number)
    ctx.changed()
    return correction


async def forbid(ctx: Context, actor: Actor, event_id: int, a: str, b: str) -> None:
    """Two players (Lichess names) must not be paired together."""
    _organiser(actor)
    async with ctx.db.transaction():
        await get_event(ctx.db, event_id)
        first = await player_in_event(ctx.db, event_id, a)
        second = await player_in_event(ctx.db, event_id, b)
        if first.player_id == second.player_id:
            raise InvalidSetting("A player cannot be forbidden from playing themselves.")
        await storage_entries.add_forbidden_pair(
            ctx.db, event_id, first.player_id, second.player_id, at=ctx.clock.now(), actor=actor.audit_name
        )


async def allow(ctx: Context, actor: Actor, event_id: int, a: str, b: str) -> None:
    """Lift a forbidden pair: the two players may be paired together again."""
    _organiser(actor)
    async with ctx.db.transaction():
        await get_event(ctx.db, event_id)
        first = await player_in_event(ctx.db, event_id, a)
        second = await player_in_event(ctx.db, event_id, b)
        lifted = await storage_entries.remove_forbidden_pair(
            ctx.db, event_id, first.player_id, second.player_id, at=ctx.clock.now(), actor=actor.audit_name
        )
    if not lifted:
        raise InvalidState(f"{first.name} and {second.name} are not a forbidden pair.")


async def reinstate(ctx: Context, actor: Actor, event_id: int, player: str) -> Entry:
    """Bring back a withdrawn, removed or no-show player (any round: the organiser's call, not a late join)."""
    _organiser(actor)
    event = await get_event(ctx.db, event_id)
    if event.status in OVER:
        raise InvalidState(f"{event.name} is {event.status.value}.")
    entry = await player_in_event(ctx.db, event_id, player)
    if entry.status is EntryStatus.ACTIVE:
        raise InvalidState(f"{entry.name} is playing in {event.name} already.")
    if entry.status is EntryStatus.DISQUALIFIED:
        raise InvalidState(f"{entry.name} is disqualified from {event.name}; a disqualification is not undone.")
    if entry.number is None and event.current_round:
        raise InvalidState(f"{entry.name} left {event.name} before its start: they can join again (/join).")
    return await _set_entry(ctx, actor, event_id, player, EntryStatus.ACTIVE, "reinstated by an organiser")


async def remove(ctx: Context, actor: Actor, event_id: int, player: str) -> Entry:
    """Remove a player from the event (not paired again, cannot rejoin); their board of the round in play is lost
    by forfeit at once and its game cancelled on Lichess."""
    _organiser(actor)
    entry = await _set_entry(ctx, actor, event_id, player, EntryStatus.BANNED, None)
    async with ctx.lock(event_id):
        await forfeit_departed(ctx, actor, event_id, entry, "was removed")
    ctx.changed()
    return entry


async def disqualify(ctx: Context, actor: Actor, event_id: int, player: str, reason: str) -> Entry:
    """Take a player out of the ranking (everyone's scores unchanged); their board of the round in play is lost by
    forfeit at once and its game cancelled on Lichess."""
    _organiser(actor)
    entry = await _set_entry(ctx, actor, event_id, player, EntryStatus.DISQUALIFIED, reason)
    async with ctx.lock(event_id):
        await forfeit_departed(ctx, actor, event_id, entry, "was disqualified")
    event = await get_event(ctx.db, event_id)
    why = f" ({reason.strip()})" if reason and reason.strip() else ""
    if event.status is EventStatus.FINISHED:
        # The final standings in the channel are edited in place (posted again if deleted), then the line says
        # so; both through the outbox, so an outage only delays them.
        async with ctx.lock(event_id):  # the POSTS job sends under the lock too: a pending post is sent once
            await storage_outbox.queue_post(ctx.db, event_id, PostKind.FINAL, 0, at=ctx.clock.now())
            await bulletin(ctx, event_id, f"{entry.name} is disqualified{why}: the final standings are updated.")
    elif event.status is not EventStatus.CANCELLED:
        async with ctx.lock(event_id):
            await bulletin(ctx, event_id, f"{entry.name} is disqualified{why}.")
    ctx.changed()  # a post left pending gets its POSTS job
    return entry


async def unban(ctx: Context, actor: Actor, guild_id: int, player: str) -> None:
    """Lift a no-show ban (by Lichess name or Discord id); a later no-show still doubles it."""
    _organiser(actor)
    async with ctx.db.transaction():
        text = player.strip()
        shown = text if len(text) <= 40 else text[:39] + "…"
        found = await storage_players.player_by_lichess(ctx.db, text) if valid_username(text) else None
        if found is None and text.isdigit() and 0 < int(text) <= MAX_DISCORD_ID:
            found = await storage_players.player_by_discord(ctx.db, int(text))
        if found is None:
            raise NotEntered(f"{shown} is not a linked member (give a Lichess username or a Discord id).")
        lifted = await storage_players.lift_ban(ctx.db, guild_id, found.id, at=ctx.clock.now(), actor=actor.audit_name)
        if lifted is None:
            raise InvalidState(f"{player} is not banned.")


async def finish(ctx: Context, actor: Actor, event_id: int) -> Event:
    """End the event now, with final standings; the bot's challenges of the round in play are cancelled."""
    _organiser(actor)
    event = await get_event(ctx.db, event_id)
    if event.status not in ACTIVE_EVENT_STATUSES:
        raise InvalidState(f"{event.name} is {event.status.value}.")
    if event.current_round == 0:
        raise InvalidState(f"{event.name} has not started, so there is nothing to finish: cancel it (/swiss cancel).")
    async with ctx.lock(event_id):
        await finish_event(ctx, event_id, "finished by an organiser", actor)
        if event.current_round >= 1:  # the round in play no longer counts: its open challenges go
            await cancel_games(ctx, event.guild_id, await open_games(ctx, event_id, event.current_round))
    return await get_event(ctx.db, event_id)


async def cancel(ctx: Context, actor: Actor, event_id: int) -> Event:
    """Cancel the event; the bot's challenges of the round in play are cancelled on Lichess."""
    _organiser(actor)
    allowed = (EventStatus.DRAFT, *ACTIVE_EVENT_STATUSES)
    was = (await get_event(ctx.db, event_id)).status
    async with ctx.lock(event_id):
        cancelled = await _set_status(ctx, actor, event_id, EventStatus.CANCELLED, allowed, "cancelled")
        completed = await last_finished_round(ctx, event_id)
        in_play = cancelled.current_round if cancelled.current_round > completed else None
        if in_play is not None:
            await cancel_games(ctx, cancelled.guild_id, await open_games(ctx, event_id, in_play))
        if was is not EventStatus.DRAFT:  # a draft was never shown in the channel
            # Through the outbox: during an outage both go out once Discord is back, and the command answers.
            if in_play is not None:  # the round's post shows the games no longer played
                await storage_outbox.queue_post(ctx.db, event_id, PostKind.RESULTS, in_play, at=ctx.clock.now())
            await bulletin(ctx, event_id, f"the event is cancelled by the organisers{_when(completed, in_play)}.")
    ctx.changed()  # a post left pending gets its POSTS job
    return cancelled


def _when(completed: int, in_play: int | None) -> str:
    """When an event was cancelled, as its channel reads it: the rounds completed, and the round in play."""
    done = f"after {completed} completed round{'s' if completed != 1 else ''}"
    if in_play is None:
        return f" {done}" if completed else ""
    return (
        f" {done}, during round {in_play}" if completed else f" during round {in_play}, before any round was completed"
    )


async def export(ctx: Context, event_id: int, fmt: str, *, public: bool = False) -> bytes:
    """The event as `trf`, `pgn` or `json` (storage's export; PGN links to the Lichess the games were played on;
    `public`: what the web pages may serve, the JSON without Discord ids, requested byes, forbidden pairs, audit, the
    TRF without FIDE profiles; else the organisers' export)."""
    await get_event(ctx.db, event_id)
    try:
        return (await export_event(ctx.db, event_id, fmt, site=ctx.lichess.base_url, public=public)).encode()
    except ValueError:
        raise InvalidSetting(f"Unknown export format {fmt!r}: trf, pgn or json.") from None


def _validate(settings: EventSettings, now: datetime, before: EventSettings | None = None, played: int = 0) -> None:
    """Refuse settings that cannot describe an event (or a time of theirs in the past, unless `before` had it or a
    round of the `played` ones has it), naming every problem in one sentence."""
    problems = settings.problems(now, before, played)
    if problems:
        raise InvalidSetting("Invalid event settings: " + "; ".join(problems) + ".")


async def _set_status(
    ctx: Context,
    actor: Actor,
    event_id: int,
    status: EventStatus,
    allowed: Sequence[EventStatus],
    reason: str | None = None,
) -> Event:
    async with ctx.db.transaction():
        event = await get_event(ctx.db, event_id)
        if event.status not in allowed:
            raise InvalidState(f"{event.name} is {event.status.value}.")
        updated = await storage_events.set_event_status(
            ctx.db, event_id, status, at=ctx.clock.now(), actor=actor.audit_name, reason=reason
        )
    ctx.changed()
    return updated


async def _set_entry(
    ctx: Context, actor: Actor, event_id: int, player: str, status: EntryStatus, reason: str | None
) -> Entry:
    async with ctx.db.transaction():
        await get_event(ctx.db, event_id)
        entry = await player_in_event(ctx.db, event_id, player)
        changed = await storage_entries.set_entry_status(
            ctx.db,
            event_id,
            entry.player_id,
            status,
            at=ctx.clock.now(),
            actor=actor.audit_name,
            reason=reason,
        )
    ctx.changed()
    return changed


def _organiser(actor: Actor) -> None:
    if not actor.is_organiser:
        raise NotOrganiser()
