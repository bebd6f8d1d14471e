"""The scheduler's side: the jobs the database implies, running one, and the reminder before a round."""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.director.context import Context
from bot.director.endings import announce_end, announce_posts, announce_results
from bot.director.lookups import ACTIVE_EVENT_STATUSES, active_entries, get_event
from bot.director.models import SYSTEM_ACTOR, Job, JobKind
from bot.director.outcome import next_noshow_at
from bot.director.polling import live_attempts, noshow_deadline, poll_round
from bot.director.rounds import start_round
from domain.event import Event, EventStatus
from domain.rounds import RoundStatus
from storage import audit as storage_audit
from storage import entries as storage_entries
from storage import events as storage_events
from storage import games as storage_games
from storage import outbox as storage_outbox
from storage import rounds as storage_rounds

_REMIND = "round.remind"  # the audit action that records a round's reminder


async def remind(ctx: Context, event_id: int, round_number: int) -> None:
    """Remind the active players that a round is coming (once)."""
    async with ctx.db.transaction():
        event = await get_event(ctx.db, event_id)
        if await _reminded(ctx, event_id, round_number):
            return
        await storage_audit.record_action(
            ctx.db,
            at=ctx.clock.now(),
            actor=SYSTEM_ACTOR.name,
            action=_REMIND,
            subject=f"round:{round_number}",
            event_id=event_id,
        )
        players = active_entries(await storage_entries.list_entries(ctx.db, event_id))
    when = event.next_round_at
    at = f" at {when:%H:%M} UTC" if when else " soon"
    for entry in players:
        await ctx.announcer.dm(entry.discord_id, f"{event.name}: round {round_number} starts{at}.")


async def due_jobs(ctx: Context, now: datetime | None) -> list[Job]:
    """Every job the database implies right now (the scheduler's whole state)."""
    now = now or ctx.clock.now()
    jobs: list[Job] = []
    async with ctx.db.snapshot():
        unannounced = {(r.event_id, r.number) for r in await storage_rounds.rounds_to_announce(ctx.db)}
        for event_id, number in sorted(unannounced):
            jobs.append(Job(JobKind.ANNOUNCE, event_id, number, ctx.announce_due(event_id, now)))
        waiting = {event_id for event_id, _ in unannounced}
        for event in await storage_events.finishes_to_announce(ctx.db):
            if event.id not in waiting:  # a last round's announcement carries the end with it
                jobs.append(Job(JobKind.ANNOUNCE_END, event.id, event.current_round, ctx.announce_due(event.id, now)))
        for event_id in sorted({p.event_id for p in await storage_outbox.pending_posts(ctx.db)} - waiting):
            jobs.append(Job(JobKind.POSTS, event_id, 0, ctx.announce_due(event_id, now)))  # a round's end sends its own
        active = frozenset(ACTIVE_EVENT_STATUSES)
        for event in await storage_events.list_events(ctx.db, statuses=active):
            if event.id in waiting:
                continue  # the last round's results go out before anything else happens
            rounds = await storage_rounds.list_rounds(ctx.db, event.id)
            last = rounds[-1].round if rounds else None
            if last is not None and last.review_until is not None and last.held(now):
                jobs.append(Job(JobKind.POLL, event.id, last.number, last.review_until))  # the games after the hold
                continue
            if last is not None and last.status is not RoundStatus.FINISHED:
                jobs.append(Job(JobKind.POLL, event.id, last.number, now))
                if last.started_at is not None:
                    live = live_attempts(rounds[-1], await storage_games.games_of_round(ctx.db, event.id, last.number))
                    seconds = event.settings.no_show_seconds
                    deadline = next_noshow_at(last.started_at, list(live.values()), seconds, now)
                    if deadline is not None:
                        jobs.append(Job(JobKind.NOSHOW, event.id, last.number, deadline))
                continue
            if event.status is EventStatus.PAUSED or len(rounds) >= event.settings.rounds:
                continue
            start = event.next_round_at
            if start is None:
                continue
            number = len(rounds) + 1
            jobs.append(Job(JobKind.START_ROUND, event.id, number, start))
            lead = _reminder_lead(ctx, event)
            if lead is not None and start > now and not await _reminded(ctx, event.id, number):
                jobs.append(Job(JobKind.REMIND, event.id, number, max(start - lead, now)))
    return sorted(jobs, key=lambda j: (j.due_at, j.event_id, j.kind.value))


async def run_job(ctx: Context, job: Job) -> None:
    """Run one scheduler job; a round start or a reminder run before its time does nothing (the scheduler
    wakes up at most every `MAX_WALL_DELAY` and plans again)."""
    if job.kind in (JobKind.START_ROUND, JobKind.REMIND) and not await _round_due(ctx, job):
        return
    if job.kind is JobKind.START_ROUND:
        await start_round(ctx, job.event_id, job.round_number)
    elif job.kind is JobKind.POLL:
        await poll_round(ctx, job.event_id)
    elif job.kind is JobKind.NOSHOW:
        await noshow_deadline(ctx, job.event_id, job.round_number)
    elif job.kind is JobKind.ANNOUNCE:
        await announce_results(ctx, job.event_id, job.round_number)
    elif job.kind is JobKind.ANNOUNCE_END:
        await announce_end(ctx, job.event_id)
    elif job.kind is JobKind.POSTS:
        await announce_posts(ctx, job.event_id)
    else:
        await remind(ctx, job.event_id, job.round_number)


async def _round_due(ctx: Context, job: Job) -> bool:
    """The job's round is due now: its start (or its reminder's time) has come, or the round is already paired."""
    now = ctx.clock.now()
    async with ctx.db.snapshot():
        event = await get_event(ctx.db, job.event_id)
        paired = len(await storage_rounds.list_rounds(ctx.db, job.event_id))
    if job.kind is JobKind.START_ROUND and job.round_number <= paired:
        return True  # a paired round's missing games are created at once
    start = event.next_round_at
    if start is None:
        return False
    if job.kind is JobKind.REMIND:
        lead = _reminder_lead(ctx, event)
        return lead is not None and start - lead <= now
    return start <= now


async def _reminded(ctx: Context, event_id: int, round_number: int) -> bool:
    """The round's players were reminded already (the audit log keeps each reminder)."""
    return await storage_audit.logged(ctx.db, event_id=event_id, action=_REMIND, subject=f"round:{round_number}")


def _reminder_lead(ctx: Context, event: Event) -> timedelta | None:
    """How long before a round its players are reminded: the event's own lead, else the bot's (None: never)."""
    seconds = event.settings.reminder_seconds
    if seconds is None:
        return timedelta(seconds=ctx.settings.reminder_before)
    return timedelta(seconds=seconds) if seconds > 0 else None
