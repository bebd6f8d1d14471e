"""From a Lichess game to what a board's result becomes under the event's rules."""

from __future__ import annotations

from dataclasses import dataclass

from bot.lichess.adjudication import DoubleForfeit, ForfeitWin, Played, Replay, Review, adjudicate
from bot.lichess.payloads import GameData
from domain.result import Result
from domain.settings import EarlyDrawPolicy


@dataclass(frozen=True)
class Decision:
    """What one board's game means for the event.

    `result` None means the board stays undecided (game still running, a replay, or an organiser's review).
    `absent` lists the colours of players who never moved (they are withdrawn and banned).
    """

    result: Result | None
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
    recreated_before: bool = False,
) -> Decision:
    """The board's decision from its game, by `bot.lichess.adjudication` (None: Lichess has no game yet)."""
    verdict = adjudicate(
        game,
        early_draw_policy=policy.value,
        min_moves=early_draw_moves,
        deadline_passed=deadline_passed,
        recreated_before=recreated_before,
    )
    if isinstance(verdict, Played):
        return Decision(_PLAYED[verdict.result], detail=verdict.reason)
    if isinstance(verdict, ForfeitWin):
        loser = "black" if verdict.winner == "white" else "white"
        result = Result.WHITE_WINS_FORFEIT if verdict.winner == "white" else Result.BLACK_WINS_FORFEIT
        return Decision(result, (loser,), detail=verdict.reason)
    if isinstance(verdict, DoubleForfeit):  # a no-show only when a clock ran for each: else nobody is banned
        return Decision(Result.DOUBLE_FORFEIT, ("white", "black") if verdict.no_show else (), detail=verdict.reason)
    if isinstance(verdict, Replay):
        return Decision(None, replay=True, detail=verdict.reason)
    if isinstance(verdict, Review):
        return Decision(None, review=True, detail=verdict.reason)
    return WAIT


_PLAYED = {"1-0": Result.WHITE_WINS, "0-1": Result.BLACK_WINS, "1/2-1/2": Result.DRAW}
