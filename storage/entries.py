"""Entries (players in events), requested byes and forbidden pairs.

Starting numbers are given once, when the event starts, and never change; a late joiner gets the
next free number. This departs from C.04.2, which re-numbers everyone to insert a late entry at
its rating's place: re-numbering would change numbers already announced in Discord and on
Lichess, so the bot keeps them stable (the pairing engine only needs them to be distinct).
"""

from __future__ import annotations

from datetime import datetime

from domain.entry import (
    BARRED,
    STATUS_OF_VALUE,
    ByeRequest,
    Entry,
    EntryStatus,
    accelerated_group_size,
    first_round_open,
    late_join_records,
    starting_order_key,
)
from domain.event import EDITABLE, JOINABLE, STARTED, Event
from domain.rounds import ByeRefused, match_bye_round
from storage import audit
from storage.db import (
    Connection,
    Database,
    Kept,
    Params,
    Row,
    execute,
    execute_count,
    executemany,
    fetchall,
    fetchone,
    need_time,
    utc_text,
)
from storage.errors import AlreadyJoined, ByeNotAllowed, EntryBarred, InvalidInput, NotFound, WrongStatus
from storage.events import load_event
from storage.players import load_player, player_from_row

_ENTRY_SQL = (
    "SELECT e.*, p.id AS p_id, p.discord_id AS p_discord_id, p.display_name AS p_display_name,"
    " p.lichess_id AS p_lichess_id, p.lichess_name AS p_lichess_name, p.linked_at AS p_linked_at,"
    " p.created_at AS p_created_at, p.fide_id AS p_fide_id, p.federation AS p_federation, p.title AS p_title,"
    " p.birth_year AS p_birth_year FROM entries e JOIN players p ON p.id = e.player_id"
)


def entry_from_row(row: Row) -> Entry:
    """A joined entries+players row as an Entry."""
    return Entry(
        event_id=int(row["event_id"]),
        player=player_from_row(row, "p_"),
        number=None if row["number"] is None else int(row["number"]),
        rating=int(row["rating"]),
        status=STATUS_OF_VALUE[row["status"]],
        joined_round=int(row["joined_round"]),
        late_bye_round=None if row["late_bye_round"] is None else int(row["late_bye_round"]),
        accelerated=bool(row["accelerated"]),
        joined_at=need_time(row["joined_at"]),
    )


def entry_json(entry: Entry) -> dict[str, object]:
    """An entry's own fields as JSON values (for the audit log and exports)."""
    return {
        "player_id": entry.player.id,
        "number": entry.number,
        "rating": entry.rating,
        "status": entry.status.value,
        "joined_round": entry.joined_round,
        "late_bye_round": entry.late_bye_round,
        "accelerated": entry.accelerated,
    }


KEPT_ENTRIES = Kept(entry_from_row, 1 << 13)  # each entry made once a process while its row stays the same


# Every entry of an event (`?`: its id), numbered ones first by number, then by join order.
EVENT_ENTRIES_SQL = _ENTRY_SQL + " WHERE e.event_id = ? ORDER BY e.number IS NULL, e.number, e.joined_at, e.player_id"


async def load_entries(conn: Connection, event_id: int) -> list[Entry]:
    """Every entry of an event, numbered ones first by number, then by join order."""
    return [KEPT_ENTRIES.made(r) for r in await fetchall(conn, EVENT_ENTRIES_SQL, (event_id,))]


async def load_entry(conn: Connection, event_id: int, player_id: int) -> Entry:
    """One entry inside an open transaction; NotFound if the player is not entered."""
    row = await fetchone(conn, _ENTRY_SQL + " WHERE e.event_id = ? AND e.player_id = ?", (event_id, player_id))
    if row is None:
        raise NotFound(f"player {player_id} is not entered in event {event_id}")
    return entry_from_row(row)


async def last_paired_round(conn: Connection, event_id: int) -> int:
    """The highest round number stored for the event (0 before round 1)."""
    row = await fetchone(conn, "SELECT COALESCE(MAX(number), 0) FROM rounds WHERE event_id = ?", (event_id,))
    return int(row[0]) if row is not None else 0


async def join_event(
    db: Database,
    event_id: int,
    player_id: int,
    rating: int,
    *,
    at: datetime,
    actor: str,
    late_bye_round: int | None = None,
) -> Entry:
    """Enter a player (or bring back a withdrawn or absent one); AlreadyJoined if already active.

    After the start, a new entry gets the next free starting number, is paired from the next round
    on, and every round already paired is recorded for it as 'not paired', except `late_bye_round`
    (the director's choice of one missed round) which becomes a half-point bye.
    """
    async with db.transaction() as conn:
        event = await load_event(conn, event_id)
        if event.status not in JOINABLE:
            raise WrongStatus(f"event {event.settings.name!r} is {event.status.value}: joining is closed")
        await load_player(conn, player_id)
        row = await fetchone(conn, _ENTRY_SQL + " WHERE e.event_id = ? AND e.player_id = ?", (event_id, player_id))
        started = event.status in STARTED
        next_round = first_round_open(event)
        if row is not None:
            old = entry_from_row(row)
            if old.status is EntryStatus.ACTIVE:
                raise AlreadyJoined(f"you are already in {event.settings.name!r}")
            if old.status in BARRED:
                raise EntryBarred(f"you were {old.status.value} from {event.settings.name!r} and cannot rejoin")
            if late_bye_round is not None:
                raise InvalidInput("a late-join bye is only for a first entry")
            if started and old.number is None:
                await _number_late_entry(conn, event, player_id, next_round, None)
            await execute(
                conn,
                "UPDATE entries SET status = 'active' WHERE event_id = ? AND player_id = ?",
                (event_id, player_id),
            )
            new = await load_entry(conn, event_id, player_id)
            await audit.append(
                conn,
                at=at,
                actor=actor,
                action="entry.rejoin",
                subject=f"player:{player_id}",
                event_id=event_id,
                before=entry_json(old),
                after=entry_json(new),
            )
            return new
        if started and next_round > event.settings.rounds:
            raise WrongStatus(f"every round of {event.settings.name!r} is already paired")
        if late_bye_round is not None and not (started and 1 <= late_bye_round < next_round):
            raise InvalidInput(f"a late-join bye must be for a round already paired (1..{next_round - 1})")
        await execute(
            conn,
            "INSERT INTO entries (event_id, player_id, rating, status, joined_round, joined_at)"
            " VALUES (?, ?, ?, 'active', ?, ?)",
            (event_id, player_id, rating, next_round if started else 1, utc_text(at)),
        )
        if started:
            await _number_late_entry(conn, event, player_id, next_round, late_bye_round)
        new = await load_entry(conn, event_id, player_id)
        await audit.append(
            conn,
            at=at,
            actor=actor,
            action="entry.join",
            subject=f"player:{player_id}",
            event_id=event_id,
            after=entry_json(new),
        )
        return new


async def set_entry_rating(
    db: Database, event_id: int, player_id: int, rating: int, *, at: datetime, actor: str, reason: str | None = None
) -> Entry:
    """Update an entry's rating (before the start: the ratings at the start seed the event); audited."""
    async with db.transaction() as conn:
        old = await load_entry(conn, event_id, player_id)
        if old.rating == rating:
            return old
        if old.number is not None:
            raise WrongStatus("starting numbers are given: the rating that seeded them stays")
        await execute(
            conn, "UPDATE entries SET rating = ? WHERE event_id = ? AND player_id = ?", (rating, event_id, player_id)
        )
        await audit.append(
            conn,
            at=at,
            actor=actor,
            action="entry.rating",
            subject=f"player:{player_id}",
            event_id=event_id,
            before=old.rating,
            after=rating,
            reason=reason,
        )
        return await load_entry(conn, event_id, player_id)


async def _number_late_entry(
    conn: Connection, event: Event, player_id: int, next_round: int, late_bye_round: int | None
) -> None:
    row = await fetchone(conn, "SELECT COALESCE(MAX(number), 0) FROM entries WHERE event_id = ?", (event.id,))
    number = (int(row[0]) if row is not None else 0) + 1
    accelerated = False
    if event.settings.acceleration:
        # Group A ends with the same person as at the start (C.04.7): a late joiner who sorts
        # before that player is in group A.
        entries = await load_entries(conn, event.id)
        group_a = [e for e in entries if e.accelerated and e.number is not None]
        me = await load_entry(conn, event.id, player_id)
        if group_a:
            boundary = max(group_a, key=lambda e: e.number or 0)
            accelerated = starting_order_key(me) < starting_order_key(boundary)
    await execute(
        conn,
        "UPDATE entries SET number = ?, accelerated = ?, joined_round = ?, late_bye_round = ?"
        " WHERE event_id = ? AND player_id = ?",
        (number, int(accelerated), next_round, late_bye_round, event.id, player_id),
    )
    missed = [
        (event.id, r, player_id, kind.value) for r, kind in late_join_records(event, next_round, late_bye_round).items()
    ]
    if missed:
        await executemany(conn, "INSERT INTO round_byes (event_id, round, player_id, kind) VALUES (?, ?, ?, ?)", missed)


async def get_entry(db: Database, event_id: int, player_id: int) -> Entry:
    """A player's entry; NotFound if the player is not entered."""
    async with db.snapshot() as conn:
        return await load_entry(conn, event_id, player_id)


async def find_entry(db: Database, event_id: int, player_id: int) -> Entry | None:
    """A player's entry, or None."""
    try:
        return await get_entry(db, event_id, player_id)
    except NotFound:
        return None


async def list_entries(db: Database, event_id: int) -> list[Entry]:
    """Every entry of an event (withdrawn ones too), numbered ones first by number."""
    async with db.snapshot() as conn:
        await load_event(conn, event_id)
        return await load_entries(conn, event_id)


async def entry_by_number(db: Database, event_id: int, number: int) -> Entry:
    """The entry with a starting number; NotFound if none has it."""
    async with db.snapshot() as conn:
        row = await fetchone(conn, _ENTRY_SQL + " WHERE e.event_id = ? AND e.number = ?", (event_id, number))
    if row is None:
        raise NotFound(f"event {event_id} has no player number {number}")
    return entry_from_row(row)


async def set_entry_status(
    db: Database,
    event_id: int,
    player_id: int,
    status: EntryStatus,
    *,
    at: datetime,
    actor: str,
    reason: str | None = None,
) -> Entry:
    """Withdraw, mark absent, ban, disqualify or reinstate a player (audited).

    Rounds already paired keep their records; from the next pairing on, a player who is not active
    gets a zero-point bye.
    """
    async with db.transaction() as conn:
        event = await load_event(conn, event_id)
        old = await load_entry(conn, event_id, player_id)
        if old.status is status:
            return old
        if status is EntryStatus.ACTIVE and event.status in STARTED and old.number is None:
            raise WrongStatus("a player who left before the start comes back by joining again")
        await execute(
            conn,
            "UPDATE entries SET status = ? WHERE event_id = ? AND player_id = ?",
            (status.value, event_id, player_id),
        )
        new = await load_entry(conn, event_id, player_id)
        await audit.append(
            conn,
            at=at,
            actor=actor,
            action="entry.status",
            subject=f"player:{player_id}",
            event_id=event_id,
            before=old.status.value,
            after=new.status.value,
            reason=reason,
        )
        return new


def _bye_from_row(row: Row) -> ByeRequest:
    return ByeRequest(
        event_id=int(row["event_id"]),
        player_id=int(row["player_id"]),
        round=int(row["round"]),
        requested_at=need_time(row["requested_at"]),
    )


def _match_bye_round(event: Event, round_number: int) -> int:
    try:
        return match_bye_round(event, round_number)
    except ByeRefused as exc:
        raise ByeNotAllowed(str(exc)) from None


async def request_bye(
    db: Database, event_id: int, player_id: int, round_number: int, *, at: datetime, actor: str
) -> ByeRequest:
    """Request a half-point bye for a round not yet paired, within the event's limit per player."""
    async with db.transaction() as conn:
        event = await load_event(conn, event_id)
        entry = await load_entry(conn, event_id, player_id)
        if entry.status is not EntryStatus.ACTIVE:
            raise ByeNotAllowed(f"you are {entry.status.value} in {event.settings.name!r}")
        if not 1 <= round_number <= event.settings.rounds:
            raise ByeNotAllowed(f"{event.settings.name!r} has rounds 1 to {event.settings.rounds}")
        round_number = _match_bye_round(event, round_number)
        if round_number <= event.current_round:
            raise ByeNotAllowed(f"round {round_number} is already paired")
        existing = await fetchall(
            conn, "SELECT * FROM bye_requests WHERE event_id = ? AND player_id = ?", (event_id, player_id)
        )
        for row in existing:
            if int(row["round"]) == round_number:
                return _bye_from_row(row)
        if len(existing) >= event.settings.max_byes:
            raise ByeNotAllowed(f"the limit is {event.settings.max_byes} requested bye(s) per player")
        await execute(
            conn,
            "INSERT INTO bye_requests (event_id, player_id, round, requested_at) VALUES (?, ?, ?, ?)",
            (event_id, player_id, round_number, utc_text(at)),
        )
        await audit.append(
            conn,
            at=at,
            actor=actor,
            action="bye.request",
            subject=f"player:{player_id}",
            event_id=event_id,
            after={"round": round_number},
        )
        return ByeRequest(event_id, player_id, round_number, need_time(utc_text(at)))


async def cancel_bye(
    db: Database, event_id: int, player_id: int, round_number: int, *, at: datetime, actor: str
) -> bool:
    """Withdraw a bye request for a round not yet paired; False if there was none."""
    async with db.transaction() as conn:
        event = await load_event(conn, event_id)
        round_number = _match_bye_round(event, round_number)
        if round_number <= event.current_round:
            raise ByeNotAllowed(f"round {round_number} is already paired")
        return await _delete_audited(
            conn,
            "DELETE FROM bye_requests WHERE event_id = ? AND player_id = ? AND round = ?",
            (event_id, player_id, round_number),
            at=at,
            actor=actor,
            action="bye.cancel",
            subject=f"player:{player_id}",
            event_id=event_id,
            before={"round": round_number},
        )


async def bye_requests(db: Database, event_id: int, *, player_id: int | None = None) -> list[ByeRequest]:
    """Requested byes of an event (of one player), by round."""
    sql = "SELECT * FROM bye_requests WHERE event_id = ?"
    params: list[object] = [event_id]
    if player_id is not None:
        sql += " AND player_id = ?"
        params.append(player_id)
    async with db.snapshot() as conn:
        rows = await fetchall(conn, sql + " ORDER BY round, player_id", params)
    return [_bye_from_row(r) for r in rows]


async def add_forbidden_pair(
    db: Database, event_id: int, player_a: int, player_b: int, *, at: datetime, actor: str, reason: str | None = None
) -> bool:
    """Forbid two players to be paired in the event; False if it already was."""
    if player_a == player_b:
        raise InvalidInput("a forbidden pair needs two different players")
    low, high = sorted((player_a, player_b))
    async with db.transaction() as conn:
        await load_event(conn, event_id)
        await load_player(conn, low)
        await load_player(conn, high)
        found = await fetchone(
            conn,
            "SELECT 1 FROM forbidden_pairs WHERE event_id = ? AND player_a = ? AND player_b = ?",
            (event_id, low, high),
        )
        if found is not None:
            return False
        await execute(
            conn,
            "INSERT INTO forbidden_pairs (event_id, player_a, player_b, created_at) VALUES (?, ?, ?, ?)",
            (event_id, low, high, utc_text(at)),
        )
        await audit.append(
            conn,
            at=at,
            actor=actor,
            action="forbidden.add",
            subject=f"players:{low},{high}",
            event_id=event_id,
            after=[low, high],
            reason=reason,
        )
        return True


async def remove_forbidden_pair(
    db: Database, event_id: int, player_a: int, player_b: int, *, at: datetime, actor: str, reason: str | None = None
) -> bool:
    """Allow two players to meet again; False if they were not forbidden."""
    low, high = sorted((player_a, player_b))
    async with db.transaction() as conn:
        return await _delete_audited(
            conn,
            "DELETE FROM forbidden_pairs WHERE event_id = ? AND player_a = ? AND player_b = ?",
            (event_id, low, high),
            at=at,
            actor=actor,
            action="forbidden.remove",
            subject=f"players:{low},{high}",
            event_id=event_id,
            before=[low, high],
            reason=reason,
        )


async def forbidden_pairs(db: Database, event_id: int) -> list[tuple[int, int]]:
    """The event's forbidden pairs as (player id, player id), lower id first."""
    async with db.snapshot() as conn:
        rows = await fetchall(
            conn,
            "SELECT player_a, player_b FROM forbidden_pairs WHERE event_id = ? ORDER BY player_a, player_b",
            (event_id,),
        )
    return [(int(r[0]), int(r[1])) for r in rows]


async def _delete_audited(
    conn: Connection,
    sql: str,
    params: Params,
    *,
    at: datetime,
    actor: str,
    action: str,
    subject: str,
    event_id: int,
    before: audit.Jsonable,
    reason: str | None = None,
) -> bool:
    """Run a DELETE and, if it removed anything, log `action` with what was removed as `before`; whether it did."""
    if await execute_count(conn, sql, params) == 0:
        return False
    await audit.append(
        conn, at=at, actor=actor, action=action, subject=subject, event_id=event_id, before=before, reason=reason
    )
    return True


async def start_event(db: Database, event_id: int, *, at: datetime, actor: str) -> list[Entry]:
    """Start the event: give starting numbers to the active entries and mark it running.

    Numbers follow rating at entry (descending), then name. With acceleration on, the first
    2·⌈N/4⌉ numbers form group A. Returns the numbered entries.
    """
    async with db.transaction() as conn:
        event = await load_event(conn, event_id)
        if event.status not in EDITABLE:
            raise WrongStatus(f"event {event_id} is {event.status.value} and cannot be started")
        active = [e for e in await load_entries(conn, event_id) if e.status is EntryStatus.ACTIVE]
        if len(active) < 2:
            raise WrongStatus(f"event {event_id} has {len(active)} active players; two are needed to start")
        active.sort(key=starting_order_key)
        method = event.settings.acceleration_method
        group_a = accelerated_group_size(len(active), method) if event.settings.acceleration else 0
        for number, entry in enumerate(active, start=1):
            await execute(
                conn,
                "UPDATE entries SET number = ?, accelerated = ? WHERE event_id = ? AND player_id = ?",
                (number, int(number <= group_a), event_id, entry.player.id),
            )
        await execute(
            conn,
            "UPDATE events SET status = 'running', started_at = ? WHERE id = ?",
            (utc_text(at), event_id),
        )
        await audit.append(
            conn,
            at=at,
            actor=actor,
            action="event.start",
            subject=f"event:{event_id}",
            event_id=event_id,
            before=event.status.value,
            after={"numbers": {str(e.player.id): n for n, e in enumerate(active, start=1)}, "group_a": group_a},
        )
        return [e for e in await load_entries(conn, event_id) if e.number is not None]
