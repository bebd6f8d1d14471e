"""Property test of the Burstein engine: generated tournaments paired round by round, every round checked.

Each tournament is paired by `pairing.systems.burstein.pair` inside the random tournament generator. Every pairing must
meet Burstein's absolute criteria as the checker states them (no rematch, no forbidden pair, the colour limits
with no topscorer exception, the PAB to an eligible player at most once) and place every player to be paired
exactly once. The engine may refuse a round only when no legal pairing exists: it chooses the PAB first, without
looking ahead, then merges groups until everyone else is paired, and gives the PAB to another player where the
others cannot be.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import pytest

from pairing import checker, generator, trf
from pairing.checker import DiscrepancyKind
from pairing.errors import NoValidPairing
from pairing.model import Board, Colour, Pairing, Scoring, Tournament
from pairing.systems import burstein
from pairing.systems.burstein import pair as burstein_pair

TOURNAMENTS = 300


class PropertyFailure(Exception):
    """A round where the engine broke a property."""


@dataclass
class Tally:
    tournaments: int = 0
    rounds: int = 0
    no_pairing: int = 0
    byes: int = 0
    failures: list[str] = field(default_factory=list)


def scenario(seed: int) -> dict[str, object]:
    """Generator options for one seed: 7-40 players, up to 11 rounds, every kind of irregularity."""
    rng = random.Random(seed)
    players = rng.randint(7, 14) if rng.random() < 0.5 else rng.randint(15, 40)
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


def _refusal_is_justified(t: Tournament, r: int) -> bool:
    """No legal pairing of the players to pair, whoever has the PAB."""
    return checker.legal_pairing(t, r, "burstein") is None


def checked_pair(seed: int, tally: Tally) -> generator.Pair:
    """The Burstein engine, with every pairing it makes (or refuses to make) verified."""

    def pair(t: Tournament) -> Pairing:
        r = t.round_to_pair
        where = f"seed {seed} round {r}"
        to_pair = set(t.views(r).to_pair())
        try:
            result = burstein_pair(t, r)
        except NoValidPairing:
            tally.no_pairing += 1
            if not _refusal_is_justified(t, r):
                raise PropertyFailure(f"{where}: engine found no pairing, but the others could be paired") from None
            raise
        except Exception as error:  # a crash is a failure of this seed, reported with the others
            raise PropertyFailure(f"{where}: engine crashed: {error!r}") from error
        tally.rounds += 1
        tally.byes += result.bye is not None
        found = checker.check_round(t, r, result, "burstein")
        if found:
            raise PropertyFailure(f"{where}: " + "; ".join(str(d) for d in found))
        if result.players() != to_pair or len(result.players()) != 2 * len(result.boards) + (result.bye is not None):
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
def test_burstein_engine_on_generated_tournaments() -> None:
    tally = run_seeds(range(TOURNAMENTS))
    assert tally.tournaments == TOURNAMENTS
    assert tally.rounds > 3 * TOURNAMENTS  # most tournaments reach several rounds
    assert tally.byes > TOURNAMENTS  # odd rounds are common, so the bye rule is exercised
    assert not tally.failures, "\n".join(tally.failures[:5])


@pytest.mark.slow
def test_engine_refuses_only_when_the_others_cannot_be_paired() -> None:
    """Small fields and long events, where running out of legal pairings is common."""
    tally = Tally()
    for seed in range(10_000, 10_200):
        rng = random.Random(seed)
        players, rounds = rng.randint(7, 10), rng.randint(8, 11)
        try:
            generator.generate(seed, players, rounds, pair=checked_pair(seed, tally), forfeit_rate=0.05)
        except PropertyFailure as failure:
            tally.failures.append(str(failure))
    assert not tally.failures, "\n".join(tally.failures[:5])
    assert tally.no_pairing >= 10


def _player(number: int, points: str, *games: str) -> str:
    head = f"001 {number:4d}      {f'Player {number}':<33} 2000".ljust(80) + f"{points:>4} {number:4d}"
    return head + "".join(f"  {g}" for g in games)


def test_the_checker_gives_burstein_no_topscorer_exception() -> None:
    """Final round: topscorer 1 (two wins with Black) gets a third Black; Dutch allows it, Burstein does not."""
    text = (
        "012 Test\n"
        + "\n".join(
            [
                _player(1, "2.0", "   3 b 1", "   2 b 1"),
                _player(2, "1.0", "   4 b 1", "   1 w 0"),
                _player(3, "1.0", "   1 w 0", "   4 w 1"),
                _player(4, "0.0", "   2 w 0", "   3 b 0"),
            ]
        )
        + "\nXXR 3\nXXC white1\n"
    )
    t = trf.parse(text)
    pairing = Pairing((Board(4, 1), Board(2, 3)))
    assert checker.check_round(t, 3, pairing, "dutch") == []
    kinds = [d.kind for d in checker.check_round(t, 3, pairing, "burstein")]
    assert set(kinds) == {DiscrepancyKind.COLOUR_DIFFERENCE, DiscrepancyKind.COLOUR_STREAK}


@pytest.mark.slow
def test_checker_reproduces_generated_burstein_tournaments() -> None:
    """Re-pairing a generated event from its TRF, round by round, gives back every round it was paired with."""
    failures: list[str] = []
    for seed in range(20_000, 20_040):
        options = scenario(seed)
        players, rounds = options.pop("players"), options.pop("rounds")
        assert isinstance(players, int) and isinstance(rounds, int)
        t = generator.generate(seed, players, rounds, pair=burstein_pair, **options)  # type: ignore[arg-type]
        found = checker.check_tournament(trf.parse(trf.dumps(t)), "burstein")
        failures.extend(f"seed {seed}: {d}" for d in found)
    assert not failures, "\n".join(failures[:5])


@pytest.mark.slow
def test_large_groups_solved_sparsely_pair_as_the_full_graph_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sparse start (verified by the duals) changes nothing: every round of a 110-player event agrees."""
    event = generator.generate(5, 110, 4, pair=burstein_pair, forfeit_rate=0.03, half_bye_rate=0.03)
    assert event.rounds_completed == 4
    monkeypatch.setattr(burstein, "NATURAL", False)
    for r in range(1, 5):
        state = checker.round_input(event, r)
        monkeypatch.setattr(burstein, "SPARSE_LIMIT", 10**9)
        dense = burstein_pair(state)
        monkeypatch.setattr(burstein, "SPARSE_LIMIT", 200)
        assert burstein_pair(state) == dense, f"round {r}"


@pytest.mark.slow
def test_groups_solved_apart_from_the_rest_pair_as_the_whole_graph_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """Solving a group apart from the players below it (kept only where the duals prove it) changes nothing."""
    event = generator.generate(6, 90, 5, pair=burstein_pair, forfeit_rate=0.03, half_bye_rate=0.03)
    assert event.rounds_completed == 5
    monkeypatch.setattr(burstein, "NATURAL", False)
    split = burstein._split_matching
    used = 0

    def counted(*args: object) -> list[int] | None:
        nonlocal used
        got = split(*args)  # type: ignore[arg-type]
        used += got is not None
        return got

    for r in range(1, 6):
        state = checker.round_input(event, r)
        monkeypatch.setattr(burstein, "_split_matching", lambda *_: None)
        whole = burstein_pair(state)
        monkeypatch.setattr(burstein, "_split_matching", counted)
        assert burstein_pair(state) == whole, f"round {r}"
    assert used > 0


@pytest.mark.slow
def test_parts_solved_sparsely_or_built_directly_pair_as_parts_solved_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """A group's part solved on a window of edges (kept where its duals cover every edge) and the lower groups'
    duals built directly (`_Engine._direct`) change nothing: every round agrees with each part solved whole, and each
    part built directly weighs as much as the heaviest perfect matching of its players, with duals that prove it."""
    direct = burstein._Engine._direct
    built = 0

    def checked(self: burstein._Engine, groups: list[range]) -> Any:
        nonlocal built
        got = direct(self, groups)
        if got is not None:
            built += 1
            members = [v for group in groups for v in group]
            solved = self._part(members)
            assert solved is not None
            assert weight(self, got.mate) == weight(self, solved.mate)
            # Its duals are optimal: every edge covered, every pair of the matching tight.
            inside = set(members)
            for x in members:
                for y, w in self.weights[x].items():
                    if y in inside:
                        common = sum(2 * got.blossom[b] for b in set(got.chains[x]) & set(got.chains[y]))
                        slack = got.vertex[x] + got.vertex[y] + common - self.doubled[w]
                        assert slack >= 0 and (slack == 0 or got.mate[x] != y)
        return got

    def weight(engine: burstein._Engine, mate: dict[int, int]) -> int:
        return sum(engine.small(engine.weights[x][y]) for x, y in mate.items() if x < y)

    # The parts are those of the steps read from a solved optimum (`_natural`), not from the colour duals.
    monkeypatch.setattr(burstein, "BY_COLOURS", False)
    rounds = 0
    for seed, players in ((21, 40), (22, 90), (23, 150)):
        event = generator.generate(seed, players, 7, pair=burstein_pair, forfeit_rate=0.04, half_bye_rate=0.03)
        for r in range(1, event.rounds_completed + 1):
            state = checker.round_input(event, r)
            monkeypatch.setattr(burstein, "PART_SPARSE_LIMIT", 10**9)
            monkeypatch.setattr(burstein._Engine, "_direct", lambda *_: None)
            whole = burstein_pair(state)
            monkeypatch.setattr(burstein, "PART_SPARSE_LIMIT", 0)
            monkeypatch.setattr(burstein._Engine, "_direct", checked)
            assert burstein_pair(state) == whole, f"seed {seed} round {r}"
            rounds += 1
    assert rounds >= 18 and built > 0


@pytest.mark.slow
def test_steps_read_from_the_duals_pair_as_the_solved_steps_do(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading each group's steps from one optimal dual (`_natural`) changes nothing: every round agrees with the
    engine solving every step as a matching, on events of 9 to 120 players with byes, forfeits and acceleration."""
    natural = burstein._Engine._natural
    used = 0

    def counted(
        self: burstein._Engine, group: list[int], *rest: Any
    ) -> tuple[list[tuple[int, int]], int | None] | None:
        nonlocal used
        got = natural(self, group, *rest)
        used += got is not None
        return got

    monkeypatch.setattr(burstein._Engine, "_natural", counted)
    monkeypatch.setattr(burstein, "BY_COLOURS", False)
    rounds = 0
    events = ((11, 9, False), (12, 24, False), (13, 37, True), (14, 80, False), (15, 120, False))
    for seed, players, accelerated in events:
        event = generator.generate(
            seed, players, 6, pair=burstein_pair, forfeit_rate=0.04, half_bye_rate=0.03, accelerated=accelerated
        )
        for r in range(1, event.rounds_completed + 1):
            state = checker.round_input(event, r)
            monkeypatch.setattr(burstein, "NATURAL", True)
            read = burstein_pair(state)
            monkeypatch.setattr(burstein, "NATURAL", False)
            assert burstein_pair(state) == read, f"seed {seed} round {r}"
            rounds += 1
    assert rounds >= 25 and used > 0


@pytest.mark.slow
def test_group_forming_merges_as_a_whole_graph_solved_from_scratch_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """The group forming re-solves only the players joined to the last group, and takes any perfect matching that
    pairs once across each boundary for a heaviest one (every heaviest matching is then valid): the groups are
    those of a heaviest matching of the whole graph solved from scratch at every step, on 120 generated events."""
    solve_tail = burstein._Engine.solve_tail
    witnessed = 0

    def from_scratch(self: burstein._Engine, start: int, sg: list[int]) -> None:
        monkeypatch.setattr(self, "_witness", lambda *_: None)
        self.mate = [-1] * self.n
        solve_tail(self, 0, sg)

    def counted(self: burstein._Engine, low: int, sg: list[int]) -> dict[int, int] | None:
        nonlocal witnessed
        found = witness(self, low, sg)
        witnessed += found is not None
        return found

    def groups(state: Tournament) -> list[int] | None:
        views = state.views()
        order, _ = burstein._order_and_bye(views)
        try:
            return burstein._Engine(views, order).groups()
        except NoValidPairing:
            return None

    witness = burstein._Engine._witness
    rounds = 0
    for seed in range(500, 620):
        options = scenario(seed)
        players, count = options.pop("players"), options.pop("rounds")
        assert isinstance(players, int) and isinstance(count, int)
        event = generator.generate(seed, players, count, pair=burstein_pair, **options)  # type: ignore[arg-type]
        for r in range(1, event.rounds_completed + 1):
            state = checker.round_input(event, r)
            monkeypatch.setattr(burstein._Engine, "_witness", counted)
            monkeypatch.setattr(burstein._Engine, "solve_tail", solve_tail)
            fast = groups(state)
            monkeypatch.setattr(burstein._Engine, "solve_tail", from_scratch)
            assert groups(state) == fast, f"seed {seed} round {r}"
            rounds += 1
    assert rounds > 400 and witnessed > rounds


@pytest.mark.slow
def test_steps_read_from_the_colour_duals_pair_as_the_solved_steps_do(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading a group's steps from duals written down from its colour preferences (`_by_colours`, no weighted
    solve) changes nothing: every round agrees with the steps read from a solved optimum (`_natural`) and with the
    engine solving every step as a matching, on generated events of 7 to 120 players. The short cut answers most
    groups, among them groups that float a player down and groups where one colour preference outnumbers the rest."""
    by_colours = burstein._Engine._by_colours
    used = Counter[str]()

    def counted(
        self: burstein._Engine, group: list[int], *rest: Any
    ) -> tuple[list[tuple[int, int]], int | None] | None:
        got = by_colours(self, group, *rest)
        used["asked"] += 1
        if got is not None:
            used["answered"] += 1
            used["floated"] += got[1] is not None
            preferences = Counter(self.preference[v] for v in group)
            white, black = preferences[Colour.WHITE], preferences[Colour.BLACK]
            used["outnumbered"] += abs(white - black) > preferences[None] + len(group) % 2
        return got

    def outcome(state: Tournament) -> Pairing | None:
        try:
            return burstein_pair(state)
        except NoValidPairing:
            return None

    monkeypatch.setattr(burstein._Engine, "_by_colours", counted)
    rounds = 0
    for seed in range(700, 760):
        options = scenario(seed)
        players, count = options.pop("players"), options.pop("rounds")
        assert isinstance(players, int) and isinstance(count, int)
        if seed % 6 == 0:
            players = random.Random(seed).randint(60, 120)
        event = generator.generate(seed, players, count, pair=burstein_pair, **options)  # type: ignore[arg-type]
        for r in range(1, event.rounds_completed + 1):
            state = checker.round_input(event, r)
            monkeypatch.setattr(burstein, "BY_COLOURS", True)
            short = outcome(state)
            monkeypatch.setattr(burstein, "BY_COLOURS", False)
            assert outcome(state) == short, f"seed {seed} round {r}: _natural differs"
            monkeypatch.setattr(burstein, "NATURAL", False)
            assert outcome(state) == short, f"seed {seed} round {r}: the solved steps differ"
            monkeypatch.setattr(burstein, "NATURAL", True)
            rounds += 1
    assert rounds > 300
    assert used["answered"] > 0.8 * used["asked"] and used["floated"] > 100 and used["outnumbered"] > 10, used
