"""Team events checked round by round (absolute criteria of C.04.6 and the engine), and generated at random."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from fractions import Fraction

from pairing import checker
from pairing.checker import Discrepancy, DiscrepancyKind
from pairing.errors import NoValidPairing, TeamError
from pairing.generator import RATING_MEAN, RATING_RANGE, RATING_SPREAD, WHITE_ADVANTAGE, expected_score
from pairing.model import Board, Colour, Pairing, Player, RecordKind, RoundRecord, Scoring, Tournament
from pairing.team.engine import pair_event
from pairing.team.matches import record_bye, record_match, team_strength
from pairing.team.model import Team, TeamEvent, TeamRules
from pairing.team.trf import event_from_tournament

_PRE_ASSIGNED = frozenset({RecordKind.HALF_BYE, RecordKind.FULL_BYE, RecordKind.ZERO_BYE, RecordKind.NOT_PAIRED})


def round_input(event: TeamEvent, round_number: int) -> TeamEvent:
    """The state a round was paired from: the rounds before it, plus the teams' requested byes of that round.

    A team with no match and no bye in a paired round (blank records) counts as absent (a zero-point bye).
    """
    byes: dict[int, RoundRecord] = {}
    for t in event.teams:
        rec = event.record(t.number, round_number)
        if rec.kind in _PRE_ASSIGNED:
            kind = RecordKind.ZERO_BYE if rec.kind is RecordKind.NOT_PAIRED else rec.kind
            byes.update((pid, RoundRecord(kind)) for pid in t.players)
    earlier = event.tournament.truncated(round_number - 1)
    return replace(event, tournament=earlier.with_round(round_number, byes))


def played_round(event: TeamEvent, round_number: int) -> tuple[Pairing, frozenset[Board], list[Discrepancy]]:
    """A played round as a pairing of teams (White = first board), its forfeited matches, its inconsistencies."""
    boards: list[Board] = []
    forfeited: set[Board] = set()
    problems: list[Discrepancy] = []
    byes = [t.number for t in event.teams if event.record(t.number, round_number).kind is RecordKind.PAB]
    for t in event.teams:
        rec = event.record(t.number, round_number)
        if rec.opponent is None or t.number > rec.opponent:
            continue
        theirs = event.record(rec.opponent, round_number)
        if rec.colour is None or theirs.colour is rec.colour:
            message = f"teams {t.number} and {rec.opponent} do not have opposite colours on board 1"
            problems.append(Discrepancy(round_number, DiscrepancyKind.INCONSISTENT_RECORDS, message))
            continue
        board = Board(t.number, rec.opponent) if rec.colour is Colour.WHITE else Board(rec.opponent, t.number)
        if not rec.is_played:
            forfeited.add(board)
        boards.append(board)
    for extra in byes[1:]:
        message = f"more than one pairing-allocated bye ({byes[0]} and {extra})"
        problems.append(Discrepancy(round_number, DiscrepancyKind.BYE_COUNT, message))
    return Pairing(tuple(boards), byes[0] if byes else None), frozenset(forfeited), problems


def check_round(event: TeamEvent, round_number: int, pairing: Pairing) -> list[Discrepancy]:
    """A round's pairing of teams against C.04.6's absolute criteria ([C1] no rematch, [C2] the PAB, everyone
    placed once); `event` is the state the round is paired from."""
    return checker.check_round(event.match_tournament(), round_number, pairing, "team")


def check_event(event: TeamEvent, *, engine: bool = True) -> list[Discrepancy]:
    """Rebuild a team event round by round: each round against the absolute criteria, and (with `engine`)
    against this engine's pairing; forfeited matches are compared as pairs, without colours."""
    found: list[Discrepancy] = []
    for round_number in range(1, event.rounds_completed + 1):
        try:
            state = round_input(event, round_number)
            played, forfeited, problems = played_round(event, round_number)
        except TeamError as error:
            found.append(Discrepancy(round_number, DiscrepancyKind.INCONSISTENT_RECORDS, str(error)))
            continue
        absolute = [*problems, *check_round(state, round_number, played)]
        found.extend(absolute)
        if engine:
            mismatch = _engine_check(state, round_number, played, forfeited, not absolute)
            if mismatch is not None:
                found.append(mismatch)
    return found


def check_tournament(tournament: Tournament, *, engine: bool = True) -> list[Discrepancy]:
    """Check the team event of a TRF-read tournament (its team records); TeamError if it has none."""
    return check_event(event_from_tournament(tournament), engine=engine)


def _engine_check(
    state: TeamEvent, round_number: int, played: Pairing, forfeited: frozenset[Board], file_legal: bool
) -> Discrepancy | None:
    try:
        ours = pair_event(state, round_number)
    except NoValidPairing as error:
        exists = checker.legal_pairing(state.match_tournament(), round_number, "team") is not None
        if not file_legal and not exists:
            return None
        message = f"engine found no valid pairing ({error}), but one satisfying the absolute criteria exists"
        return Discrepancy(round_number, DiscrepancyKind.ENGINE_NO_PAIRING, message)
    engine_boards, file_boards = set(ours.boards), set(played.boards)
    for board in forfeited:
        flipped = Board(board.black, board.white)
        if flipped in engine_boards:
            file_boards.discard(board)
            file_boards.add(flipped)
    parts = []
    if engine_boards != file_boards:
        only_engine = _format(engine_boards - file_boards) or "nothing else"
        only_file = _format(file_boards - engine_boards) or "nothing"
        parts.append(f"engine pairs {only_engine}; file has {only_file}")
    if ours.bye != played.bye:
        parts.append(f"engine bye {ours.bye or 'none'}; file bye {played.bye or 'none'}")
    if not parts:
        return None
    message = "; ".join(parts) + " (first named has White on board 1)"
    return Discrepancy(round_number, DiscrepancyKind.ENGINE_MISMATCH, message)


def _format(boards: set[Board]) -> str:
    return ", ".join(f"{b.white}-{b.black}" for b in sorted(boards, key=lambda b: (min(b.white, b.black), b.white)))


# --- a random team event -----------------------------------------------------------------------------------------


def generate_event(
    seed: int,
    teams: int,
    rounds: int,
    *,
    rules: TeamRules | None = None,
    reserves: int = 0,
    forfeit_rate: float = 0.03,
    absence_rate: float = 0.03,
    stop_after: int | None = None,
    pair: Callable[[TeamEvent, int | None], Pairing] = pair_event,
) -> TeamEvent:
    """A seeded random team event paired round by round by this engine (or `pair`): teams of `boards + reserves`
    players, numbered by strength; results drawn by rating, with a few forfeited boards and matches and absent teams.

    Stops early when a round has no valid pairing (or after `stop_after` rounds); the same arguments always
    give the same event.
    """
    rules = rules or TeamRules()
    if teams < 2 or rounds < 1 or reserves < 0:
        raise ValueError("a team event needs at least two teams, one round and no negative reserves")
    rng = random.Random(seed)
    size = rules.boards + reserves
    low, high = RATING_RANGE
    drafts = []
    for index in range(teams):
        ratings = sorted(min(high, max(low, round(rng.gauss(RATING_MEAN, RATING_SPREAD)))) for _ in range(size))
        drafts.append((team_strength(ratings, rules.boards), index, ratings[::-1]))
    drafts.sort(key=lambda d: (-d[0], d[1]))
    players: list[Player] = []
    members: list[Team] = []
    for number, (strength, index, ratings) in enumerate(drafts, start=1):
        first = len(players) + 1
        for offset, rating in enumerate(ratings):
            players.append(Player(first + offset, f"Team {index + 1} board {offset + 1}", rating))
        members.append(Team(number, f"Team {index + 1}", tuple(range(first, first + size)), strength))
    scoring = Scoring(pab=Fraction(1, 2))  # a PAB is a drawn match, so each board of it shows a draw's points
    start = Tournament(tuple(players), rounds, scoring, initial_colour=rng.choice([Colour.WHITE, Colour.BLACK]))
    event = TeamEvent(start, tuple(members), rules)
    ratings_of = {p.number: p.rating for p in players}
    last = rounds if stop_after is None else min(rounds, stop_after)
    for round_number in range(1, last + 1):
        absent = [t.number for t in event.teams if rng.random() < absence_rate]
        if len(absent) > len(event.teams) - 2:
            absent = []
        for number in absent:
            event = record_bye(event, round_number, number, RecordKind.ZERO_BYE)
        try:
            pairing = pair(event, round_number)
        except NoValidPairing:
            return event.truncated(round_number - 1)
        for board in pairing.boards:
            line_ups = (_line_up(rng, event, board.white, reserves), _line_up(rng, event, board.black, reserves))
            results = _results(rng, rules, line_ups, ratings_of, forfeit_rate)
            event = record_match(event, round_number, board.white, board.black, results, line_ups=line_ups)
        if pairing.bye is not None:
            event = record_bye(event, round_number, pairing.bye, RecordKind.PAB)
    return event


def _line_up(rng: random.Random, event: TeamEvent, number: int, reserves: int) -> tuple[int, ...]:
    """The boards' players: the roster, less `reserves` players left out at random, in roster order."""
    roster = event.team(number).players
    out = set(rng.sample(roster, reserves)) if reserves else set()
    return tuple(p for p in roster if p not in out)


def _results(
    rng: random.Random,
    rules: TeamRules,
    line_ups: tuple[Sequence[int], Sequence[int]],
    ratings: dict[int, int],
    forfeit_rate: float,
) -> list[str]:
    """The first team's board results: a whole match forfeited now and then, single boards a little more often."""
    if rng.random() < forfeit_rate / 3:
        return [rng.choice(["+", "-"])] * rules.boards
    out = []
    for board, (a, b) in enumerate(zip(*line_ups, strict=True), start=1):
        if rng.random() < forfeit_rate:
            out.append(rng.choice(["+", "-", "--"]))
            continue
        advantage = WHITE_ADVANTAGE if rules.board_colour(board, Colour.WHITE) is Colour.WHITE else -WHITE_ADVANTAGE
        expected = expected_score(ratings[a] + advantage, ratings[b])
        draw = 0.3 * (1.0 - abs(2.0 * expected - 1.0))
        roll = rng.random()
        win = expected - draw / 2.0
        out.append("1" if roll < win else "=" if roll < win + draw else "0")
    return out
