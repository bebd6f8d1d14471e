"""What the event records for a Lichess game: pure functions over the exported game data.

- A finished game gives its normal result.
- An early draw (any draw but stalemate or insufficient material, before move `min_moves`, counted by
  replaying the moves) follows the event's policy: `replay` (a new game, same colours), `forfeit`
  (both lose) or `review` (held for an organiser).
- At the no-show deadline, a game nobody moved in is a forfeit: 0 plies, white did not move; 1 ply,
  black did not move. A challenge nobody joined is held for an organiser: it starts only when both
  players join, and Lichess does not say who did, so nobody can be called absent.
- An aborted game is re-created once per attempt (an abort of a game that was itself the re-creation of
  an aborted one is judged as a no-show).
- A game lost on time without a move (a bulk pairing's clocks start by themselves) is a no-show: black
  flagging at ply 1 is black's; at ply 0 nobody moved, a double no-show, as Lichess Swiss does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import chess

from bot.lichess.payloads import GameData

Color = Literal["white", "black"]
EarlyDrawPolicy = Literal["replay", "forfeit", "review"]
Result = Literal["1-0", "0-1", "1/2-1/2"]

DECISIVE_STATUSES = frozenset({"mate", "resign", "timeout", "outoftime", "cheat", "variantEnd", "noStart"})
DRAW_STATUSES = frozenset({"draw", "stalemate", "timeout", "outoftime", "insufficientMaterialClaim"})
UNFINISHED_STATUSES = frozenset({"created", "started"})


@dataclass(frozen=True)
class Played:
    """The game was played: record its result."""

    result: Result
    reason: str
    kind: Literal["played"] = "played"


@dataclass(frozen=True)
class ForfeitWin:
    """One player did not play: `winner` wins by forfeit, the other loses by forfeit."""

    winner: Color
    reason: str
    kind: Literal["forfeit_win"] = "forfeit_win"


@dataclass(frozen=True)
class DoubleForfeit:
    """Both players lose by forfeit; `no_show` when both are known to have been absent (a clock ran for each)."""

    reason: str
    kind: Literal["double_forfeit"] = "double_forfeit"
    no_show: bool = False


@dataclass(frozen=True)
class Replay:
    """Create a new game between the same players with the same colours."""

    cause: Literal["early_draw", "aborted"]
    reason: str
    kind: Literal["replay"] = "replay"


@dataclass(frozen=True)
class Review:
    """Hold the board for an organiser to decide."""

    reason: str
    kind: Literal["review"] = "review"


@dataclass(frozen=True)
class Pending:
    """Nothing to record yet: the game is still on (or has not started) and the deadline has not passed."""

    reason: str
    kind: Literal["pending"] = "pending"


Decision = Played | ForfeitWin | DoubleForfeit | Replay | Review | Pending


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


def adjudicate(
    game: GameData | None,
    *,
    early_draw_policy: EarlyDrawPolicy = "replay",
    min_moves: int = 30,
    deadline_passed: bool = False,
    recreated_before: bool = False,
) -> Decision:
    """Decide what the event records for `game` (None: Lichess has no such game, it never started).

    `deadline_passed`: the event's no-show deadline for this board is over.
    `recreated_before`: this game is itself the re-creation of an aborted game (not of an early draw).
    """
    if game is None or game.status == "created":
        if deadline_passed:
            # An open challenge starts only when both join, and Lichess does not say who did: no forfeit.
            return Review("nobody started the game before the deadline, and Lichess cannot tell who was there")
        return Pending("the game has not started yet")
    try:
        replayed = replay_moves(game.moves, game.initial_fen)
    except UnreadableMoves as exc:
        return Review(f"the game's moves cannot be replayed: {exc}")
    if game.status in UNFINISHED_STATUSES:
        if deadline_passed and replayed.plies < 2:
            return _no_show(replayed.plies, "at the deadline")
        return Pending("the game is in progress")
    if game.status == "aborted":
        if not recreated_before:
            return Replay("aborted", "the game was aborted; it is created again once")
        return _no_show(replayed.plies, "the re-created game was aborted too")
    winner: Color | None = "white" if game.winner == "white" else "black" if game.winner == "black" else None
    if game.status == "outoftime" and replayed.plies < 2:
        return _lost_on_time_without_a_move(replayed.plies)
    if game.status == "noStart" and winner:
        return ForfeitWin(winner, "the opponent did not make a first move")
    if winner:
        if game.status not in DECISIVE_STATUSES:
            return Review(f"unexpected status {game.status!r} with a winner")
        return Played("1-0" if winner == "white" else "0-1", f"{winner} won ({game.status})")
    if game.status in DRAW_STATUSES:
        return _draw(game, replayed, early_draw_policy, min_moves)
    return Review(f"the game ended with status {game.status!r}, which needs an organiser")


def _no_show(plies: int, when: str) -> Decision:
    if plies == 0:
        return ForfeitWin("black", f"white did not move ({when})")
    if plies == 1:
        return ForfeitWin("white", f"black did not move ({when})")
    return DoubleForfeit(f"the game was not played ({when})")


def _lost_on_time_without_a_move(plies: int) -> Decision:
    """A game whose clocks started by themselves (a bulk pairing's) and whose side to move never moved.

    As Lichess Swiss: black flagging after white's first move is black's no-show; white flagging at the
    first move means nobody moved, a double no-show (black never had a move to make).
    """
    if plies == 1:
        return ForfeitWin("white", "black lost on time without a move")
    return DoubleForfeit("neither player moved: the game was lost on time without a move", no_show=True)


def _draw(game: GameData, replayed: Replayed, policy: EarlyDrawPolicy, min_moves: int) -> Decision:
    if game.status == "stalemate" and not replayed.stalemate:
        return Review("Lichess says stalemate but the final position is not one")
    exempt = _exempt_draw(game.status, replayed)
    if exempt:
        return Played("1/2-1/2", f"draw by {exempt}")
    if replayed.plies >= 2 * min_moves:
        return Played("1/2-1/2", f"draw ({game.status}) after {_moves(replayed.plies)} moves")
    early = f"early draw ({game.status}) after {_moves(replayed.plies)} moves, before move {min_moves}"
    if policy == "replay":
        return Replay("early_draw", f"{early}: the game is played again")
    if policy == "forfeit":
        return DoubleForfeit(f"{early}: both players forfeit")
    return Review(f"{early}: held for an organiser")


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
