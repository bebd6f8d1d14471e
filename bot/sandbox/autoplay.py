"""Simulated players: how a challenged pair plays its game, decided by the seed, the players and the name."""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from bot.sandbox.games import Color, Course, plan_game


@dataclass(frozen=True)
class Plan:
    """What the simulated players do with a challenge (`joins` False: nobody ever turns up)."""

    kind: str
    joins: bool
    status: str
    winner: Color | None
    plies: int
    reason: str | None = None


def game_rng(seed: int | None, white: str, black: str, name: str | None) -> random.Random:
    """A generator that depends only on the seed, the two players and the challenge's name."""
    if seed is None:
        return random.Random()
    key = f"{seed}\x00{white.lower()}\x00{black.lower()}\x00{name or ''}".encode()
    return random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))


def choose_plan(rng: random.Random) -> Plan:
    """Mostly decisive games and long draws; now and then a no-show, an early repetition, an abort."""
    roll = rng.random()
    if roll < 0.70:
        winner: Color = "white" if rng.random() < 0.55 else "black"
        status = rng.choices(("mate", "resign", "outoftime"), weights=(3, 6, 1))[0]
        return Plan("decisive", True, status, winner, rng.randint(40, 120))
    if roll < 0.85:
        return Plan("long-draw", True, "draw", None, rng.randint(60, 130), "agreement")
    if roll < 0.90:
        return Plan("early-repetition", True, "draw", None, rng.randint(16, 50), "repetition")
    if roll < 0.95:
        plies = rng.choice((0, 1))
        return Plan("white-no-show" if plies == 0 else "black-no-show", True, "started", None, plies)
    if roll < 0.98:
        return Plan("aborted", True, "aborted", None, rng.choice((0, 1)))
    return Plan("nobody-joins", False, "created", None, 0)


def plan_course(plan: Plan, rng: random.Random, rules: frozenset[str]) -> Course:
    """The moves the simulated players make."""
    return plan_game(rng, status=plan.status, winner=plan.winner, plies=plan.plies, rules=rules, reason=plan.reason)
