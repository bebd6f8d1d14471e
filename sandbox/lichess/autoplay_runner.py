"""Runs the simulated players' plans inside the server: join, play, finish within `delay` seconds."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from aiohttp import web

from sandbox.lichess.autoplay import choose_plan, game_rng, plan_course
from sandbox.lichess.http import STATE
from sandbox.lichess.state import Game, SandboxState


@dataclass
class AutoplaySettings:
    """Whether simulated players play every challenge, and how long a game takes (seconds)."""

    enabled: bool = False
    delay: float = 0.0
    tasks: set[asyncio.Task[None]] = field(default_factory=set)


AUTOPLAY = web.AppKey("autoplay", AutoplaySettings)


def play_now(state: SandboxState, game: Game) -> None:
    """Apply the simulated players' whole plan to `game` at once."""
    rng = game_rng(state.seed, game.white, game.black, game.name)
    plan = choose_plan(rng)
    if not plan.joins:
        return
    state.play(game, plan_course(plan, rng, game.rules))


async def _play_later(state: SandboxState, game: Game, delay: float) -> None:
    rng = game_rng(state.seed, game.white, game.black, game.name)
    plan = choose_plan(rng)
    if not plan.joins:
        return
    await asyncio.sleep(delay * 0.3)
    if game.id not in state.games or game.finished:
        return
    state.start(game)
    course = await asyncio.to_thread(plan_course, plan, rng, game.rules)
    await asyncio.sleep(delay * 0.7)
    if game.id in state.games and not game.finished and not game.moves:
        state.play(game, course)


async def on_challenge_created(app: web.Application, game: Game) -> None:
    """Hand a new challenge to the simulated players, if autoplay is on."""
    settings = app.get(AUTOPLAY)
    if settings is None or not settings.enabled:
        return
    state = app[STATE]
    if settings.delay <= 0:
        play_now(state, game)
        return
    task = asyncio.create_task(_play_later(state, game, settings.delay))
    settings.tasks.add(task)
    task.add_done_callback(settings.tasks.discard)


async def cancel_tasks(app: web.Application) -> None:
    """Stop games still being played (on shutdown)."""
    settings = app.get(AUTOPLAY)
    if settings is None:
        return
    for task in list(settings.tasks):
        task.cancel()
    await asyncio.gather(*settings.tasks, return_exceptions=True)
