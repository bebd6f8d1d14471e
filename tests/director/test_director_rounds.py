"""The round cycle against the sandbox with a manual clock: a whole event, no-shows, early draws, corrections."""

from __future__ import annotations

from director_world import World


async def test_full_event_runs_to_final_standings(world: World) -> None:
    event_id, _ = await world.event(players=8, rounds=3)
    await world.run_until(lambda: world.finished(event_id))
    event = await world.director.event(event_id)
    assert event.current_round == 3
    for number in (1, 2, 3):
        view = await world.director.pairings(event_id, number)
        assert view.decided
    finished = world.announcer.of("event_finished")
    assert len(finished) == 1 and "3 rounds" in finished[0][2]
