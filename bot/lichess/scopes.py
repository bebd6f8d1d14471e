"""The scopes of the bot's Lichess token (and of a club's own), named once: what the bot does with each and which it
cannot run without. `swissbot run`'s preflight checks them, the bulk pairing decision reads its scope, and the README's
token step names them (`tests/bot/cli/test_preflight.py` holds it to this list).

Reading team membership (an event's Lichess team) takes no scope: `GET /api/team/of/{username}` answers any token, and
a team that hides its members is listed only to its members, so the account of the token must be in that team."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Scope:
    """A scope of the token: its name, what the bot does with it, and whether the bot refuses to start without it."""

    name: str
    purpose: str
    required: bool


CHALLENGE_WRITE = Scope("challenge:write", "creates and cancels the games", required=True)
CHALLENGE_BULK = Scope(
    "challenge:bulk", "pairs linked members in bulk (without it every board is an open challenge)", required=False
)
BOT_SCOPES = (CHALLENGE_WRITE, CHALLENGE_BULK)


def missing_required(granted: Iterable[str]) -> list[Scope]:
    """The required scopes not in `granted`."""
    have = set(granted)
    return [scope for scope in BOT_SCOPES if scope.required and scope.name not in have]


def make_a_new_token() -> str:
    """The advice that ends a token's problem: the scopes to give a new one."""
    *others, last = [scope.name for scope in BOT_SCOPES]
    return f"make a new one with the scopes {', '.join(others)} and {last}" if others else f"make a new one with {last}"
