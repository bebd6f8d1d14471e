"""A round's pairing, run in a thread: no valid pairing finishes the event; another failure is told and raised."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from bot.director.context import Context
from bot.director.endings import finish_event
from domain.event import Event
from pairing.errors import NoValidPairing, PairingError

T = TypeVar("T")


async def pair_or_finish(ctx: Context, event: Event, round_number: int, pair: Callable[[], T]) -> T | None:
    """Run a round's pairing in a thread: None when no valid pairing exists, the event then finished; any other
    pairing failure is told to the organisers and raised (the job tries again)."""
    try:
        return await asyncio.to_thread(pair)
    except NoValidPairing:
        await finish_event(ctx, event.id, f"no valid pairing exists for round {round_number}")
        return None
    except PairingError as exc:
        await ctx.announcer.notice(event, f"Round {round_number} could not be paired ({exc}); retrying.")
        raise
