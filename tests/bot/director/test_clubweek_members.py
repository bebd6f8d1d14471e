"""Club-week items on members and organisers through the real director, SQLite and local Lichess."""

from __future__ import annotations

from fractions import Fraction

from tests.bot.director.director_world import ORGANISER, World


async def test_a_correction_during_a_round_updates_the_last_finished_rounds_standings(quiet_world: World) -> None:
    """Item 11: standings are labelled by the last finished round, each finished round gets its own post."""
    w = quiet_world
    event_id, _ = await w.event(players=4, rounds=3)
    await w.start(event_id)
    await w.play_all(event_id, "white")
    await w.scheduler.run_due()
    assert await w.next_round(event_id) == 2
    await w.play(event_id, 1, "black")  # round 2 board 1 decided, board 2 still being played
    await w.scheduler.run_due()
    before = len(w.announcer.of("standings"))
    assert [a[0].current_round for a in w.announcer.of("standings")] == [1]

    r1 = await w.director.pairings(event_id, 1)
    await w.director.set_result(ORGANISER, event_id, 1, r1.boards[0].number, "0-1", "scoresheet")
    posted = w.announcer.of("standings")[before:]
    assert len(posted) == 1
    event, rows, final = posted[0]
    assert event.current_round == 1 and not final  # "after round 1", not "after round 2"
    # Round 2's partial result is not in the standings after round 1: 2 points were played out in all.
    assert sum((row.points for row in rows), Fraction(0)) == 2

    await w.play(event_id, 2, "white")
    await w.scheduler.run_due()
    rounds = [a[0].current_round for a in w.announcer.of("standings")]
    assert rounds == [1, 1, 2]  # round 2's end has a post of its own
    assert sum((row.points for row in w.announcer.of("standings")[-1][1]), Fraction(0)) == 4
