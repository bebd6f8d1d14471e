"""Real move sequences, generated with python-chess, that reach a requested game ending."""

from __future__ import annotations

import random
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Literal

import chess

Color = Literal["white", "black"]

DECISIVE_STATUSES = frozenset({"mate", "resign", "outoftime", "timeout", "cheat", "noStart"})
DRAW_REASONS = ("agreement", "repetition", "insufficient")
EARLY_DRAW_PLIES = 60  # lila: rulePreventsDraw = hasRule(noEarlyDraw) && playedTurns < 60

# Sam Loyd's ten-move stalemate (white stalemates black on ply 19 from the initial position).
LOYD_STALEMATE = tuple("e3 a5 Qh5 Ra6 Qxa5 h5 h4 Rah6 Qxc7 f6 Qxd7+ Kf7 Qxb7 Qd3 Qxb8 Qh7 Qxc8 Kg6 Qe6".split())  # noqa: SIM905
# Knight trips that leave and re-enter the initial position (4 plies each).
_KNIGHT_TRIPS = (("Nc3", "Nc6", "Nb1", "Nb8"), ("Nf3", "Nf6", "Ng1", "Ng8"), ("Na3", "Nh6", "Nb1", "Ng8"))

_PIECE_VALUE = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 0}


class GameSpecError(ValueError):
    """The requested ending cannot be produced (or Lichess's rules forbid it)."""


@dataclass(frozen=True)
class Course:
    """How a game goes: its moves (UCI) and how it ends (`status` "started" means it never ends)."""

    moves: tuple[str, ...]
    status: str
    winner: Color | None


Key = Hashable


def _key(board: chess.Board) -> Key:
    """What makes two positions the same for repetition (pieces, turn, castling, en passant)."""
    return board._transposition_key()


def _ends_game(board: chess.Board) -> bool:
    """Mate, stalemate, insufficient material or the 50-move rule (repetitions are kept apart)."""
    if board.halfmove_clock >= 100 or board.is_insufficient_material():
        return True
    return not any(board.generate_legal_moves())


def _random_walk(rng: random.Random, board: chess.Board, plies: int, seen: set[Key]) -> bool:
    """Play `plies` random moves that neither end the game nor repeat a position; False if stuck."""
    for _ in range(plies):
        moves = list(board.legal_moves)
        rng.shuffle(moves)
        for move in moves:
            board.push(move)
            key = _key(board)
            if key not in seen and not _ends_game(board):
                seen.add(key)
                break
            board.pop()
        else:
            return False
    return True


def quiet_moves(rng: random.Random, plies: int) -> list[chess.Move]:
    """`plies` legal moves from the initial position that end nothing and never repeat a position."""
    for _ in range(50):
        board = chess.Board()
        if _random_walk(rng, board, plies, {_key(board)}):
            return list(board.move_stack)
    raise GameSpecError(f"could not generate {plies} quiet plies")


def _greedy_move(rng: random.Random, board: chess.Board, seen: set[Key]) -> chess.Move | None:
    """The attacking side: mate if it can, otherwise take the biggest piece, otherwise check or roam."""
    best: list[chess.Move] = []
    best_score = -1.0
    enemy_king = board.king(not board.turn)
    king_zone = chess.SquareSet(chess.BB_KING_ATTACKS[enemy_king]) if enemy_king is not None else chess.SquareSet()
    for move in board.legal_moves:
        captured = board.piece_type_at(move.to_square)
        gives_check = board.gives_check(move)
        board.push(move)
        if gives_check and board.is_checkmate():
            board.pop()
            return move
        bad = _ends_game(board) or _key(board) in seen
        pressure = len(board.attacks(move.to_square) & king_zone)
        board.pop()
        if bad:
            continue
        score = (_PIECE_VALUE[captured] * 10 if captured else 0) + (3 if gives_check else 0) + pressure + rng.random()
        if score > best_score:
            best, best_score = [move], score
    return best[0] if best else None


def _passive_move(rng: random.Random, board: chess.Board, seen: set[Key]) -> bool:
    """The losing side: a random move, captures only when nothing else is playable."""
    moves = list(board.legal_moves)
    rng.shuffle(moves)
    moves.sort(key=board.is_capture)
    for move in moves:
        board.push(move)
        key = _key(board)
        if key not in seen and not _ends_game(board):
            seen.add(key)
            return True
        board.pop()
    return False


def _mate_line(rng: random.Random, winner: Color, min_plies: int) -> list[chess.Move]:
    """A game in which `winner` checkmates after at least `min_plies` plies."""
    attacker = chess.WHITE if winner == "white" else chess.BLACK
    for _ in range(50):
        board = chess.Board()
        seen = {_key(board)}
        if not _random_walk(rng, board, max(0, min_plies - 20), seen):
            continue
        limit = board.ply() + 80
        while board.ply() < limit and not board.is_checkmate():
            if board.turn == attacker:
                move = _greedy_move(rng, board, seen)
                if move is None:
                    break
                board.push(move)
                seen.add(_key(board))
            elif not _passive_move(rng, board, seen):
                break
        if board.is_checkmate() and board.turn != attacker and board.ply() >= min_plies:
            return list(board.move_stack)
    raise GameSpecError(f"could not generate a mate by {winner}")


def _repetition_line(rng: random.Random, plies: int) -> list[chess.Move]:
    """A game drawn by fivefold repetition on exactly ply `plies` (at least 16)."""
    if plies < 16:
        raise GameSpecError("a fivefold repetition needs at least 16 plies")
    for _ in range(50):
        board = chess.Board()
        if not _random_walk(rng, board, plies - 16, {_key(board)}):
            continue
        cycle = _shuffle_cycle(rng, board)
        if cycle is None:
            continue
        for _ in range(4):
            for move in cycle:
                board.push(move)
        if board.is_fivefold_repetition() and not any(
            _prefix_ended(board.move_stack, i) for i in range(len(board.move_stack) - 16, len(board.move_stack))
        ):
            return list(board.move_stack)
    raise GameSpecError(f"could not generate a repetition in {plies} plies")


def _prefix_ended(moves: list[chess.Move], n: int) -> bool:
    board = chess.Board()
    for move in moves[:n]:
        board.push(move)
    return board.is_game_over()


def _shuffle_cycle(rng: random.Random, board: chess.Board) -> list[chess.Move] | None:
    """Four quiet piece moves (out, out, back, back) that restore the position."""
    first = [m for m in board.legal_moves if _reversible(board, m)]
    rng.shuffle(first)
    for a in first:
        board.push(a)
        second = [m for m in board.legal_moves if _reversible(board, m)]
        rng.shuffle(second)
        for b in second:
            board.push(b)
            back_a = chess.Move(a.to_square, a.from_square)
            if back_a in board.legal_moves:
                board.push(back_a)
                back_b = chess.Move(b.to_square, b.from_square)
                ok = back_b in board.legal_moves
                board.pop()
                if ok:
                    board.pop()
                    board.pop()
                    return [a, b, back_a, back_b]
            board.pop()
        board.pop()
    return None


def _reversible(board: chess.Board, move: chess.Move) -> bool:
    piece = board.piece_type_at(move.from_square)
    return (
        piece in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
        and not board.is_capture(move)
        and not board.gives_check(move)
        and not board.is_check()
    )


def _insufficient_line(rng: random.Random) -> list[chess.Move]:
    """A game where both sides trade everything until neither can mate."""
    for _ in range(200):
        board = chess.Board()
        while not board.is_game_over():
            moves = list(board.legal_moves)
            captures = [m for m in moves if board.is_capture(m)]
            board.push(rng.choice(captures or moves))
        if board.is_insufficient_material() and not board.is_checkmate():
            return list(board.move_stack)
    raise GameSpecError("could not generate an insufficient-material draw")


def _stalemate_line(plies: int) -> list[chess.Move]:
    """Loyd's stalemate after 0 to 3 knight trips: `plies` is 19, 23, 27 or 31."""
    trips = (plies - len(LOYD_STALEMATE)) // 4
    if plies < len(LOYD_STALEMATE) or (plies - len(LOYD_STALEMATE)) % 4 or trips > len(_KNIGHT_TRIPS):
        raise GameSpecError("a stalemate game has 19, 23, 27 or 31 plies")
    board = chess.Board()
    for trip in _KNIGHT_TRIPS[:trips]:
        for san in trip:
            board.push_san(san)
    for san in LOYD_STALEMATE:
        board.push_san(san)
    return list(board.move_stack)


def plan_game(
    rng: random.Random,
    *,
    status: str,
    winner: Color | None,
    plies: int,
    rules: frozenset[str] = frozenset(),
    reason: str | None = None,
) -> Course:
    """The moves of a game that ends with `status` (and `winner`) after about `plies` plies."""
    if plies < 0 or plies > 600:
        raise GameSpecError("plies must be between 0 and 600")
    if status in ("started", "created"):
        if winner is not None:
            raise GameSpecError("an unfinished game has no winner")
        return Course(_uci(quiet_moves(rng, plies)), "started", None)
    if status == "aborted":
        if winner is not None or plies > 1:
            raise GameSpecError("only a game with fewer than 2 plies can be aborted, without a winner")
        return Course(_uci(quiet_moves(rng, plies)), "aborted", None)
    if status in DECISIVE_STATUSES:
        if winner is None:
            raise GameSpecError(f"status {status} needs a winner")
        if status == "noStart":
            if plies > 1:
                raise GameSpecError("noStart means a player did not make a first move (at most 1 ply)")
            return Course(_uci(quiet_moves(rng, plies)), status, winner)
        if status == "mate":
            return Course(_uci(_mate_line(rng, winner, plies)), status, winner)
        return Course(_uci(quiet_moves(rng, plies)), status, winner)
    if winner is not None:
        raise GameSpecError(f"status {status} has no winner")
    if status == "stalemate":
        return Course(_uci(_stalemate_line(plies)), status, None)
    if status == "draw":
        return _draw(rng, plies, rules, reason)
    raise GameSpecError(f"unsupported status {status!r}")


def _draw(rng: random.Random, plies: int, rules: frozenset[str], reason: str | None) -> Course:
    early = "noEarlyDraw" in rules and plies < EARLY_DRAW_PLIES
    if reason is None:
        reason = "repetition" if early else "agreement"
    if reason not in DRAW_REASONS:
        raise GameSpecError(f"unknown draw reason {reason!r}; use one of {', '.join(DRAW_REASONS)}")
    if reason == "agreement":
        if early:
            raise GameSpecError("noEarlyDraw: no draw by agreement or claim before ply 60")
        return Course(_uci(quiet_moves(rng, plies)), "draw", None)
    if reason == "repetition":
        return Course(_uci(_repetition_line(rng, plies)), "draw", None)
    return Course(_uci(_insufficient_line(rng)), "draw", None)


def _uci(moves: list[chess.Move]) -> tuple[str, ...]:
    return tuple(m.uci() for m in moves)


def san_moves(uci_moves: tuple[str, ...] | list[str], initial_fen: str | None = None) -> list[str]:
    """The SAN of each move, as Lichess exports them."""
    board = chess.Board(initial_fen) if initial_fen else chess.Board()
    sans = []
    for uci in uci_moves:
        move = chess.Move.from_uci(uci)
        sans.append(board.san(move))
        board.push(move)
    return sans
