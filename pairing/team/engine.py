"""A round of the Swiss Team Pairing System (C.04.6, 2026 text): the pairing (Art. 3) and colours (Art. 4).

The pairing (Art. 3): the PAB first (an eligible team whose absence leaves a complete pairing: lowest score,
most matches played, largest number); then, while teams remain, the top scoregroup plus the fewest
upfloaters ([C4]) of the best score profile ([C5]), the set chosen by [C6], [C7] and set order; the
bracket's pairing is the first in identifier order among those best on [C8] > [C9] > [C10]. Colours are
allocated after the round is paired (Art. 4) and give board 1's colour; the other boards follow the
event's pattern (record 352, alternating by default).

Readings where the text leaves room (§6.9): [C6] is pass/fail (the following scoregroup can be paired with
its parity minimum of upfloaters, as Gacrux reads it); top and bottom of a pair are by pairing number as
3.6.1 says (Gacrux seats by score first); "matches played" for the PAB counts matches played over the
board; a floater is a team paired with an opponent of a different score in the previous round (a forfeited
pairing included, a PAB not); an upfloater's opponent is the higher-scored team of a pair with different
scores; rule 6 of Art. 4 compares the compressed histories (pairing-core compares round by round).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from pairing.errors import NoValidPairing
from pairing.matching import max_weight_perfect_matching
from pairing.model import (
    Board,
    Colour,
    Pairing,
    Points,
    RecordKind,
    Tournament,
)
from pairing.systems.common import completable, compositions, first_bye, pair_by_brackets
from pairing.team.colours import Preference, colour_preference
from pairing.team.model import ColourType, TeamEvent
from pairing.team.trf import event_from_tournament

# --- one round's view -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TeamState:
    """What the pairing rules read of one team before a round."""

    number: int
    score: Points
    secondary: Points
    matches: int
    colours: tuple[Colour, ...]
    preference: Preference
    opponents: frozenset[int]
    pab_eligible: bool
    floated: bool

    @property
    def colour_difference(self) -> int:
        """Matches with White minus matches with Black (played matches only)."""
        return sum(1 if c is Colour.WHITE else -1 for c in self.colours)


def team_states(event: TeamEvent, round_number: int) -> dict[int, TeamState]:
    """Every team's state before a round."""
    last_round = round_number >= event.total_rounds
    out = {}
    for team in event.teams:
        number = team.number
        history = event.history(number, round_number)
        colours = tuple(r.colour for r in history if r.is_played and r.colour is not None)
        floated = False
        if round_number > 1:
            prev = history[-1]
            if prev.opponent is not None:
                floated = event.score(number, round_number - 1) != event.score(prev.opponent, round_number - 1)
        out[number] = TeamState(
            number=number,
            score=event.score(number, round_number),
            secondary=event.secondary(number, round_number),
            matches=sum(1 for r in history if r.is_played),
            colours=colours,
            preference=colour_preference(colours, event.rules.colours, last_round),
            opponents=frozenset(r.opponent for r in history if r.is_played and r.opponent is not None),
            pab_eligible=not any(
                r.kind in (RecordKind.PAB, RecordKind.FORFEIT_WIN, RecordKind.FULL_BYE) for r in history
            ),
            floated=floated,
        )
    return out


# --- the pairing -----------------------------------------------------------------------------------------------


def pair(tournament: Tournament, round_number: int | None = None) -> Pairing:
    """Pair a round of the team event in a TRF-read tournament (its team records): boards are teams, White is
    the first-board colour; raise NoValidPairing when no legal pairing exists, TeamError on bad team data."""
    return pair_event(event_from_tournament(tournament), round_number)


def pair_event(event: TeamEvent, round_number: int | None = None) -> Pairing:
    """Pair a round of a team event by C.04.6; the boards name teams, White being board 1's colour."""
    round_number = event.round_to_pair if round_number is None else round_number
    numbers = event.to_pair(round_number)
    if not numbers:
        return Pairing(())
    return _Round(event, round_number, numbers).run()


class _Round:
    """One round's pairing by the team rules."""

    def __init__(self, event: TeamEvent, round_number: int, numbers: Sequence[int]) -> None:
        self.event = event
        self.rules = event.rules
        self.round = round_number
        states = team_states(event, round_number)
        self.teams = {n: states[n] for n in numbers}
        # [C7] and [C10] are not applied in the last two rounds.
        self.float_rules = round_number < event.total_rounds - 1
        self.type_b = event.rules.colours is ColourType.B

    def legal(self, a: int, b: int) -> bool:
        """[C1]: the teams have not played each other (forfeited matches do not count)."""
        return b not in self.teams[a].opponents

    def completable(self, numbers: Iterable[int]) -> bool:
        """[C3]: these teams can all be paired among themselves."""
        return completable(numbers, self.legal)

    def run(self) -> Pairing:
        pairs, bye = pair_by_brackets(
            self.teams,
            self.choose_bye,
            self.completable,
            self._paired_bracket,
            "no pairing of every team satisfies C1-C3",
        )
        return Pairing(self.board_order([self.colours(a, b) for a, b in pairs]), bye)

    def choose_bye(self, remaining: set[int]) -> int:
        """Art. 3.4: an eligible team whose absence leaves a complete pairing: lowest score, most matches
        played, largest number."""
        return first_bye(
            remaining,
            lambda n: self.teams[n].pab_eligible,
            lambda n: self.teams[n].score,
            lambda n: self.teams[n].matches,
            self.completable,
            "no team can take the pairing-allocated bye and leave a complete pairing",
        )

    def _paired_bracket(self, remaining: set[int]) -> tuple[set[int], list[tuple[int, int]]]:
        bracket, upfloaters = self.next_bracket(remaining)
        return bracket, self.pair_bracket(sorted(bracket), upfloaters)

    # -- choosing a bracket (3.2, 3.5) -----------------------------------------------------------------------

    def next_bracket(self, remaining: set[int]) -> tuple[set[int], set[int]]:
        """The top scoregroup plus its upfloaters: fewest ([C4]), best profile ([C5]), then [C6], [C7], set order."""
        score = {n: self.teams[n].score for n in remaining}
        top = max(score.values())
        residents = {n for n in remaining if score[n] == top}
        pool = sorted((n for n in remaining if score[n] < top), key=lambda n: (-score[n], n))
        following = max((score[n] for n in pool), default=None)
        for k in range(len(residents) % 2, len(pool) + 1, 2):
            for sets in self._profiles(pool, k):
                best: tuple[tuple[int, int, int], set[int]] | None = None
                for index, upfloaters in enumerate(sets):
                    bracket = residents | set(upfloaters)
                    rest = remaining - bracket
                    if not (self.completable(bracket) and self.completable(rest)):
                        continue
                    c6 = 0 if self._following_pairs(rest, following) else 1
                    c7 = sum(1 for n in upfloaters if self.teams[n].floated) if self.float_rules else 0
                    key = (c6, c7, index)
                    if best is None or key < best[0]:
                        best = (key, set(upfloaters))
                    if c6 == 0 and c7 == 0:
                        break
                if best is not None:
                    return residents | best[1], best[1]
        raise NoValidPairing(f"the teams on {top} points cannot be paired with any upfloaters")

    def _profiles(self, pool: Sequence[int], k: int) -> Iterator[Iterator[tuple[int, ...]]]:
        return (sets for _, sets in upfloater_sets({n: self.teams[n].score for n in pool}, k))

    def _following_pairs(self, rest: set[int], following: Points | None) -> bool:
        """[C6]: the following scoregroup, unless emptied, can be paired in its own bracket with its parity
        minimum of upfloaters, the other teams staying pairable."""
        if following is None:
            return True
        group = {n for n in rest if self.teams[n].score == following}
        if not group:
            return True
        others = rest - group
        if len(group) % 2 == 0:
            return self.completable(group) and self.completable(others)
        lower = sorted(others, key=lambda n: (-self.teams[n].score, n))
        return any(self.completable(group | {u}) and self.completable(others - {u}) for u in lower)

    # -- pairing a bracket (3.6) -----------------------------------------------------------------------------

    def pair_bracket(self, bracket: Sequence[int], upfloaters: set[int]) -> list[tuple[int, int]]:
        """The first pairing in identifier order among the legal ones best on [C8] > [C9] > [C10]."""
        scale = len(bracket) + 1
        costs = {}
        for a, b in itertools.combinations(sorted(bracket), 2):
            if self.legal(a, b):
                c8, c9, c10 = self._pair_quality(a, b)
                costs[(a, b)] = c8 * scale * scale + c9 * scale + c10
        pairs = first_best(bracket, costs)
        if pairs is None:
            raise NoValidPairing("a chosen bracket has no legal pairing")  # next_bracket checked it: a bug
        return pairs

    def _pair_quality(self, a: int, b: int) -> tuple[int, int, int]:
        """[C8] a team denied its preference, [C9] (Type B) a strong one denied, [C10] the upfloater's
        opponent floated in the previous round."""
        pa, pb = self.teams[a].preference, self.teams[b].preference
        same = pa.colour is not None and pa.colour is pb.colour
        c8 = 1 if same else 0
        c9 = 1 if same and self.type_b and pa.strong and pb.strong else 0
        c10 = 0
        if self.float_rules and self.teams[a].score != self.teams[b].score:
            higher = a if self.teams[a].score > self.teams[b].score else b
            c10 = 1 if self.teams[higher].floated else 0
        return c8, c9, c10

    # -- colours (Art. 4) and board order ---------------------------------------------------------------------

    def first_team_key(self, number: int) -> tuple[Points, Points, int]:
        """Higher primary score, then higher secondary score (unless the rules drop it), then smaller number."""
        team = self.teams[number]
        secondary = team.secondary if self.rules.secondary_for_colours else Fraction(0)
        return (-team.score, -secondary, number)

    def colours(self, a: int, b: int) -> Board:
        """Art. 4: the first rule that decides the first board's colours."""
        first, other = sorted((a, b), key=self.first_team_key)
        colour = allocate(self.teams[first], self.teams[other], self.event.initial_colour, self.type_b)
        return Board(first, other) if colour is Colour.WHITE else Board(other, first)

    def board_order(self, pairs: Iterable[Board]) -> tuple[Board, ...]:
        """Matches as published: higher score, then lower score, then the first-team's number."""

        def key(board: Board) -> tuple[Points, Points, int]:
            sw, sb = self.teams[board.white].score, self.teams[board.black].score
            first = min((board.white, board.black), key=self.first_team_key)
            return (-max(sw, sb), -min(sw, sb), first)

        return tuple(sorted(pairs, key=key))


def allocate(first: TeamState, other: TeamState, initial: Colour, type_b: bool = False) -> Colour:
    """The first-team's first-board colour by Art. 4.3's rules 1-9."""
    if not first.colours and not other.colours:
        return initial if first.number % 2 else initial.opposite
    pf, po = first.preference, other.preference
    if pf.colour is not None and po.colour is None:
        return pf.colour
    if pf.colour is None and po.colour is not None:
        return po.colour.opposite
    if pf.colour is not None and po.colour is not None and pf.colour is not po.colour:
        return pf.colour
    if type_b and pf.colour is not None and po.colour is not None and pf.strong != po.strong:
        return pf.colour if pf.strong else po.colour.opposite
    if first.colour_difference != other.colour_difference:
        return Colour.WHITE if first.colour_difference < other.colour_difference else Colour.BLACK
    for mine, theirs in zip(reversed(first.colours), reversed(other.colours), strict=False):
        if mine is not theirs:
            return mine.opposite
    if pf.colour is not None:
        return pf.colour
    if first.colours:
        return first.colours[-1].opposite
    return other.colours[-1]


def identifier(pairs: Iterable[tuple[int, int]]) -> tuple[int, ...]:
    """A pairing's identifier (3.6.2): the smaller number of each pair ascending, then the larger ones in the
    same pair order."""
    ordered = sorted((min(a, b), max(a, b)) for a, b in pairs)
    return tuple(top for top, _ in ordered) + tuple(bottom for _, bottom in ordered)


def upfloater_sets(
    pool: Mapping[int, Points], k: int
) -> Iterator[tuple[tuple[Points, ...], Iterator[tuple[int, ...]]]]:
    """The k-sets of upfloaters from a pool (team -> score), by score profile, best [C5] first (the ascending
    scores compared, higher first); each profile's sets in the order of 3.5.4 (members by score then number,
    sets compared on those numbers)."""
    groups: list[list[int]] = []
    for number in sorted(pool, key=lambda n: (-pool[n], n)):
        if groups and pool[groups[-1][0]] == pool[number]:
            groups[-1].append(number)
        else:
            groups.append([number])
    counts = list(compositions(k, [len(g) for g in groups]))

    def profile(count: tuple[int, ...]) -> tuple[Points, ...]:
        return tuple(sorted(pool[g[0]] for g, c in zip(groups, count, strict=True) for _ in range(c)))

    for count in sorted(counts, key=profile, reverse=True):
        choices = [itertools.combinations(g, c) for g, c in zip(groups, count, strict=True)]
        yield profile(count), (tuple(itertools.chain.from_iterable(p)) for p in itertools.product(*choices))


def first_best(members: Sequence[int], costs: Mapping[tuple[int, int], int]) -> list[tuple[int, int]] | None:
    """Among the perfect pairings of `members` over the allowed pairs (`costs` keys, smaller number first), the
    first in identifier order of those with the least total cost; None when there is none.

    A weighted matching gives the least cost; then the tops are fixed smallest first and each top's bottom
    smallest first, every choice kept only when some pairing of that least cost still completes it.
    """
    ordered = sorted(members)
    if not ordered:
        return []
    big = 1 + sum(costs.values())

    def best_cost(allowed: Iterable[tuple[int, int]], group: Sequence[int]) -> int | None:
        if not group:
            return 0
        local = {n: i for i, n in enumerate(group)}
        edges = [(local[a], local[b], big - costs[(a, b)]) for a, b in allowed]
        mate = max_weight_perfect_matching(len(group), edges)
        if mate is None:
            return None
        return sum(costs[(min(group[i], group[j]), max(group[i], group[j]))] for i, j in enumerate(mate) if i < j)

    target = best_cost(costs, ordered)
    if target is None:
        return None
    top: dict[int, bool] = {}

    def allowed(fixed: Mapping[int, int]) -> list[tuple[int, int]]:
        taken = set(fixed) | set(fixed.values())
        return [
            (a, b)
            for a, b in costs
            if top.get(a) is not False and top.get(b) is not True and a not in taken and b not in taken
        ]

    for number in ordered:
        top[number] = True
        if best_cost(allowed({}), ordered) != target:
            top[number] = False
    fixed: dict[int, int] = {}
    spent = 0
    for first in (n for n in ordered if top[n]):
        for second in ordered:
            if top[second] or second < first or second in fixed.values() or (first, second) not in costs:
                continue
            fixed[first] = second
            left = [n for n in ordered if n not in fixed and n not in fixed.values()]
            rest = best_cost(allowed(fixed), left)
            if rest is not None and spent + costs[(first, second)] + rest == target:
                spent += costs[(first, second)]
                break
            del fixed[first]
    return list(fixed.items())
