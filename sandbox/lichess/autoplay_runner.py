"""Runs the simulated players' plans inside the server: join, play, finish within `delay` seconds."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field

from aiohttp import web

from sandbox.lichess.autoplay import Plan, choose_plan, game_rng, plan_course
from sandbox.lichess.games import Course, plan_game
from sandbox.lichess.http import STATE
from sandbox.lichess.state import Game, SandboxState


@dataclass
class AutoplaySettings:
    """Whether simulated players play every challenge, and how long a game takes (seconds)."""

    enabled: bool = False
    delay: float = 0.0
    tasks: set[asyncio.Task[None]] = field(default_factory=set)


AUTOPLAY = web.AppKey("autoplay", AutoplaySettings)


def _absent(state: SandboxState, uid: str) -> bool:
    user = state.users.get(uid)
    return user is not None and user.absent


def _plan(state: SandboxState, game: Game) -> tuple[Plan, random.Random]:
    """The simulated players' plan; a bulk game's key is its id (it has no name), and absent players never move."""
    rng = game_rng(state.seed, game.white, game.black, game.id if game.bulk else game.name)
    plan = choose_plan(rng)
    white_absent, black_absent = _absent(state, game.white), _absent(state, game.black)
    if game.bulk is not None and (white_absent or black_absent or not plan.joins):
        # a bulk game exists at once: nobody turning up is a game nobody moves in
        plies = 1 if black_absent and not white_absent else 0
        return Plan("absent", True, "started", None, plies), rng
    if game.bulk is None and (white_absent or black_absent):
        return Plan("absent", False, "created", None, 0), rng  # an absent player never joins a challenge
    return plan, rng


def _course(plan: Plan, rng: random.Random, game: Game) -> Course:
    if plan.kind == "absent":
        return plan_game(rng, status="started", winner=None, plies=plan.plies)
    return plan_course(plan, rng, game.rules)


def play_now(state: SandboxState, game: Game) -> None:
    """Apply the simulated players' whole plan to `game` at once."""
    plan, rng = _plan(state, game)
    if not plan.joins:
        return
    state.play(game, _course(plan, rng, game))


async def _play_later(state: SandboxState, game: Game, delay: float) -> None:
    plan, rng = _plan(state, game)
    if not plan.joins:
        return
    await asyncio.sleep(delay * 0.3)
    if game.id not in state.games or game.finished:
        return
    state.start(game)
    course = await asyncio.to_thread(_course, plan, rng, game)
    await asyncio.sleep(delay * 0.7)
    if game.id in state.games and not game.finished and not game.moves:
        state.play(game, course)


async def on_challenge_created(app: web.Application, game: Game) -> None:
    """Hand a new challenge to the simulated players, if autoplay is on."""
    settings = app.get(AUTOPLAY)
    if settings is not None:
        hand_over(app[STATE], settings, game)


def hand_over(state: SandboxState, settings: AutoplaySettings, game: Game) -> None:
    """Give a new challenge (or a bulk's game) to the simulated players, if autoplay is on."""
    if not settings.enabled:
        return
    if settings.delay <= 0:
        play_now(state, game)
        return
    task = asyncio.create_task(_play_later(state, game, settings.delay))
    settings.tasks.add(task)
    task.add_done_callback(settings.tasks.discard)


async def on_games_paired(app: web.Application, games: list[Game]) -> None:
    """Hand the games a bulk pairing created to the simulated players, if autoplay is on."""
    for game in games:
        await on_challenge_created(app, game)


async def tick(app: web.Application) -> None:
    """Let the sandbox's time act, and hand games a bulk created to the simulated players."""
    paired = app[STATE].tick()
    if paired:
        await on_games_paired(app, paired)


def tick_state(state: SandboxState, settings: AutoplaySettings) -> None:
    """`tick` without an application: time acts, a bulk's new games go to the simulated players."""
    for game in state.tick():
        hand_over(state, settings, game)


async def cancel_tasks(app: web.Application) -> None:
    """Stop games still being played (on shutdown)."""
    settings = app.get(AUTOPLAY)
    if settings is not None:
        await stop_games(settings)


async def stop_games(settings: AutoplaySettings) -> None:
    """Cancel the games the simulated players are still playing."""
    for task in list(settings.tasks):
        task.cancel()
    await asyncio.gather(*settings.tasks, return_exceptions=True)
