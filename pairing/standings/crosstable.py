"""The crosstable: each player's record round by round (opponent, colour, result, byes), in standings order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pairing.model import Colour, Outcome, Points, RecordKind, Tournament
from pairing.standings.ranking import StandingRow, compute_standings, format_value, text_table

_OUTCOME_TEXT = {Outcome.WIN: "1", Outcome.DRAW: "½", Outcome.LOSS: "0"}
_BYE_TEXT = {
    RecordKind.PAB: "U",
    RecordKind.FULL_BYE: "F",
    RecordKind.HALF_BYE: "H",
    RecordKind.ZERO_BYE: "Z",
    RecordKind.NOT_PAIRED: "-",
}


@dataclass(frozen=True)
class CrosstableCell:
    """One round of one player: what happened, against whom, with which colour, for how many points."""

    round: int
    kind: RecordKind
    opponent: int | None
    colour: Colour | None
    outcome: Outcome | None
    points: Points

    @property
    def text(self) -> str:
        """Short form: `5w1`, `3b½`, `2+` / `2-` (forfeit), or the TRF bye letter U F H Z (`-` not paired)."""
        if self.kind is RecordKind.PLAYED and self.outcome is not None:
            colour = self.colour.value if self.colour is not None else ""
            return f"{self.opponent}{colour}{_OUTCOME_TEXT[self.outcome]}"
        if self.kind is RecordKind.FORFEIT_WIN:
            return f"{self.opponent}+"
        if self.kind is RecordKind.FORFEIT_LOSS:
            return f"{self.opponent}-"
        return _BYE_TEXT[self.kind]


@dataclass(frozen=True)
class CrosstableRow:
    """A player's line of the crosstable."""

    rank: int
    number: int
    name: str
    rating: int
    points: Points
    cells: tuple[CrosstableCell, ...]


def player_cells(tournament: Tournament, number: int, rounds: int) -> tuple[CrosstableCell, ...]:
    """One player's cells for rounds 1..`rounds` (a round with no record is 'not paired')."""
    scoring = tournament.scoring
    return tuple(
        CrosstableCell(r, rec.kind, rec.opponent, rec.colour, rec.outcome, scoring.points(rec))
        for r, rec in enumerate(tournament.player(number).records(rounds + 1), start=1)
    )


def crosstable(
    tournament: Tournament,
    standings: Sequence[StandingRow] | None = None,
    *,
    through_round: int | None = None,
) -> list[CrosstableRow]:
    """The crosstable in the order of `standings` (default: the default tie-breaks), one cell per round."""
    rounds = tournament.rounds_completed if through_round is None else through_round
    rows = compute_standings(tournament, through_round=rounds) if standings is None else standings
    out = []
    for row in rows:
        player = tournament.player(row.number)
        cells = player_cells(tournament, row.number, rounds)
        out.append(CrosstableRow(row.rank, row.number, player.name, player.rating, row.points, cells))
    return out


def format_crosstable(rows: Sequence[CrosstableRow]) -> str:
    """The crosstable as a plain-text table (opponents by starting number)."""
    rounds = max((len(r.cells) for r in rows), default=0)
    header = ["Rk", "No", "Name", "Rtg", *(f"R{r}" for r in range(1, rounds + 1)), "Pts"]
    table = [header]
    previous = None
    for row in rows:
        rank = "" if row.rank == previous else str(row.rank)
        previous = row.rank
        rating = str(row.rating) if row.rating else ""
        cells = [c.text for c in row.cells] + [""] * (rounds - len(row.cells))
        table.append([rank, str(row.number), row.name, rating, *cells, format_value(row.points, 1)])
    return text_table(table)
