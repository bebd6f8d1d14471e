"""A board's result and what it gives each player, and the Lichess game attempts that decide it."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from pairing.model import Outcome, RoundRecord, result_records


class ResultKind(enum.Enum):
    """How a board was decided."""

    PLAYED = "played"
    FORFEIT = "forfeit"
    DOUBLE_FORFEIT = "double_forfeit"


class Result(enum.Enum):
    """A board's result, from White's side (the TRF-like notation the boards table stores)."""

    WHITE_WINS = "1-0"
    BLACK_WINS = "0-1"
    DRAW = "1/2-1/2"
    WHITE_WINS_FORFEIT = "+/-"
    BLACK_WINS_FORFEIT = "-/+"
    DOUBLE_FORFEIT = "-/-"

    @property
    def kind(self) -> ResultKind:
        """Played, forfeit or double forfeit."""
        if self in (Result.WHITE_WINS_FORFEIT, Result.BLACK_WINS_FORFEIT):
            return ResultKind.FORFEIT
        if self is Result.DOUBLE_FORFEIT:
            return ResultKind.DOUBLE_FORFEIT
        return ResultKind.PLAYED

    @property
    def white_outcome(self) -> Outcome:
        """White's outcome (a loss for both in a double forfeit)."""
        if self in (Result.WHITE_WINS, Result.WHITE_WINS_FORFEIT):
            return Outcome.WIN
        if self is Result.DRAW:
            return Outcome.DRAW
        return Outcome.LOSS

    @property
    def pgn(self) -> str:
        """The PGN Result tag value."""
        return {
            Result.WHITE_WINS: "1-0",
            Result.BLACK_WINS: "0-1",
            Result.DRAW: "1/2-1/2",
            Result.WHITE_WINS_FORFEIT: "1-0",
            Result.BLACK_WINS_FORFEIT: "0-1",
            Result.DOUBLE_FORFEIT: "0-0",
        }[self]

    def records(self, white: int, black: int) -> Mapping[int, RoundRecord]:
        """The two round records this result gives the players numbered `white` and `black`."""
        return result_records(
            white,
            black,
            self.white_outcome,
            forfeit=self.kind is ResultKind.FORFEIT,
            double_forfeit=self.kind is ResultKind.DOUBLE_FORFEIT,
        )


class GameStatus(enum.Enum):
    """One Lichess game attempt for a board."""

    CREATING = "creating"  # written before asking Lichess; resolved by challenge name after a restart
    CREATED = "created"
    FINISHED = "finished"
    ABORTED = "aborted"
    REPLACED = "replaced"  # e.g. an early draw replayed under the `replay` policy
    FAILED = "failed"  # Lichess refused or the request never reached it


@dataclass(frozen=True)
class GameRow:
    """One attempt at a Lichess game for a board."""

    id: int
    board_id: int
    attempt: int
    challenge_name: str
    lichess_id: str | None
    status: GameStatus
    data: str | None
    created_at: datetime
    updated_at: datetime
