"""Colour allocation for a pair (FIDE Dutch, C.04.3 Article 5 / fide-swiss.md §3.7)."""

from __future__ import annotations

from dataclasses import dataclass

from pairing.model import Colour, PreferenceStrength


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
