"""The Swiss Team Pairing System (C.04.6): the reference's worked example for all three colour types, the text's
own examples, the colour rules, the TRF team records, bad team data, and the absolute criteria on generated
events."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.cli import main as swissbot
from pairing import checker, systems, trf
from pairing.errors import NoValidPairing, TeamError
from pairing.model import Colour, Player, RecordKind, Tournament
from pairing.team import check as team_check
from pairing.team import colours as team_colours
from pairing.team import engine, matches
from pairing.team import standings as team_standings
from pairing.team import trf as team_trf
from pairing.team.colours import Preference
from pairing.team.model import ColourType, Primary, Team, TeamEvent, TeamRules
from pairing.tiebreaks.codes import UnknownTiebreak

W, B = Colour.WHITE, Colour.BLACK


def six_teams(kind: ColourType = ColourType.A, teams: int = 6) -> TeamEvent:
    """§6.8's event: 4-board teams numbered 1.., MP 2/1/0, initial colour White, 5 rounds."""
    players = tuple(Player(n, f"Player {n}", 2400 - 10 * n) for n in range(1, 4 * teams + 1))
    rosters = tuple(Team(t, f"Team {t}", tuple(range(4 * t - 3, 4 * t + 1))) for t in range(1, teams + 1))
    return TeamEvent(Tournament(players, 5, initial_colour=W), rosters, TeamRules(colours=kind))


def after_round_one(kind: ColourType) -> TeamEvent:
    """§6.8 round 1: 1-4 3-1, 5-2 2-2, 3-6 1½-2½, the first-named team White on board 1."""
    event = six_teams(kind)
    event = matches.record_match(event, 1, 1, 4, ["1", "1", "1", "0"])
    event = matches.record_match(event, 1, 5, 2, ["1", "0", "=", "="])
    return matches.record_match(event, 1, 3, 6, ["1", "0", "=", "0"])


# --- the worked example of §6.8 ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(ColourType))
def test_round_one_pairs_top_half_against_bottom_half_with_rule_one_colours(kind: ColourType) -> None:
    assert engine.pair_event(six_teams(kind)).lines() == ["3", "1 4", "5 2", "3 6"]


def test_round_one_scores_are_the_reference_ones() -> None:
    event = after_round_one(ColourType.A)
    got = {t.number: (event.match_points(t.number), event.game_points(t.number)) for t in event.teams}
    half = Fraction(1, 2)
    one, two, zero = Fraction(1), Fraction(2), Fraction(0)
    assert got == {
        1: (two, 3 * one),
        6: (two, 2 + half),
        2: (one, two),
        5: (one, two),
        3: (zero, 1 + half),
        4: (zero, one),
    }


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        (ColourType.A, ["3", "6 1", "2 4", "3 5"]),  # no preference after one match: 2-4, 3-5; rules 5 and 8
        (ColourType.NONE, ["3", "6 1", "2 4", "3 5"]),
        (ColourType.B, ["3", "6 1", "2 3", "4 5"]),  # mild preferences: 2-4/3-5 fails two teams, 2-3/4-5 none
    ],
)
def test_round_two_of_the_worked_example(kind: ColourType, expected: list[str]) -> None:
    assert engine.pair_event(after_round_one(kind)).lines() == expected


def test_a_seventh_team_takes_the_bye_first_and_the_rest_is_unchanged() -> None:
    pairing = engine.pair_event(six_teams(teams=7))
    assert pairing.bye == 7
    assert pairing.lines() == ["4", "1 4", "5 2", "3 6", "7 0"]


# --- the text's own examples (3.5.4, 3.6.2) --------------------------------------------------------------------


def test_upfloater_sets_follow_the_order_of_3_5_4() -> None:
    pool = {2: Fraction(3), 6: Fraction(3), 8: Fraction(3), 1: Fraction(5, 2), 3: Fraction(5, 2), 5: Fraction(5, 2)}
    profiles = dict(engine.upfloater_sets(pool, 3))
    three, half = Fraction(3), Fraction(5, 2)
    assert list(profiles) == [(three,) * 3, (half, three, three), (half, half, three), (half,) * 3]
    order = [frozenset(s) for s in profiles[(Fraction(5, 2), Fraction(3), Fraction(3))]]
    expected = [{2, 6, 1}, {2, 6, 3}, {2, 6, 5}, {2, 8, 1}, {2, 8, 3}, {2, 8, 5}, {6, 8, 1}, {6, 8, 3}, {6, 8, 5}]
    assert order == [frozenset(s) for s in expected]


def test_the_identifier_of_3_6_2() -> None:
    assert engine.identifier([(11, 24), (16, 6), (10, 9), (8, 4)]) == (4, 6, 9, 11, 8, 16, 10, 24)


def test_without_constraints_a_bracket_pairs_ith_against_m_plus_ith_by_number() -> None:
    members = [3, 8, 11, 12, 20, 21]
    costs = {pair: 0 for pair in itertools.combinations(members, 2)}
    assert engine.first_best(members, costs) == [(3, 12), (8, 20), (11, 21)]


def test_tops_are_the_smaller_numbers_even_for_an_upfloater_as_the_text_says() -> None:
    # Upfloater 2 (fewer points) joins residents 5, 6, 7. By number, 2 and 5 are the tops: 2-6, 5-7. Seating by
    # score first, as Gacrux does, would give 5-7 and 6-2 instead.
    costs = {pair: 0 for pair in itertools.combinations([2, 5, 6, 7], 2)}
    assert engine.first_best([2, 5, 6, 7], costs) == [(2, 6), (5, 7)]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.randoms(use_true_random=False))
def test_first_best_is_the_first_identifier_among_the_cheapest_legal_pairings(half: int, rnd: random.Random) -> None:
    members = sorted(rnd.sample(range(1, 30), 2 * half))
    costs = {p: rnd.choice([0, 0, 1, 5]) for p in itertools.combinations(members, 2) if rnd.random() < 0.8}
    got = engine.first_best(members, costs)
    candidates = []
    for pairing in _perfect_pairings(members):
        if all(p in costs for p in pairing):
            candidates.append((sum(costs[p] for p in pairing), engine.identifier(pairing)))
    if not candidates:
        assert got is None
    else:
        assert got is not None
        assert (sum(costs[p] for p in got), engine.identifier(got)) == min(candidates)


def _perfect_pairings(members: list[int]) -> list[list[tuple[int, int]]]:
    if not members:
        return [[]]
    first, rest = members[0], members[1:]
    out = []
    for i, other in enumerate(rest):
        for tail in _perfect_pairings(rest[:i] + rest[i + 1 :]):
            out.append([(first, other), *tail])
    return out


# --- colour preferences and allocation ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("colours", "kind", "last", "expected"),
    [
        ((), ColourType.A, False, Preference(None)),
        ((B, B), ColourType.A, False, Preference(W)),  # CD -2
        ((W, B, B), ColourType.A, False, Preference(W)),  # CD -1, last two Black
        ((B, W, W), ColourType.A, False, Preference(B)),  # CD +1, last two White
        ((W, B, B, W), ColourType.A, False, Preference(None)),  # CD 0, last two differ
        ((W, W, B, B), ColourType.A, False, Preference(W)),  # CD 0, last two Black
        ((W, W, W, B, B), ColourType.A, False, Preference(None)),  # CD +1, last two Black: no Type A preference
        ((W, W, W, B, B), ColourType.B, False, Preference(B)),  # ... but a mild Black in Type B
        ((B, B), ColourType.B, False, Preference(W, strong=True)),
        ((W,), ColourType.B, False, Preference(B)),
        ((W, B), ColourType.B, False, Preference(W)),  # CD 0: mild, opposite of the last match
        ((W, B), ColourType.B, True, Preference(None)),  # ... but none in the last round
        ((B, B), ColourType.NONE, False, Preference(None)),
    ],
)
def test_colour_preferences_of_article_1_7(
    colours: tuple[Colour, ...], kind: ColourType, last: bool, expected: Preference
) -> None:
    assert team_colours.colour_preference(colours, kind, last) == expected


def test_rule_six_compares_the_compressed_histories() -> None:
    # Team 1: W, B, then absent; team 2: B, absent, W. Compressed: W B against B W, so the most recent
    # difference is the last played match and team 1 (first-team) alternates from Black: White. Compared round
    # by round (pairing-core) the last difference would be round 1 and team 1 would get Black.
    event = six_teams()
    event = matches.record_match(event, 1, 1, 3, ["1", "0", "=", "="])
    event = matches.record_match(event, 1, 4, 2, ["=", "=", "=", "="])
    event = matches.record_match(event, 2, 5, 1, ["=", "=", "=", "="])
    event = matches.record_bye(event, 2, 2, RecordKind.ZERO_BYE)
    event = matches.record_bye(event, 3, 1, RecordKind.ZERO_BYE)
    event = matches.record_match(event, 3, 2, 6, ["=", "=", "=", "="])
    states = engine.team_states(event, 4)
    assert states[1].colours == (W, B) and states[2].colours == (B, W)
    assert states[1].preference == states[2].preference == Preference(None)
    assert engine.allocate(states[1], states[2], W) is W


def test_the_lower_colour_difference_gets_white_and_rule_one_goes_by_parity() -> None:
    state = engine.TeamState(1, Fraction(0), Fraction(0), 0, (), Preference(None), frozenset(), True, False)
    assert engine.allocate(state, state, W) is W  # neither played: first-team 1 is odd, takes the initial colour
    even = engine.TeamState(2, Fraction(0), Fraction(0), 0, (), Preference(None), frozenset(), True, False)
    assert engine.allocate(even, state, W) is B
    up = engine.TeamState(3, Fraction(2), Fraction(3), 1, (W,), Preference(None), frozenset(), True, False)
    down = engine.TeamState(4, Fraction(2), Fraction(3), 1, (B,), Preference(None), frozenset(), True, False)
    assert engine.allocate(up, down, W) is B


# --- the PAB --------------------------------------------------------------------------------------------------


def test_the_bye_goes_to_the_lowest_eligible_team_with_most_matches_played() -> None:
    event = six_teams(teams=5)
    event = matches.record_match(event, 1, 1, 2, ["1", "1", "1", "1"])
    event = matches.record_match(event, 1, 3, 4, ["+", "+", "+", "+"])  # a forfeited match: 3 wins it unplayed
    event = matches.record_bye(event, 1, 5, RecordKind.PAB)
    assert event.record(3, 1).kind is RecordKind.FORFEIT_WIN and event.record(4, 1).kind is RecordKind.FORFEIT_LOSS
    states = engine.team_states(event, 2)
    assert [n for n, s in states.items() if not s.pab_eligible] == [3, 5]  # [C2]: a forfeit win, a PAB
    # 2 and 4 are on 0 MP; 2 played a match, 4's was forfeited: the bye goes to 2 despite its smaller number.
    assert engine.pair_event(event).bye == 2


def test_a_forfeited_match_is_no_meeting() -> None:
    event = matches.record_match(six_teams(), 1, 1, 2, ["+", "+", "+", "+"])
    states = engine.team_states(event, 2)
    assert 2 not in states[1].opponents and states[1].matches == 0 and states[1].colours == ()


def test_no_pairing_is_raised_when_every_team_has_met() -> None:
    event = six_teams(teams=2)
    event = matches.record_match(event, 1, 1, 2, ["1", "1", "1", "1"])
    with pytest.raises(NoValidPairing):
        engine.pair_event(event)


# --- pure helpers ------------------------------------------------------------------------------------------------


def test_boards_alternate_from_the_first_board() -> None:
    assert matches.boards([1, 2, 3, 4], [5, 6, 7, 8], True) == [(1, 5), (6, 2), (3, 7), (8, 4)]
    assert matches.boards([1, 2, 3, 4], [5, 6, 7, 8], False) == [(5, 1), (2, 6), (7, 3), (4, 8)]
    assert matches.boards([1, 2, 3, 4], [5, 6, 7, 8], True, "WBBW") == [(1, 5), (6, 2), (7, 3), (4, 8)]


def test_boards_need_line_ups_of_one_size() -> None:
    with pytest.raises(TeamError, match="line-ups have 2 and 1 players"):
        matches.boards([1, 2], [3], True)


def test_match_result_sums_the_boards() -> None:
    half = Fraction(1, 2)
    won = matches.match_result([(1, 0), (half, half), (0, 1), (1, 0)])
    assert won.game_points == (Fraction(5, 2), Fraction(3, 2)) and won.match_points == (Fraction(2), Fraction(0))
    drawn = matches.match_result([(1, 0), (0, 1)], TeamRules(boards=2, match_win=Fraction(3)))
    assert drawn.match_points == (Fraction(1), Fraction(1))


def test_strength_is_the_average_of_the_top_boards_and_seeding_numbers_by_it() -> None:
    assert matches.team_strength([2000, 1801, 2400, 1000], 3) == 2067
    players = {n: Player(n, rating=r) for n, r in enumerate([1500, 1400, 2000, 1900, 1700, 1700], start=1)}
    teams = [Team(9, "A", (1, 2)), Team(8, "B", (3, 4)), Team(7, "C", (5, 6))]
    seeded = matches.seeded(teams, players, 2)
    assert [(t.number, t.name, t.rating) for t in seeded] == [(1, "B", 1950), (2, "C", 1700), (3, "A", 1450)]


def test_a_new_event_numbers_the_teams_by_strength_and_pairs_round_one() -> None:
    players = [Player(n, f"P{n}", 1500 + 37 * n % 400) for n in range(1, 13)]
    rosters = [("Rooks", [1, 2, 3]), ("Knights", [4, 5, 6]), ("Bishops", [7, 8, 9]), ("Pawns", [10, 11, 12])]
    event = matches.new_event(players, rosters, 5, TeamRules(boards=3))
    assert [t.rating for t in event.teams] == sorted((t.rating for t in event.teams), reverse=True)
    assert engine.pair_event(event).lines() == ["2", "1 3", "4 2"]
    kept = matches.new_event(players, rosters, 5, TeamRules(boards=3), by_strength=False)
    assert [t.name for t in kept.teams] == ["Rooks", "Knights", "Bishops", "Pawns"]


# --- bad team data ---------------------------------------------------------------------------------------------


def test_a_team_with_too_few_players_is_refused_in_one_sentence() -> None:
    players = tuple(Player(n) for n in range(1, 8))
    with pytest.raises(TeamError, match=r"^team 2 \(Short\) has 3 players, fewer than the event's 4 boards$"):
        TeamEvent(Tournament(players, 3), (Team(1, "Long", (1, 2, 3, 4)), Team(2, "Short", (5, 6, 7))))


def test_a_player_in_two_teams_is_refused_in_one_sentence() -> None:
    players = tuple(Player(n) for n in range(1, 4))
    rules = TeamRules(boards=2)
    with pytest.raises(TeamError, match=r"^player 2 is in two teams \(1 and 2\)$"):
        TeamEvent(Tournament(players, 3), (Team(1, "A", (1, 2)), Team(2, "B", (2, 3))), rules)


def test_team_errors_are_value_errors() -> None:
    assert issubclass(TeamError, ValueError)


def test_swissbot_pair_reports_a_short_roster_as_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = trf.dumps(team_trf.to_tournament(six_teams()))
    short = "\n".join(line[:86].rstrip() if line.startswith("310   6") else line for line in text.splitlines())
    path = tmp_path / "short.trf"
    path.write_text(short + "\n")
    assert swissbot(["pair", "--system", "team", str(path)]) == 3
    assert "team 6 (Team 6) has 3 players, fewer than the event's 4 boards" in capsys.readouterr().err


# --- TRF team records ----------------------------------------------------------------------------------------------


def test_a_team_event_round_trips_through_trf() -> None:
    rules = TeamRules(boards=3, colours=ColourType.B, pattern="WBB", match_win=Fraction(3))
    event = team_check.generate_event(4, 9, 6, rules=rules, reserves=1, forfeit_rate=0.3, absence_rate=0.1)
    text = trf.dumps(team_trf.to_tournament(event))
    back = team_trf.event_from_tournament(trf.parse(text))
    assert back.rules == event.rules
    assert back.teams == event.teams
    for t in event.teams:
        assert [back.record(t.number, r) for r in range(1, 7)] == [event.record(t.number, r) for r in range(1, 7)]
    assert trf.dumps(team_trf.to_tournament(back)) == text
    assert any(line.startswith("330 ") for line in text.splitlines())  # forfeited matches are written


def test_records_310_320_352_362_and_192_are_written_in_their_columns() -> None:
    event = matches.record_bye(after_round_one(ColourType.A), 2, 1, RecordKind.PAB)
    lines = team_trf.team_records(event)
    assert lines[:3] == ["192 FIDE_TEAM_TYPEA_MP_GP", "352 WBWB", "362  W 2.0    D 1.0    L 0.0"]
    first = next(line for line in lines if line.startswith("310   1"))
    assert first[8:40].strip() == "Team 1" and first[54:60] == "   3.0" and first[61:67] == "   5.0"
    assert first[73:77] == "   1" and first[78:82] == "   2" and first[88:92] == "   4"
    assert next(line for line in lines if line.startswith("320")) == "320  1.0  2.0   0   1"


def test_a_trf16_team_record_and_the_other_match_point_notation_read() -> None:
    text = trf.dumps(team_trf.to_tournament(six_teams(teams=2)))
    lines = [line for line in text.splitlines() if not line.startswith(("310", "362", "192", "352"))]
    lines += ["013 " + "Alpha".ljust(32) + "   1    2    3    4", "013 " + "Beta".ljust(32) + "   5    6    7    8"]
    lines += ["362 TW 3 TD 1 TL 0", "192 FIDE_TEAM_GP"]
    event = team_trf.event_from_tournament(trf.parse("\n".join(lines) + "\n"))
    assert [(t.number, t.name, t.players) for t in event.teams] == [
        (1, "Alpha", (1, 2, 3, 4)),
        (2, "Beta", (5, 6, 7, 8)),
    ]
    assert (event.rules.match_win, event.rules.match_draw, event.rules.boards) == (Fraction(3), Fraction(1), 4)
    assert event.rules.primary is Primary.GP and event.rules.colours is ColourType.NONE
    assert not event.rules.secondary_for_colours


def test_a_file_without_team_records_is_refused() -> None:
    with pytest.raises(TeamError, match="no team records"):
        engine.pair(trf.parse("001    1      A\n001    2      B\nXXR 3\n"))


# --- the engine in the systems table, the checker and the CLI ---------------------------------------------------


def test_team_is_a_system_and_pairs_a_trf_read_event() -> None:
    tournament = trf.parse(trf.dumps(team_trf.to_tournament(after_round_one(ColourType.B))))
    assert systems.named("team").team and systems.named("team").auto_from is None
    assert systems.pair(tournament, "team")[1].lines() == ["3", "6 1", "2 3", "4 5"]


def test_the_player_checker_sends_team_events_to_the_team_checker() -> None:
    with pytest.raises(ValueError, match=r"pairing\.team\.check"):
        checker.check_tournament(team_trf.to_tournament(six_teams()), "team")


def test_the_checker_finds_a_rematch_and_a_wrong_pairing() -> None:
    event = after_round_one(ColourType.A)
    event = matches.record_match(event, 2, 4, 1, ["0", "0", "0", "0"])  # 1 and 4 met in round 1
    event = matches.record_match(event, 2, 6, 2, ["=", "=", "=", "="])
    event = matches.record_match(event, 2, 5, 3, ["=", "=", "=", "="])
    found = team_check.check_event(event)
    kinds = [d.kind for d in found]
    assert kinds == [checker.DiscrepancyKind.REMATCH, checker.DiscrepancyKind.ENGINE_MISMATCH]
    assert "4-1 already played each other in round 1" in found[0].message


def test_swissbot_generate_then_check_reports_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "teams.trf"
    args = ["generate", "--system", "team", "--players", "9", "--boards", "3", "--rounds", "6", "--seed", "2"]
    assert swissbot([*args, "-o", str(path)]) == 0
    assert swissbot(["check", "--system", "team", str(path)]) == 0
    assert "6 rounds checked against the team engine: no discrepancy" in capsys.readouterr().err


def test_swissbot_pair_gives_the_round_the_file_played(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    event = team_check.generate_event(3, 8, 5)
    full = tmp_path / "full.trf"
    full.write_text(trf.dumps(team_trf.to_tournament(event.truncated(3))))
    assert swissbot(["pair", "--system", "team", str(full)]) == 0
    played, _, _ = team_check.played_round(event, 4)
    out = capsys.readouterr().out.split("\n")
    assert set(out[1:-1]) == {f"{b.white} {b.black}" for b in played.boards} | (
        {f"{played.bye} 0"} if played.bye else set()
    )


# --- generated events --------------------------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    teams=st.integers(2, 13),
    rounds=st.integers(1, 9),
    boards=st.integers(1, 6),
    kind=st.sampled_from(list(ColourType)),
    primary=st.sampled_from(list(Primary)),
    reserves=st.integers(0, 1),
)
def test_generated_team_events_meet_the_absolute_criteria(
    seed: int, teams: int, rounds: int, boards: int, kind: ColourType, primary: Primary, reserves: int
) -> None:
    rules = TeamRules(boards=boards, colours=kind, primary=primary)
    event = team_check.generate_event(seed, teams, rounds, rules=rules, reserves=reserves, forfeit_rate=0.05)
    assert team_check.check_event(event) == []
    met: set[frozenset[int]] = set()
    byes: set[int] = set()
    for r in range(1, event.rounds_completed + 1):
        state = team_check.round_input(event, r)
        pairing, _, problems = team_check.played_round(event, r)
        assert problems == []
        assert pairing.players() == set(state.to_pair(r))
        for board in pairing.boards:
            if event.record(board.white, r).is_played:
                assert frozenset((board.white, board.black)) not in met
                met.add(frozenset((board.white, board.black)))
        if pairing.bye is not None:
            history = state.history(pairing.bye, r)
            assert pairing.bye not in byes
            assert all(h.kind not in (RecordKind.FORFEIT_WIN, RecordKind.FULL_BYE) for h in history)
            byes.add(pairing.bye)


# --- team standings ---------------------------------------------------------------------------------------------


def test_team_tiebreaks_after_round_one_of_the_worked_example() -> None:
    rows = team_standings.team_standings(after_round_one(ColourType.A), ("GP", "ESB", "BH:MP", "BH:GP", "DE", "TPN"))
    half = Fraction(1, 2)
    codes = ("GP", "ESB", "BH:MP", "BH:GP")
    got = [(row.rank, row.number, *(row.tiebreaks[code] for code in codes)) for row in rows]
    # ESB: the opponent's match points times the game points scored against it (3-6: 2 x 1½ = 3).
    expected: list[tuple[int | Fraction, ...]] = [
        (1, 1, 3, 0, 0, 1),
        (2, 6, 2 + half, 0, 0, 1 + half),
        (3, 2, 2, 2, 1, 2),
        (4, 5, 2, 2, 1, 2),
        (5, 3, 1 + half, 3, 2, 2 + half),
        (6, 4, 1, 2, 2, 3),
    ]
    assert got == [tuple(Fraction(v) for v in row) for row in expected]
    assert rows[2].tiebreaks["DE:MP"] == rows[3].tiebreaks["DE:MP"] == 1  # 2 and 5 drew: still tied, TPN decides


def test_unplayed_rounds_of_teams_follow_article_16() -> None:
    event = six_teams(teams=3)
    event = replace(event, rules=TeamRules(boards=2), tournament=replace(event.tournament, total_rounds=2))
    event = matches.record_match(event, 1, 1, 2, ["1", "1"])
    event = matches.record_bye(event, 1, 3, RecordKind.PAB)
    event = matches.record_match(event, 2, 3, 1, ["=", "="])
    event = matches.record_bye(event, 2, 2, RecordKind.PAB)
    rows = {row.number: row for row in team_standings.team_standings(event, ("BH:MP", "BH:GP", "ESB"))}
    assert [r.number for r in team_standings.team_standings(event, ())] == [1, 3, 2]
    # Team 3's PAB: a dummy opponent on its own score (2 MP, 2 GP), capped by a drawn match per round (2 and 2).
    five, four, three = Fraction(5), Fraction(4), Fraction(3)
    assert (rows[3].tiebreaks["BH:MP"], rows[3].tiebreaks["BH:GP"], rows[3].tiebreaks["ESB"]) == (five, five, five)
    assert (rows[1].tiebreaks["BH:MP"], rows[1].tiebreaks["ESB"]) == (three, four)
    assert (rows[1].match_points, rows[1].game_points) == (three, three)


@pytest.mark.parametrize(
    ("code", "canonical"),
    [("bh:mp/c1", "BH:MP/C1"), ("SB:GP", "SB:GP"), ("BH", "BH:MP"), ("ESB/C1", "ESB/C1"), ("WIN:GP", "WIN:MP")],
)
def test_team_tiebreak_codes_read_the_trf26_grammar(code: str, canonical: str) -> None:
    assert team_standings.parse_team_tiebreak(code).code == canonical


@pytest.mark.parametrize("code", ["ARO:MP", "BH:XP", "ESB:GP", "BH/F"])
def test_tiebreaks_teams_cannot_use_are_refused(code: str) -> None:
    with pytest.raises(UnknownTiebreak):
        team_standings.parse_team_tiebreak(code)
