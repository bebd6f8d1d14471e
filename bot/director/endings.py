"""The end of a round and of an event: marked, the next start set, and announced once.

The posts that must reach the channel outside a round's end (a round's results, corrected standings, the final
standings after a late disqualification, bulletins such as a cancellation) go through the outbox
(`storage.outbox`): written before they are tried, completed after Discord took them, and tried again by the
POSTS job while pending, also after a restart. What they show is rendered from the database when they are sent
(a bulletin's text is kept in its row). Every path that decides a board stores its result through `decide_board`,
which writes the round's results post with it; a round's results wait for its pairing post, which shows them."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from bot.director import team_standings
from bot.director.context import Context
from bot.director.lookups import OVER, get_event, get_round
from bot.director.models import SYSTEM_ACTOR, Actor, RoundView
from bot.director.queries import pairings, standings
from bot.director.timetable import next_start
from domain.event import JOINABLE, Event, EventStatus
from domain.result import Result
from domain.rounds import BoardRow, RoundStatus
from storage import events as storage_events
from storage import outbox as storage_outbox
from storage import results as storage_results
from storage import rounds as storage_rounds
from storage.outbox import Post, PostKind
from storage.results import GameData


async def finish_round(ctx: Context, event_id: int, number: int) -> None:
    """Mark a decided round finished (and when the next one starts), then announce its results."""
    now = ctx.clock.now()
    async with ctx.db.transaction():
        event = await get_event(ctx.db, event_id)
        summary = await get_round(ctx.db, event, number)
        if summary.round.status is not RoundStatus.FINISHED:
            await storage_rounds.finish_round(ctx.db, event_id, number, at=now, actor=SYSTEM_ACTOR.name)
            if number < event.settings.rounds:
                await storage_events.set_next_round_at(ctx.db, event_id, next_start(event, number, now))
            # the round's message shows every result once it is over, whichever path decided its last board (an
            # announcer that keeps what the message shows makes no edit when it is right already)
            await storage_outbox.queue_post(ctx.db, event_id, PostKind.RESULTS, number, at=now)
    await _announce_results(ctx, event_id, number)


async def decide_board(
    ctx: Context,
    board: BoardRow,
    result: Result,
    *,
    actor: str,
    reason: str | None = None,
    game_id: str | None = None,
    game_data: GameData | None = None,
    at: datetime | None = None,
) -> BoardRow:
    """Store a board's result and its round's results post in the outbox in one transaction (inside the caller's,
    if any): a stop before Discord hears of it still shows it after the restart. The caller sends the posts
    (`show_results`, `send_posts`) once its own changes are stored."""
    now = at or ctx.clock.now()
    async with ctx.db.transaction():
        decided = await storage_results.record_result(
            ctx.db, board.id, result, at=now, actor=actor, game_id=game_id, game_data=game_data, reason=reason
        )
        await storage_outbox.queue_post(ctx.db, board.event_id, PostKind.RESULTS, board.round, at=now)
    return decided


async def show_results(ctx: Context, event: Event, view: RoundView) -> bool:
    """Update a round's results in the channel, through the outbox (tried again until Discord takes them).
    False when it did not get there now."""
    queued = await storage_outbox.queue_post(ctx.db, event.id, PostKind.RESULTS, view.number, at=ctx.clock.now())
    if await storage_outbox.pending_posts(ctx.db, event.id) != [queued]:
        return await send_posts(ctx, event.id)  # earlier posts first, each rendered when sent
    to_come = await _pairing_post_to_come(ctx, event, view.number)  # then that post shows the results
    if not to_come and not await ctx.announced(event.id, ctx.announcer.results_updated(event, view)):
        return False  # (the caller's fresh view)
    await storage_outbox.post_sent(ctx.db, queued.id, at=ctx.clock.now())
    return True


async def _pairing_post_to_come(ctx: Context, event: Event, round_number: int) -> bool:
    """Whether the round's pairing post is still to come (the round not announced yet, nor over): it shows every
    result stored before it, and a results post sent first would be the round's message without its pings."""
    row = (await get_round(ctx.db, event, round_number)).round
    return row.pairings_announced_at is None and row.status is not RoundStatus.FINISHED


async def post(ctx: Context, event_id: int, kind: PostKind, round_number: int) -> bool:
    """Write the post in the outbox (unless one is pending), then send the event's pending posts; False when
    Discord did not take them now (they stay pending for the POSTS job)."""
    await storage_outbox.queue_post(ctx.db, event_id, kind, round_number, at=ctx.clock.now())
    return await send_posts(ctx, event_id)


async def bulletin(ctx: Context, event_id: int, text: str) -> bool:
    """A line for everyone in the event's channel, through the outbox (after the posts pending before it); False
    when Discord did not take it now (it stays pending for the POSTS job)."""
    await storage_outbox.queue_post(ctx.db, event_id, PostKind.BULLETIN, 0, at=ctx.clock.now(), text=text)
    return await send_posts(ctx, event_id)


async def send_posts(ctx: Context, event_id: int) -> bool:
    """Send the event's pending posts, oldest first, each completed once Discord took it; False at the first that
    did not get there (it and the later ones stay pending)."""
    for pending in await storage_outbox.pending_posts(ctx.db, event_id):
        if not await ctx.announced(event_id, _send(ctx, pending)):
            return False
        await storage_outbox.post_sent(ctx.db, pending.id, at=ctx.clock.now())
    return True


async def announce_posts(ctx: Context, event_id: int) -> None:
    """The POSTS job: send the event's pending posts."""
    async with ctx.lock(event_id):
        await send_posts(ctx, event_id)
    ctx.changed()


async def _send(ctx: Context, pending: Post) -> None:
    """One post, rendered from the database now."""
    event = await get_event(ctx.db, pending.event_id)
    if pending.kind is PostKind.RESULTS:
        if not await _pairing_post_to_come(ctx, event, pending.round):
            await ctx.announcer.results_updated(event, await pairings(ctx, event.id, pending.round))
    elif pending.kind is PostKind.STANDINGS:
        rows = await standings(ctx, event.id, pending.round)
        await ctx.announcer.standings(as_of_round(event, pending.round), rows, False)
    elif pending.kind is PostKind.FINAL:
        await ctx.announcer.standings(event, await standings(ctx, event.id), True)
    elif pending.kind is PostKind.BULLETIN:
        await ctx.announcer.bulletin(event, pending.text)
    elif event.status in JOINABLE:  # the card (a cancelled or finished event's is not posted late)
        await ctx.announcer.event_opened(event)


async def announce_results(ctx: Context, event_id: int, number: int) -> None:
    """Announce a finished round's results and standings if that has not been done (a restart's catch-up)."""
    async with ctx.lock(event_id):
        await _announce_results(ctx, event_id, number)
    ctx.changed()


async def _announce_results(ctx: Context, event_id: int, number: int) -> None:
    """The standings after a finished round (the final ones after the last round), once: marked in the
    database after the announcer returns, so a restart before that announces them rather than never."""
    event = await get_event(ctx.db, event_id)
    summary = await get_round(ctx.db, event, number)
    if summary.round.status is not RoundStatus.FINISHED or summary.round.results_announced_at is not None:
        return
    last = number >= event.settings.rounds
    if last and event.status not in OVER:  # the event ends now, whether or not Discord hears of it yet
        await _set_finished(ctx, event_id, f"all {event.settings.rounds} rounds played", SYSTEM_ACTOR)
        ctx.changed()
    if not await send_posts(ctx, event_id):  # the round's last results (or a correction) did not reach the channel
        return
    if last:  # the end and the final standings (perhaps stopped before they were announced)
        await _announce_end(ctx, event_id)
    elif event.status not in OVER:  # once over, the final standings say it all
        rows = await standings(ctx, event_id, number)
        if not await ctx.announced(event_id, ctx.announcer.standings(as_of_round(event, number), rows, False)):
            return
        await team_standings.announce(ctx, event, number, final=False)
    await storage_rounds.mark_results_announced(ctx.db, event_id, number, at=ctx.clock.now())
    await send_posts(ctx, event_id)  # a team event's standings line; pending for the POSTS job if refused now


def as_of_round(event: Event, number: int) -> Event:
    """The event as the standings after round `number` show it: announcers label (and key) standings by
    `current_round`, which must be the last finished round, not a round still being played."""
    return event if event.current_round == number else replace(event, current_round=number)


async def last_finished_round(ctx: Context, event_id: int) -> int:
    """The number of the last finished round (0 before the first one ends)."""
    rounds = await storage_rounds.list_rounds(ctx.db, event_id)
    return max((r.round.number for r in rounds if r.round.status is RoundStatus.FINISHED), default=0)


async def finish_event(ctx: Context, event_id: int, reason: str, actor: Actor = SYSTEM_ACTOR) -> None:
    """Finish the event, then announce its end (the jobs are rebuilt even if the announcement fails)."""
    if not await _set_finished(ctx, event_id, reason, actor):
        return
    try:
        await _announce_end(ctx, event_id)
    finally:
        ctx.changed()


async def _set_finished(ctx: Context, event_id: int, reason: str, actor: Actor) -> bool:
    """Mark the event finished; False if it was over already."""
    async with ctx.db.transaction():
        event = await get_event(ctx.db, event_id)
        if event.status in OVER:
            return False
        await storage_events.set_event_status(
            ctx.db, event_id, EventStatus.FINISHED, at=ctx.clock.now(), actor=actor.audit_name, reason=reason
        )
    return True


async def announce_end(ctx: Context, event_id: int) -> None:
    """Announce a finished event's end if that has not been done (a restart's catch-up)."""
    async with ctx.lock(event_id):
        await _announce_end(ctx, event_id)
    ctx.changed()


async def _announce_end(ctx: Context, event_id: int) -> None:
    """A finished event's end and final standings, once: marked in the database after the announcer returns,
    so a restart before that announces them rather than never."""
    event = await get_event(ctx.db, event_id)
    if event.status is not EventStatus.FINISHED or event.finish_announced_at is not None:
        return
    reason = event.finish_reason or f"finished after round {event.current_round}"
    if not await ctx.announced(event_id, ctx.announcer.event_finished(event, await standings(ctx, event_id), reason)):
        return
    await team_standings.announce(ctx, event, event.current_round, final=True)
    await storage_events.mark_finish_announced(ctx.db, event_id, at=ctx.clock.now())
    await send_posts(ctx, event_id)  # a team event's final standings line; pending for the POSTS job if refused now
