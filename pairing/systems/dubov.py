"""The FIDE Dubov system (C.04.4.1, 2026 text), after `../shared/reference/fide-other-systems.md` §3.

The aim: within a scoregroup the average rating of the opponents (ARO) evens out. The round is paired from
the top scoregroup down; the pairing-allocated bye is chosen first (Art. 3.1). A bracket is the residents of
the highest remaining scoregroup plus the fewest upfloaters from lower ones ([C5]), with the highest scores
([C6]); among the upfloater sets of the best score profile, the one whose bracket pairing is best on
[C7]-[C10] is taken, the first in set order on a tie. Inside a bracket the players are split by colour
preference (G1 White seekers, G2 the others; by rank when nobody has played), the groups are evened by
moving "shifters" taken in middle-out order, G1 sorted by ARO is paired against the first legal permutation
of G2 in starting-number order. There are no downfloaters.

Readings where the text leaves room (the peers py4swiss and pairing-core read it the same, §3.6): the
upfloater set's quality is judged over the whole resulting bracket pairing; a permutation of G2 is the first
*legal* one (the colour work is done by the shifts); an upfloater is a player paired with someone of a higher
score, counted over the rounds played so far; "games played" for the bye counts games over the board. Art.
3.2.4's step 1 counts the pairs the smaller subgroup must form within itself in every legal pairing of the bracket
(a player whose only legal partner is in his own subgroup forces one even while that partner has opponents across),
and the players it moves may be any of that subgroup's, the first set in shifter order that pairs best on [C7].
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

from pairing.errors import NoValidPairing
from pairing.matching import max_weight_perfect_matching
from pairing.model import (
    Board,
    Colour,
    FloatDirection,
    Pairing,
    PreferenceStrength,
    RoundViews,
    Tournament,
    board_order,
)
from pairing.systems.common import completable, compositions, first_bye, pair_by_brackets


@dataclass(frozen=True)
class _Player:
    """What the Dubov rules read of one player to pair."""

    number: int
    score: Fraction
    aro: int
    games: int
    colours: tuple[Colour, ...]
    preference: Colour
    strength: PreferenceStrength
    upfloats: int
    upfloated_last: bool
    opponents: frozenset[int]


@dataclass(frozen=True)
class _Bracket:
    """A bracket's pairing, with the quality of [C7]-[C10] (smaller is better)."""

    pairs: tuple[tuple[int, int], ...]
    quality: tuple[int, int, int, int]


def pair(tournament: Tournament, round_number: int | None = None) -> Pairing:
    """Pair a round with the Dubov system; raise NoValidPairing when no legal pairing exists."""
    views = tournament.views(round_number)
    numbers = views.to_pair()
    if not numbers:
        return Pairing(())
    return _Round(views, numbers).run()


def middle_out(items: Sequence[int]) -> list[int]:
    """Items in the order of Art. 4.3's sequence numbers: the middle first (the upper of two), then outwards."""
    rest, out = list(items), []
    while rest:
        out.append(rest.pop((len(rest) - 1) // 2))
    return out


class _Round:
    """One round's pairing by the Dubov rules."""

    def __init__(self, views: RoundViews, numbers: Sequence[int]) -> None:
        self.views = views
        self.tournament = views.tournament
        self.players = {n: self._player(n) for n in numbers}
        self.max_upfloats = 2 + self.tournament.total_rounds // 5
        self.last_round = views.is_last_round
        self._legal: dict[tuple[int, int], bool] = {}

    def _player(self, number: int) -> _Player:
        views = self.views
        history = views.history(number)
        ratings = [self.tournament.player(r.opponent).rating for r in history if r.is_played and r.opponent]
        aro = int(Fraction(sum(ratings), len(ratings)) + Fraction(1, 2)) if ratings else 0
        colours = views.colours(number)
        preference = views.preference(number)
        colour = preference.colour if preference.colour is not None else Colour.BLACK
        strength = preference.strength if preference.colour is not None else PreferenceStrength.MILD
        floats = [views.float_in(number, r) for r in range(1, views.round) if history[r - 1].opponent is not None]
        return _Player(
            number=number,
            score=views.score(number),
            aro=aro,
            games=len(ratings),
            colours=colours,
            preference=colour,
            strength=strength,
            upfloats=sum(1 for f in floats if f is FloatDirection.UP),
            upfloated_last=views.round > 1
            and history[-1].opponent is not None
            and views.float_in(number, views.round - 1) is FloatDirection.UP,
            opponents=views.opponents(number),
        )

    # -- the absolute criteria ------------------------------------------------------------------------

    def legal(self, a: int, b: int) -> bool:
        """[C1] no rematch (nor a forbidden pair) and [C3] not two equal absolute colour preferences."""
        key = (a, b) if a < b else (b, a)
        known = self._legal.get(key)
        if known is None:
            pa, pb = self.players[a], self.players[b]
            absolute = PreferenceStrength.ABSOLUTE
            known = not (
                b in pa.opponents
                or self.tournament.is_forbidden(a, b)
                or (pa.strength is absolute and pb.strength is absolute and pa.preference is pb.preference)
            )
            self._legal[key] = known
        return known

    def completable(self, numbers: Iterable[int]) -> bool:
        """[C4]: these players can all be paired among themselves."""
        return completable(numbers, self.legal)

    # -- the round ------------------------------------------------------------------------------------

    def run(self) -> Pairing:
        pairs, bye = pair_by_brackets(
            self.players,
            self.choose_bye,
            self.completable,
            self.next_bracket,
            "no pairing of every player satisfies C1-C3",
        )
        boards = [self.colours(a, b) for a, b in pairs]
        return Pairing(board_order(self.views, boards), bye)

    def choose_bye(self, remaining: set[int]) -> int:
        """Art. 3.1: an eligible player whose absence leaves a complete pairing: lowest score, most games,
        largest starting number."""
        return first_bye(
            remaining,
            self.views.pab_eligible,
            lambda n: self.players[n].score,
            lambda n: self.players[n].games,
            self.completable,
            "no player can take the pairing-allocated bye and leave a complete pairing",
        )

    def next_bracket(self, remaining: set[int]) -> tuple[set[int], tuple[tuple[int, int], ...]]:
        """The highest scoregroup with the fewest, highest-scoring, best upfloaters, and its pairing."""
        top_score = max(self.players[n].score for n in remaining)
        residents = sorted(n for n in remaining if self.players[n].score == top_score)
        pool = sorted((n for n in remaining if self.players[n].score < top_score), key=self._pool_key)
        for k in range(len(residents) % 2, len(pool) + 1, 2):
            for profile_sets in self._profiles(pool, k):
                best: tuple[set[int], _Bracket] | None = None
                for upfloaters in profile_sets:
                    bracket = set(residents) | set(upfloaters)
                    if not self.completable(remaining - bracket):
                        continue
                    paired = self.pair_bracket(sorted(bracket), set(upfloaters))
                    if paired is not None and (best is None or paired.quality < best[1].quality):
                        best = (bracket, paired)
                if best is not None:
                    return best[0], best[1].pairs
        raise NoValidPairing(f"the players on {top_score} points cannot be paired with any upfloaters")

    def _pool_key(self, number: int) -> tuple[Fraction, int]:
        return (-self.players[number].score, number)

    def _profiles(self, pool: Sequence[int], k: int) -> Iterator[Iterator[tuple[int, ...]]]:
        """The k-sets of upfloaters grouped by score profile, best profile ([C6]) first, each in set order."""
        groups: list[list[int]] = []
        for number in pool:
            if groups and self.players[groups[-1][0]].score == self.players[number].score:
                groups[-1].append(number)
            else:
                groups.append([number])
        counts = list(compositions(k, [len(g) for g in groups]))

        def profile(count: tuple[int, ...]) -> tuple[Fraction, ...]:
            scores = [self.players[g[0]].score for g, c in zip(groups, count, strict=True) for _ in range(c)]
            return tuple(sorted(scores))

        for count in sorted(counts, key=profile, reverse=True):
            choices = [itertools.combinations(g, c) for g, c in zip(groups, count, strict=True)]
            yield (tuple(itertools.chain.from_iterable(parts)) for parts in itertools.product(*choices))

    # -- a bracket --------------------------------------------------------------------------------------

    def pair_bracket(self, bracket: Sequence[int], upfloaters: set[int]) -> _Bracket | None:
        """Art. 3.2: split by colour preference, even the groups with shifters, pair S1 against G2's first legal
        permutation; the shift set with the fewest [C7] failures, the first in shifter order on a tie."""
        if all(self.players[n].games == 0 for n in bracket):
            half = len(bracket) // 2
            g1, g2 = list(bracket[:half]), list(bracket[half:])
        else:
            g1 = [n for n in bracket if self.players[n].preference is Colour.WHITE]
            g2 = [n for n in bracket if self.players[n].preference is not Colour.WHITE]
        # Pairs of two players wanting the same colour cost at least one [C7] failure each, and there are at
        # least |W - B| / 2 of them: a split reaching that bound cannot be beaten, so the search stops there.
        whites = sum(1 for n in bracket if self.players[n].preference is Colour.WHITE)
        bound = abs(2 * whites - len(bracket)) // 2
        best: _Bracket | None = None
        for first, second in self._splits(g1, g2):
            pairs = self._first_legal(first, second)
            if pairs is None:
                continue
            candidate = _Bracket(pairs, self._quality(pairs, upfloaters))
            if best is None or candidate.quality[0] < best.quality[0]:
                best = candidate
                if best.quality[0] <= bound:
                    break
        return best

    def _splits(self, g1: list[int], g2: list[int]) -> Iterator[tuple[list[int], list[int]]]:
        """The (G1, G2) pairs the shifts of Art. 3.2.4's steps 1 and 2 can give, in shifter order."""
        smaller_is_g1 = len(g1) <= len(g2)
        small, large = (g1, g2) if smaller_is_g1 else (g2, g1)
        # Step 1: as many players of the smaller group as the pairs it must unavoidably form within itself (in
        # every legal pairing of the bracket) move to the larger group; any of its players may be the ones moved.
        moves_first = self._pairs_within(small, large)
        for moved_first in itertools.combinations(self._shifter_order(small), moves_first):
            small1 = [n for n in small if n not in moved_first]
            large1 = large + list(moved_first)
            # Step 2: from the larger group to the smaller one until both are the same size.
            surplus = (len(large1) - len(small1)) // 2
            for moved in itertools.combinations(self._shifter_order(large1), surplus):
                small2 = small1 + list(moved)
                large2 = [n for n in large1 if n not in moved]
                yield (small2, large2) if smaller_is_g1 else (large2, small2)

    def _pairs_within(self, small: Sequence[int], large: Sequence[int]) -> int:
        """The fewest pairs of two `small` players in a legal pairing of the bracket (0 when there is none).

        A pairing with the most pairs across the groups has the fewest within `small`: a maximum-weight perfect
        matching where a pair across weighs 2 and any other legal pair 1.
        """
        group = [*small, *large]
        inside = set(small)
        edges = [
            (i, j, 2 if (group[i] in inside) != (group[j] in inside) else 1)
            for i, j in itertools.combinations(range(len(group)), 2)
            if self.legal(group[i], group[j])
        ]
        mate = max_weight_perfect_matching(len(group), edges)
        if mate is None:
            return 0
        return sum(1 for i, j in enumerate(mate) if i < j and group[i] in inside and group[j] in inside)

    def _shifter_order(self, group: Sequence[int]) -> list[int]:
        """Art. 4.3: White seekers by ARO then number, the others by number; sequence numbers middle-out."""
        white = sorted((n for n in group if self.players[n].preference is Colour.WHITE), key=self._aro_key)
        others = sorted(n for n in group if self.players[n].preference is not Colour.WHITE)
        return middle_out(white) + middle_out(others)

    def _aro_key(self, number: int) -> tuple[int, int]:
        return (self.players[number].aro, number)

    def _first_legal(self, g1: Sequence[int], g2: Sequence[int]) -> tuple[tuple[int, int], ...] | None:
        """S1 (G1 by ARO, then number) against the lexicographically first legal permutation of G2 (by number)."""
        if len(g1) != len(g2):
            return None
        s1 = sorted(g1, key=self._aro_key)
        t2 = sorted(g2)
        chosen: list[int] = []

        def extend(index: int, free: list[int]) -> bool:
            if index == len(s1):
                return True
            for candidate in free:
                if self.legal(s1[index], candidate):
                    rest = [n for n in free if n != candidate]
                    if _bipartite_perfect(s1[index + 1 :], rest, self.legal):
                        chosen.append(candidate)
                        if extend(index + 1, rest):
                            return True
                        chosen.pop()
            return False

        if not extend(0, t2):
            return None
        return tuple(zip(s1, chosen, strict=True))

    def _quality(self, pairs: Sequence[tuple[int, int]], upfloaters: set[int]) -> tuple[int, int, int, int]:
        """[C7] players not getting their preference; [C8]-[C10] (not in the last round) the maximum upfloaters,
        their upfloats, and the upfloaters who upfloated in the previous round."""
        unmet = 0
        for a, b in pairs:
            board = self.colours(a, b)
            for number, colour in ((board.white, Colour.WHITE), (board.black, Colour.BLACK)):
                if self.players[number].preference is not colour:
                    unmet += 1
        if self.last_round:
            return (unmet, 0, 0, 0)
        maximum = [n for n in upfloaters if self.players[n].upfloats >= self.max_upfloats]
        return (
            unmet,
            len(maximum),
            sum(self.players[n].upfloats for n in maximum),
            sum(1 for n in upfloaters if self.players[n].upfloated_last),
        )

    # -- colours ---------------------------------------------------------------------------------------

    def colours(self, a: int, b: int) -> Board:
        """Art. 5: the first rule that decides who has White."""
        pa, pb = self.players[a], self.players[b]
        high, low = (pa, pb) if (-pa.score, pa.number) < (-pb.score, pb.number) else (pb, pa)
        if high.games == 0 and low.games == 0:
            initial = self.tournament.initial_colour or Colour.WHITE
            colour = initial if high.number % 2 else initial.opposite
            return _board(high.number, low.number, colour)
        if high.preference is not low.preference:
            return _board(high.number, low.number, high.preference)
        if high.strength != low.strength:
            stronger, weaker = (high, low) if high.strength > low.strength else (low, high)
            return _board(stronger.number, weaker.number, stronger.preference)
        for ch, cl in zip(reversed(high.colours), reversed(low.colours), strict=False):
            if ch is not cl:
                return _board(high.number, low.number, ch.opposite)
        return _board(high.number, low.number, high.preference)


def _board(a: int, b: int, colour_of_a: Colour) -> Board:
    return Board(a, b) if colour_of_a is Colour.WHITE else Board(b, a)


def _bipartite_perfect(left: Sequence[int], right: Sequence[int], legal: Callable[[int, int], bool]) -> bool:
    """Whether `left` and `right` (same size) can be matched one to one by legal pairs (Kuhn's augmenting paths)."""
    if len(left) != len(right):
        return False
    check = legal
    match: dict[int, int] = {}

    def augment(a: int, seen: set[int]) -> bool:
        for b in right:
            if b in seen or not check(a, b):
                continue
            seen.add(b)
            if b not in match or augment(match[b], seen):
                match[b] = a
                return True
        return False

    return all(augment(a, set()) for a in left)
