"""A pairings checker (FPC): a round's pairing against the absolute criteria, and against the engine."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from pairing import systems
from pairing.errors import BudgetExhausted, NoValidPairing
from pairing.matching import max_weight_perfect_matching
from pairing.model import (
    Board,
    Colour,
    Pairing,
    RecordKind,
    RoundRecord,
    RoundViews,
    Tournament,
)
from pairing.systems import PairingSystem, Rules

Engine = Callable[[Tournament, int], Pairing]


_PRE_ASSIGNED = frozenset({RecordKind.HALF_BYE, RecordKind.FULL_BYE, RecordKind.ZERO_BYE, RecordKind.NOT_PAIRED})


class DiscrepancyKind(enum.Enum):
    """What a discrepancy is about; the engine kinds compare with the engine, the others are absolute."""

    UNKNOWN_PLAYER = "unknown-player"
    NOT_TO_BE_PAIRED = "not-to-be-paired"
    PAIRED_TWICE = "paired-twice"
    UNPAIRED = "unpaired"
    BYE_COUNT = "bye-count"
    REMATCH = "rematch"
    FORBIDDEN_PAIR = "forbidden-pair"
    COLOUR_DIFFERENCE = "colour-difference"
    COLOUR_STREAK = "colour-streak"
    REPEATED_PAB = "repeated-pab"
    PAB_INELIGIBLE = "pab-ineligible"
    INCONSISTENT_RECORDS = "inconsistent-records"
    ENGINE_MISMATCH = "engine-mismatch"
    ENGINE_NO_PAIRING = "engine-no-pairing"
    ENGINE_ERROR = "engine-error"


@dataclass(frozen=True)
class Discrepancy:
    """One problem found in one round."""

    round: int
    kind: DiscrepancyKind
    message: str
    players: tuple[int, ...] = ()  # the starting numbers it is about (for sentences that name them)

    def __str__(self) -> str:
        return f"round {self.round}: {self.kind.value}: {self.message}"


# --- absolute criteria -------------------------------------------------------------------------------------------


def _match_problem(views: RoundViews, board: Board) -> str | None:
    """Double-Swiss: a second game that is not its first game reversed, or a match against an opponent already
    met in a match that was not forfeited."""
    white, black = board.white, board.black
    if views.round % 2 == 0:
        first = views.tournament.player(white).record(views.round - 1)
        if first.opponent != black or first.colour is Colour.WHITE:  # no colour (a forfeit): either way round
            return f"{white}-{black} is not the first game of its match ({views.round - 1}) with colours reversed"
        return None
    if _have_met(views, white, black, two_game_matches=True):
        return f"{white}-{black} already played a match"
    return None


def _system(name: str | None) -> PairingSystem:
    """The system whose absolute criteria apply (None: `auto`'s, the Dutch ones)."""
    # auto: Lichess's sizes make clubs' events Dutch; Burstein rounds are checked apart.
    return systems.of_choice(systems.AUTO if name is None else name)


def _have_met(views: RoundViews, a: int, b: int, two_game_matches: bool) -> bool:
    """The two met before this round: over the board, or in Double-Swiss in a match that was not forfeited."""
    if two_game_matches:
        from pairing.systems import double

        return b in double.entrant(views, a, double.match_of(views.round)).met
    return views.have_met(a, b)


def colour_violations(views: RoundViews, number: int, colour: Colour) -> list[DiscrepancyKind]:
    """The colour rules that giving this colour breaks: the ±2 colour difference, three in a row."""
    colours = (*views.colours(number), colour)
    broken = []
    if abs(sum(1 if c is Colour.WHITE else -1 for c in colours)) > 2:
        broken.append(DiscrepancyKind.COLOUR_DIFFERENCE)
    if len(colours) >= 3 and colours[-1] is colours[-2] is colours[-3]:
        broken.append(DiscrepancyKind.COLOUR_STREAK)
    return broken


def _colour_exempt(views: RoundViews, board: Board, rules: Rules) -> bool:
    """In the final round a Dutch pairing involving a topscorer may break the colour limits (§3.2.5), a Lim
    pairing any of them; a system without colour limits is always exempt."""
    return (
        not rules.colour_limits
        or (views.is_last_round and not rules.colour_limits_last_round)
        or (
            rules.topscorer_exemption
            and views.is_last_round
            and (views.is_topscorer(board.white) or views.is_topscorer(board.black))
        )
    )


def _met_in(views: RoundViews, a: int, b: int) -> int | None:
    for index, rec in enumerate(views.history(a), start=1):
        if rec.is_played and rec.opponent == b:
            return index
    return None


def _describe_colours(views: RoundViews, number: int) -> str:
    played = "".join("W" if c is Colour.WHITE else "B" for c in views.colours(number))
    return played or "none"


def _board_problems(
    views: RoundViews, board: Board, check_colours: bool, system: PairingSystem
) -> list[tuple[DiscrepancyKind, str, tuple[int, ...]]]:
    tournament = views.tournament
    white, black = board.white, board.black
    problems: list[tuple[DiscrepancyKind, str, tuple[int, ...]]] = []
    pair = (white, black)
    if system.two_game_matches:
        problem = _match_problem(views, board)
        if problem is not None:
            problems.append((DiscrepancyKind.REMATCH, problem, pair))
    else:
        met = _met_in(views, white, black)
        if met is not None:
            problems.append(
                (DiscrepancyKind.REMATCH, f"{white}-{black} already played each other in round {met}", pair)
            )
    if tournament.is_forbidden(white, black):
        problems.append((DiscrepancyKind.FORBIDDEN_PAIR, f"{white}-{black} is a forbidden pairing", pair))
    if check_colours and not _colour_exempt(views, board, system.rules):
        for number, colour in ((white, Colour.WHITE), (black, Colour.BLACK)):
            name = "White" if colour is Colour.WHITE else "Black"
            history = _describe_colours(views, number)
            for kind in colour_violations(views, number, colour):
                what = (
                    "colour difference beyond 2" if kind is DiscrepancyKind.COLOUR_DIFFERENCE else "third same colour"
                )
                message = f"{number} gets {name} on {white}-{black}: {what} (played colours {history})"
                problems.append((kind, message, (number,)))
    return problems


def _check(
    tournament: Tournament,
    round_number: int,
    pairing: Pairing,
    system: PairingSystem,
    colourless: frozenset[Board] = frozenset(),
) -> list[Discrepancy]:
    views = tournament.views(round_number)
    found: list[Discrepancy] = []

    def report(kind: DiscrepancyKind, message: str, *players: int) -> None:
        found.append(Discrepancy(round_number, kind, message, players))

    to_pair = set(views.to_pair())
    known = tournament.by_number
    seen: dict[int, int] = {}
    placed = [n for b in pairing.boards for n in (b.white, b.black)]
    if pairing.bye is not None:
        placed.append(pairing.bye)
    for number in placed:
        seen[number] = seen.get(number, 0) + 1
    for number in sorted(seen):
        if number not in known:
            report(DiscrepancyKind.UNKNOWN_PLAYER, f"{number} is not a player of this tournament", number)
        elif number not in to_pair:
            record = tournament.player(number).record(round_number).kind.value
            report(DiscrepancyKind.NOT_TO_BE_PAIRED, f"{number} is placed but has a {record} record this round", number)
        if seen[number] > 1:
            report(DiscrepancyKind.PAIRED_TWICE, f"{number} is placed {seen[number]} times", number)
    for number in sorted(to_pair - seen.keys()):
        report(DiscrepancyKind.UNPAIRED, f"{number} is neither paired nor given the bye", number)
    if pairing.bye is not None and len(to_pair) % 2 == 0:
        report(DiscrepancyKind.BYE_COUNT, f"bye to {pairing.bye} although {len(to_pair)} players are to be paired")
    if pairing.bye is None and len(to_pair) % 2 == 1:
        report(DiscrepancyKind.BYE_COUNT, f"{len(to_pair)} players are to be paired and nobody has the bye")
    if pairing.bye is not None and pairing.bye in known:
        bye = pairing.bye
        earlier = [i for i, rec in enumerate(views.history(bye), start=1) if rec.kind is RecordKind.PAB]
        if earlier:
            report(DiscrepancyKind.REPEATED_PAB, f"{bye} gets the bye again (already in round {earlier[0]})", bye)
        elif not system.rules.pab_eligible(views, bye):
            report(DiscrepancyKind.PAB_INELIGIBLE, f"{bye} {system.rules.pab_reason}, no bye allowed", bye)
    for board in pairing.boards:
        if board.white not in known or board.black not in known:
            continue
        if board.white == board.black:
            report(DiscrepancyKind.PAIRED_TWICE, f"{board.white} is paired with himself", board.white)
            continue
        for kind, message, players in _board_problems(views, board, board not in colourless, system):
            report(kind, message, *players)
    return found


def check_round(
    tournament: Tournament, round_number: int, pairing: Pairing, system: str = "dutch"
) -> list[Discrepancy]:
    """Check a pairing of `round_number` against the absolute criteria of `system`.

    `tournament` is the state the round is paired from: rounds before it, plus the byes of this round that
    were not allocated by the pairing (half/full/zero-point byes). Records of later rounds are ignored, but
    any record of this round other than 'not paired' marks the player as not to be paired.
    """
    return _check(tournament, round_number, pairing, _system(system))


# --- legality oracle ---------------------------------------------------------------------------------------------


def _orientations(views: RoundViews, a: int, b: int, rules: Rules) -> list[Board]:
    """The colourings of a pair that keep the absolute colour rules, the preferred one first."""
    boards = []
    pref_a, pref_b = views.preference(a), views.preference(b)
    first = Board(a, b) if pref_a.colour is not Colour.BLACK and pref_b.colour is not Colour.WHITE else Board(b, a)
    for board in (first, Board(first.black, first.white)):
        if _colour_exempt(views, board, rules) or (
            not colour_violations(views, board.white, Colour.WHITE)
            and not colour_violations(views, board.black, Colour.BLACK)
        ):
            boards.append(board)
    return boards


def compatible(views: RoundViews, a: int, b: int, system: str = "dutch") -> bool:
    """True when a and b may meet this round under the absolute criteria of `system`."""
    found = _system(system)
    return (
        a != b
        and not _have_met(views, a, b, found.two_game_matches)
        and not views.tournament.is_forbidden(a, b)
        and bool(_orientations(views, a, b, found.rules))
    )


def legal_pairing(tournament: Tournament, round_number: int | None = None, system: str = "dutch") -> Pairing | None:
    """Some pairing that meets every absolute criterion of `system` (not its pairing), or None when none exists."""
    rules = _system(system).rules
    views = tournament.views(round_number)
    players = sorted(views.to_pair())
    size = len(players)
    edges = [
        (i, j, 1) for i, a in enumerate(players) for j in range(i + 1, size) if compatible(views, a, players[j], system)
    ]
    if size % 2 == 1:
        # The bye is a dummy vertex joined to every player who may receive it, weighted towards the lowest.
        edges.extend((i, size, 1 + i) for i in range(size) if rules.pab_eligible(views, players[i]))
    match = max_weight_perfect_matching(size + size % 2, edges)
    if match is None:
        return None
    boards = []
    bye = None
    for i, a in enumerate(players):
        j = match[i]
        if j == size:
            bye = a
        elif j > i:
            boards.append(_orientations(views, a, players[j], rules)[0])
    return Pairing(tuple(boards), bye)


# --- a whole tournament ------------------------------------------------------------------------------------------


def round_input(tournament: Tournament, round_number: int) -> Tournament:
    """The state round `round_number` was paired from: earlier rounds plus its non-allocated byes.

    A 'not paired' record (blank in TRF) in a round that was paired counts as an absence (zero-point bye).
    """
    byes: dict[int, RoundRecord] = {}
    for player in tournament.players:
        rec = player.record(round_number)
        if rec.kind in _PRE_ASSIGNED:
            byes[player.number] = RoundRecord(RecordKind.ZERO_BYE) if rec.kind is RecordKind.NOT_PAIRED else rec
    return tournament.truncated(round_number - 1).with_round(round_number, byes)


@dataclass(frozen=True)
class _PlayedRound:
    pairing: Pairing
    colourless: frozenset[Board]
    problems: tuple[Discrepancy, ...]


def _played_round(tournament: Tournament, round_number: int) -> _PlayedRound:
    boards: list[Board] = []
    colourless: set[Board] = set()
    problems: list[Discrepancy] = []
    byes: list[int] = []
    for player in tournament.players:
        rec = player.record(round_number)
        number = player.number
        if rec.kind is RecordKind.PAB:
            byes.append(number)
        if rec.opponent is None:
            continue
        other = tournament.by_number.get(rec.opponent)
        theirs = other.record(round_number) if other is not None else None
        if theirs is None or theirs.opponent != number:
            message = f"{number} lists {rec.opponent} as opponent, who does not list {number}"
            problems.append(Discrepancy(round_number, DiscrepancyKind.INCONSISTENT_RECORDS, message))
            continue
        if number > rec.opponent:
            continue
        colour = rec.colour if rec.colour is not None else (theirs.colour.opposite if theirs.colour else None)
        board = Board(rec.opponent, number) if colour is Colour.BLACK else Board(number, rec.opponent)
        if colour is None or not rec.is_played:
            # A forfeit's colours count for nothing, and other programs do not write them reliably
            # (the reference checker accepts them either way): compare the pair only.
            colourless.add(board)
        boards.append(board)
    for extra in byes[1:]:
        message = f"more than one pairing-allocated bye ({byes[0]} and {extra})"
        problems.append(Discrepancy(round_number, DiscrepancyKind.BYE_COUNT, message))
    pairing = Pairing(tuple(boards), byes[0] if byes else None)
    return _PlayedRound(pairing, frozenset(colourless), tuple(problems))


def _format(boards: Iterable[Board]) -> str:
    return ", ".join(f"{b.white}-{b.black}" for b in sorted(boards, key=lambda b: (min(b.white, b.black), b.white)))


def _compare(round_number: int, played: _PlayedRound, engine_pairing: Pairing) -> Discrepancy | None:
    ours = played.pairing
    engine_boards = set(engine_pairing.boards)
    file_boards = set(ours.boards)
    for board in played.colourless:
        # A forfeited board: any orientation of the same pair agrees.
        flipped = Board(board.black, board.white)
        if flipped in engine_boards:
            file_boards.discard(board)
            file_boards.add(flipped)
    parts = []
    only_engine, only_file = engine_boards - file_boards, file_boards - engine_boards
    if only_engine or only_file:
        parts.append(
            f"engine pairs {_format(only_engine) or 'nothing else'}; file has {_format(only_file) or 'nothing'}"
        )
    if engine_pairing.bye != ours.bye:
        parts.append(f"engine bye {engine_pairing.bye or 'none'}; file bye {ours.bye or 'none'}")
    if not parts:
        return None
    return Discrepancy(round_number, DiscrepancyKind.ENGINE_MISMATCH, "; ".join(parts) + " (first named has White)")


def _engine_check(
    state: Tournament, round_number: int, played: _PlayedRound, engine: Engine, file_legal: bool, system: str
) -> Discrepancy | None:
    try:
        engine_pairing = engine(state, round_number)
    except NoValidPairing as error:
        if not file_legal and legal_pairing(state, round_number, system) is None:
            return None
        message = f"engine found no valid pairing ({error}), but one satisfying the absolute criteria exists"
        return Discrepancy(round_number, DiscrepancyKind.ENGINE_NO_PAIRING, message)
    except BudgetExhausted as error:
        return Discrepancy(round_number, DiscrepancyKind.ENGINE_ERROR, f"engine gave up: {error}")
    except Exception as error:  # an FPC reports an engine crash for the round and goes on
        message = f"engine failed: {type(error).__name__}: {error}"
        return Discrepancy(round_number, DiscrepancyKind.ENGINE_ERROR, message)
    return _compare(round_number, played, engine_pairing)


def check_tournament(
    tournament: Tournament,
    system: str | None = "dutch",
    *,
    engine: Engine | None = None,
    manual: frozenset[int] = frozenset(),
) -> list[Discrepancy]:
    """Rebuild a tournament round by round: check each played round, and re-pair it with the engine.

    Forfeited boards are compared as pairs, without colours, as the reference checker does.
    `system=None` checks the (Dutch) absolute criteria only; `engine` replaces the system's engine; the rounds in
    `manual` (an arbiter corrected their pairing, `pairing.trf.manual_rounds`) are held to the absolute criteria
    only, not compared with the engine.
    """
    checked = _system(system)
    if checked.team:
        raise ValueError("a team event is checked team by team: pairing.team.check.check_tournament")
    pair = engine if engine is not None else (_engine(system) if system is not None else None)
    found: list[Discrepancy] = []
    for round_number in range(1, tournament.rounds_completed + 1):
        state = round_input(tournament, round_number)
        played = _played_round(tournament, round_number)
        absolute = [*played.problems, *_check(state, round_number, played.pairing, checked, played.colourless)]
        found.extend(absolute)
        if pair is not None and round_number not in manual:
            mismatch = _engine_check(state, round_number, played, pair, not absolute, system or "dutch")
            if mismatch is not None:
                found.append(mismatch)
    return found


def _engine(system: str) -> Engine:
    """The engine that re-pairs each round: the system's, or for `auto` the one its size calls for."""
    if system == systems.AUTO:
        return lambda tournament, round_number: systems.pair(tournament, systems.AUTO, round_number)[1]
    return systems.engine(system)
