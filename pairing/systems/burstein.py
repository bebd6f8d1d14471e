"""The Burstein system as the reference engine reads it (bbpPairings `--burstein`; fide-other-systems.md §2.5).

bbpPairings implements the pre-2017 Burstein text, not the 2026 one (C.04.4.2: seeding rounds paired by Dutch,
then an opposition Index of Buchholz and Sonneborn-Berger, [C1]-[C8], candidates in "1 versus last" order).
We follow the reference engine: it is the only Burstein engine with published behaviour, and the corpus is
its output (101/101 cases identical). Where the two differ (fide-other-systems.md §2.7, §11.1), this module
does what the engine does, each shown by a test in tests/pairing/test_burstein_conformance.py:

- Round 1 is not a Dutch seeding round. Unless the event gives its own acceleration (`XXA`, record 250, a
  `*_BAKU` code, used as Dutch uses them), rounds 1 and 2 give the top half of round 1's participants one
  win's worth of imaginary points, so round 1 pairs each half apart (test_round_one_is_accelerated_not_a_
  dutch_seeding_round, test_an_acceleration_line_switches_the_imaginary_point_off).
- Inside a group players rank by Sonneborn-Berger, Buchholz, Median, then pairing number (the 2026 Index:
  Buchholz, then Sonneborn-Berger), over adjusted scores: an opponent's unplayed rounds count as draws, the
  player's own unplayed rounds are games against a virtual opponent (the 2026 text: against himself). A
  floater is compared with the residents by Sonneborn-Berger first, then Buchholz and Median times score.
- The PAB goes first to the lowest-ranked player with no PAB and no forfeit win: a full-point bye does not
  block it (the pre-2025 rule; test_a_full_point_bye_does_not_block_the_pab), and nothing checks that the
  others can still be paired first ([C4] of the 2026 text). Where the others then cannot be paired the engine
  stops the event; here the bye goes instead to the next eligible player up the list whose absence leaves a
  pairing, so an event ends only when no legal pairing exists (test_when_the_pab_leaves_the_rest_unpairable_
  the_next_eligible_player_takes_it).
- At most one player floats out of a group; a group that cannot be paired so is merged with the next score
  level, and a stuck last group with the group above it. Inside a group the most pairs, then the most pairs
  of compatible colour preferences are made, and each player, best first, takes the lowest-ranked partner
  that keeps that optimum (the 2026 text minimises the floaters' scores and looks one bracket ahead;
  test_round_four_of_b014_follows_the_engine_not_the_2026_index).
- Only two players with the same absolute colour preference are kept apart (which keeps the colour limits,
  with no topscorer exception); colours: both preferences, the absolute one (the larger imbalance if both),
  the strong one, the last round the histories differ, then the higher-ranked player's preference, or the
  pairing-number parity rule between two players with no preference (the 2026 text puts that rule first).

Each step solves a maximum-weight matching over the players still to pair with the engine's edge weights.
The group forming reads only whether the heaviest matching is valid, and that does not depend on which of
several equal optima the matcher returns (every one pairs exactly once across each odd boundary or none is
valid, `_Engine._witness`), so it re-solves only the players joined to the last group and takes any such
matching. The engine reproduces every corpus case and agrees with a build of the reference engine on the
generated rounds compared (5 589 rounds of 6-60 players, 758 of 60-250 and 66 of 300-1 600 for issue #26, all
identical but four where the reference stops and the bye goes to the next eligible player, see above; with the
steps read from the colour duals, 3 549 of 6-60, 1 033 of 60-250 and 33 of 400-1 600, all identical but three such
stops; earlier 1 881 of 7-40 players, `tests/pairing/test_burstein_properties.scenario`; checked outside the
tests: the binary is not part of the repository).
Inside a group every step keeps a heaviest matching of the engine's weights, its partner priorities only breaking
ties, so a player's partner is the lowest-ranked one some heaviest matching (holding the pairs made so far) gives
it, or none (it floats). That is read from one optimal dual of the graph. Mostly it is written down, with no
weighted solve (`_Engine._by_colours`): every heaviest matching pairs once across each odd boundary down to the next
even one, the groups below weigh the same whichever player floats down to them (those who may are read from
cardinality matchings, `_removable`), and the group's most colour-compatible pairs are bounded by vertex duals made
from its colour preferences' counts; where a perfect matching of their tight edges exists, those edges hold exactly
the heaviest matchings. Elsewhere it is solved once a group on small integers (`_Engine._natural`; a part with
many edges first on those between players close in the order, kept where its duals cover every edge,
`_sparse_perfect`; the groups below, one even group or two odd ones paired once across, get their optimal duals
directly, `_Engine._direct`, without a weighted solve). Either way only a partner joined by a tight edge can be
chosen, and each candidate, lowest first, is checked exactly by an augmenting path of tight edges between the two
players' current partners (kept when the matching it makes weighs as much as the optimum), else by a matching solved
without the two. Where that cannot be read (no perfect matching, more than one floater) each step is solved as the
engine does, as one matching with the later players' priorities as tie-breaks below the weights; it is unique where
it is read, so how it is solved does not change the pairing. Three exact short cuts keep that fallback fast: the
group's matching is solved apart from the players below it and kept where the two parts' duals cover every edge
between them (`_split_matching`); a large graph is solved on the edges near the "1 versus last" partners and every
edge with a partner priority, adding each vertex's most broken edge until the duals cover all (`_sparse_matching`);
and it is warm-started as a perfect matching only while few players are still to choose (`WARM_LATER_LIMIT`).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from pairing.colours import ColourState, colour_states
from pairing.errors import NoValidPairing
from pairing.matching import (
    Duals,
    Edge,
    matching_with_duals,
    max_cardinality_matching,
    max_weight_matching,
    max_weight_perfect_matching,
    perfect_matching_with_duals,
)
from pairing.model import (
    Board,
    Colour,
    Outcome,
    Pairing,
    Player,
    Points,
    PreferenceStrength,
    RecordKind,
    RoundRecord,
    RoundViews,
    Scoring,
    Tournament,
    board_order,
)
from pairing.systems.common import list_sort
from pairing.systems.dutch import with_implied_acceleration

# Edge weight levels, most significant first: compatible, same group, colour preferences compatible, then the
# partner priority of "1 versus last" (below 2**32 for any size this engine is used at).
_COLOUR = 1 << 32
_SAME = 1 << 64
_COMPAT = 1 << 96
# A group's matchings with more edges than this start from the edges near the "1 versus last" partners (and
# neighbours), adding every edge the optimal duals say could improve the matching, until none is left.
SPARSE_LIMIT = 4000
SPARSE_WINDOW = 8
# Up to this many players still to choose, a sparse matching is warm-started (`max_weight_perfect_matching`):
# faster where the partner priorities are few, much slower where they are many (the greedy start then matches
# almost nothing, every vertex's heaviest edge going to the first player).
WARM_LATER_LIMIT = 128
# A group's part (`_Engine._part`) with more edges than this is first solved on the edges between players at most
# PART_WINDOW apart in its order, then with each vertex's most broken edge added until its duals cover every edge.
PART_SPARSE_LIMIT = 2000
PART_WINDOW = 16
# Each group's steps are first read from one optimal dual of the engine's weights (`_Engine._natural`); off, every
# step is solved as a matching with the partner priorities (the tests compare the two).
NATURAL = True
# A group's steps are first read from duals written down from its colour preferences (`_Engine._by_colours`), where
# they are optimal; off, they are always read from a solved matching (`_natural`; the tests compare the two).
BY_COLOURS = True
# How a group's steps take a pair v-u (`_steps`): given the players out (the pairs made, v and u) and the swap along
# tight edges that pairs them (`_swap`, None where there is none), it applies what it takes to the matching and says
# whether v-u is taken.
_Accept = Callable[[int, int, set[int], dict[int, int] | None], bool]


@dataclass(frozen=True)
class _Player:
    """What the engine needs about one player to pair, by position in the pairing order."""

    number: int
    rank_index: int
    score: int
    colour: ColourState
    opponents: frozenset[int]
    metrics: _Metrics


@dataclass(frozen=True)
class _Metrics:
    """Sonneborn-Berger, Buchholz and Median over adjusted scores, with the pairing score and rank index.

    In whole units of one common fraction of a point (a square one for Sonneborn-Berger, a product of points):
    every comparison reads the same order as in points, without fraction arithmetic.
    """

    score: int
    sb: int
    bh: int
    median: int
    rank_index: int


@dataclass(frozen=True)
class _Part:
    """A heaviest perfect matching of some players (engine weights on small integers) and its optimal duals, by
    player: vertex duals, each player's chain of blossoms (outermost first, numbered apart from other parts'), the
    blossom duals, and the number of the matching that gave each player these duals (one per solve)."""

    mate: dict[int, int]
    vertex: dict[int, int]
    chains: dict[int, tuple[int, ...]]
    blossom: dict[int, int]
    solve: dict[int, int]

    def joined(self, other: _Part) -> _Part:
        """Both parts as one (their duals together are optimal where they cover every edge between them)."""
        return _Part(
            other.mate | self.mate,
            other.vertex | self.vertex,
            other.chains | self.chains,
            other.blossom | self.blossom,
            other.solve | self.solve,
        )


def _compare(a: _Metrics, b: _Metrics) -> int:
    """Negative when a ranks below b (the engine's comparator; the score is not compared first)."""
    if a.score == b.score:
        ka = (a.sb, a.bh, a.median, -a.rank_index)
        kb = (b.sb, b.bh, b.median, -b.rank_index)
    else:
        ka = (a.sb, a.bh * a.score, a.median * a.score, -a.rank_index)
        kb = (b.sb, b.bh * b.score, b.median * b.score, -b.rank_index)
    return -1 if ka < kb else (1 if ka > kb else 0)


def pair(tournament: Tournament, round_number: int | None = None) -> Pairing:
    """Pair a round with the Burstein system; raise NoValidPairing if the engine finds no legal pairing."""
    views = tournament.views(round_number)
    order, bye = _order_and_bye(views)
    if not order and bye is None:
        return Pairing(())
    initial = tournament.initial_colour or Colour.WHITE
    try:
        pairs = _Engine(views, order).run()
    except NoValidPairing:
        if bye is None:
            raise
        order, bye, pairs = _bye_anew(views, bye)
    boards = []
    for v, u in pairs:
        a, b = order[v], order[u]
        colour = _colour(a, b, initial)
        boards.append(Board(a.number, b.number) if colour is Colour.WHITE else Board(b.number, a.number))
    return Pairing(board_order(views, boards), None if bye is None else bye.number)


def bye_receiver(tournament: Tournament, round_number: int | None = None) -> int | None:
    """The reference engine's PAB player (None for an even number to pair), chosen before, and whatever, the rest
    can pair; `pair` gives the bye to another player only where the rest cannot."""
    _, bye = _order_and_bye(tournament.views(round_number))
    return None if bye is None else bye.number


def _order_and_bye(views: RoundViews) -> tuple[list[_Player], _Player | None]:
    """The players to pair in pairing order, the PAB receiver taken out (the last eligible one)."""
    numbers = views.to_pair()
    if not numbers:
        return [], None
    order = sorted(_players(views, numbers), key=functools.cmp_to_key(_by_score), reverse=True)
    if len(order) % 2 == 0:
        return order, None
    for candidate in reversed(order):
        if _bye_eligible(views, candidate.number):
            order.remove(candidate)
            return order, candidate
    raise NoValidPairing("no player is eligible for the pairing-allocated bye")


def _bye_anew(views: RoundViews, bye: _Player) -> tuple[list[_Player], _Player, list[tuple[int, int]]]:
    """The pairing when the reference engine's bye player leaves the rest unpairable: the bye to the next eligible
    player up the list whose absence leaves a pairing (the reference engine stops the event instead)."""
    everyone = sorted(_players(views, views.to_pair()), key=functools.cmp_to_key(_by_score), reverse=True)
    for candidate in reversed(everyone):
        if candidate.number == bye.number or not _bye_eligible(views, candidate.number):
            continue
        rest = [p for p in everyone if p.number != candidate.number]
        try:
            return rest, candidate, _Engine(views, rest).run()
        except NoValidPairing:
            continue
    raise NoValidPairing("the players cannot all be paired without breaking the absolute criteria")


def _by_score(a: _Player, b: _Player) -> int:
    if a.score != b.score:
        return -1 if a.score < b.score else 1
    return _compare(a.metrics, b.metrics)


# -- players, acceleration and metrics ------------------------------------------------------------------------


def _participated(record: RoundRecord) -> bool:
    """Took part in that round's pairing: a game (played or forfeited) or the PAB."""
    return record.opponent is not None or record.kind is RecordKind.PAB


def _acceleration(views: RoundViews) -> dict[int, Points]:
    """Virtual points per player for the round being paired (the event's own, or the engine's default)."""
    tournament = views.tournament
    has_own = bool(tournament.acceleration) or any(
        line.startswith("192") and line.upper().rstrip().endswith("_BAKU") for line in tournament.header
    )
    if has_own:
        accelerated = with_implied_acceleration(tournament)
        return {p.number: accelerated.virtual_points(p.number, views.round) for p in tournament.players}
    if views.round > 2:
        return {}
    # The top half of round 1's participants (by pairing number); absent players inside that block also get
    # the point without using a place. Before round 1 is paired, everyone without an entry takes part.
    ranked = sorted(tournament.players, key=lambda p: p.number)

    def counts(p: Player) -> bool:
        first = p.record(1)
        return first.kind is RecordKind.NOT_PAIRED if views.round == 1 else _participated(first)

    bound = sum(1 for p in ranked if counts(p))
    out: dict[int, Points] = {}
    if bound > 1:
        for p in ranked:
            out[p.number] = tournament.scoring.win
            if counts(p):
                bound -= 2
                if bound <= 1:
                    break
    return out


def _match_score(record: RoundRecord) -> Outcome:
    """Win, draw or loss as the engine classes a round (byes and forfeits included)."""
    kind = record.kind
    if kind is RecordKind.PLAYED:
        assert record.outcome is not None
        return record.outcome
    if kind in (RecordKind.FORFEIT_WIN, RecordKind.PAB, RecordKind.FULL_BYE):
        return Outcome.WIN
    if kind is RecordKind.HALF_BYE:
        return Outcome.DRAW
    return Outcome.LOSS


def _virtual_opponent(record: RoundRecord, scoring: Scoring) -> Points:
    """The result of the virtual opponent of an unplayed round (the pre-2023 C.07 reading)."""
    outcome = _match_score(record)
    if outcome is Outcome.LOSS:
        return scoring.win
    if outcome is Outcome.DRAW:
        return scoring.draw
    if record.kind is RecordKind.PAB and scoring.pab_points < scoring.win:
        return scoring.win if scoring.pab_points < scoring.draw else scoring.draw
    return scoring.forfeit_loss


def _players(views: RoundViews, numbers: Sequence[int]) -> list[_Player]:
    tournament = views.tournament
    scoring = tournament.scoring
    played = views.round - 1
    paired_now = set(numbers)
    valid = [
        p.number
        for p in sorted(tournament.players, key=lambda p: p.number)
        if p.number in paired_now or any(_participated(r) for r in p.records(views.round))
    ]
    rank_index = {number: k for k, number in enumerate(valid)}
    acc = _acceleration(views)
    records = {number: tournament.player(number).records(views.round) for number in valid}
    fractions = {number: [scoring.points(r) for r in rows] for number, rows in records.items()}
    scores = {number: views.score(number) for number in numbers}
    # Every value in whole units of one common denominator (sums and products of these values only). A record's
    # points are one of the scoring's few value objects: they are found by identity, as hashing a Fraction takes a
    # modular inverse each time.
    kept = {scoring.win, scoring.draw, scoring.forfeit_loss}
    distinct = {id(value): value for value in kept} | {id(p): p for row in fractions.values() for p in row}
    values = {*distinct.values(), *acc.values(), *scores.values()}
    denominator = math.lcm(*(Fraction(value).denominator for value in values))
    unit = {value: int(value * denominator) for value in values}
    by_identity = {key: unit[value] for key, value in distinct.items()}
    scored = {number: [by_identity[id(p)] for p in row] for number, row in fractions.items()}
    draw = unit[scoring.draw]
    own = {number: unit[value] for number, value in acc.items()}
    adjusted = {
        number: own.get(number, 0)
        + sum(points if r.is_played else draw for r, points in zip(rows, scored[number], strict=True))
        for number, rows in records.items()
    }
    states = {s.number: s for s in colour_states(views, numbers)}
    out = []
    for number in numbers:
        accelerated = own.get(number, 0)
        virtual = accelerated + (played - 1) * draw
        sb = bh = 0
        contributions = []
        for rec, points in zip(records[number], scored[number], strict=True):
            if rec.is_played:
                assert rec.opponent is not None
                value = adjusted.get(rec.opponent, 0)
            else:
                value = virtual + by_identity[id(_virtual_opponent(rec, scoring))]
            sb += points * value
            bh += value
            contributions.append(value)
            virtual += points - draw
        median = bh - min(contributions) - max(contributions) if played > 2 else 0
        score = unit[scores[number]] + accelerated
        metrics = _Metrics(score, sb, bh, median, rank_index[number])
        out.append(_Player(number, rank_index[number], score, states[number], views.opponents(number), metrics))
    return out


def _bye_eligible(views: RoundViews, number: int) -> bool:
    """No earlier PAB and no forfeit win (the pre-2025 rule: a full-point bye does not block it)."""
    return not any(r.kind in (RecordKind.PAB, RecordKind.FORFEIT_WIN) for r in views.history(number))


# -- colours ------------------------------------------------------------------------------------------------


def _compatible(a: Colour | None, b: Colour | None) -> bool:
    return a is None or b is None or a is not b


def _colour(player: _Player, opponent: _Player, initial: Colour) -> Colour:
    """The colour `player` (the better-ranked side of the pair) gets against `opponent`."""
    ca, cb = player.colour, opponent.colour
    pa, pb = ca.preference, cb.preference
    if _compatible(pa, pb):
        if pa is not None:
            return pa
        if pb is not None:
            return pb.opposite
    else:
        assert pa is not None and pb is not None
        abs_a = ca.strength is PreferenceStrength.ABSOLUTE
        abs_b = cb.strength is PreferenceStrength.ABSOLUTE
        imb_a, imb_b = abs(ca.difference), abs(cb.difference)
        if abs_a and (imb_a > imb_b or not abs_b):
            return pa
        if abs_b and (imb_b > imb_a or not abs_a):
            return pb.opposite
        strong_a = ca.strength is PreferenceStrength.STRONG
        strong_b = cb.strength is PreferenceStrength.STRONG
        if strong_a and not strong_b:
            return pa
        if strong_b and not strong_a:
            return pb.opposite
        for x, y in zip(reversed(ca.colours), reversed(cb.colours), strict=False):
            if x is not y:
                return y
    if pa is None:
        if player.rank_index < opponent.rank_index:
            return initial.opposite if player.rank_index % 2 else initial
        return initial if opponent.rank_index % 2 else initial.opposite
    assert pb is not None
    return pb.opposite if _compare(player.metrics, opponent.metrics) < 0 else pa


# -- the two matching phases -------------------------------------------------------------------------------


class _Engine:
    """Score groups (merged where needed) by matching, then the pairs inside each group, best player first."""

    def __init__(self, views: RoundViews, order: list[_Player]) -> None:
        self.views = views
        self.order = order
        self.n = len(order)
        self.weights: list[dict[int, int]] = [{} for _ in range(self.n)]
        self.mate: list[int] = [-1] * self.n
        # By position: the positions it must not meet (played or forbidden), its absolute colour preference and its
        # colour preference (None: none); two players with the same absolute preference cannot meet either.
        position = {p.number: k for k, p in enumerate(order)}
        self.blocked: list[set[int]] = [{position[o] for o in p.opponents if o in position} for p in order]
        for group in views.tournament.forbidden:
            inside = [position[number] for number in group if number in position]
            for k in inside:
                self.blocked[k].update(j for j in inside if j != k)
        self.preference = [p.colour.preference for p in order]
        self.absolute = [
            p.colour.preference if p.colour.strength is PreferenceStrength.ABSOLUTE else None for p in order
        ]
        self.tag = 0
        # By player: the solve its duals came from, its tight edges to players of that solve, its other edges. The
        # groups below the one being paired keep their solves from group to group (`_suffix`), and their edges.
        self.tight_memo: dict[int, tuple[int, list[int], list[int]]] = {}
        # Twice each engine weight met so far without its partner priority (`_small`): the weights take few values.
        self.doubled = _Doubled(self.n + 1)

    def edge(self, x: int, y: int, same: bool, colour: bool) -> int:
        """The engine's edge weight between two players, without the partner priority."""
        if y in self.blocked[x]:
            return 0
        absolute = self.absolute[x]
        if absolute is not None and absolute is self.absolute[y]:
            return 0
        if not same:
            return _COMPAT
        if colour:
            pa, pb = self.preference[x], self.preference[y]
            if pa is None or pb is None or pa is not pb:
                return _COMPAT + _SAME + _COLOUR
        return _COMPAT + _SAME

    def set(self, x: int, y: int, weight: int) -> None:
        """Set (or, with 0, remove) the edge x-y."""
        if weight:
            self.weights[x][y] = weight
            self.weights[y][x] = weight
        else:
            self.weights[x].pop(y, None)
            self.weights[y].pop(x, None)

    def solve(self, perfect: bool = False, later: Sequence[int] = (), inside: Sequence[int] = ()) -> None:
        """A maximum-weight matching of the current graph into `mate` (`perfect`: one is known to exist).

        `later` lists players still to choose, in order: below every engine weight, each of them prefers its
        lowest-ranked later partner, the first one most, so that the result also answers their own steps
        while no other partner priority is in the graph (see `run`). `inside`: the group's players still to
        pair, whose matching is first tried apart from the rest's (`_split_matching`).
        """
        active = [v for v in range(self.n) if self.weights[v]]
        local = {v: k for k, v in enumerate(active)}
        if not later and not inside:
            # The group forming's matchings: the engine's weights as they are, in the same order.
            plain = [
                (local[x], local[y], w)
                for x in active
                for y, w in sorted(item for item in self.weights[x].items() if item[0] > x)
            ]
            found = max_weight_perfect_matching(len(active), plain) if perfect else None
            got = found if found is not None else max_weight_matching(len(active), plain)
            self.mate = [-1] * self.n
            for k, partner in enumerate(got):
                if partner >= 0:
                    self.mate[active[k]] = active[partner]
            return
        place = {v: k for k, v in enumerate(later)}
        width = (len(later) + 1).bit_length()
        shift = width * len(later)
        edges: list[Edge] = []
        likely: list[bool] = []
        fold = len(later) - 1
        for x in active:
            for y, w in sorted(self.weights[x].items()):
                if x < y:
                    w <<= shift
                    i, j = place.get(x), place.get(y)
                    if i is not None and j is not None:
                        first, second = (i, j) if i < j else (j, i)
                        w += (second + 1) << (width * (len(later) - 1 - first))
                        near = second - first <= SPARSE_WINDOW or abs(first + second - fold) <= SPARSE_WINDOW
                    else:
                        # A partner priority (this player's or a floater's) makes every such edge a candidate.
                        near = y - x <= SPARSE_WINDOW or w % (_COLOUR << shift) != 0
                    edges.append((local[x], local[y], w))
                    likely.append(near)
        split = _split_matching(len(active), edges, likely, {local[v] for v in inside}) if perfect and inside else None
        if split is not None:
            got = split
        elif later and len(edges) > SPARSE_LIMIT:
            got = _sparse_matching(len(active), edges, likely, perfect and len(later) <= WARM_LATER_LIMIT)
        else:
            found = max_weight_perfect_matching(len(active), edges) if perfect else None
            got = found if found is not None else max_weight_matching(len(active), edges)
        mate = [-1] * self.n
        for k, partner in enumerate(got):
            if partner >= 0:
                mate[active[k]] = active[partner]
        self.mate = mate

    def solve_tail(self, start: int, sg: Sequence[int]) -> None:
        """Re-solve only the players joined to the last group (a heaviest matching); everyone above keeps their pair.

        No edge crosses an even group boundary that nobody floats across, and every player above such a boundary
        is already perfectly matched (the groups were valid), so the part from the lowest such boundary under
        `start` is a graph of its own: solving it alone keeps the matching above it as it was, as the reference's
        incremental matcher does (it only works from the free players, all of them in this part).
        """
        weights, mate = self.weights, self.mate

        def reach(v: int) -> int:
            """The lowest player joined to v by an edge or by its current pair (an edge just removed)."""
            low = min(weights[v]) if weights[v] else v
            return low if mate[v] < 0 else min(low, mate[v])

        low = start
        # The players after the next group's first have no edge yet and were never matched: they reach only themselves.
        lowest = min(reach(v) for v in range(start, min(self.n, sg[-1] + 1)))
        while lowest < low:
            low -= 1
            lowest = min(lowest, reach(low))
        for v in range(low, self.n):
            mate[v] = -1
        witness = self._witness(low, sg)
        if witness is not None:
            for v, m in witness.items():
                mate[v] = m
            return
        active = [v for v in range(low, self.n) if weights[v]]
        local = {v: k for k, v in enumerate(active)}
        plain = [(local[x], local[y], w) for x in active for y, w in sorted(weights[x].items()) if y > x]
        found = max_weight_perfect_matching(len(active), plain)
        got = found if found is not None else max_weight_matching(len(active), plain)
        for k, partner in enumerate(got):
            if partner >= 0:
                mate[active[k]] = active[partner]

    def _witness(self, low: int, sg: Sequence[int]) -> dict[int, int] | None:
        """A perfect matching of the players from `low` with one pair across each group boundary, or None.

        From a group boundary `low` whose groups below all end an odd count of players after it, any perfect
        matching pairs across each of their boundaries at least once: this one is then a heaviest matching of the
        part (the most pairs, then the most inside groups). The merging reads only whether a heaviest matching is
        valid, and either every one is or none is (each pairs exactly once across every boundary), so this one
        answers as the engine's would. None where it is not found (the caller then solves the part exactly).
        """
        weights = self.weights
        end = sg[-1]
        if low not in sg:
            return None
        bounds = sorted({b for b in sg if low < b < end})
        if any((b - low) % 2 == 0 for b in bounds):
            return None
        parts = [range(a, b) for a, b in itertools.pairwise([low, *bounds, end])]
        # The next group's first player stands in for it while a group's end is odd (every edge to the group).
        if end < self.n and weights[end]:
            parts.append(range(end, end + 1))
        if sum(len(part) for part in parts) % 2:
            return None
        pairs: dict[int, int] = {}
        for upper, lower in itertools.pairwise(parts):
            free = [a for a in reversed(upper) if a not in pairs]
            across = next(((a, b) for a in free for b in weights[a] if b in lower and b not in pairs), None)
            if across is None:
                return None
            a, b = across
            pairs[a], pairs[b] = b, a
        for part in parts:
            members = [v for v in part if v not in pairs]
            local = {v: k for k, v in enumerate(members)}
            got = max_cardinality_matching([[local[u] for u in weights[v] if u in local] for v in members])
            if -1 in got:
                return None
            for k, m in enumerate(got):
                pairs[members[k]] = members[m]
        return pairs

    def small(self, weight: int) -> int:
        """An engine weight without its partner priority, its levels as digits of base n + 1."""
        return self.doubled[weight] >> 1

    def valid(self, groups: Sequence[int]) -> bool:
        """Everyone above the last group matched, and at most one floater per group (two if its end is odd)."""
        it = 0
        begin = 0
        unmatched = 0
        for v, m in enumerate(self.mate):
            if v >= groups[-1]:
                return True
            if v >= groups[it]:
                unmatched = 0
                begin = v
                while v >= groups[it]:
                    it += 1
            if m < 0 and v < groups[-2]:
                return False
            if m < 0 or m < begin or m >= groups[it]:
                unmatched += 1
                if unmatched > (2 if groups[it] & 1 else 1):
                    return False
        return True

    def groups(self) -> list[int]:
        """Group boundaries (a repeated boundary: nobody floats across it), merging groups until valid."""
        n, order = self.n, self.order
        weights, blocked, absolute = self.weights, self.blocked, self.absolute
        sg = [0, 0]
        valid = True
        while sg[-1] < n:
            sg.append(sg[-1])
            while True:
                start = sg[-1]
                while True:
                    v = sg[-1]
                    own, begin, absolute_v = weights[v], sg[-2], absolute[v]
                    for u in range(sg[-3], v):
                        # As `edge` and `set`, inline: this runs for every pair of a score group and the one above.
                        if v in blocked[u] or (absolute_v is not None and absolute[u] is absolute_v):
                            if u in own:
                                del own[u], weights[u][v]
                        else:
                            own[u] = weights[u][v] = _COMPAT + _SAME if u >= begin else _COMPAT
                    sg[-1] += 1
                    if sg[-1] >= n or order[start].score != order[sg[-1]].score:
                        break
                if sg[-1] & 1 and sg[-1] < n:
                    for u in range(sg[-2], sg[-1]):
                        self.set(sg[-1], u, _COMPAT)
                self.solve_tail(sg[-2], sg)
                valid = self.valid(sg)
                if sg[-1] >= n or valid:
                    break
            if sg[-1] < n and not sg[-1] & 1:
                sg.append(sg[-1])
        while len(sg) > 3 and not valid:
            sg.pop()
            boundary = sg.pop()
            begin = sg.pop()
            for o in range(sg[-1], boundary):
                for i in range(boundary, n):
                    self.set(o, i, self.edge(o, i, o >= begin, False))
            sg += [begin, n]
            self.solve_tail(sg[-3], sg)
            valid = self.valid(sg)
        if not valid:
            raise NoValidPairing("the players cannot all be paired without breaking the absolute criteria")
        return sg

    def run(self) -> list[tuple[int, int]]:
        """The pairs, each as (better-ranked player, partner), by position in the pairing order."""
        sg = self.groups()
        order = self.order
        paired = [False] * self.n
        pairs: list[tuple[int, int]] = []
        begin = sg[0]
        floater: int | None = None
        holders: list[int] = []
        ranges = [(a, b) for a, b in itertools.pairwise(sg) if a < b]
        below: dict[int, _Part | None] = {}
        chains: dict[int, frozenset[int] | None] = {}
        index = -1
        for end in sg[1:]:
            if begin == end:
                continue
            index += 1
            group = list(range(begin, end))
            if floater is not None:
                group.append(floater)
                floater = None
            group = _sorted_group(group, order)
            self._set_group(group)
            natural = None
            if NATURAL and not self._holding(holders):
                natural = self._by_colours(group, ranges, index, chains) if BY_COLOURS else None
                if natural is None:
                    natural = self._natural(group, ranges, index, below)
            if natural is not None:
                for v, m in natural[0]:
                    paired[v] = paired[m] = True
                    pairs.append((v, m))
                self._finalize_all(natural[0])
                floater = natural[1]
                holders = [] if floater is None else [floater]
                begin = end
                continue
            fresh = True
            for k, v in enumerate(group):
                if paired[v]:
                    continue
                priority = 1
                for u in group[k + 1 :]:
                    if paired[u]:
                        continue
                    weight = self.edge(v, u, True, True)
                    if weight:
                        self.set(v, u, weight + priority)
                        priority += 1
                # The engine solves again at every step. The last matching already answers this step when it
                # was solved with the later players' preferences below the weights (`later`) and no partner
                # priority of anyone else (a floater's) is left in the graph: removing a fixed pair keeps the
                # rest optimal, and this player's priorities rank partners as its tie-break there did.
                holders = [h for h in holders if h != v and any(w % _COLOUR for w in self.weights[h].values())]
                if fresh or holders:
                    later = [u for u in group[k + 1 :] if not paired[u]]
                    # A floater's priorities add to this player's: ties between them are the matcher's, so the
                    # graph is then solved whole, as the engine does.
                    inside = () if holders else [u for u in group if not paired[u]]
                    self.solve(perfect=True, later=later, inside=inside)
                    fresh = False
                m = self.mate[v]
                if m < 0:
                    raise NoValidPairing("a player of the group could not be paired")
                if m >= end:
                    floater = v
                    holders.append(v)
                    continue
                paired[v] = paired[m] = True
                pairs.append((v, m))
                self._finalize(v, m)
            begin = end
        if not all(paired):
            raise NoValidPairing("the last group could not be completed")
        return pairs

    def _set_group(self, group: Sequence[int]) -> None:
        """Every edge inside the group, colours compared (as `edge` and `set` for each pair, inline: the same order)."""
        weights, blocked, absolute, preference = self.weights, self.blocked, self.absolute, self.preference
        for k, v in enumerate(group):
            own, blocked_v, absolute_v, preference_v = weights[v], blocked[v], absolute[v], preference[v]
            for u in reversed(group[k + 1 :]):
                if u in blocked_v or (absolute_v is not None and absolute_v is absolute[u]):
                    own.pop(u, None)
                    weights[u].pop(v, None)
                    continue
                preference_u = preference[u]
                if preference_v is None or preference_u is None or preference_v is not preference_u:
                    weight = _COMPAT + _SAME + _COLOUR
                else:
                    weight = _COMPAT + _SAME
                own[u] = weight
                weights[u][v] = weight

    def _holding(self, holders: Sequence[int]) -> bool:
        """True when a floater still holds partner priorities in the graph."""
        return any(w % _COLOUR for h in holders for w in self.weights[h].values())

    def _by_colours(
        self,
        group: Sequence[int],
        ranges: Sequence[tuple[int, int]],
        index: int,
        chains: dict[int, frozenset[int] | None],
    ) -> tuple[list[tuple[int, int]], int | None] | None:
        """The group's pairs and floater where optimal duals can be written down from its colour preferences alone
        (no weighted solve); None where they cannot (`_natural` then reads them from a solved matching).

        Every heaviest matching pairs all the players, pairs once across each odd boundary down to the next even one
        and never across that (the groups are valid), and among those has the most colour-compatible pairs in the
        group (only its edges carry colours yet). The groups below then weigh the same whichever player floats down
        to them, as long as the rest can still be paired so: a stand-in vertex joined to the players who may float
        (`_removable` below) turns the group's choice into a perfect matching of the group and the stand-in with the
        most compatible pairs. Vertex duals in half colour units bound that: one each (the stand-in minus one), or,
        where one preference outnumbers the others and the stand-in together, none for its players and two for the
        others. Where a perfect matching of the tight edges exists it is optimal, and every optimal one is made of
        tight edges only (no blossom duals), so each step is read exactly on the tight edges as `_natural` reads it.
        """
        weights, preference = self.weights, self.preference
        members = set(group)
        odd = len(group) % 2 == 1
        lower = range(*ranges[index + 1]) if index + 1 < len(ranges) else range(0)
        if odd and not lower:
            return None
        # Every edge inside the group was just set (`_set_group`); those leaving it must go to the next group, as the
        # group forming left them.
        for x in group:
            edges = weights[x]
            for y in edges.keys() - members:
                if not (odd and y in lower and edges[y] == _COMPAT):
                    return None
        down = self._removable(ranges, index + 1, chains) if odd else frozenset()
        if down is None or (odd and not down):
            return None
        stand_in = self.n
        count = {Colour.WHITE: 0, Colour.BLACK: 0, None: 0}
        for x in group:
            count[preference[x]] += 1
        heavy: Colour | None = None
        for colour in (Colour.WHITE, Colour.BLACK):
            if count[colour] > count[colour.opposite] + count[None] + odd:
                heavy = colour
        if heavy is None:
            dual, stand_dual = dict.fromkeys(group, 1), -1
        else:
            dual, stand_dual = {x: 0 if preference[x] is heavy else 2 for x in group}, 0
        # The tight edges inside: the compatible ones where the duals are even; else every edge of an outnumbering
        # player, and the compatible edges between the others and those players. Each list runs from the group's
        # lowest-ranked player up, so that the greedy start of the matching below is mostly the steps' own choice.
        full = _COMPAT + _SAME + _COLOUR
        upward = group[::-1]
        adjacency: dict[int, list[int]] = {}
        floating: list[int] = []
        for x in group:
            edges = weights[x]
            if heavy is None:
                own = [y for y in upward if edges.get(y) == full]
            elif preference[x] is heavy:
                own = [y for y in upward if y in edges]
            else:
                own = [y for y in upward if edges.get(y) == full and preference[y] is heavy]
            if odd and dual[x] + stand_dual == 0 and not down.isdisjoint(edges):
                own.append(stand_in)
                floating.append(x)
            adjacency[x] = own
        if odd:
            adjacency[stand_in] = floating
        vertices = list(adjacency)
        local = {v: k for k, v in enumerate(vertices)}
        got = max_cardinality_matching([[local[y] for y in adjacency[v]] for v in vertices])
        if -1 in got:
            return None
        mate = {v: vertices[got[k]] for k, v in enumerate(vertices)}

        def accept(v: int, u: int, gone: set[int], changes: dict[int, int] | None) -> bool:
            """Every perfect matching of tight edges is a heaviest one: the swap, where there is one, is taken."""
            if changes is None:
                return False
            mate.update(changes)
            return True

        return _steps(group, mate, adjacency.__getitem__, self.n + 1, accept, int(odd))

    def _removable(
        self, ranges: Sequence[tuple[int, int]], index: int, chains: dict[int, frozenset[int] | None]
    ) -> frozenset[int] | None:
        """The players of group `index` whose pairing with one player from above leaves the group and those below it
        a valid pairing down to the next even boundary (one floater down each odd one), or None (memoised).

        Read before the group's turn, while its edges are still those of the group forming (none is fixed yet, no
        colours): each the same weight inside the group and across, so only whether the pairing exists matters. A
        player is one of them where the group (with a stand-in for the next group's, joined to the players who can
        float to one of those, when it floats one down) without it has a perfect matching: the even vertices of a
        search from the vertex a maximum matching leaves free. None where the edges are not as the forming left them.
        """
        if index in chains:
            return chains[index]
        chains[index] = None
        weights = self.weights
        group = range(*ranges[index])
        above = range(*ranges[index - 1])
        floats = len(group) % 2 == 0
        lower = range(*ranges[index + 1]) if index + 1 < len(ranges) else range(0)
        if floats and not lower:
            return None
        down = self._removable(ranges, index + 1, chains) if floats else frozenset()
        if down is None or (floats and not down):
            return None
        start, stop = group.start, group.stop
        members = set(group)
        stand_in = len(group)
        adjacency: list[list[int]] = [[] for _ in range(stand_in + floats)]
        for x in group:
            edges = weights[x]
            own = [y - start for y in edges if start <= y < stop]
            outside = edges.keys() - members
            # Every edge leaving the group goes to a neighbour, of the weight between groups, and so (by their count)
            # every edge inside is of the weight inside a group.
            for y in outside:
                if not (edges[y] == _COMPAT and (y in above or (floats and y in lower))):
                    return None
            if list(edges.values()).count(_COMPAT + _SAME) != len(own):
                return None
            if floats and not down.isdisjoint(edges):
                own.append(stand_in)
                adjacency[stand_in].append(x - start)
            adjacency[x - start] = own
        got = max_cardinality_matching(adjacency)
        exposed = [k for k, m in enumerate(got) if m < 0]
        if len(exposed) != 1:
            return None
        even: set[int] = set()
        mate = {k: m for k, m in enumerate(got) if m >= 0}
        _augmenting_path(exposed[0], None, mate, adjacency.__getitem__, (), len(adjacency), even)
        chains[index] = frozenset(start + k for k in even if k < stand_in)
        return chains[index]

    def _natural(
        self, group: Sequence[int], ranges: Sequence[tuple[int, int]], index: int, below: dict[int, _Part | None]
    ) -> tuple[list[tuple[int, int]], int | None] | None:
        """The group's pairs and floater, each step's choice read from one optimal dual and checked; None: unknown.

        Every step keeps a heaviest matching of the engine's weights (the partner priorities only break ties), so
        a player can take only a partner whose edge is tight under an optimal dual of the graph. Each player, best
        first, takes the lowest-ranked free one of the group that some heaviest matching holding the pairs made so
        far pairs with it, and floats when none does. That matching is the current one, or the current one changed
        along a path of tight edges between the two players' partners (kept when it weighs as much), or else one
        solved without the two. The graph's optimum is the group's (with the next groups where needed) solved
        apart from the groups below, whose optimum `below` holds, where the duals cover every edge between them.
        """
        active = [v for v in range(self.n) if self.weights[v]]
        scale = self.n + 1
        whole: _Part | None = None
        for after in range(index + 1, len(ranges) + 1):
            rest = self._suffix(ranges, after, below)
            if rest is None:
                continue
            members = list(group) + [v for a, b in ranges[index + 1 : after] for v in range(a, b)]
            part = self._part(members) if len(members) % 2 == 0 else None
            if part is None or len(members) + len(rest.mate) != len(active):
                continue
            if self._covers(part, set(members), rest):
                whole = part.joined(rest)
                break
        if whole is None:
            return None
        mate = dict(whole.mate)

        def weight(x: int, y: int) -> int:
            return self.small(self.weights[x][y])

        vertex = whole.vertex
        near: dict[int, list[int]] = {}
        doubled, memo, solves = self.doubled, self.tight_memo, whole.solve

        def tight(x: int) -> list[int]:
            found = near.get(x)
            if found is not None:
                return found
            edges, dx, solve = self.weights[x], vertex[x], solves[x]
            known = memo.get(x)
            if known is None or known[0] != solve:
                known = memo[x] = (solve, *_tight_split(x, edges, whole, doubled))
            # Edges to the same solve do not change while it is kept (only go, with the players paired); edges to
            # another solve hold no blossom of both, so are tight where the two vertex duals make up the weight.
            found = near[x] = [y for y in known[1] if y in edges]
            found += [y for y in known[2] if y in edges and dx + vertex[y] == doubled[edges[y]]]
            return found

        def accept(v: int, u: int, gone: set[int], changes: dict[int, int] | None) -> bool:
            """The swap where it weighs as much as the pairs it replaces, else a solve without v and u, if optimal."""
            if changes is not None:
                added = sum(weight(x, y) for x, y in changes.items() if x < y)
                if added == sum(weight(x, mate[x]) for x in changes if x < mate[x]):
                    mate.update(changes)
                    return True
            solved = self._without(active, gone, scale)
            if solved is None:
                return False
            # The current matching is a heaviest one of the players not yet paired (v and u among them).
            best = sum(weight(x, y) for x, y in mate.items() if x < y and (x not in gone or x in (v, u)))
            if solved[1] + weight(v, u) != best:
                return False
            mate.update(solved[0])
            mate[v], mate[u] = u, v
            return True

        return _steps(group, mate, tight, self.n, accept, 1)

    def _part(self, members: Sequence[int]) -> _Part | None:
        """A heaviest perfect matching of `members` alone (engine weights, no priorities), with its duals."""
        doubled = self.doubled
        inside = {v: k for k, v in enumerate(members)}
        edges = [
            (k, inside[y], doubled[w] >> 1)
            for k, x in enumerate(members)
            for y, w in self.weights[x].items()
            if x < y and y in inside
        ]
        solved = None
        if len(edges) > PART_SPARSE_LIMIT:
            solved = _sparse_perfect(len(members), edges, [b - a <= PART_WINDOW for a, b, _ in edges])
        if solved is None:
            solved = perfect_matching_with_duals(len(members), edges)
        if solved is None:
            return None
        got, duals = solved
        self.tag += 1
        shift = self.tag * (2 * self.n + 2)
        # Only blossoms with a positive dual change a slack (most have none): the others are left out of the chains.
        positive = {b for b, z in duals.blossom.items() if z}
        return _Part(
            {x: members[got[k]] for k, x in enumerate(members)},
            {x: duals.vertex[k] for k, x in enumerate(members)},
            {x: tuple(b + shift for b in duals.chains[k] if b in positive) for k, x in enumerate(members)},
            {b + shift: duals.blossom[b] for b in positive},
            dict.fromkeys(members, self.tag),
        )

    def _direct(self, groups: Sequence[range]) -> _Part | None:
        """A heaviest perfect matching of one even group, or of two odd ones paired once across, with optimal duals
        built directly (no weighted solve); None where the weights or the matchings do not allow it.

        Duals (twice the weights' halves, as `_part`'s): the upper group's players at its heaviest edge inside, the
        lower group's at what makes its heaviest edge to the upper group tight, and the lower group (odd) a blossom
        whose dual makes its heaviest edge inside tight. Every edge is then covered, and a perfect matching of tight
        edges pairing once across meets every blossom's bound: it is optimal (LP duality).
        """
        if len(groups) == 1 and len(groups[0]) % 2 == 0:
            upper, lower = groups[0], range(0)
        elif len(groups) == 2 and len(groups[0]) % 2 and len(groups[1]) % 2:
            upper, lower = groups
        else:
            return None
        weights, doubled = self.weights, self.doubled

        def heaviest(side: range, other: range) -> int:
            return max((doubled[w] for x in side for y, w in weights[x].items() if y in other), default=0)

        top, across, bottom = heaviest(upper, upper), heaviest(upper, lower), heaviest(lower, lower)
        high = top if len(upper) > 1 else max(across, bottom)
        if not high or (lower and not across):
            return None
        top_dual = high >> 1
        low_dual = across - top_dual
        blossom = ((bottom >> 1) - low_dual) if len(lower) > 1 else 0
        if blossom < 0:
            return None

        def perfect(side: Sequence[int], weight: int) -> dict[int, int] | None:
            """A perfect matching of `side` on its edges of (doubled) `weight`, or None."""
            local = {v: k for k, v in enumerate(side)}
            got = max_cardinality_matching(
                [[local[u] for u, w in weights[v].items() if u in local and doubled[w] == weight] for v in side]
            )
            return None if -1 in got else {side[k]: side[m] for k, m in enumerate(got)}

        mate: dict[int, int] | None = None
        if not lower:
            mate = perfect(upper, top)
        else:
            tries = 0
            for u in reversed(upper):
                for v, w in weights[u].items():
                    if v not in lower or doubled[w] != across:
                        continue
                    tries += 1
                    above = perfect([x for x in upper if x != u], top)
                    below = perfect([x for x in lower if x != v], bottom) if above is not None else None
                    if above is not None and below is not None:
                        mate = above | below | {u: v, v: u}
                    break
                if mate is not None or tries >= 4:
                    break
        if mate is None:
            return None
        self.tag += 1
        members = [*upper, *lower]
        vertex = dict.fromkeys(upper, top_dual) | dict.fromkeys(lower, low_dual)
        chains: dict[int, tuple[int, ...]] = dict.fromkeys(members, ())
        blossoms: dict[int, int] = {}
        if blossom:
            name = self.tag * (2 * self.n + 2) + self.n
            blossoms[name] = blossom
            chains.update(dict.fromkeys(lower, (name,)))
        return _Part(mate, vertex, chains, blossoms, dict.fromkeys(members, self.tag))

    def _covers(self, part: _Part, members: Collection[int], rest: _Part) -> bool:
        """Whether the two parts' vertex duals cover every edge between them (no blossom holds both)."""
        doubled = self.doubled
        for x in members:
            dx = part.vertex[x]
            for y, w in self.weights[x].items():
                if y not in members:
                    dy = rest.vertex.get(y)
                    if dy is None or dx + dy < doubled[w]:
                        return False
        return True

    def _suffix(self, ranges: Sequence[tuple[int, int]], index: int, below: dict[int, _Part | None]) -> _Part | None:
        """A heaviest perfect matching of group `index` and every group below, with its duals, or None (memoised).

        Built from the bottom: the group (with the next ones where needed) solved alone, joined to the groups below
        where the duals cover every edge between them; these groups keep their weights until their turn.
        """
        if index >= len(ranges):
            return _Part({}, {}, {}, {}, {})
        if index not in below:
            below[index] = None
            if (ranges[-1][1] - ranges[index][0]) % 2:
                return None
            for after in range(index + 1, len(ranges) + 1):
                rest = self._suffix(ranges, after, below)
                if rest is None:
                    continue
                members = [v for a, b in ranges[index:after] for v in range(a, b)]
                part = None
                if len(members) % 2 == 0:
                    part = self._direct([range(a, b) for a, b in ranges[index:after]]) or self._part(members)
                if part is not None and self._covers(part, set(members), rest):
                    below[index] = part.joined(rest)
                    break
        return below[index]

    def _without(self, active: Sequence[int], gone: Collection[int], scale: int) -> tuple[dict[int, int], int] | None:
        """A heaviest perfect matching (engine weights, no priorities) of the graph without `gone`, and its weight."""
        rest = [v for v in active if v not in gone]
        index = {v: k for k, v in enumerate(rest)}
        edges = [
            (index[x], index[y], self.small(w))
            for x in rest
            for y, w in self.weights[x].items()
            if x < y and y not in gone
        ]
        solved = perfect_matching_with_duals(len(rest), edges)
        if solved is None:
            return None
        got = solved[0]
        return {rest[k]: rest[m] for k, m in enumerate(got)}, sum(w for a, b, w in edges if got[a] == b)

    def _finalize(self, v: int, m: int) -> None:
        """Fix the pair v-m. The engine keeps only their own edge; an isolated pair changes nothing, so it goes."""
        for x in (v, m):
            for y in self.weights[x]:
                del self.weights[y][x]
            self.weights[x].clear()

    def _finalize_all(self, pairs: Sequence[tuple[int, int]]) -> None:
        """Fix all these pairs at once, as `_finalize` each (only the edges to players left are removed one by one)."""
        weights = self.weights
        gone = {x for pair in pairs for x in pair}
        for x in gone:
            own = weights[x]
            for y in own.keys() - gone:
                del weights[y][x]
            own.clear()


def _tight_split(x: int, edges: dict[int, int], part: _Part, doubled: dict[int, int]) -> tuple[list[int], list[int]]:
    """x's tight edges to players of its own solve in `part`, and its edges to players of other solves."""
    vertex, chains, solves = part.vertex, part.chains, part.solve
    dx, cx, solve = vertex[x], chains[x], solves[x]
    other = [y for y in edges if solves[y] != solve]
    if not cx:
        # In no blossom: tight exactly where the two vertex duals make up the edge's weight.
        return [y for y, w in edges.items() if dx + vertex[y] == doubled[w] and solves[y] == solve], other
    own: list[int] = []
    # Twice the duals of x's blossoms down to each (outermost first): an edge's slack gains that of the innermost
    # blossom holding both ends, the last of the other end's blossoms that is also one of x's (its chain's blossoms
    # that hold x come first, so they are found by bisection).
    below: dict[int, int] = {}
    total = 0
    for b in cx:
        total += 2 * part.blossom[b]
        below[b] = total
    depth = len(cx)
    for y, w in edges.items():
        if solves[y] != solve:
            continue
        slack = dx + vertex[y] - doubled[w]
        # Blossom duals only add to the slack (never negative): a positive one stays positive.
        if slack > 0:
            continue
        cy = chains[y]
        high = len(cy)
        if high > depth:
            high = depth
        low = high if high and cy[high - 1] in below else 0
        while low < high:
            middle = (low + high) // 2
            if cy[middle] in below:
                low = middle + 1
            else:
                high = middle
        if slack + (below[cy[low - 1]] if low else 0) == 0:
            own.append(y)
    return own, other


def _augmenting_path(
    root: int,
    goal: int | None,
    mate: dict[int, int],
    neighbours: Callable[[int], list[int]],
    gone: Collection[int],
    size: int,
    even: set[int] | None = None,
) -> list[int] | None:
    """An augmenting path from `root` to `goal`, the only unmatched vertices (Edmonds' search with blossoms).

    Vertices are 0..size-1; `mate` pairs every other vertex not in `gone` (root's and goal's entries are ignored);
    the path is returned as its vertices, root first, an edge of the new matching between each even position and
    the next; None when no perfect matching of the vertices exists. With no goal (root the only unmatched vertex)
    the search runs to its end and `even` receives its even vertices: those whose removal leaves a perfect matching.
    """
    base = list(range(size))
    parent = [-1] * size
    used = {root}
    tree = [root]
    queue = [root]

    def lca(a: int, b: int) -> int:
        seen: set[int] = set()
        while True:
            a = base[a]
            seen.add(a)
            if a == root:
                break
            a = parent[mate[a]]
        while True:
            b = base[b]
            if b in seen:
                return b
            b = parent[mate[b]]

    def mark(x: int, top: int, child: int, inside: set[int]) -> None:
        while base[x] != top:
            partner = mate[x]
            inside.add(base[x])
            inside.add(base[partner])
            parent[x] = child
            child = partner
            x = parent[partner]

    for x in queue:
        own = mate.get(x) if x != root else None
        top_x = base[x]
        for y in neighbours(x):
            if y in gone or y == own or top_x == base[y]:
                continue
            if y == root or (y != goal and parent[mate[y]] >= 0):
                top = lca(x, y)
                inside: set[int] = set()
                mark(x, top, y, inside)
                mark(y, top, x, inside)
                for z in tree:
                    if base[z] in inside:
                        base[z] = top
                        if z not in used:
                            used.add(z)
                            queue.append(z)
                top_x = base[x]
            elif parent[y] < 0:
                parent[y] = x
                tree.append(y)
                if y == goal:
                    path: list[int] = []
                    while True:
                        prev = parent[y]
                        path += [y, prev]
                        if prev == root:
                            return path[::-1]
                        y = mate[prev]
                partner = mate[y]
                used.add(partner)
                tree.append(partner)
                queue.append(partner)
    if even is not None:
        even |= used
    return None


def _steps(
    group: Sequence[int],
    mate: dict[int, int],
    neighbours: Callable[[int], list[int]],
    size: int,
    accept: _Accept,
    floaters: int,
) -> tuple[list[tuple[int, int]], int | None] | None:
    """Each player in order takes its lowest-ranked free tight partner `accept` takes, or floats (up to `floaters`)."""
    taken: set[int] = set()
    free = list(group)
    pairs: list[tuple[int, int]] = []
    floating: list[int] = []
    while free:
        v = free.pop(0)
        options = set(neighbours(v))
        reachable: set[int] | None = None
        for j in range(len(free) - 1, -1, -1):
            u = free[j]
            if u not in options:
                continue
            if mate[v] != u:
                if reachable is not None and u not in reachable:
                    continue
                gone = taken | {v, u}
                changes = _swap(v, u, mate, neighbours, gone, size)
                if changes is None and reachable is None:
                    # The partners v can take with the others still perfectly matched on tight edges: the even
                    # vertices of one search from v's partner (v and the pairs made left out).
                    reachable = set()
                    _augmenting_path(mate[v], None, mate, neighbours, taken | {v}, size, reachable)
                    if u not in reachable:
                        continue
                if not accept(v, u, gone, changes):
                    continue
            taken |= {v, u}
            pairs.append((v, free.pop(j)))
            break
        else:
            floating.append(v)
    if len(floating) > floaters:
        return None
    return pairs, (floating[0] if floating else None)


def _swap(
    v: int, u: int, mate: dict[int, int], neighbours: Callable[[int], list[int]], gone: Collection[int], size: int
) -> dict[int, int] | None:
    """The pairs that change when v-u joins the matching and their partners pair along tight edges, or None."""
    root, goal = mate[v], mate[u]
    path = [root, goal] if goal in neighbours(root) else _augmenting_path(root, goal, mate, neighbours, gone, size)
    if path is None:
        return None
    changes = {v: u, u: v}
    for k in range(0, len(path), 2):
        changes[path[k]], changes[path[k + 1]] = path[k + 1], path[k]
    return changes


class _Doubled(dict[int, int]):
    """Twice `_small` of each engine weight, computed at its first use."""

    def __init__(self, scale: int) -> None:
        super().__init__()
        self.scale = scale

    def __missing__(self, weight: int) -> int:
        value = self[weight] = 2 * _small(weight, self.scale)
        return value


def _small(weight: int, scale: int) -> int:
    """An engine weight without its partner priority, its three levels as digits of base `scale`."""
    return ((weight >> 96) * scale + ((weight >> 64) & 1)) * scale + ((weight >> 32) & 1)


def _sorted_group(group: Iterable[int], order: Sequence[_Player]) -> list[int]:
    """A group with its incoming floater, best first by the engine's comparator.

    The comparator is not transitive when the floater's score differs from the group's (it then weighs
    Buchholz by each player's own score), so the order depends on the sorting algorithm: the reference sorts
    the group with `std::list::sort`, and `list_sort` does what libstdc++'s does, comparison for comparison.
    """
    return list_sort(list(group), lambda x, y: _compare(order[y].metrics, order[x].metrics) < 0)


def _sparse_matching(n: int, edges: Sequence[Edge], likely: list[bool], perfect: bool) -> list[int]:
    """A maximum-weight matching of all `edges`, solved on the `likely` ones plus those the duals ask for.

    With `perfect` (a perfect matching of all the edges exists) each round is first solved warm-started as a
    perfect matching; where the chosen edges have none, that round is solved as a maximum-weight matching.
    """
    chosen = list(likely)
    while True:
        kept = [edge for edge, keep in zip(edges, chosen, strict=True) if keep]
        found = perfect_matching_with_duals(n, kept) if perfect else None
        mate, duals = found if found is not None else matching_with_duals(n, kept)
        if not _add_violated(edges, chosen, duals):
            return mate


def _add_violated(edges: Sequence[Edge], chosen: list[bool], duals: Duals) -> bool:
    """Choose, for each vertex, the edge left out whose dual constraint it breaks most; False when none is broken.

    Most broken edges are broken only because the duals of a graph without them are loose: adding a few per
    vertex and solving again converges with far fewer edges than adding them all.
    """
    worst: dict[int, tuple[int, int]] = {}
    vertex, blossom = duals.vertex, duals.blossom
    # Only the blossoms with a positive dual add to a slack: each vertex's chain of those (outermost first).
    chains = [tuple(b for b in chain if blossom[b]) for chain in duals.chains]
    for k, (a, b, w) in enumerate(edges):
        excess = 2 * w - vertex[a] - vertex[b]
        # Covered by the vertex duals alone (blossom duals only add): most edges stop here.
        if excess <= 0 or chosen[k]:
            continue
        broken = excess
        for x, y in zip(chains[a], chains[b], strict=False):
            if x != y:
                break
            broken -= 2 * blossom[x]
        if broken <= 0:
            continue
        for v in (a, b):
            if v not in worst or excess > worst[v][0]:
                worst[v] = (excess, k)
    for _, k in worst.values():
        chosen[k] = True
    return bool(worst)


def _split_matching(n: int, edges: Sequence[Edge], likely: list[bool], inside: set[int]) -> list[int] | None:
    """A maximum-weight perfect matching made of one of the `inside` vertices and one of the rest, or None.

    Each part is solved alone (the inside one sparse when large); their duals together are optimal for the
    whole graph when they also cover every edge between the parts, which is checked. None when a part has no
    perfect matching or an edge between the parts could improve them (the caller then solves the whole graph).
    """
    if len(inside) % 2 or (n - len(inside)) % 2 or len(inside) == n:
        return None
    index = [0] * n
    parts: tuple[list[int], list[int]] = ([], [])
    for v in range(n):
        part = parts[0] if v in inside else parts[1]
        index[v] = len(part)
        part.append(v)
    own: tuple[list[Edge], list[Edge]] = ([], [])
    own_likely: list[bool] = []
    across: list[Edge] = []
    for (a, b, w), near in zip(edges, likely, strict=True):
        a_in, b_in = a in inside, b in inside
        if a_in != b_in:
            across.append((a, b, w))
        elif a_in:
            own[0].append((index[a], index[b], w))
            own_likely.append(near)
        else:
            own[1].append((index[a], index[b], w))
    first = (
        _sparse_perfect(len(parts[0]), own[0], own_likely)
        if len(own[0]) > SPARSE_LIMIT
        else perfect_matching_with_duals(len(parts[0]), own[0])
    )
    if first is None:
        return None
    second = perfect_matching_with_duals(len(parts[1]), own[1])
    if second is None:
        return None
    dual = [0] * n
    for (_, duals), part in zip((first, second), parts, strict=True):
        for k, v in enumerate(part):
            dual[v] = duals.vertex[k]
    # No blossom holds vertices of both parts: an edge across is covered by its two vertex duals alone.
    if any(dual[a] + dual[b] < 2 * w for a, b, w in across):
        return None
    mate = [-1] * n
    for (got, _), part in zip((first, second), parts, strict=True):
        for k, partner in enumerate(got):
            mate[part[k]] = part[partner]
    return mate


def _sparse_perfect(n: int, edges: Sequence[Edge], likely: list[bool]) -> tuple[list[int], Duals] | None:
    """A maximum-weight perfect matching of all `edges` with its duals, solved on the `likely` ones plus those the
    duals ask for; None when the chosen edges have no perfect matching."""
    chosen = list(likely)
    while True:
        found = perfect_matching_with_duals(n, [edge for edge, keep in zip(edges, chosen, strict=True) if keep])
        if found is None or not _add_violated(edges, chosen, found[1]):
            return found
