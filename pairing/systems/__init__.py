"""The pairing systems by name, and `auto`: the system Lichess uses for a round of that many players.

Lichess pairs every round of its Swiss events with bbpPairings and picks the flavour by size (lila,
`modules/swiss/src/main/PairingSystem.scala`; `../shared/reference/fide-other-systems.md` §8): Dutch below
250 players, Burstein from 250 to 699, Fast Swiss from 700. lila counts the players registered in the event
(withdrawn ones included); `auto` here counts the players to pair in the round, so an event that shrinks
goes back to the finer system. The choice is made again every round.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from pairing.model import Pairing, Tournament

Engine = Callable[[Tournament, int | None], Pairing]

SYSTEMS: tuple[str, ...] = ("dutch", "burstein", "dubov", "lim", "fast", "double", "team")
# Systems that pair through swissbot pair|check|generate but not an event yet: none now (Team Swiss events pair
# through bot.director.teams, not `pair` below; Double-Swiss events through `pair`, a match being two game rounds).
NOT_FOR_EVENTS: tuple[str, ...] = ()
# Systems whose pairings are two-game matches: a match is two game rounds, the second the first reversed (an
# event's rounds count games, so they are even).
TWO_GAME_MATCHES: tuple[str, ...] = ("double",)
AUTO = "auto"
AUTO_LIMITS: tuple[tuple[int, str], ...] = ((250, "dutch"), (700, "burstein"))
AUTO_ABOVE = "fast"


def system_for(choice: str, players: int) -> str:
    """The system that pairs a round of `players` players: `choice`, or Lichess's choice for `auto`."""
    if choice != AUTO:
        if choice not in SYSTEMS:
            raise ValueError(f"unknown pairing system {choice!r} (known: {', '.join((*SYSTEMS, AUTO))})")
        return choice
    return next((system for limit, system in AUTO_LIMITS if players < limit), AUTO_ABOVE)


def engine(system: str) -> Engine:
    """The `pair(tournament, round_number)` function of a system (its module is imported on first use)."""
    if system not in SYSTEMS:
        raise ValueError(f"unknown pairing system {system!r} (known: {', '.join(SYSTEMS)})")
    module = "pairing.team.engine" if system == "team" else f"pairing.systems.{system}"
    pair: Engine = importlib.import_module(module).pair
    return pair


def pair(tournament: Tournament, choice: str = "dutch", round_number: int | None = None) -> tuple[str, Pairing]:
    """Pair a round with the chosen system (`auto`: by the number of players to pair); the system used too."""
    players = len(tournament.views(round_number).to_pair()) if choice == AUTO else 0
    system = system_for(choice, players)
    return system, engine(system)(tournament, round_number)
