"""The Lim system (C.04.4.3): the reference document's worked example, rounds 1 and 2 (Arts. 7, 8), the group
order of Art. 2.2, cracking and the fallback, and its absolute criteria on generated events."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from bot.cli import main as swissbot
from pairing import checker, generator, trf
from pairing.errors import NoValidPairing
from pairing.matching import max_weight_perfect_matching
from pairing.model import (
    Board,
    Colour,
    Outcome,
    Pairing,
    Player,
    RecordKind,
    RoundRecord,
    RoundViews,
    Tournament,
    result_records,
)
from pairing.systems import lim

CASES = Path(__file__).parent / "cases"
W, B = Colour.WHITE, Colour.BLACK


def _read(name: str) -> Tournament:
    return trf.parse((CASES / name).read_text(encoding="utf-8"))


def _event(players: int, ratings: list[int] | None = None, initial: Colour | None = None) -> Tournament:
    values = ratings or [2500 - 10 * i for i in range(1, players + 1)]
    entrants = tuple(Player(number=i, name=f"P{i}", rating=r) for i, r in enumerate(values, start=1))
    return Tournament(entrants, 5, initial_colour=initial)


def _with_results(tournament: Tournament, round_number: int, boards: list[tuple[int, int, Outcome]]) -> Tournament:
    records: dict[int, RoundRecord] = {}
    for white, black, outcome in boards:
        records.update(result_records(white, black, outcome))
    return tournament.with_round(round_number, records)


def _pairs(pairing: Pairing) -> set[frozenset[int]]:
    return {frozenset((b.white, b.black)) for b in pairing.boards}


# --- the reference document's §4.9 worked example ------------------------------------------------------------


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("lim-round1.trf", "4\n1 5\n6 2\n3 7\n8 4\n"),  # Art. 7: 1 v 5 .. 4 v 8, #1 and #3 White by lot
        ("lim-round2.trf", "4\n2 1\n7 8\n4 3\n5 6\n"),  # the document's reading: P8 floats down, P4 up
    ],
)
def test_the_reference_documents_example_through_the_cli(
    case: str, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert swissbot(["pair", "--system", "lim", str(CASES / case)]) == 0
    assert capsys.readouterr().out == expected


def test_the_reference_documents_example_through_pair() -> None:
    round1 = _read("lim-round1.trf")
    assert lim.pair(round1).lines() == ["4", "1 5", "6 2", "3 7", "8 4"]
    round2 = _read("lim-round2.trf")
    results = [(1, 5, Outcome.WIN), (6, 2, Outcome.LOSS), (3, 7, Outcome.DRAW), (8, 4, Outcome.WIN)]
    played = _with_results(round1, 1, results)
    assert [p.rounds for p in played.players] == [p.rounds for p in round2.players]  # round 1 with those results
    assert lim.pair(round2).lines() == ["4", "2 1", "7 8", "4 3", "5 6"]


# --- round 1 (Art. 7) ----------------------------------------------------------------------------------------


@given(players=st.integers(2, 41), initial=st.sampled_from([W, B]))
@settings(max_examples=80, deadline=None)
def test_round_1_pairs_the_top_half_against_the_bottom_half(players: int, initial: Colour) -> None:
    pairing = lim.pair(_event(players, initial=initial))
    paired = players - players % 2
    assert pairing.bye == (players if players % 2 else None)  # the lowest-rated is the last number here
    half = paired // 2
    expected = set()
    for i in range(1, half + 1):
        top_white = (initial if i % 2 else initial.opposite) is W  # odd top-half players: #1's colour by lot
        expected.add(Board(i, i + half) if top_white else Board(i + half, i))
    assert set(pairing.boards) == expected


@given(ratings=st.lists(st.integers(1000, 2800), min_size=3, max_size=25).filter(lambda r: len(r) % 2 == 1))
@settings(max_examples=80, deadline=None)
def test_round_1_gives_the_bye_to_the_lowest_rated_and_pairs_the_rest_by_number(ratings: list[int]) -> None:
    pairing = lim.pair(_event(len(ratings), ratings))
    lowest = min(ratings)
    assert pairing.bye == max(i for i, r in enumerate(ratings, start=1) if r == lowest)
    rest = [n for n in range(1, len(ratings) + 1) if n != pairing.bye]
    half = len(rest) // 2
    assert _pairs(pairing) == {frozenset((rest[i], rest[i + half])) for i in range(half)}


def test_round_1_exchanges_a_forbidden_opponent_for_the_next_of_the_lower_half() -> None:
    event = replace(_event(6), forbidden=(frozenset({1, 4}),))
    pairs = _pairs(lim.pair(event))
    assert pairs == {frozenset({1, 5}), frozenset({2, 4}), frozenset({3, 6})}  # #1 tries 4, then 5; 2 v 4, 3 v 6


# --- the group order (Art. 2.2, Art. 8) ------------------------------------------------------------------------


def _group_order(monkeypatch: pytest.MonkeyPatch, tournament: Tournament) -> list[tuple[Fraction, ...]]:
    """The scores of the residents of each group, in the order the engine pairs the groups."""
    seen: list[tuple[Fraction, ...]] = []
    original = lim._Round.pair_group

    def record(self: lim._Round, residents: list[int], *args: Any, **kwargs: Any) -> Any:
        seen.append(tuple(sorted({self.players[n].score for n in residents})))
        return original(self, residents, *args, **kwargs)

    monkeypatch.setattr(lim._Round, "pair_group", record)
    lim.pair(tournament)
    return seen


def test_round_2_pairs_one_point_then_zero_then_the_half_point_median_last(monkeypatch: pytest.MonkeyPatch) -> None:
    order = _group_order(monkeypatch, _read("lim-round2.trf"))
    assert order == [(Fraction(1),), (Fraction(0),), (Fraction(1, 2),)]


@given(seed=st.integers(1, 10_000), players=st.integers(6, 24), rounds=st.integers(3, 7))
@settings(max_examples=40, deadline=None)
def test_groups_are_paired_top_down_then_bottom_up_then_the_median(seed: int, players: int, rounds: int) -> None:
    event = generator.generate(seed, players, rounds, pair=lim.pair, stop_after=rounds - 1)
    assume(event.rounds_completed == rounds - 1 and checker.legal_pairing(event, rounds, "lim") is not None)
    with pytest.MonkeyPatch.context() as monkeypatch:
        order = _group_order(monkeypatch, event)
    while len(order) > 1 and order[-2] == order[-1]:
        order.pop()  # the median group again after a crack
    views = event.views()
    median = Fraction(views.round - 1) * views.scoring.win / 2
    scores = [group[0] for group in order[:-1]]
    above = [s for s in scores if s > median]
    below = [s for s in scores if s < median]
    assert scores == above + below
    assert above == sorted(above, reverse=True) and below == sorted(below)
    assert order[-1] in ((median,), ())  # the median group last, possibly without residents of its own


# --- floaters (Art. 3) ----------------------------------------------------------------------------------------


def test_a_floater_with_a_partner_in_the_next_group_goes_before_the_lowest_ranked() -> None:
    # §4.9 round 2 with 8 barred from the median players 3 and 7: 8 would be type c (3.9), so 1, who keeps the
    # colours as balanced, floats down instead and takes 7, due White; 2-8 stays in the top group.
    event = replace(_read("lim-round2.trf"), forbidden=(frozenset({8, 3}), frozenset({8, 7})))
    assert _pairs(lim.pair(event)) == {frozenset({2, 8}), frozenset({1, 7}), frozenset({3, 4}), frozenset({5, 6})}


def test_a_floater_of_the_previous_round_is_not_floated_again_to_even_the_group() -> None:
    # Round 3 after 2-1 ½, 7-8 1-0, 4-3 1-0, 5-6 ½: the top group {1, 2, 7} (1½) is odd. Dropping 7 (the
    # lowest-ranked) or 2 leaves one player due White and one due Black, but 7 floated up in round 2 (3.10),
    # so 2 floats down; below the median {3, 5, 6} (½) 3 floated down in round 2, so 6 floats up.
    event = _with_results(
        _read("lim-round2.trf"),
        2,
        [(2, 1, Outcome.DRAW), (7, 8, Outcome.WIN), (4, 3, Outcome.WIN), (5, 6, Outcome.DRAW)],
    )
    views = event.views()
    assert [views.score(n) for n in (1, 2, 7)] == [1.5, 1.5, 1.5] and views.score(4) == views.score(8) == 1
    assert lim.due_colour(views.colours(1)) is W and lim.due_colour(views.colours(2)) is B
    assert lim.due_colour(views.colours(7)) is B
    assert _pairs(lim.pair(event)) == {frozenset({1, 7}), frozenset({2, 8}), frozenset({4, 6}), frozenset({3, 5})}


# --- cracking and the fallback (Art. 2.6) --------------------------------------------------------------------


def test_a_blocked_median_group_cracks_the_upper_neighbour() -> None:
    # §4.9 round 2 with 3 barred from meeting 8 and 4: the median group {3, 7} + 8 (down) + 4 (up) has no
    # pairing (8 and 4 met); as many floaters came from each side, so the upper group's 1-2 is cracked.
    event = replace(_read("lim-round2.trf"), forbidden=(frozenset({3, 8}), frozenset({3, 4})))
    views = event.views()
    engine = lim._Round(views, views.to_pair())
    assert engine.pair_groups(set(engine.players)) is not None  # the procedure itself completes the round
    pairing = lim.pair(event)
    pairs = _pairs(pairing)
    assert frozenset({1, 2}) not in pairs and frozenset({5, 6}) in pairs  # the lower group is left alone
    assert checker.check_round(event, 2, pairing, "lim") == []


def _stuck_event() -> Tournament:
    """Round 3 of ten players with 5 barred from everyone but 1: no cracking of the neighbouring groups (1½ and
    ½ points) frees 1, whose group (2 points) pairs 1-2."""
    event = _event(10)
    event = _with_results(event, 1, [(1, 10, Outcome.WIN), (9, 2, Outcome.LOSS), (3, 6, Outcome.DRAW),
                                     (5, 4, Outcome.DRAW), (7, 8, Outcome.DRAW)])  # fmt: skip
    event = _with_results(event, 2, [(9, 1, Outcome.LOSS), (10, 2, Outcome.LOSS), (7, 3, Outcome.LOSS),
                                     (8, 4, Outcome.LOSS), (6, 5, Outcome.DRAW)])  # fmt: skip
    return replace(event, forbidden=tuple(frozenset({5, n}) for n in (2, 3, 4, 6, 7, 8, 9, 10)))


def test_a_median_group_still_blocked_after_cracking_falls_back_to_a_complete_legal_pairing() -> None:
    event = _stuck_event()
    views = event.views()
    assert [views.score(n) for n in range(1, 11)] == [2, 2, 1.5, 1.5, 1, 1, 0.5, 0.5, 0, 0]
    engine = lim._Round(views, views.to_pair())
    assert engine.pair_groups(set(engine.players)) is None  # the text's procedure is stuck
    pairing = lim.pair(event)
    assert checker.check_round(event, 3, pairing, "lim") == []  # everyone paired once, legally
    assert frozenset({1, 5}) in _pairs(pairing)
    # The fallback keeps score gaps smallest: no other pairing's squared gaps sum lower.
    gaps = sum(((views.score(b.white) - views.score(b.black)) ** 2 for b in pairing.boards), Fraction(0))
    assert gaps == min(_gap_sums(views))


def _gap_sums(views: RoundViews) -> Iterator[Fraction]:
    players = sorted(views.to_pair())

    def complete(rest: list[int]) -> Iterator[list[tuple[int, int]]]:
        if not rest:
            yield []
            return
        first = rest[0]
        for other in rest[1:]:
            if checker.compatible(views, first, other, "lim"):
                for more in complete([n for n in rest if n not in (first, other)]):
                    yield [(first, other), *more]

    for pairs in complete(players):
        yield sum(((views.score(a) - views.score(b)) ** 2 for a, b in pairs), Fraction(0))


# --- generated events -----------------------------------------------------------------------------------------


def _completable(views: RoundViews, players: list[int]) -> bool:
    if len(players) % 2:
        return False
    edges = [
        (i, j, 1)
        for i, j in itertools.combinations(range(len(players)), 2)
        if checker.compatible(views, players[i], players[j], "lim")
    ]
    return not players or max_weight_perfect_matching(len(players), edges) is not None


def _bye_is_the_first_that_fits(event: Tournament, round_number: int) -> None:
    """The PAB went to the lowest-ranked eligible player of the lowest scoregroup (round 1: the lowest-rated)
    whose absence leaves a complete legal pairing: nobody before him in that order could take it."""
    bye = next((p.number for p in event.players if p.record(round_number).kind is RecordKind.PAB), None)
    if bye is None:
        return
    state = checker.round_input(event, round_number)
    views = state.views(round_number)
    to_pair = sorted(views.to_pair())

    def key(n: int) -> tuple[Fraction, int]:
        first = Fraction(state.player(n).rating) if round_number == 1 else views.score(n)
        return (first, -n)

    for number in sorted(to_pair, key=key):
        if number == bye:
            return
        fits = views.pab_eligible(number) and _completable(views, [n for n in to_pair if n != number])
        assert not fits, f"round {round_number}: the bye went to {bye}, but {number} comes first and fits"
    raise AssertionError(f"round {round_number}: the bye went to {bye}, who was not to be paired")


@pytest.mark.slow
@given(
    seed=st.integers(1, 100_000),
    players=st.integers(3, 22),
    rounds=st.integers(2, 9),
    points=st.sampled_from(["1/0.5/0", "3/1/0"]),
    late_entries=st.sampled_from([0.0, 0.05]),
)
@settings(max_examples=1500, deadline=None)
def test_generated_events_meet_the_absolute_criteria(
    seed: int, players: int, rounds: int, points: str, late_entries: float
) -> None:
    scoring = generator.parse_scoring(points)
    event = generator.generate(seed, players, rounds, pair=lim.pair, scoring=scoring, late_entry_rate=late_entries)
    # No rematch, one PAB at most and only to an eligible player, everyone to be paired placed exactly once,
    # the colour limits except in the last round, and the engine pairs each round the same again.
    assert checker.check_tournament(event, "lim") == []
    for number in range(1, event.rounds_completed + 1):
        _bye_is_the_first_that_fits(event, number)
        state = checker.round_input(event, number)
        views = state.views(number)
        pairing = lim.pair(state, number)
        placed = [n for b in pairing.boards for n in (b.white, b.black)] + ([pairing.bye] if pairing.bye else [])
        assert sorted(placed) == sorted(views.to_pair())  # everyone to be paired, each exactly once
        if number < event.total_rounds:
            for player in event.players:
                rec = player.record(number)
                if rec.is_played and rec.colour is not None:
                    assert checker.colour_violations(views, player.number, rec.colour) == []


def test_an_event_stops_only_when_no_legal_pairing_exists() -> None:
    stopped = 0
    for seed, players in itertools.product(range(1, 31), (4, 6, 7, 8, 10)):
        rounds = players - 1  # long enough that many events run out of legal pairings
        event = generator.generate(seed, players, rounds, pair=lim.pair, withdraw_rate=0, absence_rate=0,
                                   half_bye_rate=0)  # fmt: skip
        if event.rounds_completed < rounds:
            stopped += 1
            nxt = event.rounds_completed + 1
            with pytest.raises(NoValidPairing):
                lim.pair(event, nxt)
            assert checker.legal_pairing(event, nxt, "lim") is None
    assert stopped > 0


def test_swissbot_check_on_a_generated_lim_event_reports_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "lim.trf"
    generate = ["generate", "--system", "lim", "--players", "15", "--rounds", "6", "--seed", "5", "-o", str(path)]
    assert swissbot(generate) == 0
    assert trf.parse(path.read_text(encoding="utf-8")).rounds_completed == 6
    assert swissbot(["check", "--system", "lim", str(path)]) == 0
    assert "6 rounds checked against the lim engine: no discrepancy" in capsys.readouterr().err


# --- colours and the checker -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("colours", "due"),
    [((), None), ((W,), B), ((B,), W), ((W, B), W), ((W, W), B), ((W, B, W), B), ((W, W, B), B), ((B, W, W), B)],
)
def test_the_due_colour_alternates_and_equalises(colours: tuple[Colour, ...], due: Colour | None) -> None:
    assert lim.due_colour(colours) is due


@pytest.mark.parametrize(
    ("colours", "colour", "allowed"),
    [((W, W), W, False), ((W, W), B, True), ((W, B, W, W), W, False), ((W, B, W), W, True), ((W, W, B, W), W, False)],
)
def test_the_colour_limits(colours: tuple[Colour, ...], colour: Colour, allowed: bool) -> None:
    assert lim.colour_allowed(colours, colour) is allowed


def _two_rounds_of_white() -> Tournament:
    event = replace(_event(4), total_rounds=3)
    event = _with_results(event, 1, [(1, 3, Outcome.DRAW), (2, 4, Outcome.DRAW)])
    return _with_results(event, 2, [(1, 4, Outcome.DRAW), (2, 3, Outcome.DRAW)])


def test_the_checker_drops_the_colour_limits_in_lims_last_round_only() -> None:
    event = _two_rounds_of_white()  # 1 and 2 had White twice
    third_white = Pairing((Board(1, 2), Board(3, 4)))
    assert checker.check_round(event, 3, third_white, "lim") == []
    kinds = {d.kind for d in checker.check_round(event, 3, third_white, "dubov")}
    assert checker.DiscrepancyKind.COLOUR_STREAK in kinds
    not_last = replace(event, total_rounds=4)
    kinds = {d.kind for d in checker.check_round(not_last, 3, third_white, "lim")}
    assert checker.DiscrepancyKind.COLOUR_STREAK in kinds


def test_the_last_round_pairs_a_scoregroup_across_the_colour_limits() -> None:
    event = _two_rounds_of_white()  # everyone on 1 point; 1 and 2, both due Black, are the only pair left
    pairing = lim.pair(event)
    assert _pairs(pairing) == {frozenset({1, 2}), frozenset({3, 4})}
    with pytest.raises(NoValidPairing):
        lim.pair(replace(event, total_rounds=4))  # before the last round the limits are absolute


# --- unpairable input ------------------------------------------------------------------------------------------


def test_unpairable_input_raises_one_clear_sentence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    event = _with_results(replace(_event(2), total_rounds=2), 1, [(1, 2, Outcome.DRAW)])
    with pytest.raises(NoValidPairing) as error:
        lim.pair(event)
    message = str(error.value)
    assert message and "\n" not in message and message.count(". ") == 0
    path = tmp_path / "met.trf"
    path.write_text(trf.dumps(event), encoding="utf-8")
    assert swissbot(["pair", "--system", "lim", str(path)]) == 1
    assert f"no valid pairing: {message}" in capsys.readouterr().err


def test_no_eligible_bye_raises() -> None:
    event = replace(_event(3), total_rounds=4)
    bye = RoundRecord.bye(RecordKind.PAB)
    event = event.with_round(1, {1: bye, **result_records(2, 3, Outcome.DRAW)})
    event = event.with_round(2, {2: bye, **result_records(3, 1, Outcome.DRAW)})
    event = event.with_round(3, {3: bye, **result_records(1, 2, Outcome.DRAW)})
    with pytest.raises(NoValidPairing, match="bye"):
        lim.pair(event)  # everyone had the PAB and met both others
