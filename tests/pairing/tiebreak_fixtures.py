"""Small tournaments written round by round, for the tie-break and standings tests."""

from __future__ import annotations

from collections.abc import Sequence

from pairing.model import Outcome, Player, RecordKind, RoundRecord, Tournament, result_records
from tests.support.paths import SHARED

EXAMPLES = SHARED / "reference" / "fide-examples"
EXAMPLE16 = EXAMPLES / "example_trf16.trf"
EXAMPLE26 = EXAMPLES / "example_trf26.trf"

_GAMES = {
    "1-0": (Outcome.WIN, False, False),
    "0-1": (Outcome.LOSS, False, False),
    "1/2": (Outcome.DRAW, False, False),
    "+-": (Outcome.WIN, True, False),
    "-+": (Outcome.LOSS, True, False),
    "--": (Outcome.LOSS, False, True),
}
_BYES = {
    "PAB": RecordKind.PAB,
    "F": RecordKind.FULL_BYE,
    "H": RecordKind.HALF_BYE,
    "Z": RecordKind.ZERO_BYE,
    "-": RecordKind.NOT_PAIRED,
}

Board = tuple[int, int, str] | tuple[int, str]


def build(players: int, rounds: Sequence[Sequence[Board]], ratings: Sequence[int] = ()) -> Tournament:
    """A tournament from boards `(white, black, "1-0" | "0-1" | "1/2" | "+-" | "-+" | "--")` and byes `(p, kind)`.

    Bye kinds: PAB, F (full), H (half), Z (zero), - (not paired). Players absent from a round are not paired.
    """
    t = Tournament(
        players=tuple(
            Player(n, name=f"Player {n}", rating=ratings[n - 1] if ratings else 2000 - 10 * n)
            for n in range(1, players + 1)
        ),
        total_rounds=len(rounds),
    )
    for r, boards in enumerate(rounds, start=1):
        records: dict[int, RoundRecord] = {n: RoundRecord(RecordKind.NOT_PAIRED) for n in range(1, players + 1)}
        for board in boards:
            if len(board) == 2:
                records[board[0]] = RoundRecord.bye(_BYES[board[1]])
            else:
                white, black, result = board
                outcome, forfeit, double = _GAMES[result]
                records.update(result_records(white, black, outcome, forfeit=forfeit, double_forfeit=double))
        t = t.with_round(r, records)
    return t
