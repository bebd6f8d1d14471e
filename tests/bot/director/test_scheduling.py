"""The scheduler's jobs come from the database alone; APScheduler runs them on time through the clock."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta

import pytest

from bot.clock import FastClock
from bot.director.models import JobKind, RoundView
from bot.errors import InvalidSetting
from domain.event import Event
from domain.settings import EventSettings, Schedule
from tests.bot.director.director_world import CHANNEL, GUILD, ORGANISER, World, another_process
from tests.support.announcer import RecordingAnnouncer
from tests.support.clock import ManualClock


async def test_jobs_are_derived_from_the_database(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=4, rounds=2)
    start = (await w.director.event(event_id)).settings.start_at
    assert start is not None
    jobs = await w.director.due_jobs()
    assert [(j.kind, j.id) for j in jobs] == [(JobKind.REMIND, "remind:1:1"), (JobKind.START_ROUND, "start_round:1:1")]
    assert jobs[1].due_at == start and jobs[0].due_at == start - timedelta(seconds=60)
    assert await w.director.due_jobs() == jobs  # asking twice changes nothing

    w.clock.set(jobs[0].due_at)
    await w.scheduler.run_due()
    assert len(w.announcer.of("dm")) == 4  # the reminder, once
    assert [j.kind for j in await w.director.due_jobs()] == [JobKind.START_ROUND]

    await w.start(event_id)
    jobs = await w.director.due_jobs()
    assert {j.kind for j in jobs} == {JobKind.POLL, JobKind.NOSHOW}
    noshow = next(j for j in jobs if j.kind is JobKind.NOSHOW)
    view = await w.director.pairings(event_id)
    assert view.started_at is not None and noshow.due_at == view.started_at + timedelta(minutes=5)


async def test_a_start_missed_while_down_runs_at_startup(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=4, rounds=1)
    # The bot was down past the start time: a new process with a later clock starts the round at once.
    start = (await w.director.event(event_id)).settings.start_at
    assert start is not None
    later = ManualClock(start + timedelta(hours=1))
    app = await another_process(w, later)
    director = app.director
    due = await app.scheduler.run_due()
    assert [j.kind for j in due] == [JobKind.START_ROUND]
    assert (await director.event(event_id)).current_round == 1


async def test_apscheduler_runs_an_event_on_a_fast_clock(world: World) -> None:
    event_id, _ = await world.event(players=6, rounds=2)
    start = (await world.director.event(event_id)).settings.start_at
    assert start is not None
    clock = FastClock(600.0, start=start - timedelta(minutes=1))
    app = await another_process(world, clock)
    director, scheduler = app.director, app.scheduler
    await scheduler.start()
    try:
        jobs = scheduler._aps.get_jobs() if scheduler._aps else []
        assert sorted(j.id for j in jobs) == ["remind:1:1", "start_round:1:1"]
        await scheduler.rebuild()
        assert len(scheduler._aps.get_jobs() if scheduler._aps else []) == 2  # rebuilt, not duplicated
        for _ in range(600):
            if (await director.event(event_id)).status.value == "finished":
                break
            await asyncio.sleep(0.1)
    finally:
        await scheduler.shutdown()
    event = await director.event(event_id)
    assert event.status.value == "finished" and event.current_round == 2
    assert not scheduler.errors


async def test_organiser_start_pairs_round_one_now(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=4, rounds=2)
    event = await w.director.start_event(ORGANISER, event_id)
    assert event.current_round == 1 and event.status.value == "running"
    assert all(b.game_id for b in (await w.director.pairings(event_id)).boards)


async def test_fixed_round_times(quiet_world: World) -> None:
    w = quiet_world
    start = w.clock.now() + timedelta(minutes=5)
    times = (start, start + timedelta(hours=1))
    event_id, _ = await w.event(players=4, rounds=2, schedule=Schedule.FIXED, round_times=times, start_at=start)
    await w.start(event_id)
    await w.play_all(event_id)
    await w.scheduler.run_due()
    jobs = [j for j in await w.director.due_jobs() if j.kind is JobKind.START_ROUND]
    assert [(j.round_number, j.due_at) for j in jobs] == [(2, times[1])]
    assert await w.next_round(event_id) == 1  # the interval would have passed; the fixed time has not
    w.clock.set(times[1])
    await w.scheduler.run_due()
    assert (await w.director.event(event_id)).current_round == 2


class SlowDiscord(RecordingAnnouncer):
    """Posting the pairings waits until the test lets it go (a slow Discord)."""

    def __init__(self) -> None:
        super().__init__()
        self.posting = asyncio.Event()
        self.go_on = asyncio.Event()

    async def round_paired(self, event: Event, round: RoundView) -> None:
        """Wait, then record."""
        self.posting.set()
        await self.go_on.wait()
        await super().round_paired(event, round)


async def test_shutdown_waits_for_the_job_in_flight(world: World) -> None:
    event_id, _ = await world.event(players=4, rounds=1)
    start = (await world.director.event(event_id)).settings.start_at
    assert start is not None
    clock = FastClock(1.0, start=start)
    announcer = SlowDiscord()
    app = await another_process(world, clock, announcer)
    director, scheduler = app.director, app.scheduler
    await scheduler.start()
    await asyncio.wait_for(announcer.posting.wait(), 30)  # the start job is posting the pairings
    stopping = asyncio.create_task(scheduler.shutdown())
    await asyncio.sleep(0.3)
    assert not stopping.done()  # still waiting for the job
    announcer.go_on.set()
    await asyncio.wait_for(stopping, 30)
    assert len(announcer.of("round_paired")) == 1  # the job finished, it was not cancelled
    assert (await director.event(event_id)).current_round == 1
    assert not scheduler.errors


async def test_shutdown_cancels_a_job_past_its_grace(world: World) -> None:
    event_id, _ = await world.event(players=4, rounds=1)
    start = (await world.director.event(event_id)).settings.start_at
    assert start is not None
    clock = FastClock(1.0, start=start)
    announcer = SlowDiscord()
    scheduler = (await another_process(world, clock, announcer)).scheduler
    await scheduler.start()
    await asyncio.wait_for(announcer.posting.wait(), 30)
    await asyncio.wait_for(scheduler.shutdown(grace=0.2), 5)  # returns, the stuck job cancelled
    assert announcer.of("round_paired") == []


async def test_fixed_times_without_a_start_begin_at_the_first_fixed_time(quiet_world: World) -> None:
    w = quiet_world
    first = w.clock.now() + timedelta(hours=1)
    times = (first, first + timedelta(hours=1))
    event_id, _ = await w.event(players=4, rounds=2, start_at=None, round_interval=None, round_times=times)
    assert (await w.director.event(event_id)).next_round_at == first
    w.clock.set(first)
    await w.scheduler.run_due()
    assert (await w.director.event(event_id)).current_round == 1


async def test_a_start_or_fixed_time_in_the_past_is_refused_naming_it_and_the_time_now(quiet_world: World) -> None:
    w = quiet_world
    now = w.clock.now()
    past = now - timedelta(minutes=10)
    with pytest.raises(InvalidSetting) as refused:
        await w.director.create_event(ORGANISER, GUILD, CHANNEL, EventSettings("Late", 2, start_at=past))
    assert str(refused.value) == (
        f"Invalid event settings: the start {past:%Y-%m-%d %H:%M} UTC is in the past (it is {now:%Y-%m-%d %H:%M} UTC"
        " now)."
    )
    event_id, _ = await w.event(players=4, rounds=2)
    await w.start(event_id)  # its start is in the past now: editing something else still works
    event = await w.director.event(event_id)
    assert (await w.director.edit_event(ORGANISER, event_id, replace(event.settings, rounds=3))).settings.rounds == 3


async def test_not_enough_players_to_start_is_told_to_the_organisers_once(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=1, rounds=2)
    await w.start(event_id)
    for _ in range(30):  # half an hour of retries
        w.clock.advance(60)
        await w.scheduler.run_due()
    short = [n[1] for n in w.announcer.of("notice") if n[1].startswith("Not enough players to start")]
    assert short == [
        "Not enough players to start (1 of the 2 needed): the bot tries again every minute and starts as soon as"
        " enough have joined (/swiss cancel ends the event)."
    ]
    assert (await w.director.event(event_id)).current_round == 0
