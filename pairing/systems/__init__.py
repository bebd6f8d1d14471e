"""The pairing systems: one descriptor each in one registry, and `auto`, the system Lichess uses for a round's size.

A `PairingSystem` says everything the rest of the code asks of a system: its name and menu label, the module of
its engine (imported on first use, so `swissbot pair` and `check` load only the engine they run), the absolute
criteria the checker holds it to, its TRF `192` code, the games of a match, whether it pairs teams, whether an
event may accelerate it, and from what size `auto` picks it. Every list of systems, every choice offered and every
branch on a system's nature is derived from `SYSTEMS`; adding a system is its engine module, one `register` call
(or entry below) and its tests.

Lichess pairs every round of its Swiss events with bbpPairings and picks the flavour by size (lila,
`modules/swiss/src/main/PairingSystem.scala`; `../shared/reference/fide-other-systems.md` §8): Dutch below
250 players, Burstein from 250 to 699, Fast Swiss from 700. lila counts the players registered in the event
(withdrawn ones included); `auto` here counts the players to pair in the round, so an event that shrinks
goes back to the finer system. The choice is made again every round.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from pairing.model import Pairing, RecordKind, RoundViews, Tournament

Engine = Callable[[Tournament, int | None], Pairing]

AUTO = "auto"
AUTO_LABEL = "Auto"


# --- the absolute criteria a system's pairings are checked against -----------------------------------------------


def edition_b_pab_eligible(views: RoundViews, number: int) -> bool:
    """Edition B (C.04.1 Art. 4): no PAB to a player who already scored a win's points without playing."""
    return views.pab_eligible(number)


def pre_2025_pab_eligible(views: RoundViews, number: int) -> bool:
    """The reference engine's (pre-2025) rule: a forfeit win blocks the PAB, a full-point bye does not."""
    return not any(r.kind in (RecordKind.PAB, RecordKind.FORFEIT_WIN) for r in views.history(number))


def _double_pab_eligible(views: RoundViews, number: int) -> bool:
    from pairing.systems import double

    return double.entrant(views, number, double.match_of(views.round)).pab_eligible


@dataclass(frozen=True)
class Rules:
    """The absolute criteria of one system, beside no rematch and no forbidden pair (`pairing.checker`)."""

    # Final-round topscorers may break the colour limits (Dutch C.04.3 [C3]); Burstein has no such exception.
    topscorer_exemption: bool
    # May receive the pairing-allocated bye (besides never twice, which every system checks).
    pab_eligible: Callable[[RoundViews, int], bool]
    # Why a player who had no PAB is still not eligible, for the report.
    pab_reason: str
    # The colour limits (difference beyond 2, a third same colour) are absolute; Fast Swiss's last passes ignore them.
    colour_limits: bool = True
    # The colour limits hold in the last round too; Lim drops them there for everyone (C.04.4.3 Art. 6).
    colour_limits_last_round: bool = True


# --- the descriptor and the registry -----------------------------------------------------------------------------


@dataclass(frozen=True)
class PairingSystem:
    """One pairing system, as every layer sees it."""

    name: str  # the value stored in an event's settings and typed after --system
    label: str  # what menus show (Discord's choices; short, the /swiss payload is near its cap)
    engine_module: str  # the module whose `pair(tournament, round_number)` pairs a round, imported on first use
    rules: Rules  # what the checker holds each round to
    trf_code: str | None = None  # record 192 of an export every round of which it paired (None: no ETT26 code)
    games_per_match: int = 1  # 2: a match is two game rounds, the second the first reversed (Double-Swiss)
    team: bool = False  # pairs teams (an event's rounds through bot.director.teams; checked by pairing.team.check)
    accelerable: bool = True  # an event with it may have accelerated pairings
    auto_from: int | None = None  # `auto` pairs a round of at least this many players with it (None: never)

    @property
    def two_game_matches(self) -> bool:
        """A match is two game rounds (an event's rounds count games, so they are even)."""
        return self.games_per_match == 2

    def engine(self) -> Engine:
        """Its `pair(tournament, round_number)` function (the module is imported on first use)."""
        pair: Engine = importlib.import_module(self.engine_module).pair
        return pair


SYSTEMS: dict[str, PairingSystem] = {}


def register(system: PairingSystem) -> None:
    """Add a system to the registry; ValueError when its name is taken or its settings do not fit together."""
    if system.name == AUTO:
        raise ValueError(f"{AUTO!r} picks a system by size; no system may be named so")
    if system.name in SYSTEMS:
        raise ValueError(f"a pairing system named {system.name!r} is already registered")
    if system.games_per_match not in (1, 2):
        games = system.games_per_match
        raise ValueError(f"{system.name}: a match is one game or two (the second reversed), not {games}")
    if system.auto_from is not None and (system.team or system.games_per_match != 1 or not system.accelerable):
        # An `auto` event's properties are those of every system it may pick (`of_choice`).
        raise ValueError(f"{system.name}: `auto` picks only individual, one-game, accelerable systems")
    SYSTEMS[system.name] = system


def unregister(name: str) -> None:
    """Remove a system from the registry (ValueError for an unknown name)."""
    named(name)
    del SYSTEMS[name]


@contextmanager
def registered(system: PairingSystem) -> Iterator[PairingSystem]:
    """The system registered for the duration of the block, then removed again."""
    register(system)
    try:
        yield system
    finally:
        unregister(system.name)


def _unknown(name: str, known: tuple[str, ...]) -> ValueError:
    return ValueError(f"unknown pairing system {name!r} (known: {', '.join(known)})")


def named(name: str) -> PairingSystem:
    """The registered system of that name (not `auto`, which picks one); ValueError naming the known ones."""
    found = SYSTEMS.get(name)
    if found is None:
        raise _unknown(name, tuple(SYSTEMS))
    return found


def of_choice(choice: str) -> PairingSystem:
    """The system an event's choice stands for when its nature is asked: the system itself, or for `auto` the one
    it picks for the fewest players (every system `auto` picks is individual, one game a match and accelerable)."""
    if choice == AUTO:
        return min((s for s in SYSTEMS.values() if s.auto_from is not None), key=lambda s: s.auto_from or 0)
    if choice not in SYSTEMS:
        raise _unknown(choice, (*SYSTEMS, AUTO))
    return SYSTEMS[choice]


def choices() -> tuple[str, ...]:
    """Every value an event's system may take: `auto`, then the registered systems in registration order."""
    return (AUTO, *SYSTEMS)


def labelled_choices() -> tuple[tuple[str, str], ...]:
    """(value, label) of every choice, as menus show them."""
    return ((AUTO, AUTO_LABEL), *((s.name, s.label) for s in SYSTEMS.values()))


def system_for(choice: str, players: int) -> str:
    """The system that pairs a round of `players` players: `choice`, or Lichess's choice for `auto`."""
    if choice != AUTO:
        return of_choice(choice).name
    picked = [s for s in SYSTEMS.values() if s.auto_from is not None and s.auto_from <= players]
    return max(picked, key=lambda s: s.auto_from or 0).name


def engine(system: str) -> Engine:
    """The `pair(tournament, round_number)` function of a system (its module is imported on first use)."""
    return named(system).engine()


def pair(tournament: Tournament, choice: str = "dutch", round_number: int | None = None) -> tuple[str, Pairing]:
    """Pair a round with the chosen system (`auto`: by the number of players to pair); the system used too."""
    players = len(tournament.views(round_number).to_pair()) if choice == AUTO else 0
    system = system_for(choice, players)
    return system, engine(system)(tournament, round_number)


# --- the systems -------------------------------------------------------------------------------------------------
# Engines are named by module path here and nowhere else.

for _system in (
    PairingSystem(
        "dutch",
        "Dutch",
        "pairing.systems.dutch",
        Rules(True, edition_b_pab_eligible, "already scored a win without playing"),
        trf_code="FIDE_DUTCH",
        auto_from=0,
    ),
    PairingSystem(
        "burstein",
        "Burstein",
        "pairing.systems.burstein",
        Rules(False, pre_2025_pab_eligible, "already won a game by forfeit"),
        trf_code="FIDE_BURSTEIN",
        auto_from=250,
    ),
    # C.04.4.1 [C2]/[C3]: the PAB rule of C.04.1 Art. 4 (a full-point bye blocks it too), no topscorer exception.
    PairingSystem(
        "dubov",
        "Dubov",
        "pairing.systems.dubov",
        Rules(False, edition_b_pab_eligible, "already scored a win without playing"),
        trf_code="FIDE_DUBOV",
    ),
    # C.04.4.3 Lim: edition-B PAB eligibility (Art. 1 adds to C.04.1); colour limits hard but in the last round.
    # ETT26 has no code for it.
    PairingSystem(
        "lim",
        "Lim",
        "pairing.systems.lim",
        Rules(False, edition_b_pab_eligible, "already scored a win without playing", colour_limits_last_round=False),
    ),
    # Lichess's Fast Swiss: the fork's Burstein PAB rule; colours are only preferences (its passes 4-5). Not FIDE's.
    PairingSystem(
        "fast",
        "Fast",
        "pairing.systems.fast",
        Rules(False, pre_2025_pab_eligible, "already won a game by forfeit", colour_limits=False),
        auto_from=700,
    ),
    # Double-Swiss (C.04.5 [C2]): no PAB after a PAB, a full-point bye or a match won by forfeit; no colour rule.
    # Acceleration's virtual win is left undefined for matches (fide-other-systems.md §5.9).
    PairingSystem(
        "double",
        "Double-Swiss",
        "pairing.systems.double",
        Rules(
            False, _double_pab_eligible, "already had a bye worth a win or won a match by forfeit", colour_limits=False
        ),
        trf_code="FIDE_DOUBLESWISS",
        games_per_match=2,
        accelerable=False,
    ),
    # C.04.6 [C2] on the teams as players (match points): no colour limits at all (Preface). Its export writes its
    # own 192 (FIDE_TEAM_...) from the event's team rules; its Baku variant is not paired yet.
    PairingSystem(
        "team",
        "Team",
        "pairing.team.engine",
        Rules(False, edition_b_pab_eligible, "already won a match without playing", colour_limits=False),
        team=True,
        accelerable=False,
    ),
):
    register(_system)
