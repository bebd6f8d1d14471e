"""An event's full history as the pairing engine's input: `load_tournament`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from domain.entry import Entry, accelerated_group_size, numbered_entries
from domain.event import STARTED, Event, EventStatus
from domain.result import Result
from domain.rounds import (
    BoardRow,
    RoundRow,
    RoundStatus,
    RoundSummary,
    is_decided,
    is_second_game,
    planned_byes,
    second_game_records,
)
from pairing import acceleration
from pairing.model import NOT_PAIRED, Player, Points, RecordKind, RoundRecord, Scoring, Tournament
from storage.db import Connection, Database, Row, fetchall, need_time, parse_time
from storage.entries import load_entries
from storage.events import load_event

BOARD_SQL = (
    "SELECT b.*, w.number AS white_number, k.number AS black_number FROM boards b"
    " JOIN entries w ON w.event_id = b.event_id AND w.player_id = b.white_id"
    " JOIN entries k ON k.event_id = b.event_id AND k.player_id = b.black_id"
)


def board_from_row(row: Row) -> BoardRow:
    """A boards row (joined with both starting numbers) as a BoardRow."""
    return BoardRow(
        id=int(row["id"]),
        event_id=int(row["event_id"]),
        round=int(row["round"]),
        board_no=int(row["board_no"]),
        white_id=int(row["white_id"]),
        black_id=int(row["black_id"]),
        white_number=int(row["white_number"]),
        black_number=int(row["black_number"]),
        result=None if row["result"] is None else Result(row["result"]),
        game_id=row["game_id"],
        game_data=row["game_data"],
        decided_at=parse_time(row["decided_at"]),
    )


def round_from_row(row: Row) -> RoundRow:
    """A rounds row as a RoundRow."""
    return RoundRow(
        event_id=int(row["event_id"]),
        number=int(row["number"]),
        status=RoundStatus(row["status"]),
        paired_at=need_time(row["paired_at"]),
        started_at=parse_time(row["started_at"]),
        finished_at=parse_time(row["finished_at"]),
        pairings_announced_at=parse_time(row["pairings_announced_at"]),
        results_announced_at=parse_time(row["results_announced_at"]),
        system=str(row["system"]),
        review_until=parse_time(row["review_until"]),
        manual=bool(row["manual"]),
    )


async def load_rounds(conn: Connection, event_id: int) -> list[RoundSummary]:
    """Every stored round of an event with its boards and non-board records, in round order."""
    rounds = [
        round_from_row(r)
        for r in await fetchall(conn, "SELECT * FROM rounds WHERE event_id = ? ORDER BY number", (event_id,))
    ]
    boards: dict[int, list[BoardRow]] = {}
    for row in await fetchall(conn, BOARD_SQL + " WHERE b.event_id = ? ORDER BY b.round, b.board_no", (event_id,)):
        board = board_from_row(row)
        boards.setdefault(board.round, []).append(board)
    byes: dict[int, dict[int, RecordKind]] = {}
    for row in await fetchall(conn, "SELECT round, player_id, kind FROM round_byes WHERE event_id = ?", (event_id,)):
        byes.setdefault(int(row["round"]), {})[int(row["player_id"])] = RecordKind(row["kind"])
    return [RoundSummary(r, tuple(boards.get(r.number, ())), byes.get(r.number, {})) for r in rounds]


def fixed_records(history: History, round_number: int) -> dict[int, RecordKind]:
    """The records fixed before pairing `round_number`, by starting number, under the event's system."""
    if is_second_game(history.event, round_number):
        first = next((r for r in history.rounds if r.round.number == round_number - 1), None)
        return second_game_records(history.numbered, first, round_number)
    return planned_byes(history.numbered, history.requested, round_number)


async def load_requested(conn: Connection, event_id: int) -> dict[int, frozenset[int]]:
    """Requested bye rounds by player id."""
    found: dict[int, set[int]] = {}
    for row in await fetchall(conn, "SELECT player_id, round FROM bye_requests WHERE event_id = ?", (event_id,)):
        found.setdefault(int(row["player_id"]), set()).add(int(row["round"]))
    return {pid: frozenset(rounds) for pid, rounds in found.items()}


def baku_virtual_points(total_rounds: int, scoring: Scoring) -> tuple[Points, ...]:
    """Group A's virtual points per round (C.04.7 Art. 1): a win's worth in the first ⌈⌈R/2⌉/2⌉
    rounds, a draw's worth in the rest of the first ⌈R/2⌉, then nothing."""
    return acceleration.baku_points(total_rounds, scoring)


def _records(summary: RoundSummary, by_id: Mapping[int, int]) -> dict[int, RoundRecord]:
    records: dict[int, RoundRecord] = {}
    for board in summary.boards:
        if board.result is None:
            continue
        records.update(board.result.records(board.white_number, board.black_number))
    for player_id, kind in summary.byes.items():
        number = by_id.get(player_id)
        if number is not None:
            records[number] = RoundRecord(kind)
    return records


@dataclass(frozen=True)
class History:
    """Everything `load_tournament` reads, read in one snapshot."""

    event: Event
    numbered: dict[int, Entry]
    rounds: list[RoundSummary]
    requested: dict[int, frozenset[int]]
    forbidden: list[tuple[int, int]]
    entries: list[Entry] = field(default_factory=list)  # every entry, numbered or not

    @property
    def decided_rounds(self) -> int:
        """The rounds 1..k whose every board has a result."""
        count = 0
        for summary in self.rounds:
            if not is_decided(summary):
                break
            count = summary.round.number
        return count

    @property
    def boards(self) -> list[BoardRow]:
        """Every board of every stored round, in round then board order."""
        return [board for summary in self.rounds for board in summary.boards]

    @property
    def next_round(self) -> int:
        """The round to pair next (last stored round + 1)."""
        return (self.rounds[-1].round.number if self.rounds else 0) + 1


async def load_history(conn: Connection, event_id: int) -> History:
    """Read an event's history inside an open transaction."""
    event = await load_event(conn, event_id)
    entries = await load_entries(conn, event_id)
    rows = await fetchall(
        conn,
        "SELECT player_a, player_b FROM forbidden_pairs WHERE event_id = ? ORDER BY player_a, player_b",
        (event_id,),
    )
    return History(
        event=event,
        numbered=numbered_entries(event, entries),
        rounds=await load_rounds(conn, event_id),
        requested=await load_requested(conn, event_id),
        forbidden=[(int(r[0]), int(r[1])) for r in rows],
        entries=entries,
    )


def _columns(history: History, rounds: Sequence[RoundSummary]) -> dict[int, list[RoundRecord]]:
    """Each numbered player's records in `rounds` (an undecided board counts as not paired)."""
    by_id = {e.player.id: n for n, e in history.numbered.items()}
    columns: dict[int, list[RoundRecord]] = {n: [] for n in history.numbered}
    for summary in rounds:
        records = _records(summary, by_id)
        for number, column in columns.items():
            column.append(records.get(number, NOT_PAIRED))
    return columns


def _tournament(
    history: History, columns: Mapping[int, Sequence[RoundRecord]], acceleration: Mapping[int, tuple[Points, ...]]
) -> Tournament:
    settings = history.event.settings
    by_id = {e.player.id: n for n, e in history.numbered.items()}
    forbidden = tuple(frozenset({by_id[a], by_id[b]}) for a, b in history.forbidden if a in by_id and b in by_id)
    players = tuple(
        Player(number=n, name=e.player.name, rating=e.rating, rounds=tuple(columns[n]))
        for n, e in sorted(history.numbered.items())
    )
    return Tournament(
        players=players,
        total_rounds=settings.rounds,
        scoring=Scoring(),
        initial_colour=settings.initial_colour,
        acceleration=dict(acceleration),
        forbidden=forbidden,
        name=settings.name,
    )


def build_tournament(history: History) -> Tournament:
    """The pairing engine's view of a history (see `load_tournament`)."""
    event = history.event
    settings = event.settings
    decided = history.decided_rounds
    columns = _columns(history, history.rounds[:decided])
    next_round = decided + 1
    pairable = (
        decided == history.next_round - 1
        and next_round <= settings.rounds
        and event.status not in (EventStatus.FINISHED, EventStatus.CANCELLED)
    )
    if pairable:
        for number, kind in fixed_records(history, next_round).items():
            columns[number].append(RoundRecord(kind))
    tournament = _tournament(history, columns, {})
    if not settings.acceleration:
        return tournament
    method = settings.acceleration_method
    if event.status in STARTED:
        group_a = [n for n, e in history.numbered.items() if e.accelerated]
    else:
        group_a = list(range(1, accelerated_group_size(len(history.numbered), method) + 1))
    return acceleration.with_acceleration(method, group_a, tournament)


def results_tournament(history: History) -> Tournament:
    """The event as played so far, for standings and crosstables.

    Every stored round counts, each board once it has a result (an undecided board, like a round not
    yet paired, counts as not paired); unlike `build_tournament`, no planned byes and no acceleration.
    """
    return _tournament(history, _columns(history, history.rounds), {})


async def get_history(db: Database, event_id: int) -> History:
    """An event's history, read in one snapshot."""
    async with db.snapshot() as conn:
        return await load_history(conn, event_id)


async def load_tournament(db: Database, event_id: int) -> Tournament:
    """The event as the pairing engine's input.

    Holds rounds 1..k, the rounds whose every board has a result (a round still being played is
    left out, so `round_to_pair` then names that round and `store_pairing` would refuse it). When
    round k+1 is the next to pair, it also holds that round's fixed records: a half-point bye for
    each requested bye and a zero-point bye for every player who is not active, so the engine
    pairs only the players left with no record. Before the start, the numbers are provisional.
    """
    async with db.snapshot() as conn:
        return build_tournament(await load_history(conn, event_id))
