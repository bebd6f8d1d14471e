"""A board's outcome from real move lists (each replays legally with python-chess), the no-show deadline and the ban."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import chess
import pytest

from bot.director.outcome import (
    Aborted,
    Absent,
    EarlyDraw,
    Held,
    Pending,
    Played,
    ban_hours,
    decide,
    judge,
    next_noshow_at,
    noshow_at,
    replay_moves,
)
from bot.lichess.payloads import GameData
from bot.settings import BanPolicy
from domain.result import GameRow, GameStatus, Result
from domain.settings import EarlyDrawPolicy, EventSettings

SCHOLARS_MATE = "e4 e5 Bc4 Nc6 Qh5 Nf6 Qxf7#"
# A threefold repetition claimed on move 5 (possible only in a game without noEarlyDraw).
THREEFOLD_EARLY = "e4 e5 Nf3 Nc6 Ng1 Nb8 Nf3 Nc6 Ng1 Nb8"
# Fivefold repetition, an automatic draw even under noEarlyDraw, on move 9.
FIVEFOLD_EARLY = "e4 e5 Nf3 Nc6 Ng1 Nb8 Nf3 Nc6 Ng1 Nb8 Nf3 Nc6 Ng1 Nb8 Nf3 Nc6 Ng1 Nb8"
_LONG_PREFIX = (
    "a4 f5 e4 c6 f3 f4 e5 b5 Ra3 c5 Nc3 Qb6 Bxb5 Qf6 Be2 Qa6 Rb3 Qb6 Bc4 Bb7 h4 Bc6 Rb4 Na6 Be2 Qc7 "
    "e6 g5 hxg5 dxe6 d4 Nf6 b3 Rc8 Qd2 Bd7 Qxf4 h5 g6 Bxa4 Kd2 Rg8 Bf1 Ra8 Rb7 Qc8 Ke3 Nd7 Na2 Nb6 "
    "Bd3 Bb5 Qh2 Bh6+ Qf4 Bd7 Bc4 Rg7 Rxb6 Qb8 Rb4 cxd4+ Kd3 Qd6"
)
THREEFOLD_LATE = _LONG_PREFIX + " Rb6 Rb8 Rb4 Ra8" * 2  # 72 plies
FIVEFOLD_LATE = _LONG_PREFIX + " Rb6 Rb8 Rb4 Ra8" * 4  # 80 plies
# Loyd's ten-move stalemate after ten moves of knight trips: stalemate on move 20.
STALEMATE_MOVE_20 = (
    "Nc3 Nc6 Ne4 Ne5 Nc3 Nc6 Nb1 Nb8 Nf3 Nf6 Nh4 Nh5 Nf3 Nf6 Ng1 Ng8 Na3 Na6 Nb1 Nb8 "
    "e3 a5 Qh5 Ra6 Qxa5 h5 h4 Rah6 Qxc7 f6 Qxd7+ Kf7 Qxb7 Qd3 Qxb8 Qh7 Qxc8 Kg6 Qe6"
)
# Everything traded by move 26: king against king.
INSUFFICIENT_EARLY = (
    "d4 Nc6 Nd2 Nxd4 Nh3 Nxe2 Bxe2 a6 Bxa6 Rxa6 Nf3 Rxa2 Qxd7+ Bxd7 Rxa2 Bxh3 gxh3 g5 Nxg5 f6 Nxh7 "
    "Rxh7 Bg5 fxg5 Ra7 Rxh3 Rxb7 Rxh2 Rxh2 g4 Rxc7 Qxc7 Rh1 Qxc2 Rh5 Qxb2 Rh8 Qxf2+ Kxf2 Bg7 Rxg8+ "
    "Kf7 Rxg7+ Kxg7 Kg3 e5 Kxg4 e4 Kf5 Kh8 Kxe4"
)
AGREED_EARLY = (
    "c4 e6 a4 Nc6 b3 Nd4 f4 Qf6 Nh3 h6 Qc2 Nf3+ exf3 Qg6 Qe4 a5 Qe3 Be7 c5 Qh7 Be2 f6 Qc3 g5 f5 Ra7 "
    "Qxf6 e5 Ra3 b6 Ng1 Bd6 Bc4 Qe7 h3 Rb7 Kf1 Nxf6 b4 Nd5"
)
AGREED_LATE = (
    "d3 f5 b4 g5 Ba3 a6 f3 Nf6 Bc1 h5 Nh3 Nd5 Bd2 e6 Qc1 c6 g4 Bxb4 Nxg5 Bf8 Kf2 Nb4 gxh5 Rg8 h4 e5 "
    "Kg3 Qe7 Bf4 exf4+ Kg2 c5 a3 Qg7 Qxf4 Qh8 Qg4 Ke7 a4 Rg7 Nh7 c4 Ng5 Qxh5 Ne6 Rxg4+ Kh2 Na2 d4 "
    "Rxd4 c3 Kf6 Kg3 Rd5 Bg2 b5 Bf1 Bg7 Bh3 Nb4 Nd8 Qg6+ Kf2 Bb7 Ra2 Qg1+ Rxg1 Ke5 Nxb7 Rd3"
)


def game(moves: str, status: str, winner: str | None = None) -> GameData:
    """An exported game as Lichess sends it."""
    data: dict[str, Any] = {
        "id": "abcd1234",
        "rated": False,
        "variant": "standard",
        "speed": "rapid",
        "perf": "rapid",
        "createdAt": 1_700_000_000_000,
        "lastMoveAt": 1_700_000_600_000,
        "status": status,
        "players": {"white": {"user": {"id": "alice", "name": "Alice"}, "rating": 1800},
                    "black": {"user": {"id": "bob", "name": "Bob"}, "rating": 1700}},
        "moves": moves,
    }  # fmt: skip
    if winner:
        data["winner"] = winner
    return GameData.from_json(data)


def final_board(moves: str) -> chess.Board:
    board = chess.Board()
    for san in moves.split():
        board.push_san(san)
    return board


def test_the_move_lists_are_what_they_claim() -> None:
    assert final_board(SCHOLARS_MATE).is_checkmate()
    assert final_board(THREEFOLD_EARLY).can_claim_threefold_repetition()
    assert final_board(FIVEFOLD_EARLY).is_fivefold_repetition()
    late3 = final_board(THREEFOLD_LATE)
    assert late3.can_claim_threefold_repetition() and late3.ply() == 72
    late5 = final_board(FIVEFOLD_LATE)
    assert late5.is_fivefold_repetition() and late5.ply() == 80
    stalemate = final_board(STALEMATE_MOVE_20)
    assert stalemate.is_stalemate() and stalemate.fullmove_number == 20
    insufficient = final_board(INSUFFICIENT_EARLY)
    assert insufficient.is_insufficient_material() and insufficient.ply() < 60
    assert final_board(AGREED_EARLY).ply() == 40 and final_board(AGREED_LATE).ply() == 70


# --- played games -------------------------------------------------------------------------------


def test_a_decisive_game_gives_its_result() -> None:
    assert judge(game(SCHOLARS_MATE, "mate", "white")) == Played(Result.WHITE_WINS, "white won (mate)")
    outcome = judge(game(AGREED_EARLY, "resign", "black"))
    assert isinstance(outcome, Played) and outcome.result is Result.BLACK_WINS
    flagged = judge(game("e4 e5 d4", "outoftime", "white"), deadline_passed=True)
    assert isinstance(flagged, Played) and flagged.result is Result.WHITE_WINS


def test_a_draw_after_move_30_stands() -> None:
    for moves in (AGREED_LATE, THREEFOLD_LATE, FIVEFOLD_LATE):
        outcome = judge(game(moves, "draw"))
        assert isinstance(outcome, Played) and outcome.result is Result.DRAW


@pytest.mark.parametrize("moves", [THREEFOLD_EARLY, FIVEFOLD_EARLY, AGREED_EARLY])
def test_an_early_draw_follows_the_policy(moves: str) -> None:
    assert isinstance(judge(game(moves, "draw")), EarlyDraw)
    forfeit = judge(game(moves, "draw"), policy=EarlyDrawPolicy.FORFEIT)
    assert isinstance(forfeit, Played) and forfeit.result is Result.DOUBLE_FORFEIT  # nobody is absent
    review = judge(game(moves, "draw"), policy=EarlyDrawPolicy.REVIEW)
    assert isinstance(review, Held) and "before move 30" in review.detail


def test_the_early_draw_threshold_is_configurable() -> None:
    outcome = judge(game(AGREED_EARLY, "draw"), early_draw_moves=20)
    assert isinstance(outcome, Played) and outcome.result is Result.DRAW
    assert isinstance(judge(game(AGREED_EARLY, "draw"), early_draw_moves=21), EarlyDraw)


def test_stalemate_and_insufficient_material_are_never_early_draws() -> None:
    stalemate = judge(game(STALEMATE_MOVE_20, "stalemate"), policy=EarlyDrawPolicy.FORFEIT)
    assert stalemate == Played(Result.DRAW, "draw by stalemate")
    insufficient = judge(game(INSUFFICIENT_EARLY, "draw"), policy=EarlyDrawPolicy.FORFEIT)
    assert insufficient == Played(Result.DRAW, "draw by insufficient material")


def test_a_status_the_moves_contradict_goes_to_review() -> None:
    assert isinstance(judge(game(AGREED_EARLY, "stalemate")), Held)
    assert isinstance(judge(game("e4 e5 Ke3", "resign", "white")), Held)


# --- no-shows -----------------------------------------------------------------------------------


def test_white_did_not_move() -> None:
    assert isinstance(judge(game("", "started")), Pending)
    outcome = judge(game("", "started"), deadline_passed=True)
    assert outcome == Absent(Result.BLACK_WINS_FORFEIT, ("white",), "white did not move (at the deadline)")


def test_black_did_not_move() -> None:
    assert isinstance(judge(game("e4", "started")), Pending)
    outcome = judge(game("e4", "started"), deadline_passed=True)
    assert isinstance(outcome, Absent) and outcome.result is Result.WHITE_WINS_FORFEIT and outcome.absent == ("black",)


def test_a_challenge_nobody_joined_is_held_for_an_organiser() -> None:
    # An open challenge starts only when both join, and Lichess does not say who did: no forfeit, no no-show.
    assert isinstance(judge(None), Pending)
    assert isinstance(judge(None, deadline_passed=True), Held)
    assert isinstance(judge(game("", "created"), deadline_passed=True), Held)


def test_a_game_under_way_at_the_deadline_is_not_a_no_show() -> None:
    assert isinstance(judge(game("e4 e5", "started"), deadline_passed=True), Pending)


# --- aborted games ------------------------------------------------------------------------------


def test_an_aborted_game_is_recreated_once_then_judged_as_a_no_show() -> None:
    assert isinstance(judge(game("", "aborted")), Aborted)
    assert judge(game("", "aborted"), recreated_before=True) == Absent(
        Result.BLACK_WINS_FORFEIT, ("white",), "white did not move (the re-created game was aborted too)"
    )
    again = judge(game("d4", "aborted"), recreated_before=True)
    assert isinstance(again, Absent) and again.result is Result.WHITE_WINS_FORFEIT
    moved = judge(game("d4 d5", "aborted"), recreated_before=True)
    assert moved == Played(Result.DOUBLE_FORFEIT, "the game was not played (the re-created game was aborted too)")


def test_replay_moves_counts_plies_and_final_position() -> None:
    replayed = replay_moves(STALEMATE_MOVE_20)
    assert (replayed.plies, replayed.stalemate, replayed.checkmate) == (39, True, False)
    assert replay_moves("e2e4 e7e5").plies == 2  # UCI is read too


def test_black_lost_on_time_without_a_move_is_blacks_no_show() -> None:
    outcome = judge(game("e4", "outoftime", "white"))
    assert outcome == Absent(Result.WHITE_WINS_FORFEIT, ("black",), "black lost on time without a move")


def test_nobody_moved_before_the_flag_is_a_double_no_show() -> None:
    outcome = judge(game("", "outoftime", "black"))
    assert isinstance(outcome, Absent) and "lost on time without a move" in outcome.detail
    assert outcome.result is Result.DOUBLE_FORFEIT and outcome.absent == ("white", "black")  # both are banned


def test_a_flag_after_both_moved_is_an_ordinary_loss_on_time() -> None:
    assert judge(game("e4 e5", "outoftime", "black")) == Played(Result.BLACK_WINS, "black won (outoftime)")
    assert isinstance(judge(game(SCHOLARS_MATE[:-1].rsplit(" ", 1)[0], "outoftime", "white")), Played)


# --- the attempt: the no-show deadline and the abort's re-creation ------------------------------------------

START = datetime(2026, 3, 7, 14, 0, tzinfo=UTC)
RULES = EventSettings(name="Club Swiss", rounds=3, clock_limit=180, clock_increment=2, no_show_seconds=300)


def attempt(
    number: int, created: datetime, status: GameStatus = GameStatus.CREATED, data: str | None = None
) -> GameRow:
    """A board's stored attempt whose game became 'created' on Lichess at `created`."""
    return GameRow(
        number, 1, number, f"Club Swiss R1 B1 G{number}", f"game{number:04d}", status, data, created, created
    )


def test_the_deadline_runs_from_the_round_start_for_a_game_made_before_it() -> None:
    first = attempt(1, START - timedelta(seconds=5))
    assert noshow_at(START, first, 300) == START + timedelta(minutes=5)


def test_a_game_created_after_the_round_started_gets_the_whole_grace() -> None:
    # An aborted game re-created 4 minutes in: its players have 5 minutes from then, not 1 (the round's start
    # alone would make its white a no-show at minute 5, before they could move).
    aborted = attempt(1, START, GameStatus.REPLACED, '{"status": "aborted"}')
    recreated = attempt(2, START + timedelta(minutes=4))
    assert noshow_at(START, recreated, 300) == START + timedelta(minutes=9)
    unmoved = game("", "started")
    at_minute_6 = START + timedelta(minutes=6)
    assert isinstance(
        decide(unmoved, recreated, [aborted, recreated], RULES, round_started=START, now=at_minute_6), Pending
    )
    at_minute_9 = START + timedelta(minutes=9)
    late = decide(unmoved, recreated, [aborted, recreated], RULES, round_started=START, now=at_minute_9)
    assert isinstance(late, Absent) and late.absent == ("white",)


def test_the_next_deadline_is_the_earliest_still_to_come() -> None:
    first, later = attempt(1, START - timedelta(seconds=5)), attempt(2, START + timedelta(minutes=4))
    assert next_noshow_at(START, [first, later], 300, START) == START + timedelta(minutes=5)
    assert next_noshow_at(START, [first, later], 300, START + timedelta(minutes=5)) == START + timedelta(minutes=9)
    assert next_noshow_at(START, [first, later], 300, START + timedelta(minutes=9)) is None


def test_a_bulk_game_has_no_deadline_of_its_own() -> None:
    first = attempt(1, START)
    late = START + timedelta(hours=1)
    assert isinstance(decide(game("", "started"), first, [first], RULES, round_started=START, now=late), Absent)
    clocked = decide(game("", "started"), first, [first], RULES, round_started=START, now=late, clocked=True)
    assert isinstance(clocked, Pending)  # its clocks find the no-shows


def test_only_the_re_creation_of_an_aborted_game_is_judged_as_a_no_show_when_aborted() -> None:
    aborted = game("", "aborted")
    drawn = attempt(1, START, GameStatus.REPLACED, '{"status": "draw"}')  # an early draw's replay
    replay = attempt(2, START + timedelta(minutes=20))
    assert isinstance(decide(aborted, replay, [drawn, replay], RULES, round_started=START, now=START), Aborted)
    first_abort = attempt(1, START, GameStatus.REPLACED, '{"status": "aborted"}')
    recreated = attempt(2, START + timedelta(minutes=1))
    outcome = decide(aborted, recreated, [first_abort, recreated], RULES, round_started=START, now=START)
    assert isinstance(outcome, Absent) and outcome.absent == ("white",)


def test_the_event_rules_give_the_early_draw_policy() -> None:
    first = attempt(1, START)
    rules = replace(RULES, early_draw_policy=EarlyDrawPolicy.REVIEW, early_draw_moves=20)
    assert isinstance(
        decide(game(THREEFOLD_EARLY, "draw"), first, [first], rules, round_started=START, now=START), Held
    )
    agreed = decide(game(AGREED_EARLY, "draw"), first, [first], rules, round_started=START, now=START)
    assert agreed == Played(Result.DRAW, "draw (draw) after 20 moves")


# --- the ban -------------------------------------------------------------------------------------------------


def test_the_ban_doubles_on_every_repeat_up_to_its_cap() -> None:
    policy = BanPolicy(first_hours=24.0, factor=2.0, max_days=30.0)
    assert [ban_hours(policy, n) for n in range(6)] == [24.0, 48.0, 96.0, 192.0, 384.0, 720.0]
    assert ban_hours(BanPolicy(first_hours=12.0), 0) == 12.0
