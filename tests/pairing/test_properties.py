"""Property test of the Dutch engine: thousands of generated tournaments, every round checked.

Each tournament is paired round by round by `pairing.systems.dutch.pair` inside the random tournament generator.
Every pairing must meet the absolute criteria (the checker finds nothing) and place every player to be
paired exactly once; whenever the engine says no valid pairing exists, an exhaustive search must agree.
"""

from __future__ import annotations

import functools
import os
import random
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from fractions import Fraction

import pytest

from pairing import checker, generator, trf
from pairing.checker import DiscrepancyKind
from pairing.errors import NoValidPairing
from pairing.model import Board, Pairing, Scoring, Tournament
from pairing.systems.dutch import pair as dutch_pair

TOURNAMENTS = 2000
CHUNKS = 8
WORKERS = 2  # processes per chunk: the CI machine has two cores
BRUTE_FORCE_LIMIT = 14  # players to pair, for the independent exhaustive search

_BOARD_KINDS = {
    DiscrepancyKind.REMATCH,
    DiscrepancyKind.FORBIDDEN_PAIR,
    DiscrepancyKind.COLOUR_DIFFERENCE,
    DiscrepancyKind.COLOUR_STREAK,
}
_BYE_KINDS = {DiscrepancyKind.REPEATED_PAB, DiscrepancyKind.PAB_INELIGIBLE}


class PropertyFailure(Exception):
    """A round where the engine broke a property; carries the state as TRF."""


@dataclass
class Tally:
    tournaments: int = 0
    rounds: int = 0
    no_pairing: int = 0
    failures: list[str] = field(default_factory=list)


def exhaustive_pairing_exists(t: Tournament, r: int) -> bool:
    """Backtracking over every pairing, each board and the bye judged by the checker itself."""
    players = tuple(sorted(t.views(r).to_pair()))

    @functools.cache
    def board_ok(a: int, b: int) -> bool:
        return any(
            not any(d.kind in _BOARD_KINDS for d in checker.check_round(t, r, Pairing((board,))))
            for board in (Board(a, b), Board(b, a))
        )

    @functools.cache
    def bye_ok(n: int) -> bool:
        return not any(d.kind in _BYE_KINDS for d in checker.check_round(t, r, Pairing((), n)))

    @functools.cache
    def solve(rest: tuple[int, ...], bye_left: bool) -> bool:
        if not rest:
            return True
        first, others = rest[0], rest[1:]
        if bye_left and bye_ok(first) and solve(others, False):
            return True
        return any(board_ok(first, o) and solve(tuple(x for x in others if x != o), bye_left) for o in others)

    return solve(players, len(players) % 2 == 1)


def scenario(seed: int) -> dict[str, object]:
    """Generator options for one seed: 7-60 players, up to 11 rounds, every kind of irregularity."""
    rng = random.Random(seed)
    players = rng.randint(7, 14) if rng.random() < 0.5 else rng.randint(15, 60)
    three_one = rng.random() < 0.1
    return {
        "players": players,
        "rounds": rng.randint(2, 11),
        "draw_rate": rng.uniform(0.1, 0.5),
        "forfeit_rate": rng.choice((0.0, 0.02, 0.08)),
        "half_bye_rate": rng.choice((0.0, 0.02, 0.06)),
        "absence_rate": rng.choice((0.0, 0.01, 0.04)),
        "full_bye_rate": rng.choice((0.0, 0.0, 0.02)),
        "withdraw_rate": rng.choice((0.0, 0.01, 0.03)),
        "late_entry_rate": rng.choice((0.0, 0.0, 0.1)),
        "scoring": Scoring(win=Fraction(3), draw=Fraction(1)) if three_one else Scoring(),
        "accelerated": not three_one and rng.random() < 0.15,
    }


def checked_pair(seed: int, tally: Tally) -> generator.Pair:
    """The Dutch engine, with every pairing it makes (or refuses to make) verified."""

    def pair(t: Tournament) -> Pairing:
        r = t.round_to_pair
        where = f"seed {seed} round {r}"
        to_pair = set(t.views(r).to_pair())
        try:
            result = dutch_pair(t, r)
        except NoValidPairing:
            tally.no_pairing += 1
            witness = checker.legal_pairing(t, r)
            if witness is not None:
                raise PropertyFailure(f"{where}: engine found no pairing, but {witness.lines()} is legal") from None
            if len(to_pair) <= BRUTE_FORCE_LIMIT and exhaustive_pairing_exists(t, r):
                raise PropertyFailure(f"{where}: engine found no pairing, exhaustive search found one") from None
            raise
        except Exception as error:  # a crash is a failure of this seed, reported with the others
            raise PropertyFailure(f"{where}: engine crashed: {error!r}") from error
        tally.rounds += 1
        found = checker.check_round(t, r, result)
        if found:
            raise PropertyFailure(f"{where}: " + "; ".join(str(d) for d in found))
        if result.players() != to_pair:
            raise PropertyFailure(f"{where}: placed {sorted(result.players())}, to pair {sorted(to_pair)}")
        return result

    return pair


def run_seeds(seeds: range) -> Tally:
    tally = Tally()
    for seed in seeds:
        options = scenario(seed)
        players, rounds = options.pop("players"), options.pop("rounds")
        assert isinstance(players, int) and isinstance(rounds, int)
        try:
            generator.generate(seed, players, rounds, pair=checked_pair(seed, tally), **options)  # type: ignore[arg-type]
        except PropertyFailure as failure:
            state = f"generate({seed}, {players}, {rounds}, **{options})"
            tally.failures.append(f"{failure}\n  reproduce: {state}")
        tally.tournaments += 1
    return tally


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_dutch_engine_on_generated_tournaments(chunk: int) -> None:
    size = TOURNAMENTS // CHUNKS
    seeds = range(chunk * size, (chunk + 1) * size)
    workers = max(1, min(WORKERS, os.cpu_count() or 1))
    with ProcessPoolExecutor(workers) as pool:
        parts = list(pool.map(run_seeds, [seeds[i::workers] for i in range(workers)]))
    tally = Tally(
        sum(p.tournaments for p in parts),
        sum(p.rounds for p in parts),
        sum(p.no_pairing for p in parts),
        [f for p in parts for f in p.failures],
    )
    assert tally.tournaments == size
    assert tally.rounds > size  # most tournaments reach several rounds
    assert not tally.failures, "\n".join(tally.failures[:5])


@pytest.mark.slow
def test_engine_says_no_pairing_only_when_none_exists() -> None:
    """Small fields and long events, where running out of legal pairings is common."""
    tally = Tally()
    for seed in range(10_000, 10_300):
        rng = random.Random(seed)
        players, rounds = rng.randint(7, 10), rng.randint(8, 11)
        try:
            generator.generate(seed, players, rounds, pair=checked_pair(seed, tally), forfeit_rate=0.05)
        except PropertyFailure as failure:
            tally.failures.append(str(failure))
    assert not tally.failures, "\n".join(tally.failures[:5])
    assert tally.no_pairing >= 10


def test_exhaustive_search_sees_an_impossible_round() -> None:
    """The search used above: four players who have all met cannot be paired again."""
    t = generator.generate(
        1, 4, 5, pair=_legal, forfeit_rate=0.0, half_bye_rate=0.0, absence_rate=0.0, withdraw_rate=0.0
    )
    assert t.rounds_completed == 3
    assert not exhaustive_pairing_exists(t, 4)
    assert exhaustive_pairing_exists(t.truncated(2), 3)
    assert trf.parse(trf.dumps(t)).rounds_completed == 3


def _legal(t: Tournament) -> Pairing:
    found = checker.legal_pairing(t)
    if found is None:
        raise NoValidPairing("none")
    return found


@pytest.mark.slow
def test_checker_reproduces_generated_tournaments() -> None:
    """Re-pairing a generated event from its TRF, round by round, gives back every round it was paired with."""
    failures: list[str] = []
    for seed in range(20_000, 20_150):
        options = scenario(seed)
        players, rounds = options.pop("players"), options.pop("rounds")
        assert isinstance(players, int) and isinstance(rounds, int)
        t = generator.generate(seed, players, rounds, pair=dutch_pair, **options)  # type: ignore[arg-type]
        found = checker.check_tournament(trf.parse(trf.dumps(t)), "dutch")
        failures.extend(f"seed {seed}: {d}" for d in found)
    assert not failures, "\n".join(failures[:5])
