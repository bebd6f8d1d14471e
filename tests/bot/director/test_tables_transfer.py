"""The tables cross from the worker process as plain data: each player's cells pickle as tuples of ints."""

from __future__ import annotations

import pickle
from fractions import Fraction

from bot.director.tables import Cells
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
