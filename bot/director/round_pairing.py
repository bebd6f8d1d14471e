"""A round's pairing, off the event loop: no valid pairing finishes the event; another failure is told and raised.

`pair_round` sends the event's history to a worker process (`bot.workers`), which builds the engine's input,
counts the players to pair, picks the engine and pairs: the history crosses once and only the pairing comes back.
A worker is a fresh interpreter that knows only the systems `pairing.systems` registers at import: it is told
each candidate system's name and engine module (`Candidate`), and a system it does not know the same way (one
registered at run time, as `tests/bot/director/test_adding_a_system.py` does) pairs in a thread here instead.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from bot.director.context import Context
from bot.director.endings import finish_event
from domain.event import Event
from pairing import systems
from pairing.errors import NoValidPairing, PairingError
from pairing.model import Pairing
from storage.history import History, build_tournament

T = TypeVar("T")
TOO_FEW = "not enough players left"


@dataclass(frozen=True)
class Candidate:
    """A system a round may be paired with: its name, its engine's module and, for `auto`, from how many players
    to pair it is chosen (plain data: a worker process gets it)."""

    name: str
    engine_module: str
    auto_from: int = 0


class EngineNotImportable(Exception):
    """The worker does not know a system as this process does (registered here at run time), or cannot import its
    engine's module."""


def candidates(choice: str) -> tuple[Candidate, ...]:
    """The systems an event's choice may pair a round with: the chosen one, or every one `auto` picks from."""
    if choice != systems.AUTO:
        system = systems.of_choice(choice)
        return (Candidate(system.name, system.engine_module),)
    return tuple(
        Candidate(s.name, s.engine_module, s.auto_from) for s in systems.SYSTEMS.values() if s.auto_from is not None
    )


def pair_history(history: History, round_number: int, choices: tuple[Candidate, ...]) -> tuple[str, Pairing] | None:
    """Build the engine's input and pair the round (pure, for a worker): the system used and its pairing, or None
    when fewer than two players are left to pair."""
    known = systems.SYSTEMS  # this process's registry: a worker's holds only the systems registered at import
    if any(c.name not in known or known[c.name].engine_module != c.engine_module for c in choices):
        raise EngineNotImportable(", ".join(f"{c.name} ({c.engine_module})" for c in choices))
    tournament = build_tournament(history)
    players = len(tournament.views(round_number).to_pair())
    if players < 2:
        return None
    chosen = max((c for c in choices if c.auto_from <= players), key=lambda c: c.auto_from)
    try:
        engine: systems.Engine = importlib.import_module(chosen.engine_module).pair
    except ImportError as exc:
        raise EngineNotImportable(f"{chosen.engine_module}: {exc}") from None
    return chosen.name, engine(tournament, round_number)


async def pair_round(ctx: Context, history: History, round_number: int) -> tuple[str, Pairing] | None:
    """Pair a round of an individual event off the loop (a worker process, else a thread): the system used and
    its pairing; None when the event ended instead (too few players left, or no valid pairing)."""
    event = history.event
    choices = candidates(event.settings.system)

    async def run() -> tuple[str, Pairing] | None:
        if all(c.engine_module != "__main__" for c in choices):
            try:
                return await ctx.workers.run(pair_history, history, round_number, choices)
            except EngineNotImportable:
                pass
        return await asyncio.to_thread(pair_history, history, round_number, choices)

    paired = await _finish_or_tell(ctx, event, round_number, run())
    if paired is None:
        return None
    if paired.value is None:
        await finish_event(ctx, event.id, TOO_FEW)
        return None
    return paired.value


async def pair_or_finish(ctx: Context, event: Event, round_number: int, pair: Callable[[], T]) -> T | None:
    """Run a round's pairing in a thread: None when no valid pairing exists, the event then finished; any other
    pairing failure is told to the organisers and raised (the job tries again)."""
    paired = await _finish_or_tell(ctx, event, round_number, asyncio.to_thread(pair))
    return None if paired is None else paired.value


@dataclass(frozen=True)
class _Paired(Generic[T]):
    value: T


async def _finish_or_tell(ctx: Context, event: Event, round_number: int, pairing: Awaitable[T]) -> _Paired[T] | None:
    try:
        return _Paired(await pairing)
    except NoValidPairing:
        await finish_event(ctx, event.id, f"no valid pairing exists for round {round_number}")
        return None
    except PairingError as exc:
        await ctx.announcer.notice(event, f"Round {round_number} could not be paired ({exc}); retrying.")
        raise
