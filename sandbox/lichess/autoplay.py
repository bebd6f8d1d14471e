"""Simulated players: how a challenged pair plays its game, decided by the seed, the players and the name."""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from sandbox.lichess.games import Color, Course, plan_game


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


# How often each kind of game happens (fractions of all challenges). Rare cases are rare enough that a
# club event of 50 games sees one or two of each, not several per round.
MIX: tuple[tuple[str, float], ...] = (
    ("decisive", 0.725),
    ("long-draw", 0.20),
    ("early-repetition", 0.03),
    ("no-show", 0.02),
    ("aborted", 0.02),
    ("nobody-joins", 0.005),
)


def choose_kind(roll: float) -> str:
    """The kind of game a roll in [0, 1) falls on, in the proportions of `MIX`."""
    total = 0.0
    for kind, share in MIX:
        total += share
        if roll < total:
            return kind
    return MIX[-1][0]


def choose_plan(rng: random.Random) -> Plan:
    """Mostly decisive games and long draws; now and then a no-show, an early repetition, an abort."""
    kind = choose_kind(rng.random())
    if kind == "decisive":
        winner: Color = "white" if rng.random() < 0.55 else "black"
        status = rng.choices(("mate", "resign", "outoftime"), weights=(3, 6, 1))[0]
        return Plan(kind, True, status, winner, rng.randint(40, 120))
    if kind == "long-draw":
        return Plan(kind, True, "draw", None, rng.randint(60, 130), "agreement")
    if kind == "early-repetition":
        return Plan(kind, True, "draw", None, rng.randint(16, 50), "repetition")
    if kind == "no-show":
        plies = rng.choice((0, 1))
        return Plan("white-no-show" if plies == 0 else "black-no-show", True, "started", None, plies)
    if kind == "aborted":
        return Plan(kind, True, "aborted", None, rng.choice((0, 1)))
    return Plan("nobody-joins", False, "created", None, 0)


def plan_course(plan: Plan, rng: random.Random, rules: frozenset[str]) -> Course:
    """The moves the simulated players make."""
    return plan_game(rng, status=plan.status, winner=plan.winner, plies=plan.plies, rules=rules, reason=plan.reason)
