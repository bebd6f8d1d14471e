"""A clock that moves only when a test says so."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class ManualClock:
    """A clock that moves only when a test says so."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 3, 1, 18, 0, tzinfo=UTC)

    def now(self) -> datetime:
        """The time the test set."""
        return self._now

    def advance(self, seconds: float) -> datetime:
        """Move forward by `seconds` and return the new time."""
        self._now += timedelta(seconds=seconds)
        return self._now

    def set(self, when: datetime) -> None:
        """Jump to `when` (never backwards)."""
        if when > self._now:
            self._now = when

    def wall_seconds(self, until: datetime) -> float:
        """A manual clock never reaches a time by itself: 0 if due, else infinity."""
        return 0.0 if until <= self._now else float("inf")
