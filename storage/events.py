"""Events: create, read, edit before the start, change status, start (assign starting numbers)."""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import datetime
from typing import Any

from domain.event import EDITABLE, PAIRING_SETTINGS, TRANSITIONS, Event, EventStatus
from domain.fide import TrfHeader
from domain.settings import EarlyDrawPolicy, EventSettings
from pairing.model import Colour
from storage import audit
from storage.db import Connection, Database, Row, execute, fetchall, fetchone, need_time, parse_time, utc_text
from storage.errors import InvalidInput, NotFound, WrongStatus

EVENT_SQL = (
    "SELECT e.*, (SELECT COALESCE(MAX(r.number), 0) FROM rounds r WHERE r.event_id = e.id) AS current_round"
    " FROM events e"
)


def validate_settings(settings: EventSettings) -> None:
    """Refuse settings that cannot describe an event (InvalidInput naming every problem)."""
    problems = settings.problems()
    if problems:
        raise InvalidInput("invalid event settings: " + "; ".join(problems))


def settings_json(settings: EventSettings) -> dict[str, Any]:
    """The settings as plain JSON values (for the audit log and exports)."""
    data = asdict(settings)
    data["start_at"] = utc_text(settings.start_at) if settings.start_at else None
    data["round_times"] = [utc_text(t) for t in settings.round_times]
    data["tiebreaks"] = list(settings.tiebreaks)
    data["rules"] = list(settings.rules)
    data["early_draw_policy"] = settings.early_draw_policy.value
    data["initial_colour"] = settings.initial_colour.value
    data["schedule"] = settings.schedule.value
    return data


def _columns(settings: EventSettings) -> dict[str, object]:
    return {
        "name": settings.name.strip(),
        "guild_id": settings.guild_id,
        "channel_id": settings.channel_id,
        "system": settings.system,
        "rounds": settings.rounds,
        "clock_limit": settings.clock_limit,
        "clock_increment": settings.clock_increment,
        "rated": int(settings.rated),
        "start_at": utc_text(settings.start_at) if settings.start_at else None,
        "round_interval": settings.round_interval,
        "round_times": json.dumps([utc_text(t) for t in settings.round_times]),
        "rating_min": settings.rating_min,
        "rating_max": settings.rating_max,
        "team": settings.team,
        "tiebreaks": json.dumps(list(settings.tiebreaks)),
        "rules": json.dumps(list(settings.rules)),
        "early_draw_policy": settings.early_draw_policy.value,
        "early_draw_moves": settings.early_draw_moves,
        "no_show_seconds": settings.no_show_seconds,
        "reminder_seconds": settings.reminder_seconds,
        "max_byes": settings.max_byes,
        "late_join_bye": int(settings.late_join_bye),
        "acceleration": int(settings.acceleration),
        "acceleration_method": settings.acceleration_method,
        "initial_colour": settings.initial_colour.value,
        "min_rated_games": settings.min_rated_games,
        "lichess_sb": int(settings.lichess_sb),
        "team_boards": settings.team_boards,
        "pairing_review": settings.pairing_review,
        "trf_header": json.dumps(settings.trf_header.as_json()),
    }


def event_from_row(row: Row) -> Event:
    """An events row (selected with EVENT_SQL) as an Event."""
    settings = EventSettings(
        name=row["name"],
        guild_id=int(row["guild_id"]),
        channel_id=int(row["channel_id"]),
        rounds=int(row["rounds"]),
        clock_limit=int(row["clock_limit"]),
        clock_increment=int(row["clock_increment"]),
        rated=bool(row["rated"]),
        system=row["system"],
        start_at=parse_time(row["start_at"]),
        round_interval=row["round_interval"],
        round_times=tuple(need_time(t) for t in json.loads(row["round_times"])),
        rating_min=row["rating_min"],
        rating_max=row["rating_max"],
        team=row["team"],
        tiebreaks=tuple(json.loads(row["tiebreaks"])),
        rules=tuple(json.loads(row["rules"])),
        early_draw_policy=EarlyDrawPolicy(row["early_draw_policy"]),
        early_draw_moves=int(row["early_draw_moves"]),
        no_show_seconds=int(row["no_show_seconds"]),
        reminder_seconds=row["reminder_seconds"],
        max_byes=int(row["max_byes"]),
        late_join_bye=bool(row["late_join_bye"]),
        acceleration=bool(row["acceleration"]),
        acceleration_method=row["acceleration_method"],
        initial_colour=Colour(row["initial_colour"]),
        min_rated_games=row["min_rated_games"],
        lichess_sb=bool(row["lichess_sb"]),
        team_boards=int(row["team_boards"]),
        pairing_review=int(row["pairing_review"]),
        trf_header=TrfHeader.from_json(json.loads(row["trf_header"])),
    )
    return Event(
        id=int(row["id"]),
        settings=settings,
        status=EventStatus(row["status"]),
        created_by=int(row["created_by"]),
        created_at=need_time(row["created_at"]),
        started_at=parse_time(row["started_at"]),
        finished_at=parse_time(row["finished_at"]),
        next_round_at=parse_time(row["next_round_at"]),
        current_round=int(row["current_round"]),
        finish_reason=row["finish_reason"],
        finish_announced_at=parse_time(row["finish_announced_at"]),
    )


async def load_event(conn: Connection, event_id: int) -> Event:
    """The event inside an open transaction; NotFound if there is none."""
    row = await fetchone(conn, EVENT_SQL + " WHERE e.id = ?", (event_id,))
    if row is None:
        raise NotFound(f"there is no event {event_id}")
    return event_from_row(row)


async def create_event(
    db: Database, settings: EventSettings, *, created_by: int, at: datetime, status: EventStatus = EventStatus.DRAFT
) -> Event:
    """Store a new event (draft or open) and log it."""
    validate_settings(settings)
    if status not in (EventStatus.DRAFT, EventStatus.OPEN):
        raise InvalidInput("a new event is a draft or open")
    columns = _columns(settings)
    columns.update(status=status.value, created_by=created_by, created_at=utc_text(at))
    names = ", ".join(columns)
    marks = ", ".join("?" for _ in columns)
    async with db.transaction() as conn:
        event_id = await execute(conn, f"INSERT INTO events ({names}) VALUES ({marks})", list(columns.values()))
        await audit.append(
            conn,
            at=at,
            actor=f"discord:{created_by}",
            action="event.create",
            subject=f"event:{event_id}",
            event_id=event_id,
            after={"settings": settings_json(settings), "status": status.value},
        )
        return await load_event(conn, event_id)


async def get_event(db: Database, event_id: int) -> Event:
    """The event; NotFound if there is none."""
    async with db.snapshot() as conn:
        return await load_event(conn, event_id)


async def list_events(
    db: Database, *, guild_id: int | None = None, statuses: frozenset[EventStatus] | None = None
) -> list[Event]:
    """Events, oldest first, optionally one club's and only some statuses."""
    sql = EVENT_SQL
    where: list[str] = []
    params: list[object] = []
    if guild_id is not None:
        where.append("e.guild_id = ?")
        params.append(guild_id)
    if statuses is not None:
        where.append(f"e.status IN ({', '.join('?' for _ in statuses)})")
        params.extend(sorted(s.value for s in statuses))
    if where:
        sql += " WHERE " + " AND ".join(where)
    async with db.snapshot() as conn:
        rows = await fetchall(conn, sql + " ORDER BY e.id", params)
    return [event_from_row(r) for r in rows]


async def latest_event(db: Database, *, guild_id: int | None = None) -> Event | None:
    """The most recently created event (of one club), or None."""
    events = await list_events(db, guild_id=guild_id)
    return events[-1] if events else None


async def _write_settings(
    conn: Connection, event: Event, settings: EventSettings, *, at: datetime, actor: str, reason: str | None
) -> Event:
    columns = _columns(settings)
    assignments = ", ".join(f"{name} = ?" for name in columns)
    await execute(conn, f"UPDATE events SET {assignments} WHERE id = ?", [*columns.values(), event.id])
    await audit.append(
        conn,
        at=at,
        actor=actor,
        action="event.edit",
        subject=f"event:{event.id}",
        event_id=event.id,
        before=settings_json(event.settings),
        after=settings_json(settings),
        reason=reason,
    )
    return await load_event(conn, event.id)


async def edit_event(
    db: Database, event_id: int, settings: EventSettings, *, at: datetime, actor: str, reason: str | None = None
) -> Event:
    """Replace the settings of an event that has not started (audited, before → after)."""
    validate_settings(settings)
    async with db.transaction() as conn:
        event = await load_event(conn, event_id)
        if event.status not in EDITABLE:
            raise WrongStatus(f"event {event_id} is {event.status.value}: settings change only before the start")
        return await _write_settings(conn, event, settings, at=at, actor=actor, reason=reason)


async def edit_started_event(
    db: Database, event_id: int, settings: EventSettings, *, at: datetime, actor: str, reason: str | None = None
) -> Event:
    """Change the settings of a running or paused event (audited, before → after).

    The pairing system, acceleration and initial colour stay as they were paired, and the event keeps
    at least the rounds already paired; the rest (schedule, clock of the games to come, limits, ...) may change.
    """
    validate_settings(settings)
    async with db.transaction() as conn:
        event = await load_event(conn, event_id)
        if event.status not in (EventStatus.RUNNING, EventStatus.PAUSED):
            raise WrongStatus(f"event {event_id} is {event.status.value}, not running or paused")
        fixed = [name for name in PAIRING_SETTINGS if getattr(settings, name) != getattr(event.settings, name)]
        if fixed:
            raise WrongStatus(f"{', '.join(fixed).replace('_', ' ')} cannot change once the event has started")
        if settings.rounds < event.current_round:
            raise WrongStatus(f"event {event_id} has already paired {event.current_round} rounds")
        return await _write_settings(conn, event, settings, at=at, actor=actor, reason=reason)


async def set_event_status(
    db: Database, event_id: int, status: EventStatus, *, at: datetime, actor: str, reason: str | None = None
) -> Event:
    """Move an event to another status (open, pause, resume, finish, cancel); `start_event` starts it.

    The reason of a finish is kept as the event's `finish_reason`.
    """
    async with db.transaction() as conn:
        event = await load_event(conn, event_id)
        if status is event.status:
            return event
        if status not in TRANSITIONS[event.status]:
            raise WrongStatus(f"event {event_id} is {event.status.value} and cannot become {status.value}")
        finished = utc_text(at) if status in (EventStatus.FINISHED, EventStatus.CANCELLED) else None
        finish_reason = reason if status is EventStatus.FINISHED else None
        await execute(
            conn,
            "UPDATE events SET status = ?, finished_at = COALESCE(?, finished_at),"
            " next_round_at = CASE WHEN ? IS NULL THEN next_round_at END,"
            " finish_reason = COALESCE(?, finish_reason) WHERE id = ?",
            (status.value, finished, finished, finish_reason, event_id),
        )
        await audit.append(
            conn,
            at=at,
            actor=actor,
            action="event.status",
            subject=f"event:{event_id}",
            event_id=event_id,
            before=event.status.value,
            after=status.value,
            reason=reason,
        )
        return await load_event(conn, event_id)


async def mark_finish_announced(db: Database, event_id: int, *, at: datetime) -> Event:
    """Record that a finished event's end and final standings were announced (the first time counts)."""
    async with db.transaction() as conn:
        event = await load_event(conn, event_id)
        if event.status is not EventStatus.FINISHED:
            raise WrongStatus(f"event {event_id} is {event.status.value}, not finished")
        await execute(
            conn,
            "UPDATE events SET finish_announced_at = COALESCE(finish_announced_at, ?) WHERE id = ?",
            (utc_text(at), event_id),
        )
        return await load_event(conn, event_id)


async def finishes_to_announce(db: Database) -> list[Event]:
    """Finished events whose end was not announced yet, oldest first."""
    async with db.snapshot() as conn:
        rows = await fetchall(
            conn, EVENT_SQL + " WHERE e.status = 'finished' AND e.finish_announced_at IS NULL ORDER BY e.id"
        )
    return [event_from_row(r) for r in rows]


async def set_next_round_at(db: Database, event_id: int, when: datetime | None) -> Event:
    """Remember when the next round starts (None: not scheduled), so the scheduler can rebuild."""
    async with db.transaction() as conn:
        await load_event(conn, event_id)
        await execute(
            conn,
            "UPDATE events SET next_round_at = ? WHERE id = ?",
            (utc_text(when) if when else None, event_id),
        )
        return await load_event(conn, event_id)
