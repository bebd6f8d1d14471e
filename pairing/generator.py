"""A random tournament generator (RTG): seeded simulated events paired round by round."""

from __future__ import annotations

import argparse
import math
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from fractions import Fraction

from pairing import acceleration, trf
from pairing.errors import NoValidPairing
from pairing.model import (
    Colour,
    Outcome,
    Pairing,
    Player,
    Points,
    RecordKind,
    RoundRecord,
    Scoring,
    Tournament,
    result_records,
)

Pair = Callable[[Tournament], Pairing]

RATING_MEAN = 1800
RATING_SPREAD = 350
RATING_RANGE = (1000, 2850)
WHITE_ADVANTAGE = 30  # Elo points; White scores slightly more
DOUBLE_FORFEIT_SHARE = 0.2  # of all forfeited boards


def _default_pair() -> Pair:
    from pairing.systems.dutch import pair  # lazily: the engine is the heaviest module of the package

    return pair


def expected_score(rating: int, opponent: int) -> float:
    """The Elo expectation of a player against an opponent."""
    return 1.0 / (1.0 + math.pow(10.0, (opponent - rating) / 400.0))


def _rate(name: str, value: float) -> None:
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be between 0 and 1, got {value}")


def baku_acceleration(players: int, rounds: int, scoring: Scoring) -> dict[int, tuple[Points, ...]]:
    """Virtual points of the Baku method (fide-swiss.md §4.1) for starting numbers 1 .. players."""
    values = acceleration.baku_points(rounds, scoring)
    values += (Fraction(0),) * (rounds - len(values))  # every round written in the XXA records
    return {number: values for number in range(1, acceleration.group_a_size("baku", players) + 1)}


def _score_value(text: str, what: str) -> Points:
    try:
        value = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"{what} must be a number like 1 or 0.5, got {text!r}") from None
    if (value * 10).denominator != 1 or not 0 <= value < 100:
        raise ValueError(f"{what} must be from 0 to 99.9 in steps of 0.1 (TRF writes dd.d), got {text!r}")
    return value


def parse_scoring(points: str = "1/0.5/0", pab: str | None = None) -> Scoring:
    """The scoring of `--points W/D/L` (e.g. 3/1/0) and `--pab P` (the PAB's points; a win's by default).

    ValueError with a one-line message when the text is not three numbers W >= D >= L, W > L, each from 0 to
    99.9 in steps of 0.1, or the PAB's points are not such a number.
    """
    parts = points.split("/")
    if len(parts) != 3:
        raise ValueError(f"points must be win/draw/loss, e.g. 3/1/0, got {points!r}")
    win, draw, loss = (_score_value(text, name) for text, name in zip(parts, ("win", "draw", "loss"), strict=True))
    if not win >= draw >= loss or win == loss:
        raise ValueError(f"points must give win >= draw >= loss and win > loss, got {points!r}")
    bye = None if pab is None else _score_value(pab, "the PAB's points")
    return Scoring(win=win, draw=draw, loss=loss, pab=None if bye == win else bye)


def _entrants(rng: random.Random, players: int) -> tuple[Player, ...]:
    low, high = RATING_RANGE
    ratings = sorted(min(high, max(low, round(rng.gauss(RATING_MEAN, RATING_SPREAD)))) for _ in range(players))
    ratings.reverse()
    return tuple(
        Player(number=i, name=f"Player{i:04d}, Rtg", rating=rating) for i, rating in enumerate(ratings, start=1)
    )


def _game(rng: random.Random, white: Player, black: Player, draw_rate: float) -> Outcome:
    expected = expected_score(white.rating + WHITE_ADVANTAGE, black.rating)
    draw = draw_rate * 2 * min(expected, 1 - expected)
    roll = rng.random()
    if roll < expected - draw / 2:
        return Outcome.WIN
    if roll < expected + draw / 2:
        return Outcome.DRAW
    return Outcome.LOSS


def generate(
    seed: int,
    players: int,
    rounds: int,
    *,
    pair: Pair | None = None,
    draw_rate: float = 0.3,
    forfeit_rate: float = 0.02,
    half_bye_rate: float = 0.02,
    absence_rate: float = 0.01,
    full_bye_rate: float = 0.0,
    withdraw_rate: float = 0.01,
    late_entry_rate: float = 0.0,
    scoring: Scoring | None = None,
    accelerated: bool = False,
    acceleration_method: str = "baku",
    stop_after: int | None = None,
    two_game_matches: bool = False,
) -> Tournament:
    """Simulate a tournament: pre-assigned byes, then a pairing by `pair`, then Elo-drawn results, each round.

    `pair` is the engine (the Dutch system by default); `scoring` gives the points of every result, the PAB's
    included (1/½/0 by default); `accelerated` adds virtual points by `acceleration_method` (Baku, or US Chess
    28R1/28R2: `pairing.acceleration`; 28R2's round 2 follows round 1's results). Rates are per
    player per round (byes, absences, withdrawals), per board (forfeits; a fifth of them double), or per player
    (late entry: absent in rounds 1 .. 2 or 3). Withdrawn players get a zero-point bye in every later round.
    Stops early, returning the rounds played so far, when `pair` raises NoValidPairing or fewer than two
    players are left to pair; `stop_after` stops after that many rounds. The same arguments give the same
    tournament. ValueError for bad arguments, including a scoring under which a score could pass 99.9.
    With `two_game_matches` (Double-Swiss), `rounds` counts game rounds, two a match: an even round replays the
    odd one before it with the colours reversed (`pair` gives it so), its byes are the odd round's, and the
    PAB's player gets a half-point bye in it (the PAB of a match is one game won and one drawn).
    """
    if two_game_matches and rounds % 2:
        raise ValueError("two-game matches need an even number of game rounds")
    if players < 2:
        raise ValueError("a tournament needs at least two players")
    if rounds < 1:
        raise ValueError("a tournament needs at least one round")
    for name, value in (
        ("draw_rate", draw_rate),
        ("forfeit_rate", forfeit_rate),
        ("half_bye_rate", half_bye_rate),
        ("absence_rate", absence_rate),
        ("full_bye_rate", full_bye_rate),
        ("withdraw_rate", withdraw_rate),
        ("late_entry_rate", late_entry_rate),
    ):
        _rate(name, value)
    scoring = Scoring() if scoring is None else scoring
    best_round = max(
        scoring.win,
        scoring.draw,
        scoring.loss,
        scoring.pab_points,
        scoring.full_bye_points,
        scoring.half_bye_points,
        scoring.zero_bye,
        scoring.forfeit_win_points,
        scoring.forfeit_loss,
    )
    if rounds * best_round >= 100:
        raise ValueError(
            f"{rounds} rounds at up to {float(best_round):g} points can exceed 99.9, which TRF cannot write"
        )
    pair_round = _default_pair() if pair is None else pair
    rng = random.Random(seed)
    entrants = _entrants(rng, players)
    tournament = Tournament(
        players=entrants,
        total_rounds=rounds,
        scoring=scoring,
        initial_colour=rng.choice((Colour.WHITE, Colour.BLACK)),
        name=f"swissbot RTG seed {seed}",
    )
    group_a = range(1, acceleration.group_a_size(acceleration_method, players) + 1) if accelerated else range(0)
    # Baku's points are known before round 1; 28R2's round 2 follows round 1's results, so it is set each round.
    follow = accelerated and acceleration_method != "baku"
    if accelerated and not follow:
        tournament = replace(tournament, acceleration=baku_acceleration(players, rounds, scoring))
    arrival = {
        p.number: rng.randint(2, min(3, rounds)) for p in entrants if rounds > 1 and rng.random() < late_entry_rate
    }
    withdrawn: set[int] = set()
    last = rounds if stop_after is None else min(rounds, stop_after)
    for round_number in range(1, last + 1):
        byes: dict[int, RoundRecord] = {}
        requested: dict[int, RoundRecord] = {}
        if two_game_matches and round_number % 2 == 0:
            for player in tournament.players:
                first = player.record(round_number - 1)
                if first.kind is RecordKind.PAB:
                    byes[player.number] = RoundRecord(RecordKind.HALF_BYE)
                elif first.opponent is None:
                    byes[player.number] = (
                        first if first.kind is not RecordKind.NOT_PAIRED else RoundRecord(RecordKind.ZERO_BYE)
                    )
        for player in [] if two_game_matches and round_number % 2 == 0 else entrants:
            number = player.number
            if round_number > 1 and number not in withdrawn and rng.random() < withdraw_rate:
                withdrawn.add(number)
            if number in withdrawn or arrival.get(number, 1) > round_number:
                byes[number] = RoundRecord(RecordKind.ZERO_BYE)
                continue
            roll = rng.random()
            if roll < half_bye_rate:
                requested[number] = RoundRecord(RecordKind.HALF_BYE)
            elif roll < half_bye_rate + absence_rate:
                requested[number] = RoundRecord(RecordKind.ZERO_BYE)
            elif roll < half_bye_rate + absence_rate + full_bye_rate:
                requested[number] = RoundRecord(RecordKind.FULL_BYE)
        active = players - len(byes)
        if active < 2:
            break
        if active - len(requested) >= 2:
            byes.update(requested)
        state = tournament.with_round(round_number, byes)
        if follow:
            state = acceleration.with_acceleration(acceleration_method, group_a, state)
        try:
            pairing = pair_round(state)
        except NoValidPairing:
            break
        results: dict[int, RoundRecord] = {}
        for board in pairing.boards:
            white, black = state.player(board.white), state.player(board.black)
            if rng.random() < forfeit_rate:
                if rng.random() < DOUBLE_FORFEIT_SHARE:
                    results.update(result_records(white.number, black.number, Outcome.LOSS, double_forfeit=True))
                else:
                    winner = rng.choice((Outcome.WIN, Outcome.LOSS))
                    results.update(result_records(white.number, black.number, winner, forfeit=True))
            else:
                results.update(result_records(white.number, black.number, _game(rng, white, black, draw_rate)))
        if pairing.bye is not None:
            results[pairing.bye] = RoundRecord(RecordKind.PAB)
        tournament = state.with_round(round_number, results)
    return tournament


def main(argv: Sequence[str] | None = None) -> int:
    """Print a generated tournament as TRF."""
    parser = argparse.ArgumentParser(prog="python -m pairing.generator", description=__doc__)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--rounds", type=int, required=True)
    parser.add_argument("--draw-rate", type=float, default=0.3)
    parser.add_argument("--forfeit-rate", type=float, default=0.02)
    parser.add_argument("--half-bye-rate", type=float, default=0.02)
    parser.add_argument("--absence-rate", type=float, default=0.01)
    parser.add_argument("--full-bye-rate", type=float, default=0.0)
    parser.add_argument("--withdraw-rate", type=float, default=0.01)
    parser.add_argument("--late-entry-rate", type=float, default=0.0)
    parser.add_argument("--points", default="1/0.5/0", help="points for win/draw/loss, e.g. 3/1/0")
    parser.add_argument("--pab", help="points of a pairing-allocated bye (default: a win's)")
    parser.add_argument(
        "--accelerated", "--baku", dest="accelerated", action="store_true", help="Baku acceleration (XXA records)"
    )
    args = parser.parse_args(argv)
    try:
        tournament = generate(
            args.seed,
            args.players,
            args.rounds,
            draw_rate=args.draw_rate,
            forfeit_rate=args.forfeit_rate,
            half_bye_rate=args.half_bye_rate,
            absence_rate=args.absence_rate,
            full_bye_rate=args.full_bye_rate,
            withdraw_rate=args.withdraw_rate,
            late_entry_rate=args.late_entry_rate,
            scoring=parse_scoring(args.points, args.pab),
            accelerated=args.accelerated,
        )
    except ValueError as error:
        parser.error(str(error))
    sys.stdout.write(trf.dumps(tournament))
    return 0


if __name__ == "__main__":
    sys.exit(main())
