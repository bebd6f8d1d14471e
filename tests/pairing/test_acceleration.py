"""Accelerated pairings: Baku and US Chess 28R1/28R2 virtual points, and the pairings they give with Dutch."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairing import acceleration, generator
from pairing.model import Colour, Outcome, Pairing, Player, RoundRecord, Scoring, Tournament, result_records
from pairing.systems import dutch

ONE, HALF, ZERO = Fraction(1), Fraction(1, 2), Fraction(0)


def field(ratings: list[int], rounds: int = 4) -> Tournament:
    """Players numbered in rating order, White for #1 in round 1, nothing played."""
    players = tuple(Player(number=n, name=f"P{n}", rating=r) for n, r in enumerate(ratings, start=1))
    return Tournament(players=players, total_rounds=rounds, initial_colour=Colour.WHITE)


def test_group_a_sizes() -> None:
    assert acceleration.group_a_size("baku", 10) == 6 and acceleration.group_a_size("baku", 161) == 82
    assert acceleration.group_a_size("us-28r1", 10) == 5 and acceleration.group_a_size("us-28r1", 11) == 6
    assert acceleration.group_a_size("us-28r2", 20) == 10
    with pytest.raises(ValueError, match="unknown acceleration 'us-28r9'"):
        acceleration.group_a_size("us-28r9", 10)


def test_28r1_round_one_is_the_reference_example() -> None:
    # fide-other-systems.md §9 item 2: ten players rated 1510 .. 1501; the top five get a point.
    event = field(list(range(1510, 1500, -1)))
    state = acceleration.with_acceleration("us-28r1", range(1, 6), event)
    rating = {p.number: p.rating for p in event.players}
    pairing = dutch.pair(state)
    # Who meets whom is the example's; colours are the engine's (FIDE's rules), not US Chess 29E: the example
    # gives 1502 and 1503 White in the bottom quarter, FIDE's round-1 alternation gives 1504 and 1501.
    assert [frozenset((rating[b.white], rating[b.black])) for b in pairing.boards] == [
        frozenset(pair) for pair in ((1510, 1508), (1507, 1509), (1506, 1505), (1502, 1504), (1503, 1501))
    ]
    assert [(rating[b.white], rating[b.black]) for b in pairing.boards][:3] == [
        (1510, 1508),
        (1507, 1509),
        (1506, 1505),
    ]


def test_28r1_round_two_ranks_a_virtual_point_above_a_real_one_as_the_reference_example() -> None:
    # fide-other-systems.md §9 item 3: twenty players, four rounds, every favourite wins round 1. With the virtual
    # point ranking above the real one (our reading: one score group ordered by starting number) the top boards
    # of round 2 are 4-1, 2-3, 6-5, 8-11, 12-7; the other reading (real points higher) would give 4-1, 2-3,
    # 12-5, 6-11 (a renumbering by real points inside each score group gives exactly that).
    event = field(list(range(2400, 2200, -10)))
    first = dutch.pair(acceleration.with_acceleration("us-28r1", range(1, 11), event))
    records: dict[int, RoundRecord] = {}
    for board in first.boards:
        won = Outcome.WIN if board.white < board.black else Outcome.LOSS
        records.update(result_records(board.white, board.black, won))
    state = acceleration.with_acceleration("us-28r1", range(1, 11), event.with_round(1, records))
    second = dutch.pair(state)
    assert [(b.white, b.black) for b in second.boards][:5] == [(4, 1), (2, 3), (6, 5), (8, 11), (12, 7)]
    winners = {n for b in second.boards for n in (b.white, b.black) if n <= 5}
    assert sum(1 for b in second.boards if {b.white, b.black} <= winners) == 2  # 4-1, 2-3; 5 floats down


def test_28r1_adds_a_win_to_the_top_half_in_rounds_one_and_two_only() -> None:
    event = field([1500] * 6, rounds=5)
    points = acceleration.virtual_points("us-28r1", [1, 2, 3], range(1, 7), event)
    assert points == {1: (ONE, ONE), 2: (ONE, ONE), 3: (ONE, ONE)}
    state = acceleration.with_acceleration("us-28r1", [1, 2, 3], event)
    assert [state.virtual_points(1, r) for r in (1, 2, 3)] == [ONE, ONE, ZERO]
    assert state.virtual_points(4, 1) == ZERO


def _after_round_one(event: Tournament, outcomes: dict[tuple[int, int], Outcome]) -> Tournament:
    records: dict[int, RoundRecord] = {}
    for (white, black), outcome in outcomes.items():
        records.update(result_records(white, black, outcome))
    return event.with_round(1, records)


def test_28r2_round_two_scores_are_the_three_batches() -> None:
    event = field([2000 - 10 * n for n in range(8)], rounds=5)
    played = _after_round_one(
        event,
        {
            (1, 3): Outcome.WIN,  # A: 1 wins, 3 loses
            (4, 2): Outcome.DRAW,  # A: both draw (non-winners)
            (5, 7): Outcome.WIN,  # B: 5 wins, 7 loses
            (8, 6): Outcome.DRAW,  # B: both draw (non-winners)
        },
    )
    state = acceleration.with_acceleration("us-28r2", range(1, 5), played)
    views = state.views(2)
    scores = {n: views.pairing_score(n) for n in range(1, 9)}
    # A's winners on 3, A's non-winners and B's winners on 2, B's non-winners on 1 (wins' worth).
    assert scores == {1: 3, 2: 2, 3: 2, 4: 2, 5: 2, 6: 1, 7: 1, 8: 1}
    assert all(views.score(n) == played.views(2).score(n) for n in scores)  # standings points untouched
    # 28R1 would have left the drawers on their own half point: 1.5 for A's, 0.5 for B's.
    r1 = acceleration.with_acceleration("us-28r1", range(1, 5), played).views(2)
    assert (r1.pairing_score(2), r1.pairing_score(6)) == (Fraction(3, 2), HALF)


def _batch(state: Tournament, number: int) -> Fraction:
    return state.views(2).pairing_score(number)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), players=st.integers(8, 40))
def test_28r2_round_two_pairs_inside_the_batches_but_for_one_floater_each(seed: int, players: int) -> None:
    seen: list[Tournament] = []

    def pair(state: Tournament) -> Pairing:
        seen.append(state)
        return dutch.pair(state)

    generator.generate(
        seed,
        players,
        3,
        pair=pair,
        accelerated=True,
        acceleration_method="us-28r2",
        half_bye_rate=0.0,
        absence_rate=0.0,
        withdraw_rate=0.0,
        forfeit_rate=0.0,
    )
    round_two = next(s for s in seen if s.round_to_pair == 2)
    pairing = dutch.pair(round_two)
    batches = sorted({_batch(round_two, p.number) for p in round_two.players}, reverse=True)
    crossing = [b for b in pairing.boards if _batch(round_two, b.white) != _batch(round_two, b.black)]
    # A batch with an odd number of players sends one down (repeats can send more, never in round 2's batches
    # of players who met only within their own half in round 1, so at most one a batch boundary).
    assert len(crossing) <= len(batches) - 1
    for board in crossing:
        high, low = sorted((_batch(round_two, board.white), _batch(round_two, board.black)), reverse=True)
        assert batches.index(low) == batches.index(high) + 1  # only to the next batch down
    round_three = next(s for s in seen if s.round_to_pair == 3)
    assert all(round_three.virtual_points(p.number, 3) == 0 for p in round_three.players)


def test_baku_is_the_same_through_the_generator_and_the_module() -> None:
    padded = acceleration.baku_points(9, Scoring()) + (ZERO,) * 4  # the generator writes every round's XXA
    assert generator.baku_acceleration(10, 9, Scoring()) == {n: padded for n in range(1, 7)}
