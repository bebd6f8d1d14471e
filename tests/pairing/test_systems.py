"""The systems by name, and `auto`: Lichess's choice of system by the number of players to pair."""

from __future__ import annotations

import pytest

from pairing import dutch, generator, systems, trf
from tests.support.data import corpus


@pytest.mark.parametrize(
    ("players", "system"),
    [(2, "dutch"), (249, "dutch"), (250, "burstein"), (699, "burstein"), (700, "fast"), (100_000, "fast")],
)
def test_auto_switches_at_lichess_sizes(players: int, system: str) -> None:
    assert systems.system_for(systems.AUTO, players) == system


def test_a_named_system_is_itself_whatever_the_size() -> None:
    assert systems.system_for("dutch", 5000) == "dutch"


def test_an_unknown_system_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown pairing system 'monrad' \(known: dutch"):
        systems.system_for("monrad", 10)


def test_auto_pairs_a_small_event_with_dutch() -> None:
    tournament = trf.read(str(corpus() / "dutch" / "0029.trf"))
    system, pairing = systems.pair(tournament, systems.AUTO)
    assert system == "dutch" and pairing == dutch.pair(tournament)


@pytest.mark.slow
def test_auto_pairs_250_players_with_burstein_and_249_with_dutch() -> None:
    for players, expected in ((249, "dutch"), (250, "burstein")):
        event = generator.generate(1, players, 5, stop_after=0)
        system, pairing = systems.pair(event, systems.AUTO)
        assert system == expected
        assert pairing == systems.engine(expected)(event, None)
