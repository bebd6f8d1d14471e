"""The pairings checker: absolute criteria, the legality oracle, tournament re-pairing and `swissbot check`."""

from __future__ import annotations

import argparse
import random
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

import pytest

from bot.cli import check as cli_check
from bot.cli.exit_codes import ExitCode
from pairing import checker, generator, trf
from pairing.checker import Discrepancy, DiscrepancyKind
from pairing.errors import BudgetExhausted, NoValidPairing
from pairing.model import (
    Board,
    Outcome,
    Pairing,
    Player,
    RecordKind,
    RoundRecord,
    Scoring,
    Tournament,
    result_records,
)
from tests.support.data import corpus
from tests.support.paths import SHARED

EXAMPLES = SHARED / "reference" / "fide-examples"
EXAMPLE = EXAMPLES / "example_trf16.trf"
CORPUS = corpus()
K = DiscrepancyKind

_OUTCOMES = {"1": Outcome.WIN, "=": Outcome.DRAW, "0": Outcome.LOSS}
_BYES = {"U": RecordKind.PAB, "H": RecordKind.HALF_BYE, "F": RecordKind.FULL_BYE, "Z": RecordKind.ZERO_BYE}


def event(players: int, total: int, *rounds: str, scoring: Scoring | None = None) -> Tournament:
    """A tournament from round strings like '1-3:1 4-2:= 5:U'; players not named have a zero-point bye.

    Board results are White's: 1 = 0 for games, + - for a forfeit won/lost by White, -- for a double forfeit.
    """
    t = Tournament(tuple(Player(n) for n in range(1, players + 1)), total, scoring or Scoring())
    for r, text in enumerate(rounds, start=1):
        records: dict[int, RoundRecord] = {}
        for item in text.split():
            who, code = item.split(":")
            if "-" in who:
                w, b = (int(x) for x in who.split("-"))
                if code == "--":
                    records.update(result_records(w, b, Outcome.LOSS, double_forfeit=True))
                elif code in "+-":
                    records.update(result_records(w, b, Outcome.WIN if code == "+" else Outcome.LOSS, forfeit=True))
                else:
                    records.update(result_records(w, b, _OUTCOMES[code]))
            else:
                records[int(who)] = RoundRecord(_BYES[code])
        for n in range(1, players + 1):
            records.setdefault(n, RoundRecord(RecordKind.ZERO_BYE))
        t = t.with_round(r, records)
    return t


def pairing(text: str) -> Pairing:
    """A pairing from 'w-b w-b bye:n'."""
    boards, bye = [], None
    for item in text.split():
        if item.startswith("bye:"):
            bye = int(item[4:])
        else:
            w, b = (int(x) for x in item.split("-"))
            boards.append(Board(w, b))
    return Pairing(tuple(boards), bye)


def check(t: Tournament, text: str, *, absent_others: bool = True) -> list[Discrepancy]:
    """Check a pairing of the next round; players not in it are absent unless told otherwise."""
    p = pairing(text)
    r = len(t.players[0].rounds) + 1
    if absent_others:
        t = t.with_round(
            r, {n.number: RoundRecord(RecordKind.ZERO_BYE) for n in t.players if n.number not in p.players()}
        )
    return checker.check_round(t, r, p)


def kinds(found: Iterable[Discrepancy]) -> list[DiscrepancyKind]:
    return sorted((d.kind for d in found), key=lambda k: k.value)


def read_pairs(path: Path) -> Pairing:
    lines = path.read_text().split()
    numbers = [int(x) for x in lines[1:]]
    boards, bye = [], None
    for w, b in zip(numbers[::2], numbers[1::2], strict=True):
        if b == 0:
            bye = w
        else:
            boards.append(Board(w, b))
    return Pairing(tuple(boards), bye)


# --- correct pairings pass ---------------------------------------------------------------------------------------


def test_example_tournament_passes_the_absolute_checks() -> None:
    assert checker.check_tournament(trf.read(str(EXAMPLE)), None) == []


@pytest.mark.parametrize("name", ["r1", "r2", "r3", "r4", "dutch_2025_C5", "dutch_2025_C9"])
def test_reference_pairings_pass_check_round(name: str) -> None:
    state = trf.read(str(EXAMPLES / f"{name}.trf"))
    found = checker.check_round(state, state.round_to_pair, read_pairs(EXAMPLES / f"{name}.out"))
    assert found == []


def test_reference_corpus_cases_pass_check_round() -> None:
    cases = sorted((CORPUS / "dutch").glob("*.trf"))
    assert len(cases) > 400
    for case in cases:
        state = trf.parse(case.read_text())
        found = checker.check_round(state, state.round_to_pair, read_pairs(case.with_suffix(".pairs")))
        assert found == [], case.name


def test_reference_corpus_tournaments_pass_the_absolute_checks() -> None:
    files = sorted((CORPUS / "dutch" / "tournaments").glob("*.trf"))
    assert files
    for path in files:
        t = trf.parse(path.read_text(), require_rounds=False)
        assert checker.check_tournament(t, None) == [], path.name


def test_a_correct_small_tournament_passes() -> None:
    t = event(4, 3, "1-3:1 4-2:=", "2-1:0 3-4:1")
    assert check(t, "1-4 2-3") == []


# --- each absolute criterion is caught ----------------------------------------------------------------------------


def test_rematch_is_caught() -> None:
    t = event(4, 3, "1-3:1 4-2:=")
    found = check(t, "3-1 2-4")
    assert kinds(found) == [K.REMATCH, K.REMATCH]
    assert "round 1" in found[0].message and found[0].round == 2


@pytest.mark.parametrize("code", ["+", "-", "--"])
def test_a_forfeited_game_is_not_a_meeting(code: str) -> None:
    t = event(4, 3, f"1-3:{code} 4-2:1")
    assert check(t, "3-1") == []


def test_forbidden_pair_is_caught() -> None:
    t = replace(event(4, 3), forbidden=(frozenset({1, 2}),))
    assert kinds(check(t, "1-2 3-4")) == [K.FORBIDDEN_PAIR]
    assert check(t, "1-3 2-4") == []


def test_third_same_colour_in_a_row_is_caught() -> None:
    # 1 has played B W W: a third White keeps the difference at +2 but makes three in a row.
    t = event(6, 5, "2-1:1", "1-3:1", "1-4:1")
    found = check(t, "1-5")
    assert kinds(found) == [K.COLOUR_STREAK]
    assert found[0].message == "1 gets White on 1-5: third same colour (played colours BWW)"
    assert check(t, "5-1") == []


def test_both_colour_rules_can_break_at_once() -> None:
    t = event(6, 5, "1-2:1", "1-3:1")
    assert kinds(check(t, "1-4")) == [K.COLOUR_DIFFERENCE, K.COLOUR_STREAK]


def test_colour_difference_beyond_two_is_caught() -> None:
    # 1 has played W W B W: one more White makes the difference +3 without three in a row.
    t = event(6, 9, "1-2:1", "1-3:1", "4-1:1", "1-5:1")
    assert kinds(check(t, "1-6")) == [K.COLOUR_DIFFERENCE]
    assert check(t, "6-1") == []


def test_unplayed_rounds_do_not_break_a_colour_streak() -> None:
    # 1: W, forfeit, W -> the played sequence is W W, so a third White is a streak; a forfeit has no colour.
    t = event(6, 9, "2-1:1", "1-3:1", "1-4:+", "1-5:1")
    assert kinds(check(t, "1-6")) == [K.COLOUR_STREAK]


def test_topscorers_may_break_the_colour_rules_in_the_last_round() -> None:
    # 1 has 2 points of 2 (a topscorer when pairing the final round 3); 4 has 0.
    t = event(6, 3, "1-2:1", "1-3:1")
    assert check(t, "1-4") == []
    assert check(t, "4-1") == []


def test_non_topscorers_keep_the_colour_rules_in_the_last_round() -> None:
    # 1 has lost twice with White: not a topscorer, so a third White is still forbidden.
    t = event(6, 3, "1-2:0", "1-3:0")
    assert kinds(check(t, "1-4")) == [K.COLOUR_DIFFERENCE, K.COLOUR_STREAK]


def test_topscorer_exception_applies_only_in_the_last_round() -> None:
    t = event(6, 4, "1-2:1", "1-3:1")
    assert kinds(check(t, "1-4")) == [K.COLOUR_DIFFERENCE, K.COLOUR_STREAK]


def test_second_pab_is_caught() -> None:
    t = event(5, 3, "1-2:1 4-5:= 3:U")
    found = check(t, "1-4 2-5 bye:3")
    assert kinds(found) == [K.REPEATED_PAB]
    assert "round 1" in found[0].message


@pytest.mark.parametrize("history", ["1-2:1 3-4:+", "3:F 1-2:1"])
def test_a_win_scored_without_playing_blocks_the_pab(history: str) -> None:
    t = event(5, 3, history)
    found = check(t, "1-4 2-5 bye:3")
    assert kinds(found) == [K.PAB_INELIGIBLE]


@pytest.mark.parametrize("history", ["1-2:1 3:H", "1-2:1 3-4:-", "1-2:1 3-4:--", "1-2:1 3:Z"])
def test_unplayed_rounds_below_a_win_leave_the_pab_allowed(history: str) -> None:
    t = event(5, 3, history)
    assert check(t, "1-4 2-5 bye:3") == []


def test_pab_value_decides_the_eligibility_of_a_full_bye() -> None:
    t = event(5, 3, "3:F 1-2:1", scoring=Scoring(full_bye=Scoring().draw))
    assert check(t, "1-4 2-5 bye:3") == []


def test_player_left_out_is_caught() -> None:
    t = event(5, 3)
    found = check(t, "1-2 3-4", absent_others=False)
    assert kinds(found) == [K.BYE_COUNT, K.UNPAIRED]
    assert any("5 is neither paired" in d.message for d in found)


def test_player_placed_twice_is_caught() -> None:
    t = event(4, 3)
    found = check(t, "1-2 3-1 bye:4", absent_others=False)
    assert kinds(found) == [K.BYE_COUNT, K.PAIRED_TWICE]


def test_player_paired_with_himself_is_caught() -> None:
    t = event(4, 3)
    assert K.PAIRED_TWICE in kinds(check(t, "1-1 2-3", absent_others=False))


def test_player_with_a_requested_bye_must_not_be_paired() -> None:
    t = event(4, 3).with_round(1, {4: RoundRecord(RecordKind.HALF_BYE)})
    found = checker.check_round(t, 1, pairing("1-2 3-4"))
    assert K.NOT_TO_BE_PAIRED in kinds(found)
    assert "half_bye" in next(d.message for d in found if d.kind is K.NOT_TO_BE_PAIRED)


def test_unknown_player_is_caught() -> None:
    t = event(4, 3)
    assert K.UNKNOWN_PLAYER in kinds(checker.check_round(t, 1, pairing("1-2 3-4 bye:9")))


def test_bye_with_an_even_number_to_pair_is_caught() -> None:
    t = event(4, 3)
    found = checker.check_round(t, 1, pairing("1-2 bye:3"))
    assert kinds(found) == [K.BYE_COUNT, K.UNPAIRED]


def test_discrepancy_prints_as_one_line() -> None:
    d = Discrepancy(3, K.REMATCH, "1-5 already played each other in round 1")
    assert str(d) == "round 3: rematch: 1-5 already played each other in round 1"


# --- the legality oracle -----------------------------------------------------------------------------------------


def legal_pair(t: Tournament) -> Pairing:
    """A small reference pairer: any pairing that meets the absolute criteria."""
    found = checker.legal_pairing(t)
    if found is None:
        raise NoValidPairing("no pairing meets the absolute criteria")
    return found


_BOARD_KINDS = {K.REMATCH, K.FORBIDDEN_PAIR, K.COLOUR_DIFFERENCE, K.COLOUR_STREAK}


def _brute_force_exists(t: Tournament, r: int) -> bool:
    """Backtracking over every pairing, judged board by board with check_round itself."""
    views = t.views(r)
    players = sorted(views.to_pair())

    def board_ok(a: int, b: int) -> bool:
        for board in (Board(a, b), Board(b, a)):
            found = checker.check_round(t, r, Pairing((board,)))
            if not any(d.kind in _BOARD_KINDS for d in found):
                return True
        return False

    def bye_ok(n: int) -> bool:
        found = checker.check_round(t, r, Pairing((), n))
        return not any(d.kind in (K.REPEATED_PAB, K.PAB_INELIGIBLE) for d in found)

    def solve(rest: list[int], bye_left: bool) -> bool:
        if not rest:
            return True
        first, others = rest[0], rest[1:]
        if bye_left and bye_ok(first) and solve(others, False):
            return True
        return any(board_ok(first, o) and solve([x for x in others if x != o], bye_left) for o in others)

    return solve(players, len(players) % 2 == 1)


def test_legal_pairing_agrees_with_a_brute_force_search() -> None:
    rng = random.Random(7)
    outcomes = {True: 0, False: 0}
    for seed in range(150):
        players, rounds = rng.randint(4, 9), rng.randint(3, 9)
        stop = rng.randint(1, rounds - 1)
        t = generator.generate(
            seed, players, rounds, pair=legal_pair, stop_after=stop, forfeit_rate=0.1, half_bye_rate=0.05
        )
        r = t.round_to_pair
        exists = _brute_force_exists(t, r)
        found = checker.legal_pairing(t, r)
        assert (found is not None) == exists, f"seed {seed}"
        if found is not None:
            assert checker.check_round(t, r, found) == []
        outcomes[exists] += 1
    assert outcomes[True] > 20 and outcomes[False] > 5


def test_legal_pairing_of_the_first_round() -> None:
    t = event(7, 5)
    t = Tournament(t.players, 5)
    found = checker.legal_pairing(t, 1)
    assert found is not None and found.bye is not None
    assert found.players() == frozenset(range(1, 8))


# --- re-pairing a whole tournament --------------------------------------------------------------------------------


def _replay(source: Tournament) -> checker.Engine:
    """An 'engine' that returns the pairing the file itself has (every board White first)."""

    def pair(state: Tournament, r: int) -> Pairing:
        boards, bye = [], None
        for p in source.players:
            rec = p.record(r)
            if rec.kind is RecordKind.PAB:
                bye = p.number
            if rec.opponent is not None and rec.colour is not None and rec.colour.value == "w":
                boards.append(Board(p.number, rec.opponent))
        return Pairing(tuple(boards), bye)

    return pair


def test_engine_that_agrees_gives_no_discrepancy() -> None:
    t = trf.read(str(EXAMPLE))
    assert checker.check_tournament(t, engine=_replay(t)) == []


def test_engine_with_other_pairs_or_colours_is_reported_per_round() -> None:
    t = trf.read(str(EXAMPLE))
    replay = _replay(t)

    def engine(state: Tournament, r: int) -> Pairing:
        p = replay(state, r)
        if r == 4:  # swap the colours of board 4-1
            boards = tuple(Board(b.black, b.white) if {b.white, b.black} == {1, 4} else b for b in p.boards)
            return Pairing(boards, p.bye)
        if r == 1:
            return Pairing((Board(1, 2), Board(3, 4)), 5)
        return p

    found = checker.check_tournament(t, engine=engine)
    assert [(d.round, d.kind) for d in found] == [(1, K.ENGINE_MISMATCH), (4, K.ENGINE_MISMATCH)]
    assert "engine pairs 1-2, 3-4; file has 1-3, 4-2" in found[0].message
    assert "engine pairs 1-4; file has 4-1" in found[1].message


def test_engine_giving_up_on_a_pairable_round_is_reported() -> None:
    t = trf.read(str(EXAMPLE))

    def engine(state: Tournament, r: int) -> Pairing:
        raise NoValidPairing("nothing fits")

    def tired(state: Tournament, r: int) -> Pairing:
        raise BudgetExhausted("too much work")

    found = checker.check_tournament(t, engine=engine)
    assert [d.kind for d in found] == [K.ENGINE_NO_PAIRING] * 4
    assert [d.kind for d in checker.check_tournament(t, engine=tired)] == [K.ENGINE_ERROR] * 4


def test_round_input_keeps_the_pre_assigned_byes_only() -> None:
    t = trf.read(str(EXAMPLE))
    state = checker.round_input(t, 2)
    assert state.player(3).rounds == (t.player(3).rounds[0], RoundRecord(RecordKind.HALF_BYE))
    assert state.player(1).rounds == t.player(1).rounds[:1]
    assert sorted(state.views(2).to_pair()) == [1, 2, 4, 5]


def test_rematch_in_a_file_is_reported_for_its_round() -> None:
    t = event(4, 3, "1-3:1 4-2:=", "3-1:1 2-4:0")
    found = checker.check_tournament(t, None)
    assert [(d.round, d.kind) for d in found] == [(2, K.REMATCH), (2, K.REMATCH)]


def test_asymmetric_records_are_reported() -> None:
    t = event(4, 3, "1-3:1 4-2:=")
    broken = t.with_round(1, {3: RoundRecord(RecordKind.ZERO_BYE)})
    found = checker.check_tournament(broken, None)
    assert K.INCONSISTENT_RECORDS in kinds(found)


def test_unknown_system_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown pairing system"):
        checker.check_tournament(event(4, 3, "1-3:1 4-2:="), "monrad")


# --- swissbot check -----------------------------------------------------------------------------------------------


def run_check(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="swissbot")
    cli_check.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["check", *argv])
    code: int = args.handler(args)
    return code


def test_cli_clean_file_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_check("--system", "none", str(EXAMPLE)) == ExitCode.OK
    out = capsys.readouterr()
    assert out.out == ""
    assert "4 rounds checked: no discrepancy" in out.err


def test_cli_dutch_engine_reproduces_the_worked_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_check("--system", "dutch", str(EXAMPLE)) == ExitCode.OK
    assert capsys.readouterr().out == ""


def test_cli_prints_one_line_per_discrepancy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "rematch.trf"
    path.write_text(trf.dumps(event(4, 3, "1-3:1 4-2:=", "3-1:1 2-4:0")))
    assert run_check("--system", "none", str(path)) == ExitCode.FAILED
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "round 2: rematch: 3-1 already played each other in round 1",
        "round 2: rematch: 2-4 already played each other in round 1",
    ]


def test_cli_bad_input_names_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.trf"
    text = EXAMPLE.read_text().replace("     3 w 1     2 b 1", "     3 w 1     2 q 1")
    path.write_text(text)
    assert run_check(str(path)) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err
    line = text.splitlines().index(next(x for x in text.splitlines() if " 2 q 1" in x)) + 1
    assert f"line {line}:" in err and "colour" in err


@pytest.mark.parametrize("kind", ["missing", "directory"])
def test_cli_unreadable_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    path = tmp_path / "x.trf"
    if kind == "directory":
        path.mkdir()
    assert run_check(str(path)) == ExitCode.UNREADABLE
    assert "cannot read" in capsys.readouterr().err


def test_cli_bytes_no_encoding_reads_are_bad_input_naming_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "x.trf"
    path.write_bytes(b"012 title\n\xff\xfe\x00garbage")
    assert run_check(str(path)) == ExitCode.BAD_INPUT
    assert "line 2:" in capsys.readouterr().err


def test_forfeited_boards_are_compared_without_colours() -> None:
    t = trf.read(str(EXAMPLE))  # round 3 has the forfeit 3-2 (3 White)
    replay = _replay(t)

    def engine(state: Tournament, r: int) -> Pairing:
        p = replay(state, r)
        return Pairing(tuple(Board(b.black, b.white) if (r, b.white) == (3, 3) else b for b in p.boards), p.bye)

    assert checker.check_tournament(t, engine=engine) == []
