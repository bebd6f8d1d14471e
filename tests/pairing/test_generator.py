"""The random tournament generator: determinism, the shape of what it makes, TRF round trips."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from pairing import checker, generator, trf
from pairing.errors import NoValidPairing
from pairing.model import Outcome, Pairing, RecordKind, Scoring, Tournament


def legal_pair(t: Tournament) -> Pairing:
    """A small reference pairer: any pairing that meets the absolute criteria."""
    found = checker.legal_pairing(t)
    if found is None:
        raise NoValidPairing("no pairing meets the absolute criteria")
    return found


def make(seed: int, players: int = 12, rounds: int = 6, **options: object) -> Tournament:
    return generator.generate(seed, players, rounds, pair=legal_pair, **options)  # type: ignore[arg-type]


def test_same_seed_gives_the_same_tournament() -> None:
    options = {"forfeit_rate": 0.1, "half_bye_rate": 0.05, "withdraw_rate": 0.05, "late_entry_rate": 0.2}
    first, second = make(11, 15, 7, **options), make(11, 15, 7, **options)
    assert first == second
    assert trf.dumps(first) == trf.dumps(second)
    assert trf.dumps(make(12, 15, 7, **options)) != trf.dumps(first)


def test_shape_of_a_generated_tournament() -> None:
    t = make(3, 13, 5)
    assert len(t.players) == 13 and t.total_rounds == 5 and t.rounds_completed == 5
    assert [p.number for p in t.players] == list(range(1, 14))
    ratings = [p.rating for p in t.players]
    assert ratings == sorted(ratings, reverse=True)
    assert all(generator.RATING_RANGE[0] <= r <= generator.RATING_RANGE[1] for r in ratings)
    for r in range(1, 6):
        records = [p.record(r) for p in t.players]
        assert sum(rec.kind is RecordKind.PAB for rec in records) <= 1
        for p in t.players:
            rec = p.record(r)
            assert rec.kind is not RecordKind.NOT_PAIRED
            if rec.opponent is not None:
                theirs = t.player(rec.opponent).record(r)
                assert theirs.opponent == p.number and theirs.colour is not rec.colour
    assert checker.check_tournament(t, None) == []


def test_rates_of_zero_give_plain_games_only() -> None:
    t = make(5, 10, 5, draw_rate=0.0, forfeit_rate=0.0, half_bye_rate=0.0, absence_rate=0.0, withdraw_rate=0.0)
    kinds = {rec.kind for p in t.players for rec in p.rounds}
    assert kinds == {RecordKind.PLAYED}  # 10 players: no bye either
    assert all(rec.outcome is not Outcome.DRAW for p in t.players for rec in p.rounds)


def test_every_board_forfeited_includes_double_forfeits() -> None:
    t = make(6, 20, 4, forfeit_rate=1.0)
    records = [rec for p in t.players for rec in p.rounds if rec.opponent is not None]
    assert records and all(not rec.is_played for rec in records)
    assert any(rec.kind is RecordKind.FORFEIT_WIN for rec in records)
    double = [
        (p.number, r)
        for p in t.players
        for r, rec in enumerate(p.rounds, start=1)
        if rec.kind is RecordKind.FORFEIT_LOSS
        and rec.opponent is not None
        and t.player(rec.opponent).record(r).kind is RecordKind.FORFEIT_LOSS
    ]
    assert double


def test_forfeits_keep_the_scheduled_colour() -> None:
    t = make(8, 20, 4, forfeit_rate=1.0)
    assert all(rec.colour is not None for p in t.players for rec in p.rounds if rec.opponent is not None)


def test_requested_byes_and_absences_are_pre_assigned() -> None:
    t = make(9, 20, 6, half_bye_rate=0.1, absence_rate=0.05, full_bye_rate=0.03, withdraw_rate=0.0)
    kinds = {rec.kind for p in t.players for rec in p.rounds}
    assert {RecordKind.HALF_BYE, RecordKind.ZERO_BYE, RecordKind.FULL_BYE} <= kinds
    assert checker.check_tournament(t, None) == []


def test_withdrawn_players_stay_away() -> None:
    t = make(4, 20, 8, withdraw_rate=0.1, absence_rate=0.0, half_bye_rate=0.0)
    withdrawn = 0
    for p in t.players:
        kinds = [rec.kind for rec in p.rounds]
        if kinds[-1] is RecordKind.ZERO_BYE:
            first = kinds.index(RecordKind.ZERO_BYE)
            assert first >= 1 and set(kinds[first:]) == {RecordKind.ZERO_BYE}
            withdrawn += 1
    assert withdrawn >= 2


def test_late_entries_are_absent_before_they_arrive() -> None:
    t = make(2, 20, 6, late_entry_rate=0.3, withdraw_rate=0.0, absence_rate=0.0, half_bye_rate=0.0)
    late = [p for p in t.players if p.rounds[0].kind is RecordKind.ZERO_BYE]
    assert late
    for p in late:
        kinds = [rec.kind for rec in p.rounds]
        arrival = next(i for i, k in enumerate(kinds) if k is not RecordKind.ZERO_BYE)
        assert 1 <= arrival <= 2 and RecordKind.ZERO_BYE not in kinds[arrival:]


def test_the_stronger_player_scores_more() -> None:
    strong = weak = 0.0
    for seed in range(20):
        t = make(seed, 30, 5, forfeit_rate=0.0)
        scoring = t.scoring
        for p in t.players:
            for rec in p.rounds:
                if rec.is_played and rec.opponent is not None and p.rating - t.player(rec.opponent).rating >= 300:
                    strong += float(scoring.points(rec))
                    weak += float(scoring.win - scoring.points(rec))
    assert strong > 3 * weak


def test_expected_score() -> None:
    assert generator.expected_score(2000, 2000) == pytest.approx(0.5)
    assert generator.expected_score(2400, 2000) == pytest.approx(10 / 11)


def test_baku_acceleration_follows_the_fide_text() -> None:
    accel = generator.baku_acceleration(10, 9, Scoring())
    assert sorted(accel) == [1, 2, 3, 4, 5, 6]
    one, half, zero = Fraction(1), Fraction(1, 2), Fraction(0)
    assert accel[6] == (one, one, one, half, half, zero, zero, zero, zero)
    assert len(generator.baku_acceleration(161, 4, Scoring())) == 82
    t = make(1, 10, 9, accelerated=True, stop_after=1)
    assert t.acceleration == accel
    with pytest.raises(ValueError, match="Baku"):
        generator.baku_acceleration(10, 9, Scoring(win=Fraction(3), draw=Fraction(1)))


def test_stop_after_and_early_stop() -> None:
    assert make(1, 12, 9, stop_after=3).rounds_completed == 3
    # Four players meet everybody in three rounds; the fourth round cannot be paired.
    t = make(1, 4, 6, forfeit_rate=0.0, half_bye_rate=0.0, absence_rate=0.0, withdraw_rate=0.0)
    assert t.rounds_completed == 3 and t.total_rounds == 6
    assert all(len(p.rounds) == 3 for p in t.players)


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="two players"):
        make(1, 1, 3)
    with pytest.raises(ValueError, match="one round"):
        make(1, 5, 0)
    with pytest.raises(ValueError, match="draw_rate"):
        make(1, 5, 3, draw_rate=1.5)


@pytest.mark.parametrize("seed", range(12))
def test_trf_round_trip(seed: int) -> None:
    scoring = Scoring(win=Fraction(3), draw=Fraction(1)) if seed % 3 == 0 else Scoring()
    t = make(
        seed,
        7 + seed * 3,
        5 + seed % 5,
        scoring=scoring,
        accelerated=seed % 3 == 1,
        forfeit_rate=0.1,
        half_bye_rate=0.05,
        full_bye_rate=0.02,
        withdraw_rate=0.03,
        late_entry_rate=0.1,
    )
    text = trf.dumps(t)
    back = trf.parse(text)
    assert [p.rounds for p in back.players] == [p.rounds for p in t.players]
    assert [(p.number, p.name, p.rating) for p in back.players] == [(p.number, p.name, p.rating) for p in t.players]
    assert (back.scoring, back.total_rounds, back.initial_colour) == (t.scoring, t.total_rounds, t.initial_colour)
    assert back.acceleration == t.acceleration
    assert all(p.declared_points == t.views(t.total_rounds + 1).score(p.number) for p in back.players)
    assert trf.dumps(back) == text
    assert checker.check_tournament(back, None) == []


def test_command_line_prints_trf(capsys: pytest.CaptureFixture[str]) -> None:
    assert generator.main(["--seed", "4", "--players", "9", "--rounds", "5"]) == 0
    text = capsys.readouterr().out
    t = trf.parse(text)
    assert len(t.players) == 9 and t.total_rounds == 5 and "seed 4" in t.name


# The engine-driven generator behind `swissbot generate`: the Dutch engine by default, any scoring, Baku.

THREE_ONE_ZERO = Scoring(win=Fraction(3), draw=Fraction(1))


def _without(text: str, tag: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith(tag))


def test_the_dutch_generator_is_deterministic_per_seed() -> None:
    first = generator.generate(7, 15, 6, scoring=THREE_ONE_ZERO, accelerated=False)
    assert first == generator.generate(7, 15, 6, scoring=THREE_ONE_ZERO)
    assert trf.dumps(first) == trf.dumps(generator.generate(7, 15, 6, scoring=THREE_ONE_ZERO))
    assert trf.dumps(generator.generate(8, 15, 6, scoring=THREE_ONE_ZERO)) != trf.dumps(first)


@pytest.mark.parametrize(
    ("seed", "players", "rounds", "points", "pab", "baku"),
    [
        (1, 16, 6, "1/0.5/0", None, False),
        (2, 19, 7, "3/1/0", None, False),
        (3, 21, 6, "3/1/0", "1", False),
        (4, 25, 9, "1/0.5/0", None, True),
        (5, 18, 7, "2/1/0", "0", True),
    ],
)
def test_a_generated_event_passes_the_checker_from_its_file(
    seed: int, players: int, rounds: int, points: str, pab: str | None, baku: bool
) -> None:
    scoring = generator.parse_scoring(points, pab)
    t = generator.generate(seed, players, rounds, scoring=scoring, accelerated=baku)
    assert t.rounds_completed == rounds
    text = trf.dumps(t)
    tags = [line[:3] for line in text.splitlines()]
    assert tags.count("XXR") == 1 and tags.count("XXC") == 1
    assert tags.count("162") == (0 if scoring.is_default else 1)
    assert tags.count("XXA") == (2 * -(-players // 4) if baku else 0)
    back = trf.parse(text)
    assert (back.scoring, back.acceleration, back.initial_colour) == (t.scoring, t.acceleration, t.initial_colour)
    assert [p.rounds for p in back.players] == [p.rounds for p in t.players]
    assert checker.check_tournament(back) == []


def test_the_checker_sees_a_file_without_its_scoring_or_acceleration() -> None:
    # The records matter: without them the same rounds are not what the engine pairs.
    scored = trf.dumps(generator.generate(0, 16, 6, scoring=THREE_ONE_ZERO))
    assert checker.check_tournament(trf.parse(_without(scored, "162")))
    accelerated = trf.dumps(generator.generate(0, 16, 6, accelerated=True))
    assert checker.check_tournament(trf.parse(_without(accelerated, "XXA")))


def test_a_generated_three_one_zero_file_has_162_in_its_columns() -> None:
    text = trf.dumps(generator.generate(2, 11, 5, scoring=generator.parse_scoring("3/1/0", "1")))
    line = next(line for line in text.splitlines() if line.startswith("162"))
    assert line == "162  W 3.0    D 1.0    P 1.0"
    assert (line[5], line[6:10], line[14], line[15:19], line[23], line[24:28]) == (
        "W",
        " 3.0",
        "D",
        " 1.0",
        "P",
        " 1.0",
    )
    back = trf.parse(text)
    assert all(p.declared_points == sum(back.scoring.points(r) for r in p.rounds) for p in back.players)
    assert max(p.declared_points or 0 for p in back.players) > 5  # the Points column counts 3 for a win


def test_parse_scoring() -> None:
    assert generator.parse_scoring() == Scoring()
    assert generator.parse_scoring("3/1/0") == THREE_ONE_ZERO
    assert generator.parse_scoring("3/1/0", "1").pab == 1
    assert generator.parse_scoring("3/1/0", "3") == THREE_ONE_ZERO  # a win's points: the default, no P written
    assert generator.parse_scoring(" 2 / 1 / 0.5 ", "0") == Scoring(
        win=Fraction(2), draw=Fraction(1), loss=Fraction(1, 2), pab=Fraction(0)
    )


@pytest.mark.parametrize(
    ("points", "pab", "message"),
    [
        ("3/1", None, "win/draw/loss"),
        ("3/x/0", None, "draw must be a number"),
        ("1/2/0", None, "win >= draw >= loss"),
        ("1/1/1", None, "win > loss"),
        ("3/1.25/0", None, "steps of 0.1"),
        ("100/1/0", None, "99.9"),
        ("3/1/0", "-1", "the PAB's points must be from 0"),
    ],
)
def test_parse_scoring_refuses(points: str, pab: str | None, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        generator.parse_scoring(points, pab)


def test_scores_trf_cannot_write_and_baku_under_three_one_zero_are_refused() -> None:
    with pytest.raises(ValueError, match=r"can exceed 99\.9"):
        generator.generate(1, 10, 34, scoring=THREE_ONE_ZERO)
    with pytest.raises(ValueError, match="Baku"):
        generator.generate(1, 10, 5, scoring=THREE_ONE_ZERO, accelerated=True)


def test_command_line_takes_points_pab_and_baku(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--seed", "4", "--players", "9", "--rounds", "5", "--points", "3/1/0", "--pab", "1"]
    assert generator.main(argv) == 0
    t = trf.parse(capsys.readouterr().out)
    assert t.scoring == generator.parse_scoring("3/1/0", "1")
    assert generator.main(["--seed", "4", "--players", "9", "--rounds", "5", "--baku"]) == 0
    assert sorted(trf.parse(capsys.readouterr().out).acceleration) == [1, 2, 3, 4, 5, 6]
    with pytest.raises(SystemExit):
        generator.main([*argv, "--baku"])
    assert "Baku" in capsys.readouterr().err
