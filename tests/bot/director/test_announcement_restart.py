"""A finished round's results and standings, and a finished event's end, survive a stop between finishing and
announcing: each is marked announced only after the announcer returns, and a restarted director announces it once."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from bot.director.api import Director
from bot.director.models import JobKind, StandingRow
from bot.scheduling import Scheduler
from domain.event import Event, EventStatus
from domain.rounds import RoundStatus
from storage.rounds import get_round
from tests.bot.director.director_world import ORGANISER, World, another_process
from tests.support.announcer import RecordingAnnouncer


class Killed(Exception):
    """The process died here."""


class DiesBeforeStandings(RecordingAnnouncer):
    """Records like the real one, but the bot dies as it is about to post standings or the end."""

    async def standings(self, event: Event, rows: Sequence[StandingRow], final: bool) -> None:
        raise Killed()

    async def event_finished(self, event: Event, rows: Sequence[StandingRow], reason: str) -> None:
        raise Killed()


async def restarted(w: World) -> tuple[Director, RecordingAnnouncer, Scheduler]:
    """A new director and scheduler on the same database and Lichess, as after a restart."""
    announcer = RecordingAnnouncer()
    app = await another_process(w, w.clock, announcer)
    return app.director, announcer, app.scheduler


async def round_one_finished_then_killed(w: World, rounds: int) -> int:
    """An event of four whose bot dies as it announces the end of round 1; the event's id."""
    event_id, _ = await w.event(players=4, rounds=rounds)
    await w.with_announcer(DiesBeforeStandings())
    await w.start(event_id)
    while (await get_round(w.db, event_id, 1)).round.status is not RoundStatus.FINISHED:
        w.clock.advance(30)
        await w.scheduler.run_due()
    return event_id


async def test_standings_lost_to_a_stop_are_announced_after_the_restart(world: World) -> None:
    w = world
    event_id = await round_one_finished_then_killed(w, rounds=2)
    stored = (await get_round(w.db, event_id, 1)).round
    assert stored.results_announced_at is None  # finished, but the bot died before the standings went out

    director, announcer, scheduler = await restarted(w)
    due = await scheduler.run_due()
    assert [j.kind for j in due] == [JobKind.ANNOUNCE]  # before round 2 can start
    (posted,) = announcer.of("standings")
    assert posted[0].current_round == 1 and not posted[2] and len(posted[1]) == 4
    assert (await get_round(w.db, event_id, 1)).round.results_announced_at is not None
    assert await scheduler.run_due() == []  # announced once; round 2 waits for its start time

    for _ in range(100):
        if (await director.event(event_id)).status is EventStatus.FINISHED:
            break
        w.clock.advance(30)
        await scheduler.run_due()
    assert len(announcer.of("round_paired")) == 1 and announcer.of("round_paired")[0][1].number == 2
    assert len(announcer.of("standings")) == 1


async def test_the_end_of_an_event_lost_to_a_stop_is_announced_after_the_restart(world: World) -> None:
    w = world
    event_id = await round_one_finished_then_killed(w, rounds=1)
    # The event is over in the database, but the bot died before its end was announced.
    assert (await w.director.event(event_id)).status is EventStatus.FINISHED
    assert (await get_round(w.db, event_id, 1)).round.results_announced_at is None

    director, announcer, scheduler = await restarted(w)
    assert [j.kind for j in await scheduler.run_due()] == [JobKind.ANNOUNCE]
    event = await director.event(event_id)
    assert event.status is EventStatus.FINISHED and event.finish_reason == "all 1 rounds played"
    (finished,) = announcer.of("event_finished")
    assert finished[2] == "all 1 rounds played" and len(finished[1]) == 4
    assert await scheduler.run_due() == []
    assert len(announcer.of("event_finished")) == 1


async def test_an_organisers_finish_lost_to_a_stop_is_announced_after_the_restart(world: World) -> None:
    w = world
    event_id, _ = await w.event(players=4, rounds=3)
    await w.start(event_id)
    await w.with_announcer(DiesBeforeStandings())
    with pytest.raises(Killed):
        await w.director.finish(ORGANISER, event_id)
    event = await w.director.event(event_id)
    assert event.status is EventStatus.FINISHED and event.finish_announced_at is None

    director, announcer, scheduler = await restarted(w)
    assert [j.kind for j in await scheduler.run_due()] == [JobKind.ANNOUNCE_END]
    (finished,) = announcer.of("event_finished")
    assert finished[0].id == event_id and finished[2] == "finished by an organiser" and len(finished[1]) == 4
    assert (await director.event(event_id)).finish_announced_at is not None
    assert await scheduler.run_due() == []
    assert len(announcer.of("event_finished")) == 1


async def test_an_announced_finish_is_not_announced_again(world: World) -> None:
    w = world
    event_id, _ = await w.event(players=4, rounds=3)
    await w.start(event_id)
    finished = await w.director.finish(ORGANISER, event_id)
    assert finished.finish_announced_at is not None and len(w.announcer.of("event_finished")) == 1
    director, announcer, scheduler = await restarted(w)
    assert await scheduler.run_due() == []
    await director.announce_end(event_id)
    assert announcer.of("event_finished") == []
