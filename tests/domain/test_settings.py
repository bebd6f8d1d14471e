"""EventSettings.problems: every rule once, in its own sentence, and several problems told together."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from domain.settings import MAX_TEAM_BOARDS, EventSettings, lichess_takes_clock

T0 = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)
GOOD = EventSettings(name="Club Swiss", rounds=4)
H = timedelta(hours=1)
FOUR_TIMES = tuple(T0 + h * H for h in range(4))


def test_good_settings_have_no_problem() -> None:
    assert GOOD.problems() == []
    fixed = replace(GOOD, round_interval=None, round_times=tuple(T0 + timedelta(hours=h) for h in range(4)))
    assert fixed.problems() == []
    assert replace(GOOD, system="double", clock_limit=0, clock_increment=1, team="my-club_1").problems() == []


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"name": "  "}, "the name is empty"),
        ({"name": "\u200b\u3164\u2800"}, "the name has no visible character"),
        ({"name": "Club\nSwiss"}, "the name has a control character or a line break"),
        ({"name": "Club\x1bSwiss"}, "the name has a control character or a line break"),
        ({"name": "Club \u202eSwiss"}, "the name has a bidirectional override, which would turn the text around it"),
        ({"tiebreaks": ("BH", "SB", "BH")}, "the tie-break BH is listed twice"),
        ({"rounds": 0}, "rounds must be between 1 and 50"),
        ({"rounds": 51}, "rounds must be between 1 and 50"),
        ({"clock_limit": -60}, "the clock cannot be negative"),
        ({"clock_increment": -1}, "the clock cannot be negative"),
        ({"clock_limit": 0, "clock_increment": 0}, "the clock needs a limit or an increment"),
        (
            {"clock_limit": 75, "clock_increment": 30},
            "Lichess refuses a 75 s + 30 s clock: the time is 0, 15, 30, 45, 60 or 90 seconds or a whole number of "
            "minutes up to 180, and the increment 0 to 180 seconds",
        ),
        ({"clock_limit": 181 * 60}, "Lichess refuses a 10860 s + 2 s clock"),
        ({"clock_increment": 181}, "Lichess refuses a 180 s + 181 s clock"),
        ({"round_interval": 0}, "the round interval must be positive"),
        ({"round_times": FOUR_TIMES}, "give a round interval or fixed round times, not both"),
        ({"round_interval": None, "round_times": (T0,)}, "1 fixed round times for 4 rounds"),
        ({"start_at": T0.replace(tzinfo=None)}, "the time 2026-03-02T18:00:00 has no timezone (times are UTC-aware)"),
        (
            {"round_interval": None, "round_times": (T0 + timedelta(hours=3), T0, T0 + timedelta(hours=4), T0 + H)},
            "the fixed round times are not in order",
        ),
        (
            {"round_interval": None, "round_times": (T0, T0 + H, T0 + H, T0 + 2 * H)},
            "the fixed time 2026-03-02 19:00 UTC is given twice",
        ),
        ({"reminder_seconds": -60}, "the reminder cannot come after the round's start"),
        ({"team": "not a team"}, "'not a team' is not a Lichess team id (the part after lichess.org/team/)"),
        ({"team": "x" * 61}, f"'{'x' * 39}…' is not a Lichess team id (the part after lichess.org/team/)"),
        ({"rating_min": 2000, "rating_max": 1000}, "the minimum rating is above the maximum"),
        ({"max_byes": -1}, "the bye limit cannot be negative"),
        ({"early_draw_moves": -1}, "the early-draw move count cannot be negative"),
        ({"no_show_seconds": 0}, "the no-show deadline must be positive"),
        ({"system": "monrad"}, "unknown pairing system 'monrad' (known: dutch, burstein"),
        (
            {"system": "double", "rounds": 5},
            "a Double-Swiss event plays two games a match, so its rounds count games and must be even (not 5)",
        ),
        ({"system": "double", "acceleration": True}, "acceleration is not available for Double-Swiss events"),
        (
            {"system": "team", "acceleration": True},
            "acceleration is not available for Team events",
        ),
        ({"acceleration_method": "us-28r9"}, "unknown acceleration 'us-28r9'"),
        ({"team_boards": 0}, f"a team match has 1 to {MAX_TEAM_BOARDS} boards"),
        ({"team_boards": MAX_TEAM_BOARDS + 1}, f"a team match has 1 to {MAX_TEAM_BOARDS} boards"),
        ({"pairing_review": -1}, "the pairing review lasts 0 to 1440 minutes"),
        ({"pairing_review": 1441}, "the pairing review lasts 0 to 1440 minutes"),
        ({"system": "team", "pairing_review": 5}, "a Team event's pairing cannot be held for corrections"),
    ],
)
def test_each_rule_is_one_sentence(changes: dict[str, Any], problem: str) -> None:
    found = replace(GOOD, **changes).problems()
    assert len(found) == 1, found
    assert found[0].startswith(problem)


def test_an_unknown_tiebreak_code_is_the_parser_s_sentence() -> None:
    found = replace(GOOD, tiebreaks=("BH", "XYZ")).problems()
    assert len(found) == 1 and "XYZ" in found[0]


def test_several_problems_are_told_together_in_order() -> None:
    bad = replace(
        GOOD,
        name="",
        rounds=5,
        clock_limit=75,
        round_interval=-1,
        rating_min=2000,
        rating_max=1000,
        no_show_seconds=0,
        system="double",
        acceleration=True,
    )
    assert bad.problems() == [
        "the name is empty",
        "Lichess refuses a 75 s + 2 s clock: the time is 0, 15, 30, 45, 60 or 90 seconds or a whole number of "
        "minutes up to 180, and the increment 0 to 180 seconds",
        "the round interval must be positive",
        "the minimum rating is above the maximum",
        "the no-show deadline must be positive",
        "a Double-Swiss event plays two games a match, so its rounds count games and must be even (not 5)",
        "acceleration is not available for Double-Swiss events",
    ]


def test_naive_and_aware_round_times_are_told_not_compared() -> None:
    times = (T0, T0.replace(tzinfo=None) + timedelta(hours=1))
    assert replace(GOOD, rounds=2, round_interval=None, round_times=times).problems() == [
        "the time 2026-03-02T19:00:00 has no timezone (times are UTC-aware)"
    ]


def test_a_start_or_fixed_time_in_the_past_is_refused_naming_it_and_the_time_now() -> None:
    now = T0 + 30 * timedelta(minutes=1)
    assert replace(GOOD, start_at=T0).problems(now) == [
        "the start 2026-03-02 18:00 UTC is in the past (it is 2026-03-02 18:30 UTC now)"
    ]
    fixed = replace(GOOD, round_interval=None, round_times=FOUR_TIMES)
    assert fixed.problems(now) == [
        "the fixed time 2026-03-02 18:00 UTC is in the past (it is 2026-03-02 18:30 UTC now)"
    ]
    assert fixed.problems(now, before=fixed) == []  # an edit keeps the times it had, played or not
    assert fixed.problems(now, played=1) == []  # the time of a round already paired is not a start to come
    assert replace(GOOD, start_at=T0).problems() == []  # without `now`, nothing is in the past


def test_with_fixed_times_and_no_start_the_first_round_is_at_the_first_fixed_time() -> None:
    fixed = replace(GOOD, round_interval=None, round_times=FOUR_TIMES)
    assert fixed.first_round_at == T0
    assert replace(fixed, start_at=T0 - H).first_round_at == T0 - H
    assert GOOD.first_round_at is None


@pytest.mark.parametrize(
    ("limit", "increment", "taken"),
    [(0, 1, True), (15, 0, True), (90, 0, True), (120, 180, True), (10800, 0, True), (75, 0, False), (10860, 0, False)],
)
def test_lichess_takes_the_short_limits_and_whole_minutes(limit: int, increment: int, taken: bool) -> None:
    assert lichess_takes_clock(limit, increment) is taken
