"""What a board's Lichess game means for the event: the tournament's no-show and result rule, pure.

`decide` takes the exported game, the stored attempt and the event's rules and gives one `Outcome`:
- a finished game gives its result (`Played`);
- an early draw (any draw but stalemate or insufficient material, before move `early_draw_moves`, counted by
  replaying the moves with python-chess) follows the event's policy: `replay` (`EarlyDraw`: a new game, same
  colours), `forfeit` (both lose) or `review` (`Held` for an organiser);
- at the no-show deadline (`noshow_at`), a game nobody moved in is a forfeit (`Absent`): 0 plies, white did
  not move; 1 ply, black did not move. A challenge nobody joined is `Held` for an organiser: it starts only when
  both players join, and Lichess does not say who did, so nobody can be called absent;
- an aborted game is re-created once per attempt (`Aborted`); an abort of a game that was itself the
  re-creation of an aborted one is judged as a no-show;
- a game lost on time without a move (a bulk pairing's clocks start by themselves) is a no-show: black flagging
  at ply 1 is black's; at ply 0 nobody moved, a double no-show, as Lichess Swiss does.

The absent are withdrawn and banned for `ban_hours`. No I/O here: the director's polling applies the outcome.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

import chess

from bot.lichess.payloads import GameData
from bot.settings import BanPolicy
from domain.result import GameRow, GameStatus, Result
from domain.settings import EarlyDrawPolicy, EventSettings

Colour = Literal["white", "black"]

DECISIVE_STATUSES = frozenset({"mate", "resign", "timeout", "outoftime", "cheat", "variantEnd", "noStart"})
DRAW_STATUSES = frozenset({"draw", "stalemate", "timeout", "outoftime", "insufficientMaterialClaim"})
UNFINISHED_STATUSES = frozenset({"created", "started"})


@dataclass(frozen=True)
class Played:
    """The board takes `result` and nobody is withdrawn (a double forfeit too, for an early draw both forfeit)."""

    result: Result
    detail: str


@dataclass(frozen=True)
class Absent:
    """A no-show: the board takes `result` (a forfeit), and the players of `absent` are withdrawn and banned."""

    result: Result
    absent: tuple[Colour, ...]
    detail: str


@dataclass(frozen=True)
class EarlyDraw:
    """An early draw under the `replay` policy: a new game between the same players with the same colours."""

    detail: str


@dataclass(frozen=True)
class Aborted:
    """The game was aborted: it is created again (once per attempt)."""

    detail: str


@dataclass(frozen=True)
class Held:
    """The board is held for an organiser to decide, for `detail`."""

    detail: str


@dataclass(frozen=True)
class Pending:
    """Nothing to record yet: the game is still on (or has not started) and the deadline has not passed."""

    detail: str


Outcome = Played | Absent | EarlyDraw | Aborted | Held | Pending


def noshow_at(round_started: datetime, attempt: GameRow, no_show_seconds: int) -> datetime:
    """When a game nobody moved in becomes a no-show: `no_show_seconds` after the later of the round's start and
    the moment the attempt's game existed on Lichess (its row's last update made it 'created').

    Not from the round's start alone: a game created later (an aborted game's re-creation, an early draw's
    replay, a game Lichess created only at a later poll) gives its players the whole grace too, else a replay
    made after the deadline would be a no-show the moment it exists.
    """
    return max(round_started, attempt.updated_at) + timedelta(seconds=no_show_seconds)


def next_noshow_at(
    round_started: datetime, live: Sequence[GameRow], no_show_seconds: int, now: datetime
) -> datetime | None:
    """The next no-show deadline still to come among the round's live attempts (None: none left)."""
    deadlines = [noshow_at(round_started, game, no_show_seconds) for game in live]
    return min((d for d in deadlines if d > now), default=None)


def ban_hours(policy: BanPolicy, previous_bans: int) -> float:
    """How long a no-show is banned after `previous_bans` earlier bans: `first_hours`, doubled (by `factor`) on
    every repeat, at most `max_days`."""
    return min(policy.first_hours * policy.factor**previous_bans, policy.max_days * 24.0)


def recreates_an_abort(attempt: GameRow, attempts: Sequence[GameRow]) -> bool:
    """Whether `attempt` re-creates an aborted game: its board's previous game on Lichess was replaced after an
    abort (a replay of an early draw does not count, so every attempt gets its own re-creation)."""
    earlier = [g for g in attempts if g.board_id == attempt.board_id and g.attempt < attempt.attempt and g.lichess_id]
    if not earlier:
        return False
    previous = max(earlier, key=lambda g: g.attempt)
    if previous.status is not GameStatus.REPLACED or previous.data is None:
        return False
    data = json.loads(previous.data)
    return isinstance(data, dict) and data.get("status") == "aborted"


def decide(
    game: GameData | None,
    attempt: GameRow,
    attempts: Sequence[GameRow],
    rules: EventSettings,
    *,
    round_started: datetime,
    now: datetime,
    clocked: bool = False,
) -> Outcome:
    """The outcome of a board's live `attempt` from its exported `game` (None: Lichess has no such game).

    `attempts`: the stored attempts (the board's count, others are ignored), to know whether this one re-creates an
    aborted game; `clocked`: a bulk pairing's game, whose clocks start by themselves and find the no-shows, so it
    has no deadline of its own.
    """
    deadline = noshow_at(round_started, attempt, rules.no_show_seconds)
    return judge(
        game,
        policy=rules.early_draw_policy,
        early_draw_moves=rules.early_draw_moves,
        deadline_passed=now >= deadline and not clocked,
        recreated_before=recreates_an_abort(attempt, attempts),
    )


def judge(
    game: GameData | None,
    *,
    policy: EarlyDrawPolicy = EarlyDrawPolicy.REPLAY,
    early_draw_moves: int = 30,
    deadline_passed: bool = False,
    recreated_before: bool = False,
) -> Outcome:
    """The outcome of `game` once the deadline and the attempt's history are known.

    `deadline_passed`: the board's no-show deadline is over; `recreated_before`: this game is itself the
    re-creation of an aborted game (not of an early draw).
    """
    if game is None or game.status == "created":
        if deadline_passed:
            # An open challenge starts only when both join, and Lichess does not say who did: no forfeit.
            return Held("nobody started the game before the deadline, and Lichess cannot tell who was there")
        return Pending("the game has not started yet")
    try:
        replayed = replay_moves(game.moves, game.initial_fen)
    except UnreadableMoves as exc:
        return Held(f"the game's moves cannot be replayed: {exc}")
    if game.status in UNFINISHED_STATUSES:
        if deadline_passed and replayed.plies < 2:
            return _no_show(replayed.plies, "at the deadline")
        return Pending("the game is in progress")
    if game.status == "aborted":
        if not recreated_before:
            return Aborted("the game was aborted; it is created again once")
        return _no_show(replayed.plies, "the re-created game was aborted too")
    winner: Colour | None = "white" if game.winner == "white" else "black" if game.winner == "black" else None
    if game.status == "outoftime" and replayed.plies < 2:
        return _lost_on_time_without_a_move(replayed.plies)
    if game.status == "noStart" and winner:
        return _forfeit_win(winner, "the opponent did not make a first move")
    if winner:
        if game.status not in DECISIVE_STATUSES:
            return Held(f"unexpected status {game.status!r} with a winner")
        return Played(Result.WHITE_WINS if winner == "white" else Result.BLACK_WINS, f"{winner} won ({game.status})")
    if game.status in DRAW_STATUSES:
        return _draw(game, replayed, policy, early_draw_moves)
    return Held(f"the game ended with status {game.status!r}, which needs an organiser")


def _forfeit_win(winner: Colour, detail: str) -> Absent:
    """`winner` wins by forfeit; the other did not play."""
    if winner == "white":
        return Absent(Result.WHITE_WINS_FORFEIT, ("black",), detail)
    return Absent(Result.BLACK_WINS_FORFEIT, ("white",), detail)


def _no_show(plies: int, when: str) -> Outcome:
    if plies == 0:
        return _forfeit_win("black", f"white did not move ({when})")
    if plies == 1:
        return _forfeit_win("white", f"black did not move ({when})")
    return Played(Result.DOUBLE_FORFEIT, f"the game was not played ({when})")


def _lost_on_time_without_a_move(plies: int) -> Outcome:
    """A game whose clocks started by themselves (a bulk pairing's) and whose side to move never moved.

    As Lichess Swiss: black flagging after white's first move is black's no-show; white flagging at the
    first move means nobody moved, a double no-show (black never had a move to make).
    """
    if plies == 1:
        return _forfeit_win("white", "black lost on time without a move")
    detail = "neither player moved: the game was lost on time without a move"
    return Absent(Result.DOUBLE_FORFEIT, ("white", "black"), detail)


def _draw(game: GameData, replayed: Replayed, policy: EarlyDrawPolicy, min_moves: int) -> Outcome:
    if game.status == "stalemate" and not replayed.stalemate:
        return Held("Lichess says stalemate but the final position is not one")
    exempt = _exempt_draw(game.status, replayed)
    if exempt:
        return Played(Result.DRAW, f"draw by {exempt}")
    if replayed.plies >= 2 * min_moves:
        return Played(Result.DRAW, f"draw ({game.status}) after {_moves(replayed.plies)} moves")
    early = f"early draw ({game.status}) after {_moves(replayed.plies)} moves, before move {min_moves}"
    if policy is EarlyDrawPolicy.REPLAY:
        return EarlyDraw(f"{early}: the game is played again")
    if policy is EarlyDrawPolicy.FORFEIT:
        return Played(Result.DOUBLE_FORFEIT, f"{early}: both players forfeit")
    return Held(f"{early}: held for an organiser")


def _exempt_draw(status: str, replayed: Replayed) -> str | None:
    """Stalemate and insufficient material are never early draws (checked on the replayed board)."""
    if replayed.stalemate:
        return "stalemate"
    if replayed.insufficient_material:
        return "insufficient material"
    if status == "insufficientMaterialClaim":
        return "insufficient material (claimed)"
    if status == "outoftime":  # a flag with no winner: the opponent could not mate
        return "time forfeit against insufficient material"
    return None


def _moves(plies: int) -> int:
    return (plies + 1) // 2


# --- the moves, replayed -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Replayed:
    """The final position of a game's moves, replayed with python-chess."""

    plies: int
    stalemate: bool
    insufficient_material: bool
    checkmate: bool


class UnreadableMoves(ValueError):
    """The exported moves do not replay legally."""


def replay_moves(moves: str, initial_fen: str | None = None) -> Replayed:
    """Replay SAN (or UCI) moves, as Lichess exports them, from the initial position."""
    board = chess.Board(initial_fen) if initial_fen else chess.Board()
    for token in moves.split():
        try:
            board.push_san(token)
        except ValueError:
            try:
                board.push_uci(token)
            except ValueError:
                raise UnreadableMoves(f"illegal move {token!r} after {board.ply()} plies") from None
    return Replayed(
        plies=len(board.move_stack),
        stalemate=board.is_stalemate(),
        insufficient_material=board.is_insufficient_material(),
        checkmate=board.is_checkmate(),
    )
