"""A round's boards and the standings as plain text lines (the scenario runner prints them)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.director.models import BoardView, RoundView, StandingRow
from bot.rendering.text import BYE_LABELS, standings_lines


def _board_line(board: BoardView, with_url: bool) -> str:
    result = board.result.value if board.result else "…"
    url = f"  {board.url}" if board.url and with_url else ""
    detail = f"  ({board.detail})" if board.detail else ""
    return f"  {board.number:>3}. {board.white.name:<20} {result:^9} {board.black.name:<20}{url}{detail}"


def format_round(round: RoundView, *, with_urls: bool = True) -> list[str]:
    """A round as text lines."""
    lines = [_board_line(board, with_urls) for board in round.boards]
    for bye in round.byes:
        lines.append(f"       {bye.player.name:<20} {BYE_LABELS[bye.kind]}")
    return lines


def format_standings(rows: Sequence[StandingRow], tiebreaks: Sequence[str] = ()) -> list[str]:
    """The standings as text lines: the table Discord shows (the rows' own tie-breaks when none are named)."""
    codes = tuple(tiebreaks) or (tuple(rows[0].tiebreaks) if rows else ())
    return standings_lines(rows, codes)
