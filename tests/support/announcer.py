"""An announcer that records every call, for tests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.director.models import RoundView, StandingRow
from domain.event import Event


@dataclass
class RecordingAnnouncer:
    """Keeps every call (tests): `calls` holds (method name, arguments)."""

    calls: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)

    def of(self, name: str) -> list[tuple[Any, ...]]:
        """The arguments of every call to `name`."""
        return [args for called, args in self.calls if called == name]

    async def event_opened(self, event: Event) -> None:
        """Record."""
        self.calls.append(("event_opened", (event,)))

    async def round_paired(self, event: Event, round: RoundView) -> None:
        """Record."""
        self.calls.append(("round_paired", (event, round)))

    async def results_updated(self, event: Event, round: RoundView) -> None:
        """Record."""
        self.calls.append(("results_updated", (event, round)))

    async def standings(self, event: Event, rows: Sequence[StandingRow], final: bool) -> None:
        """Record."""
        self.calls.append(("standings", (event, tuple(rows), final)))

    async def event_finished(self, event: Event, rows: Sequence[StandingRow], reason: str) -> None:
        """Record."""
        self.calls.append(("event_finished", (event, tuple(rows), reason)))

    async def bulletin(self, event: Event, text: str) -> None:
        """Record."""
        self.calls.append(("bulletin", (event, text)))

    async def notice(self, event: Event, text: str) -> None:
        """Record."""
        self.calls.append(("notice", (event, text)))

    async def dm(self, discord_id: int, text: str) -> None:
        """Record."""
        self.calls.append(("dm", (discord_id, text)))
