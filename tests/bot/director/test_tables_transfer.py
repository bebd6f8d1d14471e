"""The tables cross from the worker process as plain data: each player's cells and the standings' rows pickle as
tuples of ints and strings."""

from __future__ import annotations

import pickle
from fractions import Fraction

from bot.director.models import PlayerRef, StandingRow
from bot.director.tables import Cells, Standings
from domain.entry import EntryStatus
from pairing.model import Colour, Outcome, RecordKind
from pairing.standings.crosstable import CrosstableCell

MADE = {
    1: (
        CrosstableCell(1, RecordKind.PLAYED, 2, Colour.WHITE, Outcome.WIN, Fraction(1)),
        CrosstableCell(2, RecordKind.HALF_BYE, None, None, None, Fraction(1, 2)),
        CrosstableCell(3, RecordKind.FORFEIT_LOSS, 3, None, None, Fraction(0)),
    ),
    2: (
        CrosstableCell(1, RecordKind.PLAYED, 1, Colour.BLACK, Outcome.LOSS, Fraction(0)),
        CrosstableCell(2, RecordKind.PAB, None, None, None, Fraction(1, 3)),
        CrosstableCell(3, RecordKind.NOT_PAIRED, None, None, None, Fraction(0)),
    ),
}


def test_cells_pickle_as_plain_tuples_and_read_the_same() -> None:
    data = pickle.dumps(Cells(MADE), pickle.HIGHEST_PROTOCOL)
    assert b"CrosstableCell" not in data and b"RecordKind" not in data
    back = pickle.loads(data)
    assert back == MADE and dict(back) == MADE and list(back) == [1, 2] and len(back) == 2
    assert 2 in back and 3 not in back and back.get(3) is None
    assert back[1] is back[1]  # made once
    assert pickle.loads(pickle.dumps(back)) == MADE  # read partly, pickled again
    assert Cells() == {}


ROWS = (
    StandingRow(1, PlayerRef(2, "Ann", 42, 1800), Fraction(5, 2), {"BH/C1": Fraction(7, 2), "SB": Fraction(17, 4)}),
    StandingRow(2, PlayerRef(1, "Bob", None, 0), Fraction(1), {"BH/C1": Fraction(3), "SB": Fraction(0)}),
    StandingRow(None, PlayerRef(3, "Cy <b>", None, 1500), Fraction(1, 3), {}, EntryStatus.DISQUALIFIED),
)


def test_standings_pickle_as_plain_tuples_and_read_the_same() -> None:
    data = pickle.dumps(Standings(ROWS), pickle.HIGHEST_PROTOCOL)
    assert b"StandingRow" not in data and b"PlayerRef" not in data and b"Fraction" not in data
    back = pickle.loads(data)
    assert len(back) == 3 and back == ROWS and list(back) == list(ROWS) and back[1:] == ROWS[1:]
    assert back[0] is back[0] and back[2].status is EntryStatus.DISQUALIFIED
    assert pickle.loads(pickle.dumps(back)) == ROWS  # read, pickled again
    assert Standings() == () and Standings(ROWS) != ROWS[:2]
