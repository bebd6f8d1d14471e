"""The FIDE Lim system (C.04.4.3, 2026 text), after `../shared/reference/fide-other-systems.md` §4.

Lim is a procedure: every choice is "the first player in a stated order". The pairing-allocated bye goes first
to the lowest-ranked eligible player of the lowest scoregroup whose absence leaves a complete pairing (round 1:
the lowest-rated, Art. 7). The scoregroups are then paired from the top down to just above the Median
Scoregroup (score = half the points of the rounds played), from the bottom up to just below it, and the median
group last, downwards (Art. 2.2; round 2 is therefore 1 point, 0 points, ½ point, Art. 8). In a group the
incoming floaters are paired first, then the players left without a partner float on to the next group in the
pairing direction, then the rest is paired by proposal and scrutiny (1 v n/2+1 by number; pairing downwards #1
is scrutinised first and tries the rest of the lower half in order, then the upper half from the bottom up;
upwards the mirror). A choice is taken only if the rest of the group can still be paired without more floaters.
If the median group cannot be completed, a pairing of a neighbouring group is cracked (Art. 2.6) and its two
players join the median group as floaters from that side, until it can.

Readings where the text leaves room (§4.1 warns its secondary parts are uncertain):
- "#1" is the highest-ranked player (the smallest number); "lowest-ranked" is the largest number in a group.
- Compatibility (Art. 2.1) is hard: not met, no third same colour in a row, no three more games of one colour.
  Floater reasons (b) and (c) of Art. 2.3 are then (a): no compatible opponent left in the group. In the last
  round (Art. 6) the colour limits are dropped, but every choice still tries colour-compatible partners first.
- Due colour: the colour that equalises the colour difference, else the other of the last one (Art. 5); a player
  with no game has none. A floater takes the first resident (down: highest-ranked; up: lowest-ranked; then the
  other floaters the same way) due the other colour, so both get their due colours, else the first compatible
  one (3.8, as the §4.9 example reads "who can give him the alternate colour"). The scrutiny likewise takes the
  first candidate with whom both get their due colours, else the first compatible one (the exchanges of 5.2).
- Floater choice (Art. 3): players with no compatible partner in the group first, then by type d, c, b, a (not
  floated into this group and compatible with someone of the next group first, 3.9), then not a floater of the
  previous round (3.10), then the choice leaving the due-White and due-Black counts closest (3.2.2), then
  downwards the lowest-ranked, upwards the highest-ranked (3.2.4); the next group is its residents.
- Incoming floaters are paired in order: at and above the median higher score first and down-floaters before
  up-floaters, below it the mirror (3.6, 3.7); then by rank in their float direction.
- Colours (Art. 5): due colours that differ are both given; else a player for whom the other colour would break
  a limit gets his; else the latest difference in the two played-colour sequences is alternated; with identical
  histories, in and above the median group the higher-ranked player gets his due colour, below it the lower-
  ranked one (5.4). Two players without games (round 1, Art. 7): the higher-ranked one's position among the
  players paired, by number: odd positions get the colour by lot (`initial_colour`, White by default).
- Cracking (2.6): the lower neighbouring group when more players floated down into the median group than up,
  else the upper one; its pairs are undone last made first, and only the two groups next to the median are
  cracked. If the median group is still blocked, the text stops: then every player (but the bye) is paired by a
  maximum-cardinality legal matching with the smallest sum of squared score differences, colour-compatible pairs
  preferred in the last round (`fallback`); the bye stays.
- Not built: the Maxi-tournament 100-point guard (3.2.3, 3.8, 5.7); it needs an organiser flag we do not have.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from pairing.errors import NoValidPairing
from pairing.matching import max_weight_matching, max_weight_perfect_matching
from pairing.model import Board, Colour, FloatDirection, Pairing, RoundViews, Tournament, board_order


@dataclass(frozen=True)
class _Player:
    """What the Lim rules read of one player to pair."""

    number: int
    score: Fraction
    rating: int
    colours: tuple[Colour, ...]
    due: Colour | None
    forced: bool
    opponents: frozenset[int]
    floated_last: bool


@dataclass(frozen=True)
class _Pair:
    """Two players paired in a group; `upper` when the group is the median one or above it (for colours)."""

    a: int
    b: int
    upper: bool


@dataclass
class _Group:
    """A group's result: the pairs made (in order) and the players floating on."""

    pairs: list[_Pair]
    floaters: list[int]


def pair(tournament: Tournament, round_number: int | None = None) -> Pairing:
    """Pair a round with the Lim system; raise NoValidPairing when no legal pairing exists."""
    views = tournament.views(round_number)
    numbers = views.to_pair()
    if not numbers:
        return Pairing(())
    return _Round(views, numbers).run()


def colour_allowed(colours: Sequence[Colour], colour: Colour) -> bool:
    """Art. 2.1: the colour gives neither a third same colour in a row nor three more games of one colour."""
    seq = (*colours, colour)
    difference = sum(1 if c is Colour.WHITE else -1 for c in seq)
    return abs(difference) < 3 and not (len(seq) >= 3 and seq[-1] is seq[-2] is seq[-3])


def due_colour(colours: Sequence[Colour]) -> Colour | None:
    """Art. 5: the colour that equalises the colour difference, else the other of the last one; None before any game."""
    if not colours:
        return None
    difference = sum(1 if c is Colour.WHITE else -1 for c in colours)
    if difference:
        return Colour.BLACK if difference > 0 else Colour.WHITE
    return colours[-1].opposite


class _Round:
    """One round's pairing by the Lim rules."""

    def __init__(self, views: RoundViews, numbers: Sequence[int]) -> None:
        self.views = views
        self.tournament = views.tournament
        self.players = {n: self._player(n) for n in numbers}
        self.last_round = views.is_last_round
        self.median = Fraction(views.round - 1) * views.scoring.win / 2
        self.lot = self.tournament.initial_colour or Colour.WHITE
        self._strict: dict[tuple[int, int], bool] = {}
        self._unmatched: dict[frozenset[int], int] = {}
        self.position: dict[int, int] = {}

    def _player(self, number: int) -> _Player:
        views = self.views
        colours = views.colours(number)
        due = due_colour(colours)
        history = views.history(number)
        return _Player(
            number=number,
            score=views.score(number),
            rating=self.tournament.player(number).rating,
            colours=colours,
            due=due,
            forced=due is not None and not colour_allowed(colours, due.opposite),
            opponents=views.opponents(number),
            floated_last=bool(history)
            and history[-1].is_played
            and views.float_in(number, views.round - 1) is not FloatDirection.NONE,
        )

    # -- compatibility --------------------------------------------------------------------------------

    def strict(self, a: int, b: int) -> bool:
        """Art. 2.1: not met (nor forbidden), and some colours keep both within the colour limits."""
        key = (a, b) if a < b else (b, a)
        known = self._strict.get(key)
        if known is None:
            pa, pb = self.players[a], self.players[b]
            known = self._met_free(a, b) and any(
                colour_allowed(pa.colours, c) and colour_allowed(pb.colours, c.opposite)
                for c in (Colour.WHITE, Colour.BLACK)
            )
            self._strict[key] = known
        return known

    def _met_free(self, a: int, b: int) -> bool:
        return a != b and b not in self.players[a].opponents and not self.tournament.is_forbidden(a, b)

    def legal(self, a: int, b: int) -> bool:
        """Compatible this round: strictly, or in the last round (Art. 6) merely not met."""
        return self._met_free(a, b) if self.last_round else self.strict(a, b)

    def unmatched(self, numbers: Iterable[int]) -> int:
        """How many of these players a maximum pairing among themselves leaves without a partner."""
        group = frozenset(numbers)
        known = self._unmatched.get(group)
        if known is None:
            known = len(group) - 2 * self._max_pairs(sorted(group))
            self._unmatched[group] = known
        return known

    def _max_pairs(self, group: list[int]) -> int:
        size = len(group)
        if size < 2:
            return 0
        edges = [(i, j, 1) for i, j in itertools.combinations(range(size), 2) if self.legal(group[i], group[j])]
        degrees = [0] * size
        for i, j, _ in edges:
            degrees[i] += 1
            degrees[j] += 1
        if size % 2 == 0 and 2 * min(degrees) >= size:
            return size // 2  # Dirac: a Hamiltonian cycle, hence a perfect matching (saves the matching in round 1)
        mate = max_weight_matching(size, edges, max_cardinality=True)
        return sum(1 for m in mate if m >= 0) // 2

    # -- the round ------------------------------------------------------------------------------------

    def run(self) -> Pairing:
        remaining = set(self.players)
        bye = None
        if len(remaining) % 2:
            bye = self.choose_bye(remaining)
            remaining.discard(bye)
        elif self.unmatched(remaining):
            raise NoValidPairing("no pairing of every player avoids rematches and keeps the colour limits")
        self.position = {n: k for k, n in enumerate(sorted(remaining), start=1)}
        pairs = self.pair_groups(remaining)
        if pairs is None:
            pairs = self.fallback(remaining)
        boards = [self.colours(p) for p in pairs]
        return Pairing(board_order(self.views, boards), bye)

    def choose_bye(self, remaining: set[int]) -> int:
        """Art. 1: the lowest-ranked eligible player of the lowest scoregroup who leaves a complete pairing
        (round 1, Art. 7: the lowest-rated)."""

        def key(n: int) -> tuple[Fraction, int]:
            p = self.players[n]
            return (Fraction(p.rating) if self.views.round == 1 else p.score, -n)

        for number in sorted(remaining, key=key):
            if self.views.pab_eligible(number) and not self.unmatched(remaining - {number}):
                return number
        raise NoValidPairing("no player can take the pairing-allocated bye and leave a complete pairing")

    def pair_groups(self, remaining: set[int]) -> list[_Pair] | None:
        """Art. 2.2: top down to just above the median, bottom up to just below, the median group last."""
        scores = sorted({self.players[n].score for n in remaining}, reverse=True)
        upper = [s for s in scores if s > self.median]
        lower = [s for s in reversed(scores) if s < self.median]

        def residents(score: Fraction | None) -> list[int]:
            return sorted(n for n in remaining if self.players[n].score == (self.median if score is None else score))

        pairs: list[_Pair] = []
        neighbours: dict[bool, list[_Pair]] = {True: [], False: []}
        incoming: dict[bool, list[int]] = {True: [], False: []}
        for downwards, side in ((True, upper), (False, lower)):
            floaters: list[int] = []
            for index, score in enumerate(side):
                target = residents(side[index + 1] if index + 1 < len(side) else None)
                group = self.pair_group(residents(score), floaters, downwards, target, upper=downwards)
                assert group is not None  # only the median group must be completed
                if index == len(side) - 1:
                    neighbours[downwards] = group.pairs
                else:
                    pairs.extend(group.pairs)
                floaters = group.floaters
            incoming[downwards] = floaters
        median = self.pair_median(residents(None), incoming[True], incoming[False], neighbours)
        if median is None:
            return None
        return pairs + median

    def pair_median(
        self, residents: list[int], down: list[int], up: list[int], neighbours: dict[bool, list[_Pair]]
    ) -> list[_Pair] | None:
        """The median group, paired downwards and completed; Art. 2.6 cracks a neighbouring group's pairs."""
        down, up = list(down), list(up)
        kept = {side: list(pairs) for side, pairs in neighbours.items()}
        while True:
            group = self.pair_group(residents, down + up, True, [], upper=True, complete=True, up=set(up))
            if group is not None:
                return kept[True] + kept[False] + group.pairs
            # More floaters from above than from below: crack the lower group, else the upper one.
            from_above = len(down) <= len(up)
            if not kept[from_above]:
                from_above = not from_above
                if not kept[from_above]:
                    return None
            cracked = kept[from_above].pop()
            (down if from_above else up).extend((cracked.a, cracked.b))

    # -- a group --------------------------------------------------------------------------------------

    def pair_group(
        self,
        residents: list[int],
        floaters: list[int],
        downwards: bool,
        target: list[int],
        *,
        upper: bool,
        complete: bool = False,
        up: set[int] | None = None,
    ) -> _Group | None:
        """Pair one group: incoming floaters first, then choose who floats on, then proposal and scrutiny.

        `up` names the incoming floaters that floated up (by default those of an upward pass); None when
        `complete` and the group cannot be paired in full."""
        up_floaters = set(floaters) if up is None and not downwards else (up or set())
        pool = set(residents) | set(floaters)
        allowed = self.unmatched(pool)
        if complete and allowed:
            return None
        pairs: list[_Pair] = []
        for f in self._floater_order(floaters, up_floaters, upper):
            if f not in pool:
                continue
            # The group's own players first, then the other floaters; an up-floater takes the lowest-ranked.
            partner = None
            for tier in (residents, sorted(floaters)):
                order = tier[::-1] if f in up_floaters else tier
                partner = self._first(f, order, pool, allowed, upper)
                if partner is not None:
                    break
            if partner is not None:
                pairs.append(_Pair(f, partner, upper))
                pool -= {f, partner}
        leaving = self._choose_floaters(pool, set(floaters), allowed, downwards, target)
        pool -= set(leaving)
        pairs.extend(self._scrutinise(sorted(pool), downwards, upper))
        return _Group(pairs, leaving)

    def _floater_order(self, floaters: list[int], up: set[int], upper: bool) -> list[int]:
        """3.6/3.7: at and above the median the higher score first, down-floaters first; below it the mirror."""

        def key(n: int) -> tuple[Fraction, int, int]:
            p, is_up = self.players[n], n in up
            if upper:
                return (-p.score, int(is_up), n if not is_up else -n)
            return (p.score, int(not is_up), -n if is_up else n)

        return sorted(floaters, key=key)

    def _first(self, player: int, candidates: Sequence[int], pool: set[int], allowed: int, upper: bool) -> int | None:
        """The first candidate compatible with `player` who keeps the rest as pairable; first one with whom both get
        their due colours, then any; in the last round colour-compatible partners are tried before the others."""
        passes = [(True, True), (True, False)]
        if self.last_round:
            passes += [(False, True), (False, False)]
        for strict, colour in passes:
            for c in candidates:
                if c == player or c not in pool:
                    continue
                if not (self.strict(player, c) if strict else self.legal(player, c)):
                    continue
                if colour and not self._gets_due(_Pair(player, c, upper)):
                    continue
                if self.unmatched(pool - {player, c}) <= allowed:
                    return c
        return None

    def _gets_due(self, pair: _Pair) -> bool:
        """Whether the colours of this pair give both players their due colours."""
        board = self.colours(pair)
        for number in (pair.a, pair.b):
            due = self.players[number].due
            if due is not None and (board.white == number) != (due is Colour.WHITE):
                return False
        return True

    def _choose_floaters(
        self, pool: set[int], incoming: set[int], allowed: int, downwards: bool, target: list[int]
    ) -> list[int]:
        """Art. 2.3/3: as many floaters as the group cannot pair, each the first in the order of Art. 3 that keeps
        the rest pairable."""
        chosen: list[int] = []
        for left in range(allowed, 0, -1):
            rest = pool - set(chosen)

            def key(n: int, rest: set[int] = rest) -> tuple[int, int, int, int, int]:
                p = self.players[n]
                alone = not any(self.legal(n, m) for m in rest if m != n)
                has_target = any(self.legal(n, m) for m in target)
                kind = (2 if n in incoming else 0) + (0 if has_target else 1)  # d, c, b, a
                balance = self._due_balance(rest - {n})
                return (int(not alone), kind, int(p.floated_last), balance, -n if downwards else n)

            for n in sorted(rest, key=key):
                if self.unmatched(rest - {n}) <= left - 1:
                    chosen.append(n)
                    break
        return chosen

    def _due_balance(self, numbers: Iterable[int]) -> int:
        """|players due White - players due Black| (3.2.2)."""
        dues = [self.players[n].due for n in numbers]
        return abs(sum(1 for d in dues if d is Colour.WHITE) - sum(1 for d in dues if d is Colour.BLACK))

    def _scrutinise(self, group: list[int], downwards: bool, upper: bool) -> list[_Pair]:
        """Art. 2.4/4: 1 v n/2+1, ...; the player under scrutiny (#1 downwards, the last upwards) tries its proposed
        opponent, the rest of the other half away from it, then its own half from the middle outwards."""
        rest, pool, pairs = list(group), set(group), []
        while rest:
            half = len(rest) // 2
            if downwards:
                player, order = rest[0], rest[half:] + rest[half - 1 : 0 : -1]
            else:
                player, order = rest[-1], rest[half - 1 :: -1] + rest[half:-1]
            partner = self._first(player, order, pool, 0, upper)
            if partner is None:  # cannot happen: the group is pairable and every choice keeps it so
                raise NoValidPairing(f"player {player} has no compatible opponent left in the group")
            pairs.append(_Pair(player, partner, upper))
            pool -= {player, partner}
            rest = [n for n in rest if n in pool]
        return pairs

    # -- fallback --------------------------------------------------------------------------------------

    def fallback(self, remaining: set[int]) -> list[_Pair]:
        """When the median group stays blocked: a perfect legal matching of everyone, smallest score gaps first,
        then (last round) colour-compatible pairs."""
        group = sorted(remaining)
        denominator = math.lcm(*(self.players[n].score.denominator for n in group))
        units = {n: int(self.players[n].score * denominator) for n in group}
        spread = max(units.values()) - min(units.values())
        top = spread * spread + 1
        factor = len(group) + 1
        edges = []
        for i, j in itertools.combinations(range(len(group)), 2):
            a, b = group[i], group[j]
            if self.legal(a, b):
                gap = units[a] - units[b]
                edges.append((i, j, (top - gap * gap) * factor + int(self.strict(a, b))))
        mate = max_weight_perfect_matching(len(group), edges)
        if mate is None:  # run() checked that a complete pairing exists
            raise NoValidPairing("no pairing of every player avoids rematches and keeps the colour limits")
        out = []
        for i, j in enumerate(mate):
            if i < j:
                a, b = group[i], group[j]
                out.append(_Pair(a, b, max(self.players[a].score, self.players[b].score) >= self.median))
        return out

    # -- colours --------------------------------------------------------------------------------------

    def colours(self, pair: _Pair) -> Board:
        """Art. 5 and 7: the first rule that decides who has White."""
        pa, pb = self.players[pair.a], self.players[pair.b]
        high, low = (pa, pb) if (-pa.score, pa.number) < (-pb.score, pb.number) else (pb, pa)
        if high.due is None and low.due is None:
            position = self.position.get(high.number, 1)
            return _board(high.number, low.number, self.lot if position % 2 else self.lot.opposite)
        if high.due is None or low.due is None:
            known = low if high.due is None else high
            other = high if known is low else low
            assert known.due is not None
            return _board(known.number, other.number, known.due)
        if high.due is not low.due:
            return _board(high.number, low.number, high.due)
        if high.forced != low.forced:
            forced = high if high.forced else low
            other = low if forced is high else high
            return _board(forced.number, other.number, high.due)
        for ch, cl in zip(reversed(high.colours), reversed(low.colours), strict=False):
            if ch is not cl:
                return _board(high.number, low.number, ch.opposite)
        if pair.upper:
            return _board(high.number, low.number, high.due)
        return _board(low.number, high.number, low.due)


def _board(a: int, b: int, colour_of_a: Colour) -> Board:
    return Board(a, b) if colour_of_a is Colour.WHITE else Board(b, a)
