"""A team's colour preference (C.04.6 Art. 1.6-1.7)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pairing.model import (
    Colour,
)
from pairing.team.model import ColourType


@dataclass(frozen=True)
class Preference:
    """A team's colour preference; `strong` only in Type B."""

    colour: Colour | None
    strong: bool = False


def colour_preference(colours: Sequence[Colour], kind: ColourType, last_round: bool = False) -> Preference:
    """The preference of a team whose played matches had these first-board colours (Art. 1.7)."""
    if not colours or kind is ColourType.NONE:
        return Preference(None)
    cd = sum(1 if c is Colour.WHITE else -1 for c in colours)
    last_two = colours[-1] if len(colours) >= 2 and colours[-1] is colours[-2] else None
    strong = kind is ColourType.B
    if cd <= -2 or (cd in (0, -1) and last_two is Colour.BLACK):
        return Preference(Colour.WHITE, strong)
    if cd >= 2 or (cd in (0, 1) and last_two is Colour.WHITE):
        return Preference(Colour.BLACK, strong)
    if kind is ColourType.A:
        return Preference(None)
    if cd == -1:
        return Preference(Colour.WHITE)
    if cd == 1:
        return Preference(Colour.BLACK)
    if last_round:
        return Preference(None)
    return Preference(colours[-1].opposite)
