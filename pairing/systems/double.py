"""The Double-Swiss system (FIDE C.04.5, 2026): every pairing is a match of two games with reversed colours.

An event is a `Tournament` of *game* rounds, two per match: match m is game rounds 2m-1 and 2m, the same boards
with the colours reversed (two TRF round columns per match, the convention fide-other-systems.md §5.8 names).
Each game is scored separately, so scores are game points; a pairing-allocated bye is a win in the match's first
column and a half-point bye in its second (1½: "one game won and one drawn", C.04.5 1.4). `pair` pairs an odd
game round by the system and gives an even one as the previous round with the colours reversed.

The procedure (Art. 3, the Swiss Team procedure applied to players, §5.5/§6.6): the PAB first (3.4), then the
top scoregroup with the fewest and best upfloaters ([C4] fewest, [C5] highest scores, [C6] the next scoregroup
still pairable in its own bracket, [C7] fewest who floated in the previous match, then the order of sets,
3.5.3-3.5.4) forms a bracket, paired by the first legal pairing in identifier order (3.6) among those with the
fewest upfloaters' opponents who floated ([C8]); [C7] and [C8] do not apply in the last match. There is no
colour criterion: colours are given after the round is paired (Art. 4). A match counts as a meeting ([C1]) unless
a player forfeited both games (`forfeited_match`, read from both players' records: a double-forfeited game is a
forfeit loss on both sides); a player whose opponent forfeited both games, and who did not, won the match by
forfeit ([C2]).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from pairing.errors import NoValidPairing
from pairing.matching import max_weight_perfect_matching
from pairing.model import (
    Board,
    Colour,
    Pairing,
    Points,
    RecordKind,
    RoundRecord,
    RoundViews,
    Tournament,
    board_order,
)
from pairing.systems.common import completable, first_bye, pair_by_brackets


def match_of(game_round: int) -> int:
    """The match a game round belongs to (game rounds 1 and 2 are match 1)."""
    return (game_round + 1) // 2


class Competitor(Protocol):
    """What the procedure reads of a player (or a team) before a round."""

    @property
    def number(self) -> int: ...
    @property
    def score(self) -> Points: ...
    @property
    def met(self) -> frozenset[int]: ...
    @property
    def pab_eligible(self) -> bool: ...
    @property
    def matches_played(self) -> int: ...
    @property
    def colours(self) -> tuple[Colour, ...]: ...
    @property
    def floated(self) -> bool: ...


@dataclass(frozen=True)
class Entrant:
    """What the procedure needs of a player before a match."""

    number: int
    score: Points
    met: frozenset[int]  # opponents of matches that were not forfeited
    pab_eligible: bool
    matches_played: int
    colours: tuple[Colour, ...]  # game-1 colour of each match with a game played, oldest first
    floated: bool  # in the previous match, paired with an opponent of another score


def entrant(views: RoundViews, number: int, match: int) -> Entrant:
    """A player's score, match meetings, PAB eligibility, match colours and float before `match`."""
    history = views.history(number)
    met: set[int] = set()
    colours: list[Colour] = []
    played_matches = 0
    eligible = True
    floated = False
    for k in range(1, match):
        first, second = _column(history, 2 * k - 1), _column(history, 2 * k)
        if RecordKind.PAB in (first.kind, second.kind) or RecordKind.FULL_BYE in (first.kind, second.kind):
            eligible = False
        opponent = first.opponent if first.opponent is not None else second.opponent
        if opponent is None:
            continue
        if not forfeited_match(views.tournament, number, opponent, k):
            met.add(opponent)
        elif not forfeited_both(views.tournament, number, k):
            eligible = False  # the opponent forfeited the match: a match won by forfeit
        if first.is_played or second.is_played:
            played_matches += 1
            if first.colour is not None:
                colours.append(first.colour)
            elif second.colour is not None:
                colours.append(second.colour.opposite)
        if k == match - 1:
            before = 2 * k - 1
            floated = views.score(number, before) != views.score(opponent, before)
    return Entrant(number, views.score(number), frozenset(met), eligible, played_matches, tuple(colours), floated)


def forfeited_both(tournament: Tournament, number: int, match: int) -> bool:
    """The player lost both games of the match by forfeit (a double-forfeited game is lost by both players)."""
    player = tournament.by_number.get(number)
    return player is not None and all(
        player.record(game).kind is RecordKind.FORFEIT_LOSS for game in (2 * match - 1, 2 * match)
    )


def forfeited_match(tournament: Tournament, a: int, b: int, match: int) -> bool:
    """C.04.5: the match of a and b is forfeited, and so no meeting ([C1]), when either forfeited both its games;
    read from both players' records, since a double-forfeited game looks the same as a lost one from one side."""
    return forfeited_both(tournament, a, match) or forfeited_both(tournament, b, match)


def _column(history: Sequence[RoundRecord], game_round: int) -> RoundRecord:
    return history[game_round - 1] if game_round <= len(history) else RoundRecord(RecordKind.NOT_PAIRED)


def pair(tournament: Tournament, round_number: int | None = None) -> Pairing:
    """Pair a game round: an odd one by the Double-Swiss procedure, an even one as its match's second game."""
    game_round = tournament.round_to_pair if round_number is None else round_number
    if game_round % 2 == 0:
        return second_game(tournament, game_round)
    return MatchRound(tournament, game_round).run()


def second_game(tournament: Tournament, game_round: int) -> Pairing:
    """The second game of a match: the first game's boards with the colours reversed, no PAB (the first game's
    PAB player has the match's half-point bye in this round)."""
    views = tournament.views(game_round)
    to_pair = set(views.to_pair())
    boards: dict[frozenset[int], Board] = {}
    for player in tournament.players:
        me, rec = player.number, player.record(game_round - 1)
        them = rec.opponent
        if them is None or me not in to_pair or them not in to_pair:
            continue
        if rec.colour is Colour.WHITE:
            boards[frozenset((me, them))] = Board(them, me)
        elif rec.colour is Colour.BLACK:
            boards[frozenset((me, them))] = Board(me, them)
        else:  # a forfeit written without colours: the pair plays again, colours as the numbers fall
            boards.setdefault(frozenset((me, them)), Board(min(me, them), max(me, them)))
    return Pairing(board_order(views, boards.values()), None)


class MatchRound:
    """One match's pairing (Art. 3) and colours (Art. 4), over any `Competitor` (Swiss Team's procedure)."""

    def __init__(self, tournament: Tournament, game_round: int) -> None:
        self.tournament = tournament
        self.views = tournament.views(game_round)
        self.match = match_of(game_round)
        self.last = self.match >= tournament.total_rounds // 2
        self.floats_count = not self.last  # [C7]/[C8] about floaters apply except in the last match
        numbers = sorted(self.views.to_pair())
        self.entrants: Mapping[int, Competitor] = {n: entrant(self.views, n, self.match) for n in numbers}

    # -- legality --------------------------------------------------------------------------------------------

    def compatible(self, a: int, b: int) -> bool:
        """[C1] and forbidden pairs."""
        return b not in self.entrants[a].met and not self.tournament.is_forbidden(a, b)

    def pairable(self, players: Iterable[int]) -> bool:
        """A pairing of all of `players` exists ([C1]); no player is trivially pairable."""
        return completable(players, self.compatible)

    # -- the procedure ---------------------------------------------------------------------------------------

    def run(self) -> Pairing:
        pairs, bye = pair_by_brackets(
            self.entrants,
            self.pab,
            self.pairable,
            self.next_bracket,
            "no pairing of the round meets [C1] for every player",
        )
        boards = [self.colour(a, b) for a, b in pairs]
        return Pairing(board_order(self.views, boards), bye)

    def next_bracket(self, remaining: set[int]) -> tuple[list[int], list[tuple[int, int]]]:
        """The top scoregroup completed by its upfloaters, and the bracket's pairing."""
        top_score = max(self.entrants[n].score for n in remaining)
        top = sorted(n for n in remaining if self.entrants[n].score == top_score)
        pool = sorted(n for n in remaining if self.entrants[n].score < top_score)
        chosen = self.upfloaters(top, pool, remaining)
        bracket = top + list(chosen)
        return bracket, self.pair_bracket(bracket, set(chosen))

    def pab(self, remaining: set[int]) -> int:
        """3.4: the first [C2]-eligible player whose removal leaves a legal pairing, lowest score first, then
        most matches played, then the largest number."""
        return first_bye(
            remaining,
            lambda n: self.entrants[n].pab_eligible,
            lambda n: self.entrants[n].score,
            lambda n: self.entrants[n].matches_played,
            self.pairable,
            "no player can receive the pairing-allocated bye and leave the others pairable",
        )

    def upfloaters(self, top: list[int], pool: list[int], remaining: set[int]) -> tuple[int, ...]:
        """3.5: the set of upfloaters that completes the top scoregroup into a bracket."""
        for k in range(len(top) % 2, len(pool) + 1, 2):
            for profile in self._profiles(pool, k):
                best: tuple[tuple[bool, int], tuple[int, ...]] | None = None
                for chosen in self._sets(pool, profile):
                    bracket = set(top) | set(chosen)
                    if not self.pairable(bracket) or not self.pairable(remaining - bracket):
                        continue
                    quality = (not self.next_group_pairable(remaining - bracket), self._c7(chosen))
                    if best is None or quality < best[0]:
                        best = (quality, chosen)
                    if quality == (False, 0):
                        break  # nothing after it in set order can be better
                if best is not None:
                    return best[1]
        raise NoValidPairing(f"the scoregroup of {top} cannot be completed into a pairable bracket")

    def _profiles(self, pool: list[int], k: int) -> Iterator[tuple[Points, ...]]:
        """The score profiles of k upfloaters, best first by [C5] (their scores, lowest first, as high as can be)."""
        available: dict[Points, int] = {}
        for n in pool:
            available[self.entrants[n].score] = available.get(self.entrants[n].score, 0) + 1
        scores = sorted(available, reverse=True)
        profiles = [
            combo
            for combo in itertools.combinations_with_replacement(scores, k)
            if all(combo.count(s) <= available[s] for s in set(combo))
        ]
        yield from sorted(profiles, key=lambda c: tuple(sorted(c)), reverse=True)

    def _sets(self, pool: list[int], profile: tuple[Points, ...]) -> Iterator[tuple[int, ...]]:
        """3.5.3-3.5.4: the sets with that profile, each ordered by score (highest first) then number, in the
        lexicographic order of those sequences, lazily (the first good one usually ends the search)."""
        wanted: dict[Points, int] = {}
        for score in profile:
            wanted[score] = wanted.get(score, 0) + 1
        groups = [
            itertools.combinations(sorted(n for n in pool if self.entrants[n].score == score), count)
            for score, count in sorted(wanted.items(), reverse=True)
        ]
        # Parts of fixed lengths, the higher scores first: the product runs in the order of the joined sequences.
        for parts in itertools.product(*groups):
            yield tuple(n for part in parts for n in part)

    def _c7(self, chosen: Iterable[int]) -> int:
        return sum(self.entrants[n].floated for n in chosen) if self.floats_count else 0

    def next_group_pairable(self, rest: set[int]) -> bool:
        """[C6]: the next scoregroup, if any is left, can be paired in its own bracket with its fewest upfloaters."""
        if not rest:
            return True
        score = max(self.entrants[n].score for n in rest)
        group = {n for n in rest if self.entrants[n].score == score}
        below = rest - group
        if len(group) % 2 == 0:
            return self.pairable(group) and self.pairable(below)
        return any(self.pairable(group | {n}) and self.pairable(below - {n}) for n in below)

    def pair_bracket(self, bracket: list[int], upfloaters: set[int]) -> list[tuple[int, int]]:
        """3.6: the first legal pairing of the bracket in identifier order among those with the fewest [C8]."""
        cost = self.pair_costs(bracket, upfloaters)
        least = self._least_cost(bracket, cost)
        found = self._first(sorted(bracket), cost, least)
        if found is None:
            raise NoValidPairing(f"the bracket {sorted(bracket)} has no legal pairing")
        return found

    def pair_costs(self, bracket: list[int], upfloaters: set[int]) -> dict[tuple[int, int], int]:
        """What each pair of the bracket costs on the criteria its pairing minimises (Double-Swiss: [C8], an
        upfloater whose opponent floated in the previous match; nothing in the last match)."""
        return {(a, b): self.floated_opponents(a, b, upfloaters) for a, b in itertools.combinations(sorted(bracket), 2)}

    def floated_opponents(self, a: int, b: int, upfloaters: set[int]) -> int:
        """Upfloaters of the pair whose opponent floated in the previous round (0 where floats do not count)."""
        if not self.floats_count:
            return 0
        ea, eb = self.entrants[a], self.entrants[b]
        return int(a in upfloaters and eb.floated) + int(b in upfloaters and ea.floated)

    def _least_cost(self, players: Sequence[int], cost: dict[tuple[int, int], int]) -> int | None:
        """The least total [C8] of a legal pairing of `players` (None: none exists)."""
        group = sorted(players)
        if not group:
            return 0
        top = max(cost.values(), default=0) + 1
        edges = [
            (i, j, top - cost[(a, group[j])])
            for i, a in enumerate(group)
            for j in range(i + 1, len(group))
            if self.compatible(a, group[j])
        ]
        mate = max_weight_perfect_matching(len(group), edges)
        if mate is None:
            return None
        return sum(cost[(a, group[mate[i]])] for i, a in enumerate(group) if mate[i] > i)

    def _first(
        self, players: list[int], cost: dict[tuple[int, int], int], budget: int | None
    ) -> list[tuple[int, int]] | None:
        """The first pairing in identifier order (tops ascending, then their partners) of total cost `budget`.

        The tops are the smaller number of each pair; the identifier lists the tops in order, then each one's
        partner in the same order (3.6.2), so the sets of tops come in lexicographic order, and for each the
        partners are chosen top by top, smallest first, keeping the rest completable within the budget.
        """
        if budget is None:
            return None
        half = len(players) // 2
        first, others = players[0], players[1:]
        for rest in itertools.combinations(others, half - 1):
            tops = [first, *rest]
            bottoms = [n for n in players if n not in tops]
            if not self._assignable(tops, bottoms, cost, budget):
                continue
            found = self._assign(tops, bottoms, cost, budget)
            if found is not None:
                return found
        return None

    def _assignable(self, tops: list[int], bottoms: list[int], cost: dict[tuple[int, int], int], budget: int) -> bool:
        """Every top can get a larger-numbered compatible bottom, all different, within the budget."""
        if not tops:
            return budget >= 0
        size = len(tops)
        top_weight = max(cost.values(), default=0) + 1
        edges = [
            (i, size + j, top_weight - cost[(t, b)])
            for i, t in enumerate(tops)
            for j, b in enumerate(bottoms)
            if b > t and self.compatible(t, b)
        ]
        mate = max_weight_perfect_matching(2 * size, edges)
        if mate is None:
            return False
        spent = sum(cost[(t, bottoms[mate[i] - size])] for i, t in enumerate(tops))
        return spent <= budget

    def _assign(
        self, tops: list[int], bottoms: list[int], cost: dict[tuple[int, int], int], budget: int
    ) -> list[tuple[int, int]] | None:
        if not tops:
            return []
        top, rest = tops[0], tops[1:]
        for bottom in sorted(bottoms):
            if bottom < top or not self.compatible(top, bottom):
                continue
            left = budget - cost[(top, bottom)]
            others = [b for b in bottoms if b != bottom]
            if left < 0 or not self._assignable(rest, others, cost, left):
                continue
            found = self._assign(rest, others, cost, left)
            if found is not None:
                return [(top, bottom), *found]
        return None

    # -- colours (Art. 4) ------------------------------------------------------------------------------------

    def colour(self, a: int, b: int) -> Board:
        """Art. 4: White (in game 1) by the first rule that decides."""
        ea, eb = self.entrants[a], self.entrants[b]
        hrp, other = (ea, eb) if (ea.score, -ea.number) > (eb.score, -eb.number) else (eb, ea)
        white: Competitor | None = None
        if not ea.colours and not eb.colours:
            initial = self.tournament.initial_colour or Colour.WHITE
            mine = initial if hrp.number % 2 else initial.opposite
            white = hrp if mine is Colour.WHITE else other
        else:
            whites_a = sum(c is Colour.WHITE for c in ea.colours)
            whites_b = sum(c is Colour.WHITE for c in eb.colours)
            if whites_a != whites_b:
                white = ea if whites_a < whites_b else eb
            else:
                for ca, cb in zip(reversed(ea.colours), reversed(eb.colours), strict=False):
                    if ca is not cb:
                        white = ea if ca is Colour.BLACK else eb
                        break
            if white is None and hrp.colours:
                white = hrp if hrp.colours[-1] is Colour.BLACK else other
            if white is None and other.colours:
                white = other if other.colours[-1] is Colour.BLACK else hrp
            if white is None:
                white = hrp
        return Board(white.number, (eb if white is ea else ea).number)
