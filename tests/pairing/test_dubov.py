"""The Dubov system (C.04.4.1): the reference document's vectors, its sorting rules, and its absolute criteria
on generated events."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.cli import main as swissbot
from pairing import checker, dubov, generator, trf
from pairing.model import Colour, PreferenceStrength
from tests.support.data import corpus

BURSTEIN = corpus() / "burstein"


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("0089", "4\n4 1\n2 5\n6 3\n7 0\n"),  # §3.9 round 1: P7 takes the bye; halves by number; rule 1 colours
        ("0090", "4\n1 7\n5 2\n3 4\n6 0\n"),  # §3.9 round 2: upfloater P5 over P4 on [C7]; P6 takes the bye
    ],
)
def test_the_reference_documents_vectors(case: str, expected: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert swissbot(["pair", "--system", "dubov", str(BURSTEIN / f"{case}.trf")]) == 0
    assert capsys.readouterr().out == expected


@pytest.mark.parametrize(
    ("items", "order"),
    [("ABCDEFG", "DCEBFAG"), ("ABCDEF", "CDBEAF"), ("AB", "AB"), ("A", "A")],
)
def test_shifters_are_numbered_from_the_middle_outwards(items: str, order: str) -> None:
    numbered = dubov.middle_out([ord(c) for c in items])
    assert "".join(chr(n) for n in numbered) == order


@pytest.mark.slow
@given(seed=st.integers(1, 10_000), players=st.integers(5, 26), rounds=st.integers(3, 7))
@settings(max_examples=60, deadline=None)
def test_generated_events_meet_the_absolute_criteria(seed: int, players: int, rounds: int) -> None:
    event = generator.generate(seed, players, rounds, pair=dubov.pair)
    assert checker.check_tournament(event, None) == []  # C1 no rematch, C2 the bye, a legal round each time
    assert checker.check_tournament(event, "dubov") == []  # and the engine pairs each round the same again
    for number in range(1, event.rounds_completed + 1):
        views = event.views(number)
        for player in event.players:
            rec = player.record(number)
            if rec.is_played and rec.opponent is not None and player.number < rec.opponent:
                a, b = views.preference(player.number), views.preference(rec.opponent)
                both_absolute = a.strength is b.strength is PreferenceStrength.ABSOLUTE
                assert not (both_absolute and a.colour is b.colour), f"C3 broken in round {number}"


def test_a_player_who_has_not_played_prefers_black() -> None:
    event = generator.generate(3, 6, 3, pair=dubov.pair, stop_after=0)
    first = dubov._Round(event.views(1), [p.number for p in event.players])
    assert {p.preference for p in first.players.values()} == {Colour.BLACK}
    assert {p.strength for p in first.players.values()} == {PreferenceStrength.MILD}


def test_swissbot_check_on_a_generated_dubov_event_reports_nothing(tmp_path: Path) -> None:
    event = generator.generate(5, 15, 6, pair=partial(dubov.pair))
    path = tmp_path / "dubov.trf"
    path.write_text(trf.dumps(event), encoding="utf-8")
    assert swissbot(["check", "--system", "dubov", str(path)]) == 0
