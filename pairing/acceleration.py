"""Accelerated pairings: the virtual points each method adds to a player's pairing score, round by round.

Virtual points only build and order the score groups; they never enter the standings or tie-breaks. Group A
is the first players of the starting order (the strongest), decided before round 1.

- `baku`: FIDE's Baku method (C.04.7 Art. 1, fide-swiss.md §4.1): group A is 2·⌈N/4⌉; it gets a win's worth in
  the first ⌈⌈R/2⌉/2⌉ rounds and a draw's worth in the rest of the first ⌈R/2⌉.
- `us-28r1`: US Chess rule 28R1, "added score" (fide-swiss.md §4.2): group A is the top half, ⌈N/2⌉; it gets a
  win's worth in rounds 1 and 2, nothing from round 3. Round 1 pairs the top quarter against the second and the
  third against the fourth (10 players: 1-3, 4-2, 5-6, 7-9, 8-10, who meets whom as the reference's example
  gives it; the colours are the engine's FIDE rules, not US Chess rule 29E, so two boards of the bottom quarter
  have the colours the other way round from the example).
- `us-28r2`: US Chess rule 28R2, the "non-winners" variation (fide-other-systems.md §9): round 1 as 28R1 (the
  reference document reads the rulebook's "four groups of roughly equal size" as whatever reproduces 28R1's
  round 1, so group A is the same top half); round 2 in three batches, A's winners among themselves, A's
  non-winners with B's winners, B's non-winners among themselves, each batch's odd player floating down as in
  any score group; normal Swiss from round 3. The batches are score groups of the pairing score: a winner of
  round 1 is anyone who scored a win's points (a PAB or a forfeit win included), and the pairing scores of
  round 2 are 3, 2 and 1 wins' worth (virtual points = that less the round-1 points, never negative).
  The rulebook leaves open whether, in a 28R1 round 2, a virtual point ranks above a real one (a top-half loser
  and a bottom-half winner both on one point); here both are in one score group, ordered by starting number
  (so the top-half player ranks first), as the score-group pairing of every FIDE engine does.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import replace
from fractions import Fraction

from pairing.model import Points, Scoring, Tournament

METHODS = ("baku", "us-28r1", "us-28r2")


def _check(method: str) -> None:
    if method not in METHODS:
        raise ValueError(f"unknown acceleration {method!r} (known: {', '.join(METHODS)})")


def group_a_size(method: str, players: int) -> int:
    """How many of the first players of the starting order form group A."""
    _check(method)
    if method == "baku":
        return 2 * math.ceil(players / 4)
    return math.ceil(players / 2)


def baku_points(rounds: int, scoring: Scoring) -> tuple[Points, ...]:
    """Group A's virtual points per round under Baku: a win, then a draw's worth, over the first ⌈R/2⌉ rounds."""
    if scoring.win != 2 * scoring.draw or scoring.loss != 0:
        raise ValueError("Baku acceleration needs a scoring where a win is two draws and a loss is zero")
    accelerated = math.ceil(rounds / 2)
    full = math.ceil(accelerated / 2)
    return tuple(scoring.win if r <= full else scoring.draw for r in range(1, accelerated + 1))


def virtual_points(
    method: str, group_a: Iterable[int], players: Iterable[int], played: Tournament
) -> dict[int, tuple[Points, ...]]:
    """Every player's virtual points per round (index 0 is round 1) for an event whose results so far are
    `played` (28R2's round 2 depends on round 1's); players without any are left out."""
    _check(method)
    scoring = played.scoring
    a = set(group_a)
    if method == "baku":
        points = baku_points(played.total_rounds, scoring)
        return {number: points for number in sorted(a)}
    if method == "us-28r1":
        return {number: (scoring.win, scoring.win) for number in sorted(a)}
    out: dict[int, tuple[Points, ...]] = {}
    round_one_done = played.rounds_completed >= 1
    for number in sorted(set(players) | a):
        first = scoring.win if number in a else Fraction(0)
        if not round_one_done:
            if number in a:
                out[number] = (first,)
            continue
        record = played.player(number).record(1)
        scored = scoring.points(record)
        winner = scored >= scoring.win
        target = (3 if winner else 2) if number in a else (2 if winner else 1)
        second = max(Fraction(0), target * scoring.win - scored)
        out[number] = (first, second)
    return out


def with_acceleration(method: str, group_a: Iterable[int], tournament: Tournament) -> Tournament:
    """The tournament with the method's virtual points for the rounds played so far and the next one."""
    numbers = [p.number for p in tournament.players]
    found: Mapping[int, tuple[Points, ...]] = virtual_points(method, group_a, numbers, tournament)
    return replace(tournament, acceleration=dict(found))
