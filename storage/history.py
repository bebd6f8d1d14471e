"""An event's full history as the pairing engine's input: `load_tournament`."""

from __future__ import annotations

import functools
import os
import sqlite3
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

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
from storage.db import Connection, Database, Kept, Row, fetchall, need_time, parse_time
from storage.entries import EVENT_ENTRIES_SQL, KEPT_ENTRIES
from storage.errors import DatabaseError, NotFound, classify
from storage.events import EVENT_SQL, event_from_row

_BOARD_PLAYERS = (
    " FROM boards b"
    " JOIN entries w ON w.event_id = b.event_id AND w.player_id = b.white_id"
    " JOIN entries k ON k.event_id = b.event_id AND k.player_id = b.black_id"
)
BOARD_SQL = "SELECT b.*, w.number AS white_number, k.number AS black_number" + _BOARD_PLAYERS
# The same without each decided game's Lichess export (`game_data` NULL): the standings and pages never read it,
# and it is most of a history's bytes.
_LEAN_BOARD_SQL = (
    "SELECT b.id, b.event_id, b.round, b.board_no, b.white_id, b.black_id, b.result, NULL AS game_data, b.game_id,"
    " b.decided_at, w.number AS white_number, k.number AS black_number" + _BOARD_PLAYERS
)
_RESULTS = {result.value: result for result in Result}


def board_from_row(row: Row) -> BoardRow:
    """A boards row (joined with both starting numbers) as a BoardRow."""
    result = row["result"]
    return BoardRow(
        id=int(row["id"]),
        event_id=int(row["event_id"]),
        round=int(row["round"]),
        board_no=int(row["board_no"]),
        white_id=int(row["white_id"]),
        black_id=int(row["black_id"]),
        white_number=int(row["white_number"]),
        black_number=int(row["black_number"]),
        result=None if result is None else _RESULTS[result],
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


# An event's stored rounds, boards and non-board records (`?`: the event's id).
_ROUNDS_SQL = "SELECT * FROM rounds WHERE event_id = ? ORDER BY number"
_BOARDS_SQL = " WHERE b.event_id = ? ORDER BY b.round, b.board_no"
_BYES_SQL = "SELECT round, player_id, kind FROM round_byes WHERE event_id = ?"
_REQUESTED_SQL = "SELECT player_id, round FROM bye_requests WHERE event_id = ?"
_FORBIDDEN_SQL = "SELECT player_a, player_b FROM forbidden_pairs WHERE event_id = ? ORDER BY player_a, player_b"


def _history_sql(board_sql: str) -> tuple[str, ...]:
    """A history's queries, each taking the event's id, in the order `_history_from_rows` reads their rows."""
    return (
        EVENT_SQL + " WHERE e.id = ?",
        EVENT_ENTRIES_SQL,
        _ROUNDS_SQL,
        board_sql + _BOARDS_SQL,
        _BYES_SQL,
        _REQUESTED_SQL,
        _FORBIDDEN_SQL,
    )


_HISTORY_SQL = _history_sql(BOARD_SQL)
_LEAN_HISTORY_SQL = _history_sql(_LEAN_BOARD_SQL)


def _rounds_from_rows(
    rounds: Sequence[Row],
    boards: Sequence[Row],
    byes: Sequence[Row],
    board_of: Callable[[Row], BoardRow] = board_from_row,
) -> list[RoundSummary]:
    by_round: dict[int, list[BoardRow]] = {}
    for row in boards:
        board = board_of(row)
        by_round.setdefault(board.round, []).append(board)
    by_player: dict[int, dict[int, RecordKind]] = {}
    for row in byes:
        by_player.setdefault(int(row["round"]), {})[int(row["player_id"])] = RecordKind(row["kind"])
    made = [round_from_row(r) for r in rounds]
    return [RoundSummary(r, tuple(by_round.get(r.number, ())), by_player.get(r.number, {})) for r in made]


def _requested_from_rows(rows: Sequence[Row]) -> dict[int, frozenset[int]]:
    found: dict[int, set[int]] = {}
    for row in rows:
        found.setdefault(int(row["player_id"]), set()).add(int(row["round"]))
    return {pid: frozenset(rounds) for pid, rounds in found.items()}


async def load_rounds(conn: Connection, event_id: int) -> list[RoundSummary]:
    """Every stored round of an event with its boards and non-board records, in round order."""
    rounds = await fetchall(conn, _ROUNDS_SQL, (event_id,))
    boards = await fetchall(conn, BOARD_SQL + _BOARDS_SQL, (event_id,))
    return _rounds_from_rows(rounds, boards, await fetchall(conn, _BYES_SQL, (event_id,)))


def fixed_records(history: History, round_number: int) -> dict[int, RecordKind]:
    """The records fixed before pairing `round_number`, by starting number, under the event's system."""
    if is_second_game(history.event, round_number):
        first = next((r for r in history.rounds if r.round.number == round_number - 1), None)
        return second_game_records(history.numbered, first, round_number)
    return planned_byes(history.numbered, history.requested, round_number)


async def load_requested(conn: Connection, event_id: int) -> dict[int, frozenset[int]]:
    """Requested bye rounds by player id."""
    return _requested_from_rows(await fetchall(conn, _REQUESTED_SQL, (event_id,)))


def baku_virtual_points(total_rounds: int, scoring: Scoring) -> tuple[Points, ...]:
    """Group A's virtual points per round (C.04.7 Art. 1): a win's worth in the first ⌈⌈R/2⌉/2⌉
    rounds, a draw's worth in the rest of the first ⌈R/2⌉, then nothing."""
    return acceleration.baku_points(total_rounds, scoring)


def _records(summary: RoundSummary, by_id: Mapping[int, int]) -> dict[int, RoundRecord]:
    records: dict[int, RoundRecord] = {}
    for board in summary.boards:
        if board.result is not None:
            records.update(_board_records(board.result, board.white_number, board.black_number))
    for player_id, kind in summary.byes.items():
        number = by_id.get(player_id)
        if number is not None:
            records[number] = RoundRecord(kind)
    return records


@functools.lru_cache(maxsize=1 << 15)
def _board_records(result: Result, white: int, black: int) -> tuple[tuple[int, RoundRecord], ...]:
    """A decided board's two records (immutable, so made once a process: a worker that computes an event's tables
    at every change makes only the new boards' records)."""
    return tuple(result.records(white, black).items())


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


async def load_history(conn: Connection, event_id: int, *, lean: bool = False) -> History:
    """Read an event's history inside an open transaction; `lean`: each board without its game's data (`game_data`
    None: what pairing, the jobs and the standings read), its objects kept for the next read (`Kept`)."""
    if lean:
        rows = [await fetchall(conn, sql, (event_id,)) for sql in _LEAN_HISTORY_SQL]
        return _history_from_rows(event_id, rows, _KEPT_BOARDS.made)
    rows = [await fetchall(conn, sql, (event_id,)) for sql in _HISTORY_SQL]
    return _history_from_rows(event_id, rows)


def read_history_file(path: str, event_id: int, *, keep: bool = True) -> History:
    """An event's history read through this thread's own read-only connection to the database file (a worker
    process reads it itself: nothing crosses between processes), in one read transaction, each board without its
    game's data (`game_data` None): what the standings, the crosstable and the pages read. `keep`: the thread keeps
    the connection for its next read (a worker process's); else it is closed after this one (a thread of the bot's
    own process: the bot's `Database` stays the last connection to the file, which checkpoints it when it closes)."""
    if not keep:
        conn = _open_reader(path)
        try:
            return _read_history(conn, event_id)
        finally:
            conn.close()
    readers = _READERS.by_path
    try:
        file = os.stat(path)
    except OSError as exc:
        raise DatabaseError(f"cannot read the database {path}: {exc}") from exc
    identity = (file.st_dev, file.st_ino)
    known = readers.pop(path, None)
    if known is not None and known[1] != identity:  # another file at that path now: read that one
        known[0].close()
        known = None
    while len(readers) >= _READERS_KEPT:
        readers.pop(next(iter(readers)))[0].close()
    conn = known[0] if known is not None else _open_reader(path)
    readers[path] = (conn, identity)
    try:
        return _read_history(conn, event_id)
    except DatabaseError:
        readers.pop(path, None)  # a connection that failed (locked too long, the file gone) is not kept
        conn.close()
        raise


class _Readers(threading.local):
    """Each thread's read-only connections, by database file (with the file's device and inode when opened)."""

    def __init__(self) -> None:
        self.by_path: dict[str, tuple[sqlite3.Connection, tuple[int, int]]] = {}


_READERS = _Readers()
_READERS_KEPT = 4


def _open_reader(path: str) -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(f"{Path(path).absolute().as_uri()}?mode=ro", uri=True, isolation_level=None)
        conn.execute("PRAGMA busy_timeout = 5000")
    except sqlite3.Error as exc:
        raise classify(exc) from exc
    conn.row_factory = sqlite3.Row
    return conn


def _read_history(conn: sqlite3.Connection, event_id: int) -> History:
    try:
        conn.execute("BEGIN")
        try:
            rows = [conn.execute(sql, (event_id,)).fetchall() for sql in _LEAN_HISTORY_SQL]
        finally:
            conn.execute("ROLLBACK")
    except sqlite3.Error as exc:
        raise classify(exc) from exc
    return _history_from_rows(event_id, rows, _KEPT_BOARDS.made)


_KEPT_BOARDS = Kept(board_from_row, 1 << 15)  # boards without their game's data: 12.5 MiB when full


def _history_from_rows(
    event_id: int,
    rows: Sequence[Sequence[Row]],
    board_of: Callable[[Row], BoardRow] = board_from_row,
) -> History:
    """A history from the rows of `_HISTORY_SQL`'s queries (each entry made once a process, `KEPT_ENTRIES`)."""
    events, entry_rows, rounds, boards, byes, requested, forbidden = rows
    if not events:
        raise NotFound(f"there is no event {event_id}")
    event = event_from_row(events[0])
    entries = [KEPT_ENTRIES.made(r) for r in entry_rows]
    return History(
        event=event,
        numbered=numbered_entries(event, entries),
        rounds=_rounds_from_rows(rounds, boards, byes, board_of),
        requested=_requested_from_rows(requested),
        forbidden=[(int(r[0]), int(r[1])) for r in forbidden],
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
