"""The scenario's clock: event time that moves only when the runner moves it, read as wall time by the scheduler."""

from __future__ import annotations

from datetime import datetime, timedelta


class ScenarioClock:
    """A clock the runner sets; `wall_seconds` answers as the real clock would, so the scheduler plans real delays."""

    def __init__(self, start: datetime) -> None:
        self._now = start

    def now(self) -> datetime:
        """The scenario's current time."""
        return self._now

    def set(self, when: datetime) -> None:
        """Jump to `when` (never backwards)."""
        if when > self._now:
            self._now = when

    def advance(self, seconds: float) -> datetime:
        """Move forward by `seconds`; the new time."""
        self._now += timedelta(seconds=seconds)
        return self._now

    def wall_seconds(self, until: datetime) -> float:
        """Seconds until `until` (0 if it has passed), as on a real clock."""
        return max(0.0, (until - self._now).total_seconds())
