"""The bulk pairing budget of one Lichess token, planned ahead so a 429 stays rare instead of being how the limit
is found.

Lichess allows one token 500 bulk-paired games every 10 minutes, 20 scheduled bulks and 1,000 scheduled games
(`POST /api/bulk-pairing`; a failed bulk is free, a cancelled one is not refunded). Every club and event on the
token share it, so the budget lives with the token's gateway. `plan` is the pure planner: of the games a round
wants in bulks, how many fit now (in bulks of at most 500), how many wait a few seconds for the room the window
will have (a staggered bulk, within the caller's patience) and how many fall back to open challenges, which have
no such limit. `BulkLedger` keeps what the token spent (seeded once from Lichess's own list, so a restart knows the
bulks made before it) and reserves a plan's bulks in the same step as it plans them, so two events planning at
once never both count the same room.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from bot.lichess.payloads import BulkPairing


@dataclass(frozen=True)
class BulkLimits:
    """Lichess's bulk pairing limits per token."""

    games_per_window: int = 500
    window_seconds: float = 600.0
    scheduled_bulks: int = 20
    scheduled_games: int = 1000
    games_per_bulk: int = 500


LICHESS_BULK_LIMITS = BulkLimits()


@dataclass(frozen=True)
class SpentBulk:
    """A bulk Lichess took (or is about to take): when, how many games, and when its games are created (until
    then it counts as scheduled). Times are seconds since the epoch."""

    at: float
    games: int
    pair_at: float


@dataclass(frozen=True)
class BulkPlan:
    """What to do with a round's bulk games now: the sizes of the bulks to send, the games that wait for the room
    the window will have within the caller's patience (sent at the next look), the games that go to open challenges
    instead, and when the 10-minute window has room for the games not sent (None: all fit now, or never in one
    window)."""

    bulks: tuple[int, ...]
    fallback: int
    room_again_at: float | None
    waiting: int = 0

    @property
    def bulked(self) -> int:
        """Games sent in bulks."""
        return sum(self.bulks)


def plan(
    spent: Iterable[SpentBulk],
    games: int,
    now: float,
    limits: BulkLimits = LICHESS_BULK_LIMITS,
    *,
    patience: float = 0.0,
) -> BulkPlan:
    """The plan for `games` more bulk games at `now`, given what the token spent: as many as every limit allows, in
    bulks of at most `games_per_bulk`; the rest wait when the window has room for them within `patience` seconds
    (a staggered bulk), else go to open challenges."""
    spent = list(spent)
    in_window = sorted((s for s in spent if s.at > now - limits.window_seconds), key=lambda s: s.at)
    scheduled = [s for s in spent if s.pair_at > now]
    room = min(
        games,
        limits.games_per_window - sum(s.games for s in in_window),
        limits.scheduled_games - sum(s.games for s in scheduled),
    )
    bulks: list[int] = []
    while room > 0 and len(bulks) + len(scheduled) < limits.scheduled_bulks:
        size = min(room, limits.games_per_bulk)
        bulks.append(size)
        room -= size
    left = games - sum(bulks)
    sent_now = [SpentBulk(now, sum(bulks), now)] if bulks else []
    again = _room_again_at([*in_window, *sent_now], left, limits) if left else None
    if again is not None and again - now <= patience and len(bulks) + len(scheduled) < limits.scheduled_bulks:
        return BulkPlan(tuple(bulks), 0, again, waiting=left)
    return BulkPlan(tuple(bulks), left, again)


def _room_again_at(in_window: Sequence[SpentBulk], wanted: int, limits: BulkLimits) -> float | None:
    """When enough of the window's games have aged out for `wanted` more (None: more than a window holds)."""
    used = sum(s.games for s in in_window)
    if wanted > limits.games_per_window or limits.games_per_window - used >= wanted:
        return None  # more than a window holds, or the window is not what holds them back
    for bulk in in_window:  # oldest first: each frees its games when it ages out
        used -= bulk.games
        if limits.games_per_window - used >= wanted:
            return bulk.at + limits.window_seconds
    return None


class BulkLedger:
    """What one token spent on bulk pairings, and the reservations of the plans made on it."""

    def __init__(self, limits: BulkLimits = LICHESS_BULK_LIMITS, clock: Callable[[], float] = time.time) -> None:
        self.limits = limits
        self.clock = clock
        self.seeded = False
        self._spent: list[SpentBulk] = []

    def __repr__(self) -> str:
        return f"BulkLedger({len(self._spent)} bulks)"

    def seed(self, listed: Iterable[BulkPairing]) -> None:
        """Count the bulks Lichess lists for the token (once: later calls do nothing)."""
        if self.seeded:
            return
        self.seeded = True
        for bulk in listed:
            at = _seconds(bulk.raw.get("scheduledAt"))
            if at is None:
                continue
            pair_at = _seconds(bulk.raw.get("pairAt")) or at
            self._spent.append(SpentBulk(at, len(bulk.games), at if bulk.paired_at is not None else pair_at))

    def take(self, games: int, *, patience: float = 0.0) -> tuple[BulkPlan, list[SpentBulk]]:
        """Plan `games` bulk games now and reserve the plan's bulks (one reservation each, in order)."""
        now = self.clock()
        self._spent = [s for s in self._spent if s.at > now - self.limits.window_seconds or s.pair_at > now]
        decided = plan(self._spent, games, now, self.limits, patience=patience)
        reserved = [SpentBulk(now, size, now) for size in decided.bulks]
        self._spent.extend(reserved)
        return decided, reserved

    def release(self, reservation: SpentBulk) -> None:
        """A bulk Lichess refused did nothing there (a failed bulk is free): its room comes back."""
        if reservation in self._spent:
            self._spent.remove(reservation)

    def exhausted(self) -> None:
        """Lichess answered 429 although the ledger had room (another user of the token): the window counts as full
        from now on."""
        now = self.clock()
        self._spent.append(SpentBulk(now, self.limits.games_per_window, now))


def _seconds(ms: object) -> float | None:
    return ms / 1000 if isinstance(ms, int | float) and not isinstance(ms, bool) else None
