"""When rounds start: the round after a finished one, under the event's schedule (interval, fixed times, manual)."""

from __future__ import annotations

from datetime import datetime, timedelta

from domain.event import Event
from domain.settings import Schedule


def next_start(event: Event, finished_round: int, now: datetime) -> datetime | None:
    """When the round after `finished_round` (finished at `now`) starts under the event's schedule (None: manual)."""
    s = event.settings
    if s.schedule is Schedule.INTERVAL and s.round_interval is not None:
        return now + timedelta(seconds=s.round_interval)
    if s.schedule is Schedule.FIXED and finished_round < len(s.round_times):
        return max(now, s.round_times[finished_round])
    return None
