"""Clocks: every time the director records comes from one, so tests and the demo can control time."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    """Event time (UTC, timezone-aware) and how long a stretch of event time takes on the wall."""

    def now(self) -> datetime:
        """The current event time."""
        ...

    def wall_seconds(self, until: datetime) -> float:
        """Wall-clock seconds until the event time `until` (0 if it has passed)."""
        ...


class SystemClock:
    """The real time."""

    def now(self) -> datetime:
        """The current UTC time."""
        return datetime.now(UTC)

    def wall_seconds(self, until: datetime) -> float:
        """Seconds until `until`."""
        return max(0.0, (until - self.now()).total_seconds())


class FastClock:
    """Event time running `speed` times faster than the wall, from `start` (the demo)."""

    def __init__(self, speed: float, start: datetime | None = None) -> None:
        if speed <= 0:
            raise ValueError("speed must be positive")
        self.speed = speed
        self._start = start or datetime.now(UTC)
        self._wall_start = time.monotonic()

    def now(self) -> datetime:
        """The start plus the elapsed wall time times the speed."""
        return self._start + timedelta(seconds=(time.monotonic() - self._wall_start) * self.speed)

    def wall_seconds(self, until: datetime) -> float:
        """Event seconds until `until`, divided by the speed."""
        return max(0.0, (until - self.now()).total_seconds() / self.speed)
