"""From the database's rows to the pairing model, and from a Lichess game to the result an event records."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from bot.adjudication import DoubleForfeit, ForfeitWin, Played, Replay, Review, adjudicate
from bot.director_models import BoardResult, EarlyDrawPolicy, Event
from bot.director_store import BoardRow, EntryRow
from bot.lichess import GameData
from pairing.model import (
    NOT_PAIRED,
    Outcome,
    Player,
    Points,
    RecordKind,
    RoundRecord,
    Tournament,
    result_records,
)


@dataclass(frozen=True)
class History:
    """An event's rows, as the builder needs them."""

    event: Event
    entries: Sequence[EntryRow]
    boards: Sequence[BoardRow]
    byes: Sequence[tuple[int, int, str]]  # (round, player id, kind)
    forbidden: Sequence[tuple[int, int]] = ()

    def numbers(self) -> dict[int, int]:
        """Player id -> starting number (numbered entries only)."""
        return {e.player_id: e.number for e in self.entries if e.number is not None}


def board_records(white: int, black: int, result: BoardResult) -> Mapping[int, RoundRecord]:
    """The two records of a decided board (players by starting number)."""
    if result is BoardResult.WHITE_WINS:
        return result_records(white, black, Outcome.WIN)
    if result is BoardResult.BLACK_WINS:
        return result_records(white, black, Outcome.LOSS)
    if result is BoardResult.DRAW:
        return result_records(white, black, Outcome.DRAW)
    if result is BoardResult.WHITE_FORFEIT_WIN:
        return result_records(white, black, Outcome.WIN, forfeit=True)
    if result is BoardResult.BLACK_FORFEIT_WIN:
        return result_records(white, black, Outcome.LOSS, forfeit=True)
    return result_records(white, black, Outcome.LOSS, double_forfeit=True)


def build_tournament(history: History, *, through_round: int | None = None) -> Tournament:
    """The event as the pairing model sees it; undecided boards count as not paired."""
    numbers = history.numbers()
    last = max([b.round for b in history.boards] + [r for r, _, _ in history.byes] + [0])
    if through_round is not None:
        last = min(last, through_round)
    records: dict[int, list[RoundRecord]] = {n: [NOT_PAIRED] * last for n in numbers.values()}
    for entry in history.entries:
        if entry.number is not None and entry.late_bye_round is not None and 1 <= entry.late_bye_round <= last:
            records[entry.number][entry.late_bye_round - 1] = RoundRecord(RecordKind.HALF_BYE)
    for rnd, player_id, kind in history.byes:
        if rnd <= last and player_id in numbers:
            records[numbers[player_id]][rnd - 1] = RoundRecord(RecordKind(kind))
    for board in history.boards:
        if board.round > last or board.result is None:
            continue
        white, black = numbers[board.white_id], numbers[board.black_id]
        for number, record in board_records(white, black, board.result).items():
            records[number][board.round - 1] = record
    players = tuple(
        Player(number=e.number, name=e.name, rating=e.rating, rounds=tuple(records[e.number]))
        for e in sorted(history.entries, key=lambda e: e.number or 0)
        if e.number is not None
    )
    forbidden = tuple(
        frozenset({numbers[a], numbers[b]}) for a, b in history.forbidden if a in numbers and b in numbers
    )
    return Tournament(
        players=players,
        total_rounds=history.event.settings.rounds,
        forbidden=forbidden,
        acceleration=baku_acceleration(players, history.event.settings.rounds)
        if history.event.settings.accelerated
        else {},
        name=history.event.name,
    )


def baku_acceleration(players: Sequence[Player], total_rounds: int) -> dict[int, tuple[Points, ...]]:
    """Baku acceleration (C.04.7): GA = the first 2·⌈N/4⌉ by starting number, a win then a draw of virtual points."""
    size = 2 * math.ceil(len(players) / 4)
    accelerated = math.ceil(total_rounds / 2)
    full = math.ceil(accelerated / 2)
    values = tuple(Fraction(1) if r <= full else Fraction(1, 2) for r in range(1, accelerated + 1))
    top = sorted(p.number for p in players)[:size]
    return {n: values for n in top}


def with_unpaired(tournament: Tournament, round_number: int, unpaired: Mapping[int, RecordKind]) -> Tournament:
    """The tournament with the players who must not be paired this round given their records for it."""
    return tournament.with_round(round_number, {n: RoundRecord(kind) for n, kind in unpaired.items()})


# -- adjudication ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Decision:
    """What one board's game means for the event.

    `result` None means the board stays undecided (game still running, a replay, or an organiser's review).
    `absent` lists the colours of players who never moved (they are withdrawn and banned).
    """

    result: BoardResult | None
    absent: tuple[str, ...] = ()
    replay: bool = False
    review: bool = False
    detail: str = ""


WAIT = Decision(None)


def decide(
    game: GameData | None,
    *,
    deadline_passed: bool,
    policy: EarlyDrawPolicy,
    early_draw_moves: int,
    attempt: int = 1,
) -> Decision:
    """The board's decision from its game, by `bot.adjudication` (None: Lichess has no game yet)."""
    verdict = adjudicate(
        game,
        early_draw_policy=policy.value,
        min_moves=early_draw_moves,
        deadline_passed=deadline_passed,
        recreated_before=attempt > 1,
    )
    if isinstance(verdict, Played):
        return Decision(_PLAYED[verdict.result], detail=verdict.reason)
    if isinstance(verdict, ForfeitWin):
        loser = "black" if verdict.winner == "white" else "white"
        result = BoardResult.WHITE_FORFEIT_WIN if verdict.winner == "white" else BoardResult.BLACK_FORFEIT_WIN
        return Decision(result, (loser,), detail=verdict.reason)
    if isinstance(verdict, DoubleForfeit):
        nobody_came = game is None or game.status == "created" or game.plies < 2
        return Decision(BoardResult.DOUBLE_FORFEIT, ("white", "black") if nobody_came else (), detail=verdict.reason)
    if isinstance(verdict, Replay):
        return Decision(None, replay=True, detail=verdict.reason)
    if isinstance(verdict, Review):
        return Decision(None, review=True, detail=verdict.reason)
    return WAIT


_PLAYED = {"1-0": BoardResult.WHITE_WINS, "0-1": BoardResult.BLACK_WINS, "1/2-1/2": BoardResult.DRAW}
