"""Article 16 of FIDE C.07: unplayed rounds, adjusted scores and the dummy opponent's value."""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from pairing.model import Outcome, Points, RecordKind, RoundRecord, Scoring, Tournament, exact_sum

Edition = Literal["2026", "2024"]
EDITIONS: tuple[Edition, ...] = ("2026", "2024")

_PLAYED = RecordKind.PLAYED
_REQUESTED_BYES = frozenset({RecordKind.HALF_BYE, RecordKind.ZERO_BYE, RecordKind.NOT_PAIRED})
_VUR_KINDS = _REQUESTED_BYES | {RecordKind.FORFEIT_LOSS}


class UnplayedCategory(enum.IntEnum):
    """The category of an unplayed round (C.07 Art. 16.2)."""

    BYE_WIN = 1
    """A pairing-allocated bye or a full-point bye."""
    FORFEIT_WIN = 2
    REQUESTED_BYE = 3
    """A requested bye followed later by at least one round that is not voluntarily unplayed."""
    FORFEIT_LOSS = 4
    LATE_BYE = 5
    """A requested bye followed only by voluntarily unplayed rounds, or in the last round."""


def is_voluntary(record: RoundRecord) -> bool:
    """True for a voluntary unplayed round (VUR): a requested bye or a forfeit loss (16.1)."""
    return record.kind in _VUR_KINDS


def categories(records: Sequence[RoundRecord]) -> tuple[UnplayedCategory | None, ...]:
    """The Article 16 category of each round (None for a game played over the board)."""
    if all(rec.kind is _PLAYED for rec in records):
        return (None,) * len(records)
    out: list[UnplayedCategory | None] = []
    for index, rec in enumerate(records):
        kind = rec.kind
        if kind is _PLAYED:
            out.append(None)
        elif kind in (RecordKind.PAB, RecordKind.FULL_BYE):
            out.append(UnplayedCategory.BYE_WIN)
        elif kind is RecordKind.FORFEIT_WIN:
            out.append(UnplayedCategory.FORFEIT_WIN)
        elif kind is RecordKind.FORFEIT_LOSS:
            out.append(UnplayedCategory.FORFEIT_LOSS)
        elif any(not is_voluntary(later) for later in records[index + 1 :]):
            out.append(UnplayedCategory.REQUESTED_BYE)
        else:
            out.append(UnplayedCategory.LATE_BYE)
    return tuple(out)


@dataclass(frozen=True)
class ScoreSheet:
    """Records, scores and adjusted scores of every player over rounds 1 .. `rounds`."""

    tournament: Tournament
    rounds: int
    edition: Edition
    records: Mapping[int, tuple[RoundRecord, ...]]
    points: Mapping[int, tuple[Points, ...]]
    categories: Mapping[int, tuple[UnplayedCategory | None, ...]]
    scores: Mapping[int, Points]
    adjusted: Mapping[int, Points]

    def record(self, number: int, round_number: int) -> RoundRecord:
        """A player's record in a 1-based round."""
        return self.records[number][round_number - 1]

    def round_points(self, number: int, round_number: int) -> Points:
        """The points a player was awarded in a 1-based round."""
        return self.points[number][round_number - 1]

    def dummy_score(self, number: int, round_number: int) -> Points:
        """The score of the dummy opponent standing in for an own unplayed round (16.4; `scaled_dummy`)."""
        return Points(self.scaled_dummy(number, round_number), self.scaled.unit)

    @cached_property
    def scaled(self) -> ScaledSheet:
        """The sheet's points, scores and adjusted scores as integers over one common denominator."""
        draw = self.tournament.scoring.draw
        values = [draw, *self.scores.values(), *self.adjusted.values()]
        values.extend(p for got in self.points.values() for p in got)
        unit = math.lcm(*{v.denominator for v in values})

        def scale(value: Points) -> int:
            return value.numerator * (unit // value.denominator)

        return ScaledSheet(
            unit,
            {n: tuple(map(scale, got)) for n, got in self.points.items()},
            {n: scale(v) for n, v in self.scores.items()},
            {n: scale(v) for n, v in self.adjusted.items()},
            scale(draw) * self.rounds,
        )

    def scaled_dummy(self, number: int, round_number: int) -> int:
        """The score of the dummy opponent standing in for an own unplayed round (16.4), in the units of `scaled`:
        the player's own score, capped (2023 edition) by a forfeiting opponent's adjusted score or draws in every
        round."""
        scaled = self.scaled
        own = scaled.scores[number]
        if self.edition == "2024":
            return own
        rec = self.record(number, round_number)
        if rec.kind in (RecordKind.FORFEIT_WIN, RecordKind.FORFEIT_LOSS) and rec.opponent is not None:
            cap = scaled.adjusted[rec.opponent]
        else:
            cap = scaled.draw_cap
        return min(own, cap)


@dataclass(frozen=True)
class ScaledSheet:
    """A score sheet's values times `unit` (the common denominator of every value), as exact integers."""

    unit: int
    points: Mapping[int, tuple[int, ...]]
    scores: Mapping[int, int]
    adjusted: Mapping[int, int]
    draw_cap: int  # draw points x rounds: the 2026 cap of 16.4.2


def score_sheet(tournament: Tournament, rounds: int, edition: Edition = "2026") -> ScoreSheet:
    """Build the score sheet of a tournament as it stood after `rounds` rounds.

    The rounds covered stand for "the tournament" of Article 16: a bye in the last covered round is
    category .5, and the 2026 cap of 16.4.2 is draw points x `rounds` (the same as the scheduled number
    once the event is over; during the event it reads the standings as if it ended now).
    """
    if edition not in EDITIONS:
        raise ValueError(f"unknown tie-break edition {edition!r} (known: {', '.join(EDITIONS)})")
    scoring = tournament.scoring
    records: dict[int, tuple[RoundRecord, ...]] = {}
    points: dict[int, tuple[Points, ...]] = {}
    cats: dict[int, tuple[UnplayedCategory | None, ...]] = {}
    scores: dict[int, Points] = {}
    adjusted: dict[int, Points] = {}
    worth = _round_points(scoring)
    for player in tournament.players:
        recs = player.records(rounds + 1)
        got = tuple(map(worth, recs))
        kinds = categories(recs)
        records[player.number] = recs
        points[player.number] = got
        cats[player.number] = kinds
        scores[player.number] = score = exact_sum(got)
        late = UnplayedCategory.LATE_BYE in kinds
        adjusted[player.number] = (
            exact_sum(scoring.draw if c is UnplayedCategory.LATE_BYE else p for p, c in zip(got, kinds, strict=True))
            if late
            else score
        )
    return ScoreSheet(tournament, rounds, edition, records, points, cats, scores, adjusted)


def _round_points(scoring: Scoring) -> Callable[[RoundRecord], Points]:
    """`scoring.points`, with a game's points chosen by identity and the other kinds' looked up (a record's enums
    are hashed in Python, which over every round of every player is most of the work)."""
    win, draw, loss = scoring.win, scoring.draw, scoring.loss
    other = {kind: scoring.points(RoundRecord(kind)) for kind in RecordKind if kind is not _PLAYED}

    def points(record: RoundRecord) -> Points:
        if record.kind is _PLAYED:
            outcome = record.outcome
            return win if outcome is Outcome.WIN else draw if outcome is Outcome.DRAW else loss
        return other[record.kind]

    return points
