"""Parsing the text options of organiser commands (times, lists) into event settings."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from bot.errors import InvalidSetting
from domain.settings import DEFAULT_ROUND_INTERVAL, EarlyDrawPolicy, EventSettings, Schedule

TIME_FORMATS = ("%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S")
DISCORD_TIMESTAMP = re.compile(r"^<t:(-?\d+)(?::[tTdDfFR])?>$")


def parse_when(text: str) -> datetime:
    """A time in UTC from 'YYYY-MM-DD HH:MM' (UTC), a Discord timestamp '<t:…>' or Unix seconds."""
    value = text.strip().removesuffix("UTC").removesuffix("Z").strip()
    match = DISCORD_TIMESTAMP.match(value)
    if match or value.isdigit():
        digits = match.group(1) if match else value
        try:
            return datetime.fromtimestamp(int(digits), UTC)
        except (OverflowError, OSError, ValueError):
            raise InvalidSetting(
                f"'{clip(text)}' is not a time we can use: it is out of range. Write YYYY-MM-DD HH:MM (UTC) "
                "or paste a Discord timestamp."
            ) from None
    for fmt in TIME_FORMATS:
        try:
            return datetime.strptime(value, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    raise InvalidSetting(
        f"'{clip(text)}' is not a time we can use: write YYYY-MM-DD HH:MM (UTC) or paste a Discord timestamp."
    )


def clip(text: str, limit: int = 40) -> str:
    """User input quoted back, cut short (a reply is one line)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def parse_times(text: str) -> tuple[datetime, ...]:
    """Several times separated by commas or semicolons."""
    parts = [part for part in re.split(r"[;,]", text) if part.strip()]
    return tuple(sorted(parse_when(part) for part in parts))


def parse_codes(text: str) -> tuple[str, ...]:
    """Tie-break codes separated by commas or spaces (e.g. 'BH/C1, BH, SB')."""
    codes = tuple(code.strip().upper() for code in re.split(r"[,\s]+", text) if code.strip())
    if not codes:
        raise InvalidSetting("Give at least one tie-break code, e.g. 'BH/C1, BH, SB'.")
    return codes


def settings_changes(
    *,
    minutes: float | None = None,
    increment: int | None = None,
    rated: bool | None = None,
    system: str | None = None,
    start: str | None = None,
    schedule: str | None = None,
    interval: float | None = None,
    fixed_times: str | None = None,
    rating_min: int | None = None,
    rating_max: int | None = None,
    team: str | None = None,
    tiebreaks: str | None = None,
    max_byes: int | None = None,
    accelerated: bool | None = None,
    acceleration: str | None = None,
    early_draw: str | None = None,
    noshow: float | None = None,
    reminder: float | None = None,
    min_games: int | None = None,
    late_join_bye: bool | None = None,
    lichess_sb: bool | None = None,
    boards: int | None = None,
) -> dict[str, Any]:
    """The `EventSettings` fields an organiser's options set (options left empty change nothing)."""
    changes: dict[str, Any] = {}
    numbers = {"minutes": minutes, "interval": interval, "noshow": noshow, "reminder": reminder}
    for option, value in numbers.items():
        if value is not None and not math.isfinite(value):
            raise InvalidSetting(f"{option}: {value} is not a number of minutes.")
    if minutes is not None:
        seconds = round(minutes * 60)
        if abs(seconds - minutes * 60) > 1e-6:
            raise InvalidSetting("The clock must be a whole number of seconds.")
        changes["clock_limit"] = seconds
    plain = {
        "clock_increment": increment,
        "rated": rated,
        "system": system,
        "round_interval": _seconds(interval),
        "rating_min": rating_min,
        "rating_max": rating_max,
        "max_byes": max_byes,
        "acceleration": accelerated,
        "no_show_seconds": _seconds(noshow),
        "reminder_seconds": _seconds(reminder),
        "late_join_bye": late_join_bye,
        "lichess_sb": lichess_sb,
        "team_boards": boards,
    }
    changes.update({key: value for key, value in plain.items() if value is not None})
    if start is not None:
        changes["start_at"] = parse_when(start)
    if interval is not None:
        changes["schedule"] = Schedule.INTERVAL
    if fixed_times is not None:
        changes["round_times"] = parse_times(fixed_times)
        changes["schedule"] = Schedule.FIXED
    if schedule is not None:
        changes["schedule"] = Schedule(schedule)
        if interval is not None and changes["schedule"] is not Schedule.INTERVAL:
            raise InvalidSetting(f"interval: {interval:g} cannot apply with schedule: {schedule} (drop one of them).")
        if fixed_times is not None and changes["schedule"] is not Schedule.FIXED:
            raise InvalidSetting(f"fixed-times cannot apply with schedule: {schedule} (drop one of them).")
    if min_games is not None:
        changes["min_rated_games"] = min_games or None
    if team is not None:
        changes["team"] = team.strip() or None
    if tiebreaks is not None:
        changes["tiebreaks"] = parse_codes(tiebreaks)
    if early_draw is not None:
        changes["early_draw_policy"] = EarlyDrawPolicy(early_draw)
    if acceleration is not None:  # a method chosen: the event is accelerated unless the organiser says it is not
        changes["acceleration_method"] = acceleration
        changes.setdefault("acceleration", True)
    return changes  # the settings these make are checked as a whole (EventSettings.problems)


def apply_changes(
    settings: EventSettings, changes: dict[str, Any], *, default_interval: int = DEFAULT_ROUND_INTERVAL
) -> EventSettings:
    """`settings` with the changes applied (a `schedule` change last, so it keeps a new interval or times; a
    switch to the interval schedule without one gets `default_interval` seconds)."""
    fields = dict(changes)
    schedule = fields.pop("schedule", None)
    changed = replace(settings, **fields)
    if schedule is Schedule.FIXED and not changed.round_times:
        raise InvalidSetting("schedule: fixed needs fixed-times, one start time a round (YYYY-MM-DD HH:MM UTC).")
    if "team_boards" in fields and not _team_system(changed):
        raise InvalidSetting(f"boards: {fields['team_boards']} applies only to a team event (system: team).")
    return changed if schedule is None else changed.with_schedule(schedule, default_interval)


def _team_system(settings: EventSettings) -> bool:
    """Whether the settings' system is a team system (an unknown system is refused later, with its sentence)."""
    try:
        return settings.pairing_system.team
    except ValueError:
        return True


def _seconds(minutes: float | None) -> int | None:
    return None if minutes is None else round(minutes * 60)


ACCELERATION_NAMES = {"baku": "Baku", "us-28r1": "US Chess 28R1", "us-28r2": "US Chess 28R2"}


def describe_settings(settings: EventSettings) -> str:
    """A short summary of an event's settings for a confirmation message."""
    minutes = settings.clock_limit / 60
    clock = f"{minutes:g}+{settings.clock_increment}"
    parts = [f"{settings.rounds} rounds", f"{clock} ({settings.speed})", "rated" if settings.rated else "casual"]
    if settings.rating_min is not None or settings.rating_max is not None:
        low = settings.rating_min if settings.rating_min is not None else "any"
        high = settings.rating_max if settings.rating_max is not None else "any"
        parts.append(f"rating {low} to {high}")
    if settings.min_rated_games:
        parts.append(f"at least {settings.min_rated_games} rated {settings.speed} games")
    if settings.lichess_sb:
        parts.append("SB as on Lichess")
    if settings.pairing_system.team:
        parts.append(f"teams of {settings.team_boards} boards")
    if settings.start_at:
        parts.append(f"starts <t:{int(settings.start_at.timestamp())}:f>")
    parts.append(f"rounds: {settings.schedule.value}")
    if settings.team:
        parts.append(f"team {settings.team}")
    if settings.acceleration:
        method = settings.acceleration_method
        parts.append(f"{ACCELERATION_NAMES.get(method, method)} acceleration")
    if settings.reminder_seconds == 0:
        parts.append("no reminder")
    elif settings.reminder_seconds is not None:
        parts.append(f"reminder {settings.reminder_seconds / 60:g} min before each round")
    return ", ".join(parts)
