"""Paired rounds and their boards, the records fixed before a pairing, and the Double-Swiss match rules."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from domain.entry import Entry, EntryStatus
from domain.event import Event
from domain.result import Result, ResultKind
from pairing.model import RecordKind


class RoundStatus(enum.Enum):
    """A paired round: stored, games under way, or every board decided."""

    PAIRED = "paired"
    PLAYING = "playing"
    FINISHED = "finished"


class ByeRefused(ValueError):
    """A bye request the event's rules refuse; the message is one sentence for the player."""


@dataclass(frozen=True)
class RoundRow:
    """A paired round."""

    event_id: int
    number: int
    status: RoundStatus
    paired_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    pairings_announced_at: datetime | None = None
    results_announced_at: datetime | None = None
    system: str = "dutch"
    review_until: datetime | None = None  # the pairing is held for organisers' corrections until then
    manual: bool = False  # an organiser corrected the pairing

    def held(self, now: datetime) -> bool:
        """The round's games wait for the organisers' review of its pairing."""
        return self.review_until is not None and now < self.review_until


@dataclass(frozen=True)
class BoardRow:
    """A board of a round: the two players (ids and starting numbers) and the result once decided."""

    id: int
    event_id: int
    round: int
    board_no: int
    white_id: int
    black_id: int
    white_number: int
    black_number: int
    result: Result | None
    game_id: str | None
    game_data: str | None
    decided_at: datetime | None

    @property
    def result_kind(self) -> ResultKind | None:
        """How the board was decided, if it was."""
        return None if self.result is None else self.result.kind


@dataclass(frozen=True)
class RoundSummary:
    """A round with its boards and non-board records (byes keyed by player id)."""

    round: RoundRow
    boards: tuple[BoardRow, ...]
    byes: Mapping[int, RecordKind] = field(default_factory=dict)


def is_decided(summary: RoundSummary) -> bool:
    """True when every board of the round has a result."""
    return all(b.result is not None for b in summary.boards)


def is_second_game(event: Event, round_number: int) -> bool:
    """The round is the second game of a two-game match (Double-Swiss), paired from the first."""
    return event.settings.pairing_system.two_game_matches and round_number % 2 == 0


def match_bye_round(event: Event, round_number: int) -> int:
    """The round a bye request for `round_number` is kept under: with two-game matches, a bye is for a whole
    match and kept under its first game round (ByeRefused if that game is already paired)."""
    if not is_second_game(event, round_number):
        return round_number
    if round_number - 1 <= event.current_round:
        raise ByeRefused(
            f"round {round_number} is the second game of a match already paired; a bye is for a whole match "
            f"(ask for round {round_number + 1})"
        )
    return round_number - 1


def planned_byes(
    numbered: Mapping[int, Entry], requested: Mapping[int, frozenset[int]], round_number: int
) -> dict[int, RecordKind]:
    """Records fixed before pairing a round, by starting number: inactive players get a zero-point
    bye, requested byes a half-point bye; everyone else is to be paired."""
    planned: dict[int, RecordKind] = {}
    for number, entry in numbered.items():
        if entry.joined_round > round_number:
            continue
        if entry.status is not EntryStatus.ACTIVE:
            planned[number] = RecordKind.ZERO_BYE
        elif round_number in requested.get(entry.player.id, frozenset()):
            planned[number] = RecordKind.HALF_BYE
    return planned


def second_game_records(
    numbered: Mapping[int, Entry], first: RoundSummary | None, round_number: int
) -> dict[int, RecordKind]:
    """Records fixed before a Double-Swiss match's second game (`round_number` even): the match is one pairing,
    so whoever had a board in the first game is paired again (a player gone since loses that game by forfeit, the
    director's part), the first game's PAB or requested bye goes on as a half-point bye, two players both gone
    since get zero-point byes, and a player with no board in the first game waits for the next match."""
    by_id = {e.player.id: n for n, e in numbered.items()}
    opponent: dict[int, int] = {}
    for board in first.boards if first is not None else ():
        opponent[board.white_number], opponent[board.black_number] = board.black_number, board.white_number
    first_byes = {by_id[pid]: kind for pid, kind in (first.byes if first is not None else {}).items() if pid in by_id}
    planned: dict[int, RecordKind] = {}
    for number, entry in numbered.items():
        if entry.joined_round > round_number:
            continue
        active = entry.status is EntryStatus.ACTIVE
        if number in opponent:
            if not active and numbered[opponent[number]].status is not EntryStatus.ACTIVE:
                planned[number] = RecordKind.ZERO_BYE
        elif active and first_byes.get(number) in (RecordKind.PAB, RecordKind.HALF_BYE):
            planned[number] = RecordKind.HALF_BYE  # a requested bye is the match's: game 1 has it as a half-point bye
        else:
            planned[number] = RecordKind.ZERO_BYE if not active else RecordKind.NOT_PAIRED
    return planned
