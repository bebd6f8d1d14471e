"""A pairing-allocated bye worth 0 points is a downfloat (C.04.3 2026, 1.4.3), unlike in the reference engine."""

from __future__ import annotations

from fractions import Fraction

import pytest

from pairing.model import (
    Colour,
    FloatDirection,
    Outcome,
    Player,
    RecordKind,
    RoundRecord,
    RoundViews,
    Scoring,
    Tournament,
)
from pairing.systems.dutch import pair

W, B = Colour.WHITE, Colour.BLACK
WIN, DRAW, LOSS = Outcome.WIN, Outcome.DRAW, Outcome.LOSS
PAB = RoundRecord.bye(RecordKind.PAB)


def _played(opponent: int, colour: Colour, outcome: Outcome) -> RoundRecord:
    return RoundRecord.played(opponent, colour, outcome)


# Nine players, two rounds played, a PAB worth nothing: 9 had it in round 1, 7 in round 2.
HISTORY = {
    1: (_played(5, W, WIN), _played(4, B, WIN)),
    2: (_played(6, B, WIN), _played(3, W, WIN)),
    3: (_played(7, W, WIN), _played(2, B, LOSS)),
    4: (_played(8, B, WIN), _played(1, W, LOSS)),
    5: (_played(1, B, LOSS), _played(8, W, DRAW)),
    6: (_played(2, W, LOSS), _played(9, B, DRAW)),
    7: (_played(3, B, LOSS), PAB),
    8: (_played(4, W, LOSS), _played(5, B, DRAW)),
    9: (PAB, _played(6, W, DRAW)),
}
EVENT = Tournament(
    players=tuple(Player(n, rating=2500 - 50 * n, rounds=rounds) for n, rounds in HISTORY.items()),
    total_rounds=6,
    scoring=Scoring(pab=Fraction(0)),
    initial_colour=Colour.WHITE,
)


def _reference_float_in(views: RoundViews, number: int, round_number: int) -> FloatDirection:
    """The reference engine's reading: an unplayed round floats down only when it scored more than a loss."""
    record = views.tournament.player(number).record(round_number)
    if record.kind is RecordKind.PAB and views.scoring.points(record) <= views.scoring.loss:
        return FloatDirection.NONE
    return ORIGINAL_FLOAT_IN(views, number, round_number)


ORIGINAL_FLOAT_IN = RoundViews.float_in


def test_a_zero_point_pab_is_a_downfloat() -> None:
    views = EVENT.views(3)
    assert views.score(9) == Fraction(1, 2) and views.score(7) == 0
    assert views.float_in(9, 1) is FloatDirection.DOWN
    assert views.float_in(7, 2) is FloatDirection.DOWN


def test_round_three_keeps_the_zero_pab_player_from_floating_down_again(monkeypatch: pytest.MonkeyPatch) -> None:
    # Round 3: 1, 2 on 2 points, 3, 4 on 1, then 5, 6, 8, 9 on 0.5 and 7 alone on 0. Neither 7 nor 9 may get
    # the PAB again, so two of the 0.5 bracket leave it: one meets 7, one gets the PAB.
    ours = pair(EVENT)
    assert ours.lines() == ["5", "1 2", "3 4", "8 9", "7 5", "6 0"]
    # By the 2026 text 9 floated down in round 1 (its PAB), and [C16] keeps it from floating down again two
    # rounds later: 5 and 6 leave the bracket instead, and 8-9 are paired.
    monkeypatch.setattr(RoundViews, "float_in", _reference_float_in)
    assert RoundViews(EVENT, 3).float_in(9, 1) is FloatDirection.NONE
    reference_reading = pair(EVENT)
    # Counting the PAB only when it scored more than a loss, the two lowest of the bracket (9 and 8) leave it.
    assert reference_reading.lines() == ["5", "1 2", "3 4", "6 5", "7 9", "8 0"]
    assert reference_reading != ours
