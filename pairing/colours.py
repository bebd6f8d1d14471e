"""Colour allocation for a pair (FIDE Dutch, C.04.3 Article 5 / fide-swiss.md §3.7)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from pairing.model import Colour, PreferenceStrength, RecordKind, RoundViews


@dataclass(frozen=True)
class ColourState:
    """What colour allocation needs to know about one player."""

    number: int
    rank: int
    parity_number: int
    colours: tuple[Colour, ...]
    preference: Colour | None
    strength: PreferenceStrength

    @property
    def difference(self) -> int:
        """Games with White minus games with Black."""
        return sum(1 if c is Colour.WHITE else -1 for c in self.colours)


def allocate(a: ColourState, b: ColourState, initial: Colour) -> Colour:
    """The colour player `a` gets against `b` (the rules of §3.7, first that decides)."""
    pa, pb = a.preference, b.preference
    if pa is not None and pa is not pb:
        return pa
    if pa is None and pb is not None:
        return pb.opposite
    if pa is not None:
        # Same colour wanted by both: the stronger preference wins.
        if a.strength != b.strength:
            return pa if a.strength > b.strength else pa.opposite
        if a.strength is PreferenceStrength.ABSOLUTE:
            da, db = abs(a.difference), abs(b.difference)
            if da != db:
                return pa if da > db else pa.opposite
        for ca, cb in zip(reversed(a.colours), reversed(b.colours), strict=False):
            if ca is not cb:
                return ca.opposite
        higher = a if a.rank < b.rank else b
        wanted = pa if higher is a else pa.opposite
        return wanted
    higher = a if a.rank < b.rank else b
    colour = initial if higher.parity_number % 2 == 1 else initial.opposite
    return colour if higher is a else colour.opposite


def colour_states(views: RoundViews, numbers: Iterable[int]) -> list[ColourState]:
    """The colour states of the players paired in `views.round`, in pairing order (rank 0 first)."""
    pairing_now = set(numbers)
    # Sorted on integers (the scores over their common denominator): comparing Fractions is slow.
    scores = {n: views.pairing_score(n) for n in pairing_now}
    unit = math.lcm(*(score.denominator for score in scores.values()))
    scaled = {n: score.numerator * (unit // score.denominator) for n, score in scores.items()}
    order = sorted(pairing_now, key=lambda n: (-scaled[n], n))
    # Rule 5 looks at the parity of the rank among the players taking part: those paired now or in an earlier
    # round, by starting number (what the reference engine does when players are absent; checked on every
    # corpus board where rule 5 decides).
    taking_part = [
        p.number
        for p in views.tournament.players
        if p.number in pairing_now
        or any(rec.opponent is not None or rec.kind is RecordKind.PAB for rec in p.records(views.round))
    ]
    position = {number: k for k, number in enumerate(sorted(taking_part), start=1)}
    states = []
    for rank, number in enumerate(order):
        pref = views.preference(number)
        states.append(ColourState(number, rank, position[number], views.colours(number), pref.colour, pref.strength))
    return states


def initial_colour_shown(white: ColourState, black: ColourState) -> Colour | None:
    """The initial colour under which `allocate` gives this board's colours, or None if it does not decide."""
    for initial in (Colour.WHITE, Colour.BLACK):
        if allocate(white, black, initial) is Colour.WHITE and allocate(white, black, initial.opposite) is Colour.BLACK:
            return initial
    return None
