"""The console announcer: prints what the event's channel would show (the demo)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

from bot.director.models import BoardView, RoundView, StandingRow
from bot.rendering.text import BYE_LABELS, standings_lines
from domain.event import Event


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


class ConsoleAnnouncer:
    """Prints what the channel would show (the demo)."""

    def __init__(self, out: TextIO | None = None, *, show_results: bool = True, show_dms: bool = True) -> None:
        self.out = out or sys.stdout
        self.show_results = show_results
        self.show_dms = show_dms

    def _print(self, *lines: str) -> None:
        for line in lines:
            print(line, file=self.out)
        self.out.flush()

    async def event_opened(self, event: Event) -> None:
        """Print the opening."""
        self._print(f"== {event.name}: open for entries ({event.settings.rounds} rounds) ==")

    async def round_paired(self, event: Event, round: RoundView) -> None:
        """Print the pairings with links."""
        self._print("", f"== {event.name} — {event.round_name(round.number)} pairings ==", *format_round(round))

    async def results_updated(self, event: Event, round: RoundView) -> None:
        """Print the results when the round is complete (the channel edits in place)."""
        if self.show_results and round.decided:
            self._print(f"-- round {round.number} results --", *format_round(round, with_urls=False))

    async def standings(self, event: Event, rows: Sequence[StandingRow], final: bool) -> None:
        """Print the standings table."""
        title = "final standings" if final else f"standings after round {event.current_round}"
        self._print(f"-- {title} --", *format_standings(rows, event.settings.tiebreaks))

    async def event_finished(self, event: Event, rows: Sequence[StandingRow], reason: str) -> None:
        """Print the end."""
        self._print("", f"== {event.name} finished: {reason} ==", *format_standings(rows, event.settings.tiebreaks))

    async def bulletin(self, event: Event, text: str) -> None:
        """Print a line for the event's channel."""
        self._print(f"** {event.name}: {text}")

    async def notice(self, event: Event, text: str) -> None:
        """Print an organiser notice."""
        self._print(f"[organiser] {event.name}: {text}")

    async def dm(self, discord_id: int, text: str) -> None:
        """Print a DM (unless turned off)."""
        if self.show_dms:
            self._print(f"[dm {discord_id}] {text}")
