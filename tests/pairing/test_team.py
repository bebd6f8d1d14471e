"""The Swiss Team system (C.04.6): the reference document's worked example for the three preference types, the
colour preference table, and generated team events that the checker passes."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairing import checker, generator, team, trf
from pairing.model import Colour, Outcome, Player, RoundRecord, Scoring, Tournament, result_records
from tests.support.paths import ROOT

MATCH_POINTS = Scoring(win=Fraction(2), draw=Fraction(1), loss=Fraction(0), pab=Fraction(1))
W, B = Colour.WHITE, Colour.BLACK


def after_round_one() -> tuple[Tournament, dict[int, Fraction]]:
    """§6.8: six 4-board teams, MP 2/1/0, initial colour White; 1-4 3-1, 5-2 2-2, 3-6 1½-2½ (first named White
    on board 1). Game points after it: T1 3, T6 2½, T2 2, T5 2, T3 1½, T4 1."""
    teams = tuple(Player(number=n, name=f"T{n}", rating=2000 - n) for n in range(1, 7))
    event = Tournament(players=teams, total_rounds=5, scoring=MATCH_POINTS, initial_colour=W)
    records: dict[int, RoundRecord] = {}
    for white, black, outcome in ((1, 4, Outcome.WIN), (5, 2, Outcome.DRAW), (3, 6, Outcome.LOSS)):
        records.update(result_records(white, black, outcome))
    game_points = {1: Fraction(3), 6: Fraction(5, 2), 2: Fraction(2), 5: Fraction(2), 3: Fraction(3, 2), 4: Fraction(1)}
    return event.with_round(1, records), game_points


def test_round_one_is_top_half_against_bottom_half() -> None:
    event, _ = after_round_one()
    assert team.pair(event.truncated(0)).lines() == ["3", "1 4", "5 2", "3 6"]


@pytest.mark.parametrize(
    ("kind", "expected"),
    [("A", ["3", "6 1", "2 4", "3 5"]), ("none", ["3", "6 1", "2 4", "3 5"]), ("B", ["3", "6 1", "2 3", "4 5"])],
)
def test_worked_example_round_two(kind: str, expected: list[str]) -> None:
    event, game_points = after_round_one()
    views = event.views(2)
    assert [views.score(n) for n in range(1, 7)] == [2, 1, 0, 0, 1, 2]
    # Brackets {1,6}, then {2,5} (already met) with the upfloaters {3,4}; Type B's mild preferences pick 2-3, 4-5.
    assert team.pair(event, preference=kind, game_points=game_points).lines() == expected


def test_colour_preferences_by_type() -> None:
    pref = team.colour_preference
    assert pref((B, B), "A", False) == (W, False)  # CD -2
    assert pref((W, B, B), "A", False) == (W, False)  # CD -1, last two Black
    assert pref((B, B, W), "A", False) == (None, False)  # CD -1 otherwise: none for Type A
    assert pref((B, B, W), "B", False) == (W, False)  # mild White for Type B
    assert pref((W, W), "B", False) == (B, True)  # strong
    assert pref((W, B), "B", False) == (W, False)  # CD 0, not the last round: opposite of the last match
    assert pref((W, B), "B", True) == (None, False)
    assert pref((B, W, W), "A", False) == (B, False)  # CD +1, last two White
    assert pref((W, B, B), "none", False) == (None, False)
    assert pref((), "B", False) == (None, False)


def test_board_colours_follow_the_pattern() -> None:
    assert team.boards(True, 4) == [True, False, True, False]
    assert team.boards(False, 4) == [False, True, False, True]
    assert team.boards(True, 4, "WWBB") == [True, True, False, False]


def test_an_unknown_preference_type_is_refused() -> None:
    event, _ = after_round_one()
    with pytest.raises(ValueError, match="unknown colour preference type 'C'"):
        team.pair(event, preference="C")


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), teams=st.integers(3, 20), rounds=st.integers(1, 7))
def test_generated_team_events_pass_the_checker(seed: int, teams: int, rounds: int) -> None:
    event = generator.generate(seed, teams, rounds, pair=team.pair, scoring=MATCH_POINTS)
    assert event.rounds_completed >= 1
    assert checker.check_tournament(event, "team") == []


def test_swissbot_generate_and_check_a_team_event(tmp_path: Path) -> None:
    path = tmp_path / "teams.trf"
    run = [sys.executable, "-m", "bot.cli"]
    made = subprocess.run(
        [
            *run,
            "generate",
            "--system",
            "team",
            "--players",
            "10",
            "--rounds",
            "5",
            *("--points", "2/1/0", "--pab", "1"),
            "-o",
            str(path),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    checked = subprocess.run([*run, "check", "--system", "team", str(path)], cwd=ROOT, capture_output=True, text=True)
    assert checked.returncode == 0 and "no discrepancy" in checked.stderr, checked.stdout + checked.stderr
    assert trf.read(str(path)).scoring.win == 2
