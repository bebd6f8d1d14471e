"""The systems by name, and `auto`: Lichess's choice of system by the number of players to pair."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pairing import generator, systems, trf
from pairing.systems import dutch
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


# --- the registry -------------------------------------------------------------------------------------------------


def test_the_registry_holds_each_systems_nature() -> None:
    assert list(systems.SYSTEMS) == ["dutch", "burstein", "dubov", "lim", "fast", "double", "team"]
    assert systems.choices() == ("auto", *systems.SYSTEMS)
    assert [s.name for s in systems.SYSTEMS.values() if s.team] == ["team"]
    assert [s.name for s in systems.SYSTEMS.values() if s.two_game_matches] == ["double"]
    assert [s.name for s in systems.SYSTEMS.values() if not s.accelerable] == ["double", "team"]
    codes = {s.name: s.trf_code for s in systems.SYSTEMS.values() if s.trf_code}
    assert codes == {
        "dutch": "FIDE_DUTCH",
        "burstein": "FIDE_BURSTEIN",
        "dubov": "FIDE_DUBOV",
        "double": "FIDE_DOUBLESWISS",
    }


def test_an_unknown_name_is_one_sentence_naming_the_systems() -> None:
    with pytest.raises(ValueError, match=r"^unknown pairing system 'monrad' \(known: dutch, .*, team\)$"):
        systems.named("monrad")
    with pytest.raises(ValueError, match=r"^unknown pairing system 'auto'"):
        systems.named("auto")  # auto picks a system; it is not one


def test_an_auto_event_has_the_nature_of_the_system_it_picks_for_the_fewest_players() -> None:
    assert systems.of_choice(systems.AUTO) is systems.named("dutch")
    assert systems.of_choice("double") is systems.named("double")


def test_auto_picks_a_registered_system_from_its_size() -> None:
    bigger = systems.PairingSystem("huge", "Huge", "pairing.systems.fast", systems.named("fast").rules, auto_from=5000)
    with systems.registered(bigger):
        assert systems.system_for(systems.AUTO, 4999) == "fast"
        assert systems.system_for(systems.AUTO, 5000) == "huge"
        assert systems.choices()[-1] == "huge"
    assert "huge" not in systems.SYSTEMS and systems.system_for(systems.AUTO, 5000) == "fast"


def test_a_system_is_registered_once_and_its_engine_is_imported_on_first_use() -> None:
    with pytest.raises(ValueError, match="already registered"):
        systems.register(replace(systems.named("lim"), label="Lim again"))
    with pytest.raises(ValueError, match="no system may be named so"):
        systems.register(replace(systems.named("lim"), name=systems.AUTO))
    with pytest.raises(ValueError, match="one game or two"):
        systems.register(replace(systems.named("double"), name="triple", games_per_match=3))
    with pytest.raises(ValueError, match="unknown pairing system 'triple'"):
        systems.unregister("triple")
    assert systems.named("dutch").engine() is dutch.pair
