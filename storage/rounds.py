"""Rounds and boards: store a round's pairing, read boards, mark rounds started and finished."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from domain.event import EventStatus
from domain.result import GameStatus
from domain.rounds import BoardRow, RoundRow, RoundStatus, RoundSummary, is_decided
from pairing.model import Pairing, RecordKind
from storage import audit
from storage.db import Connection, Database, Kept, Row, execute, executemany, fetchall, fetchone, utc_text
from storage.entries import last_paired_round
from storage.errors import InvalidPairing, NotFound, RoundIncomplete, RoundNotNext, WrongStatus
from storage.history import (
    BOARD_SQL,
    History,
    board_from_row,
    fixed_records,
    load_history,
    load_rounds,
    round_from_row,
)

# A round's boards without a game's data (not decided, or decided without a game), each made once a process while its
# row stays the same: a round's start reads its boards several times (1,000 of them at 2,000 players).
_KEPT_BOARDS = Kept(board_from_row, 1 << 13)


def _board(row: Row) -> BoardRow:
    return _KEPT_BOARDS.made(row) if row["game_data"] is None else board_from_row(row)


async def load_round(conn: Connection, event_id: int, number: int) -> RoundSummary:
    """One round with its boards and byes inside an open transaction; NotFound if not paired."""
    row = await fetchone(conn, "SELECT * FROM rounds WHERE event_id = ? AND number = ?", (event_id, number))
    if row is None:
        raise NotFound(f"round {number} of event {event_id} is not paired")
    boards = await fetchall(
        conn, BOARD_SQL + " WHERE b.event_id = ? AND b.round = ? ORDER BY b.board_no", (event_id, number)
    )
    byes = await fetchall(
        conn, "SELECT player_id, kind FROM round_byes WHERE event_id = ? AND round = ?", (event_id, number)
    )
    return RoundSummary(
        round_from_row(row),
        tuple(_board(b) for b in boards),
        {int(b["player_id"]): RecordKind(b["kind"]) for b in byes},
    )


async def next_round_number(db: Database, event_id: int) -> int:
    """The round to pair next (1 before any pairing); may exceed the event's rounds when all are paired."""
    async with db.snapshot() as conn:
        return await last_paired_round(conn, event_id) + 1


async def store_pairing(
    db: Database,
    event_id: int,
    round_number: int,
    pairing: Pairing,
    *,
    at: datetime,
    actor: str,
    system: str = "dutch",
    review_until: datetime | None = None,
) -> RoundSummary:
    """Store round `round_number`, paired by `system`: its boards in order, the pairing-allocated bye, and the
    fixed records (requested half-point byes, zero-point byes of players not active), in one transaction; its
    games wait for the organisers' review until `review_until` (None: no hold).

    Storing the same pairing again returns the stored round (restart safety). Refused with
    RoundNotNext unless it is the next round of a running event, RoundIncomplete if
    the previous round has undecided boards, InvalidPairing unless the pairing places exactly the
    players who should play, each once.
    """
    async with db.transaction() as conn:
        history = await load_history(conn, event_id, lean=True)
        check_running(history)
        if (
            history.rounds
            and round_number == history.next_round - 1
            and _same_pairing(history.rounds[-1], pairing, history)
        ):
            return history.rounds[-1]  # stored already (a restart repeating its last step)
        check_next(history, round_number)
        planned = fixed_records(history, round_number)
        joined = {n for n, e in history.numbered.items() if e.joined_round <= round_number}
        _check_pairing(pairing, joined - set(planned))  # a late joiner waiting for the next match has its rows
        byes = dict(planned)
        if pairing.bye is not None:
            byes[pairing.bye] = RecordKind.PAB
        boards = [(b.white, b.black) for b in pairing.boards]
        stored = await insert_round(conn, history, round_number, boards, byes, at=at, actor=actor, system=system)
        if review_until is None:
            return stored
        await execute(
            conn,
            "UPDATE rounds SET review_until = ? WHERE event_id = ? AND number = ?",
            (utc_text(review_until), event_id, round_number),
        )
        return await load_round(conn, event_id, round_number)


async def _insert_boards(
    conn: Connection,
    history: History,
    round_number: int,
    boards: Sequence[tuple[int, int]],
    byes: Mapping[int, RecordKind],
) -> None:
    """Write a round's boards (starting numbers, in board order) and its non-board records."""
    event_id = history.event.id
    ids = {n: e.player.id for n, e in history.numbered.items()}
    await executemany(
        conn,
        "INSERT INTO boards (event_id, round, board_no, white_id, black_id) VALUES (?, ?, ?, ?, ?)",
        [(event_id, round_number, index, ids[w], ids[b]) for index, (w, b) in enumerate(boards, start=1)],
    )
    await executemany(
        conn,
        "INSERT INTO round_byes (event_id, round, player_id, kind) VALUES (?, ?, ?, ?)",
        [(event_id, round_number, ids[n], kind.value) for n, kind in sorted(byes.items())],
    )


async def replace_pairing(
    db: Database,
    event_id: int,
    round_number: int,
    pairing: Pairing,
    *,
    manual: bool,
    at: datetime,
    actor: str,
    reason: str,
) -> RoundSummary:
    """Replace the pairing of the event's last round before any of its games was played, in one transaction: its
    boards, its bye and its fixed records (as the entries and bye requests stand now), `manual` when an organiser
    chose it (not the engine), the audit line with the pairing before and after. Its game attempts go (the
    director cancelled them on Lichess first; the audit line keeps their ids) and it is paired again: not started,
    not announced. WrongStatus unless the round is the last one, running, with no result and no live game."""
    async with db.transaction() as conn:
        history = await load_history(conn, event_id)
        check_running(history)
        if not history.rounds or history.rounds[-1].round.number != round_number:
            raise WrongStatus(f"round {round_number} is not the last paired round")
        current = history.rounds[-1]
        if current.round.status is RoundStatus.FINISHED or any(b.result is not None for b in current.boards):
            raise WrongStatus(f"round {round_number} already has results")
        games = await fetchall(
            conn,
            "SELECT g.id, g.lichess_id, g.status, g.data FROM games g JOIN boards b ON b.id = g.board_id"
            " WHERE b.event_id = ? AND b.round = ?",
            (event_id, round_number),
        )
        live = [str(g["lichess_id"] or g["id"]) for g in games if not _never_began(g["status"], g["data"])]
        if live:
            raise WrongStatus(f"round {round_number} has games on Lichess ({', '.join(live)})")
        earlier = replace(history, rounds=history.rounds[:-1])
        planned = fixed_records(earlier, round_number)
        joined = {n for n, e in history.numbered.items() if e.joined_round <= round_number}
        _check_pairing(pairing, joined - set(planned))
        byes = dict(planned)
        if pairing.bye is not None:
            byes[pairing.bye] = RecordKind.PAB
        ids = {e.player.id: n for n, e in history.numbered.items()}
        before = {
            "boards": [[b.white_number, b.black_number] for b in current.boards],
            "byes": {str(ids[pid]): kind.value for pid, kind in sorted(current.byes.items())},
            "games": [g["lichess_id"] for g in games if g["lichess_id"]],
        }
        game_ids = [(int(g["id"]),) for g in games]
        await executemany(conn, "DELETE FROM bulk_games WHERE game_id = ?", game_ids)
        await executemany(conn, "DELETE FROM games WHERE id = ?", game_ids)
        for table in ("boards", "round_byes"):
            await execute(conn, f"DELETE FROM {table} WHERE event_id = ? AND round = ?", (event_id, round_number))
        boards = [(b.white, b.black) for b in pairing.boards]
        await _insert_boards(conn, history, round_number, boards, byes)
        await execute(
            conn,
            "UPDATE rounds SET status = 'paired', started_at = NULL, pairings_announced_at = NULL, manual = ?"
            " WHERE event_id = ? AND number = ?",
            (int(manual), event_id, round_number),
        )
        after = {"boards": [list(b) for b in boards], "byes": {str(n): k.value for n, k in sorted(byes.items())}}
        await audit.append(
            conn, at=at, actor=actor, action="round.correct", subject=f"round:{round_number}", event_id=event_id,
            before=before, after=after, reason=reason,
        )  # fmt: skip
        return await load_round(conn, event_id, round_number)


async def release_hold(db: Database, event_id: int, round_number: int, *, at: datetime, actor: str) -> RoundSummary:
    """End the review hold of a round's pairing now (an organiser confirmed it); idempotent."""
    async with db.transaction() as conn:
        summary = await load_round(conn, event_id, round_number)
        if summary.round.review_until is None:
            return summary
        await execute(
            conn, "UPDATE rounds SET review_until = NULL WHERE event_id = ? AND number = ?", (event_id, round_number)
        )
        await audit.append(
            conn, at=at, actor=actor, action="round.confirm", subject=f"round:{round_number}", event_id=event_id
        )
        return await load_round(conn, event_id, round_number)


def _never_began(status: str, data: str | None) -> bool:
    """Whether a game attempt never began: aborted, failed, or replaced after Lichess aborted it (its export)."""
    if status in (GameStatus.ABORTED.value, GameStatus.FAILED.value):
        return True
    if status != GameStatus.REPLACED.value or data is None:
        return False
    exported = json.loads(data)
    return isinstance(exported, dict) and exported.get("status") == "aborted"


VOIDABLE = (RecordKind.PAB, RecordKind.HALF_BYE)  # byes worth points, void for a player who left before the round


async def void_byes(
    db: Database, event_id: int, round_number: int, player_ids: Sequence[int], *, at: datetime, actor: str
) -> dict[int, RecordKind]:
    """Turn these players' pairing-allocated or half-point byes of a round into zero-point byes (they left before it
    was played), audited; the byes voided now, by player id, with their former kind (idempotent)."""
    async with db.transaction() as conn:
        summary = await load_round(conn, event_id, round_number)
        voided = {pid: kind for pid, kind in summary.byes.items() if pid in set(player_ids) and kind in VOIDABLE}
        for pid, kind in sorted(voided.items()):
            await execute(
                conn,
                "UPDATE round_byes SET kind = ? WHERE event_id = ? AND round = ? AND player_id = ?",
                (RecordKind.ZERO_BYE.value, event_id, round_number, pid),
            )
            await audit.append(
                conn, at=at, actor=actor, action="bye.void", subject=f"player:{pid}", event_id=event_id,
                before={"round": round_number, "kind": kind.value},
                after={"round": round_number, "kind": RecordKind.ZERO_BYE.value}, reason="left before the round",
            )  # fmt: skip
        return voided


def check_running(history: History) -> None:
    """WrongStatus unless the event is running."""
    event = history.event
    if event.status is not EventStatus.RUNNING:
        raise WrongStatus(f"event {event.settings.name!r} is {event.status.value}, not running")


def check_next(history: History, round_number: int) -> None:
    """RoundNotNext unless `round_number` is the event's next round, RoundIncomplete while the last one is
    undecided."""
    event = history.event
    if round_number != history.next_round:
        raise RoundNotNext(f"round {round_number} is not the next round to pair (that is {history.next_round})")
    if round_number > event.settings.rounds:
        raise RoundNotNext(f"{event.settings.name!r} has only {event.settings.rounds} rounds")
    if history.rounds and not is_decided(history.rounds[-1]):
        raise RoundIncomplete(f"round {round_number - 1} still has games without a result")


async def insert_round(
    conn: Connection,
    history: History,
    round_number: int,
    boards: Sequence[tuple[int, int]],
    byes: Mapping[int, RecordKind],
    *,
    at: datetime,
    actor: str,
    system: str,
) -> RoundSummary:
    """Write a checked round: its row, its boards (White's and Black's starting numbers, in board order), its
    non-board records and the audit line; the stored round."""
    event_id = history.event.id
    await execute(
        conn,
        "INSERT INTO rounds (event_id, number, status, paired_at, system) VALUES (?, ?, 'paired', ?, ?)",
        (event_id, round_number, utc_text(at), system),
    )
    await _insert_boards(conn, history, round_number, boards, byes)
    await audit.append(
        conn,
        at=at,
        actor=actor,
        action="round.pair",
        subject=f"round:{round_number}",
        event_id=event_id,
        after={
            "boards": [[w, b] for w, b in boards],
            "byes": {str(n): kind.value for n, kind in sorted(byes.items())},
        },
    )
    return await load_round(conn, event_id, round_number)


def _same_pairing(stored: RoundSummary, pairing: Pairing, history: History) -> bool:
    boards = tuple((b.white_number, b.black_number) for b in stored.boards)
    ids = {e.player.id: n for n, e in history.numbered.items()}
    pab = [ids.get(pid) for pid, kind in stored.byes.items() if kind is RecordKind.PAB]
    return boards == tuple((b.white, b.black) for b in pairing.boards) and pab == (
        [pairing.bye] if pairing.bye is not None else []
    )


def _check_pairing(pairing: Pairing, expected: set[int]) -> None:
    placed = [n for b in pairing.boards for n in (b.white, b.black)]
    if pairing.bye is not None:
        placed.append(pairing.bye)
    twice = sorted(n for n, times in Counter(placed).items() if times > 1)  # one pass: 2,000 counts took 33 ms
    if twice:
        raise InvalidPairing(f"the pairing places player(s) {twice} more than once")
    missing = sorted(expected - set(placed))
    extra = sorted(set(placed) - expected)
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"leaves out {missing}")
        if extra:
            parts.append(f"places {extra}, who should not play")
        raise InvalidPairing("the pairing " + " and ".join(parts))


async def get_round(db: Database, event_id: int, number: int) -> RoundSummary:
    """A paired round with its boards and byes (by player id); NotFound if not paired."""
    async with db.snapshot() as conn:
        return await load_round(conn, event_id, number)


async def list_rounds(db: Database, event_id: int) -> list[RoundSummary]:
    """Every paired round of an event, in order."""
    async with db.snapshot() as conn:
        return await load_rounds(conn, event_id)


async def load_board(conn: Connection, board_id: int) -> BoardRow:
    """A board inside an open transaction."""
    row = await fetchone(conn, BOARD_SQL + " WHERE b.id = ?", (board_id,))
    if row is None:
        raise NotFound(f"there is no board {board_id}")
    return board_from_row(row)


async def board_by_number(db: Database, event_id: int, round_number: int, board_no: int) -> BoardRow:
    """A board by its place in a round; NotFound if there is none."""
    async with db.snapshot() as conn:
        row = await fetchone(
            conn,
            BOARD_SQL + " WHERE b.event_id = ? AND b.round = ? AND b.board_no = ?",
            (event_id, round_number, board_no),
        )
    if row is None:
        raise NotFound(f"round {round_number} of event {event_id} has no board {board_no}")
    return board_from_row(row)


async def board_of_player(db: Database, event_id: int, round_number: int, player_id: int) -> BoardRow | None:
    """The board a player sits at in a round, or None (a bye, or not paired)."""
    async with db.snapshot() as conn:
        row = await fetchone(
            conn,
            BOARD_SQL + " WHERE b.event_id = ? AND b.round = ? AND (b.white_id = ? OR b.black_id = ?)",
            (event_id, round_number, player_id, player_id),
        )
    return None if row is None else board_from_row(row)


async def boards_of_player(db: Database, event_id: int, player_id: int) -> list[BoardRow]:
    """Every board a player sat at in an event, by round (one read: a player's page needs no other board)."""
    async with db.snapshot() as conn:
        rows = await fetchall(
            conn,
            BOARD_SQL + " WHERE b.event_id = ? AND (b.white_id = ? OR b.black_id = ?) ORDER BY b.round",
            (event_id, player_id, player_id),
        )
    return [board_from_row(row) for row in rows]


async def mark_round_started(db: Database, event_id: int, number: int, *, at: datetime) -> RoundRow:
    """Mark a paired round as being played (idempotent)."""
    async with db.transaction() as conn:
        summary = await load_round(conn, event_id, number)
        if summary.round.status is RoundStatus.PAIRED:
            await execute(
                conn,
                "UPDATE rounds SET status = 'playing', started_at = ? WHERE event_id = ? AND number = ?",
                (utc_text(at), event_id, number),
            )
        return (await load_round(conn, event_id, number)).round


async def finish_round(db: Database, event_id: int, number: int, *, at: datetime, actor: str) -> RoundRow:
    """Mark a round finished once every board has a result (idempotent); RoundIncomplete otherwise."""
    async with db.transaction() as conn:
        summary = await load_round(conn, event_id, number)
        if summary.round.status is RoundStatus.FINISHED:
            return summary.round
        open_boards = [b.board_no for b in summary.boards if b.result is None]
        if open_boards:
            raise RoundIncomplete(f"round {number} still has no result on board(s) {open_boards}")
        await execute(
            conn,
            "UPDATE rounds SET status = 'finished', started_at = COALESCE(started_at, ?), finished_at = ?"
            " WHERE event_id = ? AND number = ?",
            (utc_text(at), utc_text(at), event_id, number),
        )
        await audit.append(
            conn, at=at, actor=actor, action="round.finish", subject=f"round:{number}", event_id=event_id
        )
        return (await load_round(conn, event_id, number)).round


async def last_round(db: Database, event_id: int) -> RoundSummary | None:
    """The latest paired round, or None before round 1."""
    async with db.snapshot() as conn:
        last = await last_paired_round(conn, event_id)
        return None if last == 0 else await load_round(conn, event_id, last)


async def mark_pairings_announced(db: Database, event_id: int, number: int, *, at: datetime) -> RoundRow:
    """Record that a round's pairings were announced (the first time counts)."""
    return await _mark_announced(db, event_id, number, "pairings_announced_at", at)


async def mark_results_announced(db: Database, event_id: int, number: int, *, at: datetime) -> RoundRow:
    """Record that a finished round's results and standings were announced (the first time counts)."""
    return await _mark_announced(db, event_id, number, "results_announced_at", at)


async def _mark_announced(db: Database, event_id: int, number: int, column: str, at: datetime) -> RoundRow:
    async with db.transaction() as conn:
        summary = await load_round(conn, event_id, number)
        if column == "results_announced_at" and summary.round.status is not RoundStatus.FINISHED:
            raise WrongStatus(f"round {number} is not finished")
        await execute(
            conn,
            f"UPDATE rounds SET {column} = COALESCE({column}, ?) WHERE event_id = ? AND number = ?",
            (utc_text(at), event_id, number),
        )
        return (await load_round(conn, event_id, number)).round


async def rounds_to_announce(db: Database) -> list[RoundRow]:
    """Finished rounds (of every event) whose results were not announced yet, by event then round."""
    async with db.snapshot() as conn:
        rows = await fetchall(
            conn,
            "SELECT * FROM rounds WHERE status = 'finished' AND results_announced_at IS NULL ORDER BY event_id, number",
        )
    return [round_from_row(r) for r in rows]
