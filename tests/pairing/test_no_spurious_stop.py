"""No engine ends an event that could go on: on generated events, whenever a system's engine answers "no valid
pairing", no complete pairing of the players to pair meets the system's absolute criteria.

The witness search is the checker's legality oracle (`checker.legal_pairing`): a maximum matching over the pairs
the system's `Rules` allow (no rematch [C1] — in Double-Swiss no earlier match that was not forfeited —, no
forbidden pair, the colour absolutes where the system has them), the PAB a pairing with a dummy vertex joined to
every player who may receive it. Small fields and long events, so that running out of pairings is common.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from fractions import Fraction

import pytest

from pairing import checker, generator, systems
from pairing.errors import NoValidPairing
from pairing.model import Pairing, Scoring, Tournament
from pairing.team import check as team_check
from pairing.team.engine import pair_event
from pairing.team.model import TeamEvent

EVENTS = 300


@dataclass
class Stops:
    """The rounds an engine refused to pair, and those of them where a legal pairing existed."""

    stops: int = 0
    spurious: list[str] = field(default_factory=list)


def _scenario(seed: int, system: str) -> tuple[int, int, dict[str, object]]:
    """Players, rounds and generator options for one seed: 3-12 players, every kind of irregularity."""
    rng = random.Random(seed)
    players = rng.randint(3, 12)
    rounds = rng.randint(2, 9)
    three_one = rng.random() < 0.1
    options: dict[str, object] = {
        "draw_rate": rng.uniform(0.1, 0.5),
        "forfeit_rate": rng.choice((0.0, 0.02, 0.1, 0.25)),
        "half_bye_rate": rng.choice((0.0, 0.02, 0.06)),
        "absence_rate": rng.choice((0.0, 0.01, 0.04)),
        "full_bye_rate": rng.choice((0.0, 0.0, 0.03)),
        "withdraw_rate": rng.choice((0.0, 0.01, 0.03)),
        "late_entry_rate": rng.choice((0.0, 0.0, 0.1)),
        "scoring": Scoring(win=Fraction(3), draw=Fraction(1)) if three_one else Scoring(),
    }
    if systems.named(system).two_game_matches:
        # Many forfeits, so that matches where one player forfeited both games (one of them a double forfeit) occur.
        forfeits = rng.choice((0.02, 0.25, 0.5))
        return players, 2 * rounds, {**options, "forfeit_rate": forfeits, "two_game_matches": True}
    return players, rounds, {**options, "accelerated": not three_one and rng.random() < 0.15}


def _watched(system: str, seed: int, found: Stops) -> generator.Pair:
    """The system's engine, every refusal checked against the legality oracle."""
    engine = systems.engine(system)

    def pair(state: Tournament) -> Pairing:
        round_number = state.round_to_pair
        try:
            return engine(state, round_number)
        except NoValidPairing as refusal:
            found.stops += 1
            witness = checker.legal_pairing(state, round_number, system)
            if witness is not None:
                found.spurious.append(f"seed {seed} round {round_number}: {refusal}, but {witness.lines()} is legal")
            raise

    return pair


@pytest.mark.parametrize("system", [s for s, descriptor in systems.SYSTEMS.items() if not descriptor.team])
def test_an_engine_stops_only_when_no_legal_pairing_exists(system: str) -> None:
    found = Stops()
    for seed in range(EVENTS):
        players, rounds, options = _scenario(seed, system)
        generator.generate(seed, players, rounds, pair=_watched(system, seed, found), **options)  # type: ignore[arg-type]
    assert not found.spurious, "\n".join(found.spurious[:10])
    assert found.stops >= EVENTS // 10  # the events are long enough that many run out of pairings


def test_the_team_engine_stops_only_when_no_legal_pairing_exists() -> None:
    found = Stops()

    def watched(event: TeamEvent, round_number: int | None = None) -> Pairing:
        try:
            return pair_event(event, round_number)
        except NoValidPairing as refusal:
            found.stops += 1
            number = event.round_to_pair if round_number is None else round_number
            witness = checker.legal_pairing(event.match_tournament(), number, "team")
            if witness is not None:
                found.spurious.append(f"round {number}: {refusal}, but {witness.lines()} is legal")
            raise

    for seed in range(EVENTS // 3):
        rng = random.Random(seed)
        teams, rounds = rng.randint(3, 9), rng.randint(3, 9)
        team_check.generate_event(
            seed, teams, rounds, forfeit_rate=0.05, absence_rate=rng.choice((0.0, 0.05, 0.15)), pair=watched
        )
    assert not found.spurious, "\n".join(found.spurious[:10])
    assert found.stops >= EVENTS // 30
