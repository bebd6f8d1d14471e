"""The FIDE (Dutch) system, edition B (C.04.3 in force from 1 February 2026).

Brackets are paired from the top down. For each bracket, one maximum-weight matching decides it: edge
weights are big integers whose bit fields encode, from the most significant down, [C5] (the PAB to the
lowest score; edges to a dummy vertex), [C6], [C7], [C8] (pairs and scores of the next bracket), [C9],
the colour criteria [C10]-[C13], the float criteria [C14]-[C21], and last the FIDE generation order
(Article 4: exchanges, then transpositions, or the MDP set and their S2 partners), so that the optimum is
the first-generated best candidate. Completion ([C4]: everyone below can still be paired, the odd player
out being PAB-eligible) ranks above all of them: the best matching of the weighted edges is completed
over the players further down, and if it cannot be, the bracket is solved again with every legal edge
(completion first, by cardinality). Heterogeneous brackets are solved in two steps: the MDP-pairing
first, then the remainder as a homogeneous bracket with fresh BSNs.

A homogeneous bracket (or the remainder of a heterogeneous one) needs no matching when a transposition of S2
meets every criterion at a bound that holds for any candidate: no candidate can beat it, and the first such
transposition in the generation order is the engine's answer. `_Round.natural` searches for it (a budgeted
depth-first search in lexicographic order, pruned by the colour bounds; the natural pairing S1[i]-S2[i] is its
first leaf, which settles every round 1 without forbidden pairs); a test it cannot decide (a greedy pairing of
the next bracket that finds nothing) ends the search, so an earlier candidate is never passed over, and the
bracket goes to the matching. `_pair(..., fast=False)` turns this off for the tests that compare it with the
general matching.

A pairing-allocated bye is always a downfloat (`RoundViews.float_in`), even when it scores no more than a loss:
the 2026 text (1.4.3) names the PAB apart from the other unplayed rounds, which float down only when they scored
more than a loss. The reference engine applies that condition to the PAB too (the wording of the 2024 draft),
so with a 0-point PAB it can pair later rounds differently; we follow the text in force
(tests/pairing/test_pab_zero.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from pairing.colours import ColourState, allocate, colour_states
from pairing.errors import NoValidPairing
from pairing.matching import Edge, matching_with_duals, max_weight_matching, max_weight_perfect_matching
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

Pair = tuple[int, int]
# Whether an odd group's player left out meets the bounds: True, False, or None when it cannot be told.
FloaterTest = Callable[[int], bool | None]

# Completing a best matching of the weighted edges first tries this many legal partners per player.
COMPLETION_DEGREE = 8
# Weighted graphs with more edges than this are solved from a sparse subset (edges within SPARSE_WINDOW of
# the natural partners), adding every edge the optimal duals say could improve the matching, until none. The
# blossom algorithm scans every edge in every stage, so from a few hundred edges the sparse start pays
# (bench/pairing.py, 200 players round 6: 0.19 s CPU at 6000, 0.145 s at 600).
SPARSE_LIMIT = 600
SPARSE_WINDOW = 10
# Partners tried in the search for the first transposition that meets every criterion's bound: this many beyond
# two per player of the group (the natural pairing alone tries one per pair).
TRANSPOSITION_BUDGET = 400


@dataclass(frozen=True)
class _Player:
    """Everything the criteria need about one player, by position in the pairing order."""

    index: int
    number: int
    points: int  # the pairing score in units of the round's common denominator (exact integer arithmetic)
    colour: ColourState
    float1: FloatDirection
    float2: FloatDirection
    pab_eligible: bool
    unplayed: int
    topscorer: bool
    opponents: frozenset[int]


class _Levels:
    """Packs signed per-edge criterion values into one integer, most significant level first.

    `pairs` bounds how many edges of a matching can have a nonzero value at a level (one number for every
    level, or one per level), so that a level's sum never reaches the next one; a level at 0 takes no bits
    (every edge must then be 0 there), which keeps the weights, and the matcher's arithmetic, short.
    """

    def __init__(self, bounds: Sequence[int], pairs: int | Sequence[int]) -> None:
        counts = [pairs] * len(bounds) if isinstance(pairs, int) else pairs
        self.shifts: list[int] = []
        shift = 0
        for bound, count in zip(reversed(bounds), reversed(counts), strict=True):
            self.shifts.append(shift)
            if count:
                shift += (max(bound, 1) * (count + 1)).bit_length() + 2
        self.shifts.reverse()
        self.width = shift

    def pack(self, values: Sequence[int]) -> int:
        """The packed integer of one edge."""
        total = 0
        for value, shift in zip(values, self.shifts, strict=True):
            if value:
                total += value << shift
        return total


class _Compatibility:
    """Who may meet whom ([C1] no rematch, [C2] not forbidden, [C3] no clash of absolute colours), rows on demand.

    `compatible[x][y]` reads like a matrix, but a row is only built when a bracket needs it, so a bracket
    that the natural pairing settles costs no quadratic work.
    """

    def __init__(self, tournament: Tournament, players: list[_Player]) -> None:
        self.players = players
        index = {p.number: p.index for p in players}
        forbidden: dict[int, set[int]] = {}
        for group in tournament.forbidden:
            inside = [index[n] for n in group if n in index]
            for i in inside:
                forbidden.setdefault(i, set()).update(j for j in inside if j != i)
        self.excluded: list[set[int]] = []
        for p in players:
            out = {index[n] for n in p.opponents if n in index}
            out |= forbidden.get(p.index, set())
            out.add(p.index)
            self.excluded.append(out)
        # Players who cannot meet another with the same absolute preference (topscorers are exempt).
        self.absolute: list[Colour | None] = [
            p.colour.preference if p.colour.strength is PreferenceStrength.ABSOLUTE and not p.topscorer else None
            for p in players
        ]
        self._rows: dict[int, list[bool]] = {}

    def ok(self, i: int, j: int) -> bool:
        """True when players i and j may be paired."""
        row = self._rows.get(i)
        if row is not None:
            return row[j]
        absolute = self.absolute[i]
        return j not in self.excluded[i] and (absolute is None or self.absolute[j] is not absolute)

    def __getitem__(self, i: int) -> list[bool]:
        row = self._rows.get(i)
        if row is None:
            absolute = self.absolute[i]
            row = [absolute is None or other is not absolute for other in self.absolute]
            for j in self.excluded[i]:
                row[j] = False
            self._rows[i] = row
        return row


def pair(tournament: Tournament, round_number: int | None = None) -> Pairing:
    """Pair a round with the FIDE Dutch system; raise NoValidPairing if no legal pairing exists."""
    return _pair(tournament, round_number)


def _pair(tournament: Tournament, round_number: int | None = None, *, fast: bool = True) -> Pairing:
    """`pair`; with `fast` off, every bracket goes through the general matching (to test the fast path)."""
    tournament = with_implied_acceleration(tournament)
    views = tournament.views(round_number)
    numbers = views.to_pair()
    if not numbers:
        return Pairing(())
    players = _players(views, numbers)
    engine = _Round(views, players, fast=fast)
    pairs, bye = engine.run()
    initial = tournament.initial_colour or Colour.WHITE
    boards = []
    for x, y in pairs:
        a, b = players[x], players[y]
        colour = allocate(a.colour, b.colour, initial)
        boards.append(Board(a.number, b.number) if colour is Colour.WHITE else Board(b.number, a.number))
    ordered = board_order(views, boards)
    return Pairing(ordered, None if bye is None else players[bye].number)


def with_implied_acceleration(tournament: Tournament) -> Tournament:
    """Add Baku virtual points when record 192 names a *_BAKU system and no 250/XXA record is given.

    Follows the FIDE text (C.04.7): group A is the first 2 * ceil(N / 4) starting numbers; a win's worth in
    the first ceil(ceil(R / 2) / 2) rounds, half of it up to round ceil(R / 2). (The reference engine takes
    ceil(N / 2) players here, see fide-swiss.md §4.1; the corpus does not tell the two apart.)
    """
    if tournament.acceleration:
        return tournament
    if not any(line.startswith("192") and line.upper().rstrip().endswith("_BAKU") for line in tournament.header):
        return tournament
    ranked = sorted(tournament.players, key=lambda p: p.number)
    group = 2 * -(-len(ranked) // 4)
    accelerated = -(-tournament.total_rounds // 2)
    full = -(-accelerated // 2)
    win = tournament.scoring.win
    values = tuple(win if r <= full else win / 2 for r in range(1, accelerated + 1))
    return replace(tournament, acceleration={p.number: values for p in ranked[:group]})


def _players(views: RoundViews, numbers: Sequence[int]) -> list[_Player]:
    out = []
    rnd = views.round
    states = colour_states(views, numbers)
    scores = [views.pairing_score(state.number) for state in states]
    unit = math.lcm(*(score.denominator for score in scores))
    for index, (state, score) in enumerate(zip(states, scores, strict=True)):
        number = state.number
        out.append(
            _Player(
                index=index,
                number=number,
                points=score.numerator * (unit // score.denominator),
                colour=state,
                float1=views.float_in(number, rnd - 1) if rnd > 1 else FloatDirection.NONE,
                float2=views.float_in(number, rnd - 2) if rnd > 2 else FloatDirection.NONE,
                pab_eligible=views.pab_eligible(number),
                unplayed=views.unplayed_rounds(number),
                topscorer=views.is_topscorer(number),
                opponents=views.opponents(number),
            )
        )
    return out


def _after(state: ColourState, colour: Colour) -> tuple[bool, bool]:
    """(abs colour difference > 2, same colour three times in a row) after playing `colour`."""
    cd = state.difference + (1 if colour is Colour.WHITE else -1)
    seq = state.colours
    three = len(seq) >= 2 and seq[-1] is colour and seq[-2] is colour
    return abs(cd) > 2, three


class _Round:
    """Pairs the brackets of one round from the top down."""

    def __init__(self, views: RoundViews, players: list[_Player], *, fast: bool = True) -> None:
        self.views = views
        self.players = players
        self.initial = views.tournament.initial_colour or Colour.WHITE
        self.fast = fast
        self.compatible = _Compatibility(views.tournament, players)
        self._colour_cache: dict[Pair, tuple[int, int, int, int]] = {}

    def colour_failures(self, i: int, j: int) -> tuple[int, int, int, int]:
        """Failures of [C10], [C11], [C12], [C13] for the pair i-j."""
        key = (i, j) if i < j else (j, i)
        got = self._colour_cache.get(key)
        if got is not None:
            return got
        a, b = self.players[i], self.players[j]
        ca, cb = a.colour, b.colour
        colour_a = allocate(ca, cb, self.initial)
        colour_b = colour_a.opposite
        c10 = c11 = 0
        if a.topscorer or b.topscorer:
            for state, colour in ((ca, colour_a), (cb, colour_b)):
                big, three = _after(state, colour)
                c10 += big
                c11 += three
        c12 = int(ca.preference is not None and ca.preference is not colour_a) + int(
            cb.preference is not None and cb.preference is not colour_b
        )
        c13 = 0
        if (
            ca.preference is not None
            and ca.preference is cb.preference
            and ca.strength >= PreferenceStrength.STRONG
            and cb.strength >= PreferenceStrength.STRONG
            and not (ca.strength is PreferenceStrength.ABSOLUTE and cb.strength is PreferenceStrength.ABSOLUTE)
        ):
            c13 = 1
        got = (c10, c11, c12, c13)
        self._colour_cache[key] = got
        return got

    def run(self) -> tuple[list[Pair], int | None]:
        """All pairs (by order index) and the PAB receiver."""
        players = self.players
        groups: list[list[int]] = []
        for p in players:
            if groups and players[groups[-1][0]].points == p.points:
                groups[-1].append(p.index)
            else:
                groups.append([p.index])
        pairs: list[Pair] = []
        mdps: list[int] = []
        for gi, residents in enumerate(groups):
            lower = [i for g in groups[gi + 1 :] for i in g]
            nxt = groups[gi + 1] if gi + 1 < len(groups) else []
            natural = self.natural(residents, nxt, lower) if self.fast and not mdps else None
            if natural is not None:
                got, floaters = natural
            else:
                got, floaters = _Bracket(self, mdps, residents, nxt, lower).solve()
            pairs.extend(got)
            mdps = floaters
        if len(mdps) > 1:
            raise NoValidPairing("the lowest bracket could not be completed")
        return pairs, (mdps[0] if mdps else None)

    def natural(self, members: list[int], nxt: list[int], lower: list[int]) -> tuple[list[Pair], list[int]] | None:
        """The pairs and downfloater of a homogeneous bracket when a transposition is provably best; None otherwise.

        Transpositions come first in the generation order (Article 4), so the first one that no candidate beats
        on any criterion is the engine's answer. That is proved level by level from bounds that hold for every
        candidate: all its pairs are legal, it pairs all but at most one ([C6], [C7], [C14]-[C21] hold at their
        best), it breaks no colour rule of a topscorer ([C10], [C11]), and it fails no more colour preferences
        ([C12]) and makes no more clashes of strong ones ([C13]) than the counts of each preference force on any
        pairing (`first_transposition`). An odd lowest bracket leaves out a PAB-eligible player with the fewest
        unplayed rounds and no recent downfloat ([C5], [C9], `takes_bye_ideally`); an odd bracket above others
        floats one down who can pair into the next bracket as well as anyone could (`floats_ideally`). When
        players are left below an even bracket, they must still be pairable among themselves with the PAB to the
        lowest score ([C4], [C5]).
        """
        n = len(members)
        odd = n % 2 == 1
        if n < 2:
            return None
        if not odd:
            if lower and not self._completes(lower):
                return None
            return self.first_transposition(members)
        test = self.floats_ideally([], nxt, lower[len(nxt) :]) if lower else self.takes_bye_ideally(members)
        return None if test is None else self.first_transposition(members, test)

    def first_transposition(
        self, members: list[int], floater_ok: FloaterTest | None = None
    ) -> tuple[list[Pair], list[int]] | None:
        """The first transposition of S2 (Article 4.2) of a homogeneous group whose pairs are legal, break no [C10]
        and [C11], and fail only the colour preferences ([C12]) and strong preferences ([C13]) that any pairing of
        the group must fail, with its floater (an odd group: the S2 player left out, who must pass `floater_ok`);
        None when there is none, or when the search runs too long or meets a floater it cannot judge (an earlier
        candidate must never be passed over on a test that may be wrong)."""
        half = len(members) // 2
        s1, s2 = members[:half], members[half:]
        extra = len(s2) - half
        players = self.players
        wanted = [players[m].colour.preference for m in members]
        bound = _least_failures(wanted)
        strong_bound = _least_strong_clashes([players[m].colour for m in members])
        ok = self.compatible.ok
        colour_failures = self.colour_failures
        # Colour preferences still to place on each side, to bound the failures a partial pairing must add.
        prefs1 = wanted[:half]
        prefs2 = wanted[half:]
        white1 = [0] * (half + 1)
        black1 = [0] * (half + 1)
        for i in range(half - 1, -1, -1):
            white1[i] = white1[i + 1] + (prefs1[i] is Colour.WHITE)
            black1[i] = black1[i + 1] + (prefs1[i] is Colour.BLACK)
        white2 = prefs2.count(Colour.WHITE)
        black2 = prefs2.count(Colour.BLACK)
        used = [False] * len(s2)
        pairs: list[Pair] = []
        budget = TRANSPOSITION_BUDGET + 2 * len(members)

        def forced(i: int) -> int:
            # Rows i.. of S1 against the unused of S2: like preferences that must meet.
            left = half - i + extra
            return max(0, white1[i] + white2 - left) + max(0, black1[i] + black2 - left)

        def place(i: int, failures: int, clashes: int) -> bool | None:
            nonlocal budget, white2, black2
            if i == half:
                return True if floater_ok is None else floater_ok(s2[used.index(False)])
            x = s1[i]
            for j, y in enumerate(s2):
                if used[j]:
                    continue
                budget -= 1
                if budget < 0:
                    return None
                if not ok(x, y):
                    continue
                c10, c11, c12, c13 = colour_failures(x, y)
                if c10 or c11 or clashes + c13 > strong_bound:
                    continue
                total = failures + c12
                pref = prefs2[j]
                white2 -= pref is Colour.WHITE
                black2 -= pref is Colour.BLACK
                if total + forced(i + 1) <= bound:
                    used[j] = True
                    pairs.append((x, y))
                    got = place(i + 1, total, clashes + c13)
                    if got is None or got:
                        return got
                    used[j] = False
                    pairs.pop()
                white2 += pref is Colour.WHITE
                black2 += pref is Colour.BLACK
            return False

        if forced(0) > bound or not place(0, 0, 0):
            return None
        return pairs, [y for j, y in enumerate(s2) if not used[j]]

    def floats_ideally(self, floaters: list[int], nxt: list[int], beyond: list[int]) -> FloaterTest | None:
        """The test that an odd group's floater meets every bound of the criteria it decides, or None when none can.

        The floater never floated down in the last two rounds ([C14], [C16]: False when it did); with the other
        `floaters` it pairs into the next bracket so that the most pairs and scores are made there ([C8]:
        everyone, or all but one player of the next bracket), and the players `beyond` (with that one) pair among
        themselves with the PAB to the lowest score ([C4], [C5]). Those pairings are searched greedily, so when
        none is found the answer is None (unknown), not False.
        """
        if not nxt:
            return None
        players = self.players
        ok = self.compatible.ok
        inside = set(nxt)
        # The players of the next bracket who may be the one left over (when one is: the lowest first), each
        # checked once, when first needed.
        spares: list[int | None] = [None]
        if (len(floaters) + len(nxt)) % 2 == 0:
            spares = list(reversed(nxt))
        elif not self._completes(beyond):
            return None
        below: dict[int, bool] = {}

        def into_next(a: int, b: int) -> bool:
            return (a in inside or b in inside) and ok(a, b)

        def leaves_over(spare: int | None) -> bool:
            if spare is None:
                return True
            if spare not in below:
                below[spare] = self._completes([spare, *beyond])
            return below[spare]

        def test(floater: int) -> bool | None:
            p = players[floater]
            if p.float1 is FloatDirection.DOWN or p.float2 is FloatDirection.DOWN:
                return False
            found = any(
                leaves_over(spare)
                and _pairs_greedily([floater, *floaters, *(y for y in nxt if y != spare)], into_next) is not None
                for spare in spares
            )
            return True if found else None

        return test

    def takes_bye_ideally(self, members: list[int]) -> FloaterTest | None:
        """The test that the lowest bracket's odd player out meets every bound for the PAB, or None when none can:
        PAB-eligible with the fewest unplayed rounds ([C5], [C9]), no downfloat in the last two rounds ([C14],
        [C16])."""
        players = self.players
        fewest = min((players[m].unplayed for m in members if players[m].pab_eligible), default=None)
        if fewest is None:
            return None

        def test(floater: int) -> bool | None:
            p = players[floater]
            down = p.float1 is FloatDirection.DOWN or p.float2 is FloatDirection.DOWN
            return p.pab_eligible and p.unplayed == fewest and not down

        return test

    def _completes(self, lower: list[int]) -> bool:
        """True when a quick search pairs `lower` among themselves, any odd one out a lowest-score PAB candidate."""
        players = self.players
        rest = list(lower)
        if len(rest) % 2:
            eligible = [i for i in rest if players[i].pab_eligible]
            if not eligible:
                return False
            lowest = min(players[i].points for i in eligible)
            bye = max(i for i in eligible if players[i].points == lowest)
            rest.remove(bye)
        return _pairs_greedily(rest, self.compatible.ok) is not None


def _pairs_greedily(items: Sequence[int], legal: Callable[[int, int], bool]) -> list[Pair] | None:
    """Legal pairs of all of `items` (an even count), or None: a quick search that may miss a pairing.

    Each item in order takes the first free legal partner after it; each two left over then exchange partners
    with one pair.
    """
    pairs: list[Pair] = []
    single: list[int] = []
    taken = [False] * len(items)
    for i, a in enumerate(items):
        if taken[i]:
            continue
        for j in range(i + 1, len(items)):
            if not taken[j] and legal(a, items[j]):
                taken[j] = True
                pairs.append((a, items[j]))
                break
        else:
            single.append(a)
    while single:
        a, b = single.pop(), single.pop()
        for k, (x, y) in enumerate(pairs):
            if legal(a, x) and legal(b, y):
                pairs[k] = (a, x)
                pairs.append((b, y))
                break
            if legal(a, y) and legal(b, x):
                pairs[k] = (a, y)
                pairs.append((b, x))
                break
        else:
            return None
    return pairs


def _least_failures(wanted: list[Colour | None]) -> int:
    """Colour preferences ([C12]) that any pairing of a group must fail (an odd group: any one player left out)."""
    white, black = wanted.count(Colour.WHITE), wanted.count(Colour.BLACK)
    none = len(wanted) - white - black
    if len(wanted) % 2 == 0:
        return _forced_failures(white, black, none)
    return min(
        _forced_failures(white - (k == 0), black - (k == 1), none - (k == 2))
        for k, count in enumerate((white, black, none))
        if count
    )


def _least_strong_clashes(states: list[ColourState]) -> int:
    """Pairs ([C13]) of like strong preferences (not both absolute) that any pairing of a group must make (an odd
    group: any one player left out)."""
    strong = PreferenceStrength.STRONG
    kinds: list[tuple[Colour | None, bool]] = [
        (state.preference, state.strength is PreferenceStrength.ABSOLUTE)
        for state in states
        if state.preference is not None and state.strength >= strong
    ]
    size = len(states)

    def forced(kinds: list[tuple[Colour | None, bool]], size: int) -> int:
        total = 0
        for colour in (Colour.WHITE, Colour.BLACK):
            like = sum(1 for c, _ in kinds if c is colour)
            absolute = sum(1 for c, a in kinds if c is colour and a)
            # Beyond the other players, like ones pair together; two absolute ones would not count.
            total += max(0, like - size // 2 - absolute // 2)
        return total

    if size % 2 == 0:
        return forced(kinds, size)
    # Leave out a player of any kind (one without a strong preference, or one of each strong kind).
    options = [forced(kinds, size - 1)] if len(kinds) < size else []
    firsts = {kind: k for k, kind in enumerate(kinds)}.values()
    options += [forced(kinds[:k] + kinds[k + 1 :], size - 1) for k in firsts]
    return min(options)


def _forced_failures(white: int, black: int, none: int) -> int:
    """Colour preferences ([C12]) that any pairing of everyone must fail, given how many want each colour."""
    # A player whose preference no opposite or empty preference can meet shares a pair with a like one.
    surplus = max(white - black - none, black - white - none, 0)
    return (surplus + 1) // 2


class _Bracket:
    """One bracket: MDPs plus residents, with the players below for completion and look-ahead."""

    def __init__(self, rnd: _Round, mdps: list[int], residents: list[int], nxt: list[int], lower: list[int]) -> None:
        self.rnd = rnd
        self.mdps = mdps
        self.residents = residents
        self.members = mdps + residents
        self.member_set = set(self.members)
        self.mdp_set = set(mdps)
        self.next_set = set(nxt)
        self.lower = lower
        self.vertices = self.members + lower
        self.dummy = len(self.vertices) if len(self.vertices) % 2 else -1
        self.size = len(self.vertices) + (1 if self.dummy >= 0 else 0)
        # [C9] only counts in a bracket that downfloats exactly one player, who then gets the PAB.
        self._c9: dict[Pair, int] = {}
        self.c9 = len(self.members) % 2 == 1
        self._criteria = self._criteria_weights()

    # -- criteria -------------------------------------------------------------------------------

    def _criteria_weights(self) -> dict[Pair, int]:
        rnd = self.rnd
        players = rnd.players
        verts = self.vertices
        members = self.member_set
        mdps = self.mdp_set
        nxt = self.next_set
        bracket_score = players[self.residents[0]].points
        all_scores = sorted({players[v].points for v in verts})
        score_rank = {s: k for k, s in enumerate(all_scores)}
        b_scores = sorted({players[v].points for v in self.members})
        b_rank = {s: k for k, s in enumerate(b_scores)}
        base7 = len(self.members) + 1
        n_scores = sorted({players[v].points for v in self.members + [v for v in verts if v in nxt]})
        n_rank = {s: k for k, s in enumerate(n_scores)}
        base8 = len(self.members) + len(nxt) + 1
        diffs = sorted({players[m].points - bracket_score for m in self.mdps} | {0})
        diff_rank = {d: k for k, d in enumerate(diffs)}
        base_sd = len(self.mdps) + 1
        unpaired_sd = base_sd ** len(diffs)
        max_unplayed = max((players[v].unplayed for v in verts), default=0)
        bounds = [
            1,  # completion: every edge counts
            len(all_scores),  # C5
            1,  # C6
            2 * base7 ** len(b_scores),  # C7
            1,  # C8 pairs
            2 * base8 ** len(n_scores),  # C8 scores
            max_unplayed + 1,  # C9
            *(2, 2, 2, 2),  # C10-C13
            *(2, 1, 2, 1),  # C14-C17
            *(unpaired_sd,) * 4,  # C18-C21
        ]
        rich = len(self.members) + len(nxt)
        nb = len(self.members)
        member_players = [players[v] for v in self.members]
        # Levels only the dummy's edges use hold one edge of a matching; the others are edges within the bracket
        # and the next one; a level no edge of this bracket can use takes no bits.
        within = rich // 2
        dummy = 1 if self.dummy >= 0 else 0
        topscorers = within if any(p.topscorer for p in member_players) else 0
        down1 = within if any(p.float1 is FloatDirection.DOWN for p in member_players) else 0
        down2 = within if any(p.float2 is FloatDirection.DOWN for p in member_players) else 0
        heterogeneous = within if self.mdps else 0
        pairs = [
            self.size // 2,  # completion
            dummy,  # C5
            within,  # C6
            within,  # C7
            within if nxt else 0,  # C8 pairs
            within if nxt else 0,  # C8 scores
            dummy,  # C9
            *(topscorers, topscorers, within, within),  # C10-C13
            *(down1, heterogeneous, down2, heterogeneous),  # C14-C17
            *(heterogeneous,) * 4,  # C18-C21
        ]
        self.levels = _Levels(bounds, pairs)
        pack = self.levels.pack
        out: dict[Pair, int] = {}
        compatible = rnd.compatible
        zero = [0] * len(bounds)
        # Per-vertex terms, so that the quadratic loop does no Fraction arithmetic or hashing.
        w7 = [base7 ** b_rank[players[verts[a]].points] for a in range(nb)]
        w8 = [base8 ** n_rank[players[verts[a]].points] for a in range(rich)]
        downs1 = [int(players[verts[a]].float1 is FloatDirection.DOWN) for a in range(nb)]
        downs2 = [int(players[verts[a]].float2 is FloatDirection.DOWN) for a in range(nb)]
        is_mdp = [verts[a] in mdps for a in range(nb)]
        sh = self.levels.shifts
        pair_base = (1 << sh[0]) + (1 << sh[2])
        next_base = (1 << sh[0]) + (1 << sh[4])
        colour_failures = rnd.colour_failures
        for a in range(rich):
            x = verts[a]
            px = players[x]
            row = compatible[x]
            for b in range(a + 1, rich):
                y = verts[b]
                if not row[y]:
                    continue
                if b >= nb:
                    out[(a, b)] = next_base + ((w8[a] + w8[b]) << sh[5])
                    continue
                c10, c11, c12, c13 = colour_failures(x, y)
                if not (is_mdp[a] or is_mdp[b]):
                    out[(a, b)] = (
                        pair_base
                        + ((w7[a] + w7[b]) << sh[3])
                        - (c10 << sh[7])
                        - (c11 << sh[8])
                        - (c12 << sh[9])
                        - (c13 << sh[10])
                        + ((downs1[a] + downs1[b]) << sh[11])
                        + ((downs2[a] + downs2[b]) << sh[13])
                    )
                    continue
                py = players[y]
                vals = list(zero)
                vals[0] = 1
                vals[2] = 1
                vals[3] = w7[a] + w7[b]
                vals[7], vals[8], vals[9], vals[10] = -c10, -c11, -c12, -c13
                for p, other in ((px, py), (py, px)):
                    resident = p.index not in mdps
                    other_mdp = other.index in mdps
                    if resident:
                        vals[11] += p.float1 is FloatDirection.DOWN
                        vals[13] += p.float2 is FloatDirection.DOWN
                        if other_mdp:
                            vals[12] -= p.float1 is FloatDirection.UP
                            vals[14] -= p.float2 is FloatDirection.UP
                            weight = base_sd ** diff_rank[other.points - bracket_score]
                            if p.float1 is FloatDirection.UP:
                                vals[16] -= weight
                            if p.float2 is FloatDirection.UP:
                                vals[18] -= weight
                    else:
                        diff = p.points - other.points if not other_mdp else abs(p.points - other.points)
                        weight = base_sd ** diff_rank.get(diff, 0)
                        if p.float1 is FloatDirection.DOWN:
                            vals[15] += unpaired_sd - weight
                        if p.float2 is FloatDirection.DOWN:
                            vals[17] += unpaired_sd - weight
                out[(a, b)] = pack(vals)
        self.plain = pack([1] + [0] * (len(bounds) - 1))
        if self.dummy >= 0:
            top = len(all_scores) - 1
            for a, x in enumerate(verts):
                p = players[x]
                if p.pab_eligible:
                    vals = list(zero)
                    vals[0] = 1
                    vals[1] = top - score_rank[p.points]
                    out[(a, self.dummy)] = pack(vals)
                    if x in members:
                        vals = list(zero)
                        vals[6] = max_unplayed - p.unplayed
                        self._c9[(a, self.dummy)] = pack(vals)
        return out

    # -- solving --------------------------------------------------------------------------------

    def _solve(self, order: _OrderKeys, removed: set[int], cut: set[Pair]) -> list[int]:
        """Best perfect matching of the bracket's graph (players `removed` left out, edges in `cut` forbidden)."""
        c9 = self._c9 if self.c9 else {}
        shift = order.bits + 1
        plain = self.plain
        keep = [v for v in range(self.size) if v not in removed]
        index = {v: k for k, v in enumerate(keep)}
        base: list[Edge] = []
        ends: list[Pair] = []
        for (a, b), w in self._criteria.items():
            if a in removed or b in removed or (a, b) in cut:
                continue
            if c9:
                w += c9.get((a, b), 0)
            base.append((index[a], index[b], w - plain))
            ends.append((a, b))
        got = self._fast(len(keep), base, ends, order, keep, cut)
        if got is None:
            rich = [(ka, kb, (w << shift) + order(a, b)) for (ka, kb, w), (a, b) in zip(base, ends, strict=True)]
            got = self._dense(len(keep), rich, keep, cut)
        if got is None:
            raise NoValidPairing("no pairing satisfies the absolute criteria for the remaining players")
        mate = [-1] * self.size
        for k, v in enumerate(keep):
            mate[v] = keep[got[k]]
        return mate

    def _fast(
        self, n: int, base: list[Edge], ends: list[Pair], order: _OrderKeys, keep: list[int], cut: set[Pair]
    ) -> list[int] | None:
        """Best matching of the weighted edges alone, completed by completion-only edges; None if it cannot be.

        Every weighted edge is worth more than a completion-only edge (weight 0 after removing the common
        completion term), so a best matching of the weighted edges that can be completed is a best perfect
        matching of the whole graph.
        """
        mate = self._best_weighted(n, base, ends, order)
        free = [k for k in range(n) if mate[k] == -1]
        if not free:
            return mate
        # Which completion is found does not matter: a member left free has no free legal partner in the bracket
        # or the next one (that weighted edge would have been taken), so it floats down whoever it meets.
        rest = self._greedy_completion(free, keep, cut)
        if rest is not None:
            for k, partner in rest.items():
                mate[k] = partner
            return mate
        for dense in (False, True):
            rest = self._completion(free, keep, cut, dense)
            if rest is not None:
                for k, partner in rest.items():
                    mate[k] = partner
                return mate
        return None

    def _best_weighted(self, n: int, base: list[Edge], ends: list[Pair], order: _OrderKeys) -> list[int]:
        """Maximum-weight matching; large graphs start from a sparse subset and add what the duals ask for.

        Edge weights are the criteria part in `base` (shifted above the order keys) plus the generation-order
        key of the pair, computed when needed so that a large bracket never holds all of its big weights at once.
        """
        shift = order.bits + 1
        if len(base) <= SPARSE_LIMIT:
            rich = [(ka, kb, (w << shift) + order(a, b)) for (ka, kb, w), (a, b) in zip(base, ends, strict=True)]
            return max_weight_matching(n, rich)
        chosen = [self._likely(a, b) for a, b in ends]
        while True:
            edges = [
                (ka, kb, (w << shift) + order(a, b))
                for (ka, kb, w), (a, b), keep in zip(base, ends, chosen, strict=True)
                if keep
            ]
            mate, duals = matching_with_duals(n, edges)
            added = 0
            for k, ((ka, kb, w), (a, b)) in enumerate(zip(base, ends, strict=True)):
                if not chosen[k] and not duals.covers(ka, kb, (w << shift) + order(a, b)):
                    chosen[k] = True
                    added += 1
            if not added:
                return mate

    def _likely(self, a: int, b: int) -> bool:
        """Edges near the natural S1-S2 partners (or neighbours) of a scoregroup, for a sparse first try."""
        nb, nn = len(self.members), len(self.next_set)
        if a >= nb + nn or b >= nb + nn:
            return True
        if a < len(self.mdps) or b < len(self.mdps):
            return True
        if b < nb:
            half = (nb - len(self.mdps)) // 2
        elif a >= nb:
            half = nn // 2
        else:
            return a >= nb - SPARSE_WINDOW and b < nb + SPARSE_WINDOW
        gap = b - a
        return gap <= SPARSE_WINDOW or abs(gap - half) <= SPARSE_WINDOW

    def _greedy_completion(self, free: list[int], keep: list[int], cut: set[Pair]) -> dict[int, int] | None:
        """A perfect matching of the `free` vertices found greedily (the dummy to the lowest PAB-eligible), or None.

        A quick first try (`_pairs_greedily`); when it fails, `_completion` searches properly.
        """
        players = self.rnd.players
        compatible = self.rnd.compatible
        verts = self.vertices
        nv = len(verts)
        left = [keep[k] for k in free if keep[k] < nv]
        out: dict[int, int] = {}
        if len(left) < len(free):
            partner = next((a for a in reversed(left) if players[verts[a]].pab_eligible), None)
            if partner is None:
                return None
            left.remove(partner)
            out[self.dummy] = partner
            out[partner] = self.dummy

        def legal(a: int, b: int) -> bool:
            return compatible[verts[a]][verts[b]] and (min(a, b), max(a, b)) not in cut

        pairs = _pairs_greedily(left, legal)
        if pairs is None:
            return None
        for a, b in pairs:
            out[a] = b
            out[b] = a
        index = {v: k for k, v in enumerate(keep)}
        return {index[a]: index[b] for a, b in out.items()}

    def _completion(self, free: list[int], keep: list[int], cut: set[Pair], dense: bool) -> dict[int, int] | None:
        """A perfect matching of the `free` vertices over any legal edge (sparse first), or None."""
        compatible = self.rnd.compatible
        verts = self.vertices
        edges: list[Edge] = []
        nv = len(verts)
        for i, k in enumerate(free):
            a = keep[k]
            found = 0
            for j in range(i + 1, len(free)):
                b = keep[free[j]]
                if a == self.dummy or b == self.dummy:
                    other = b if a == self.dummy else a
                    ok = self.rnd.players[verts[other]].pab_eligible
                else:
                    ok = a < nv and b < nv and compatible[verts[a]][verts[b]] and (min(a, b), max(a, b)) not in cut
                if ok:
                    edges.append((i, j, 1))
                    found += 1
                    if not dense and found == COMPLETION_DEGREE:
                        break
        got = max_weight_perfect_matching(len(free), edges)
        if got is None:
            return None
        return {free[i]: free[got[i]] for i in range(len(free))}

    def _dense(self, n: int, rich: list[Edge], keep: list[int], cut: set[Pair]) -> list[int] | None:
        """Best perfect matching with every legal edge present (exact; used when the fast route fails)."""
        compatible = self.rnd.compatible
        verts = self.vertices
        index = {v: k for k, v in enumerate(keep)}
        have = {(min(a, b), max(a, b)) for a, b, _ in rich}
        edges = list(rich)
        members = [v for v in keep if v < len(verts)]
        for i, a in enumerate(members):
            row = compatible[verts[a]]
            for b in members[i + 1 :]:
                ka, kb = index[a], index[b]
                if row[verts[b]] and (ka, kb) not in have and (a, b) not in cut:
                    edges.append((ka, kb, 0))
        # Shift every weight up by one common amount so that cardinality comes first.
        top = max((w for _, _, w in edges), default=0) + 1
        return max_weight_perfect_matching(n, [(a, b, w + top) for a, b, w in edges])

    def solve(self) -> tuple[list[Pair], list[int]]:
        """The bracket's pairs (order indices) and its downfloaters (in order)."""
        members = self.members
        local = {x: a for a, x in enumerate(self.vertices)}
        if self.mdps:
            order = self._mdp_keys(local)
            mate = self._solve(order, set(), set())
            if self._single_floater(mate) != self.c9:
                self.c9 = not self.c9
                mate = self._solve(order, set(), set())
            fixed: list[Pair] = []
            used: set[int] = set()
            for m in self.mdps:
                a = local[m]
                b = mate[a]
                if 0 <= b < len(self.vertices) and self.vertices[b] in self.member_set and b not in used:
                    if self.vertices[b] in self.mdp_set and local[m] > b:
                        continue
                    fixed.append((m, self.vertices[b]))
                    used.update((a, b))
            remainder = [r for r in self.residents if local[r] not in used]
            limbo = [m for m in self.mdps if local[m] not in used]
            remainder_pairs = [
                (a, mate[a])
                for a in range(len(self.vertices))
                if a < mate[a] < len(self.vertices)
                and a not in used
                and self.vertices[a] in self.member_set
                and self.vertices[mate[a]] in self.member_set
            ]
            cut = {(min(local[m], local[r]), max(local[m], local[r])) for m in limbo for r in remainder}
            pairs, floaters = self._homogeneous(remainder, len(remainder_pairs), used, cut, mate)
            return fixed + pairs, sorted(limbo + floaters)
        count = len(members) // 2
        return self._homogeneous(members, count, set(), set(), None)

    def _homogeneous(
        self, group: list[int], count: int, removed: set[int], cut: set[Pair], mate: list[int] | None
    ) -> tuple[list[Pair], list[int]]:
        if removed and count == len(group) // 2 and self.rnd.fast:
            # A remainder that pairs all but at most one, after the MDPs' pairs: everything else being fixed, its
            # pairs decide only [C10]-[C13] and the order, and an odd one's floater the float criteria and [C8],
            # so the first transposition meeting those bounds is its answer (as in `_Round.natural`).
            test = None
            if len(group) % 2:
                limbo = [m for m in self.mdps if self.vertices.index(m) not in removed]
                nxt = [v for v in self.vertices if v in self.next_set]
                test = self.rnd.floats_ideally(limbo, nxt, self.lower[len(nxt) :])
            if len(group) % 2 == 0 or test is not None:
                found = self.rnd.first_transposition(group, test)
                if found is not None:
                    return found
        local = {x: a for a, x in enumerate(self.vertices)}
        for _attempt in range(3):
            if len(group) < 2 or count == 0:
                break
            order = self._homogeneous_keys(group, count, local)
            mate = self._solve(order, removed, cut)
            gset = {local[x] for x in group}
            got = sum(1 for a in gset if mate[a] in gset and a < mate[a])
            if got == count and (removed or self._single_floater(mate) == self.c9):
                break
            count = got
            if not removed:
                self.c9 = self._single_floater(mate)
        pairs: list[Pair] = []
        floaters: list[int] = []
        gset = {local[x] for x in group}
        for x in group:
            a = local[x]
            b = mate[a] if mate is not None else -1
            if b in gset:
                if a < b:
                    pairs.append((x, self.vertices[b]))
            else:
                floaters.append(x)
        return pairs, floaters

    def _single_floater(self, mate: list[int]) -> bool:
        members = {a for a, x in enumerate(self.vertices) if x in self.member_set}
        return sum(1 for a in members if mate[a] not in members) == 1

    def _homogeneous_keys(self, group: list[int], p: int, local: dict[int, int]) -> _OrderKeys:
        """Exchange and transposition order of Article 4.2-4.3 as additive edge keys (bigger is earlier)."""
        return _HomogeneousKeys({local[x]: k + 1 for k, x in enumerate(group)}, p)

    def _mdp_keys(self, local: dict[int, int]) -> _OrderKeys:
        """MDP-set choice (Article 4.4) then the S2 transposition for the MDPs (Article 4.2)."""
        mdps = {local[m]: i for i, m in enumerate(self.mdps)}
        return _MdpKeys(mdps, {local[r]: j for j, r in enumerate(self.residents)})


class _OrderKeys:
    """Additive edge keys encoding the FIDE generation order among equally good candidates."""

    bits = 0

    def __call__(self, a: int, b: int) -> int:
        return 0


class _HomogeneousKeys(_OrderKeys):
    """Homogeneous bracket or remainder with S1 = BSN 1..p (Articles 4.2, 4.3).

    For a candidate, the earliest exchange that generates it keeps the smaller BSN of every pair in S1, so
    the exchange rules (fewest moved, smallest sum difference, highest moved out, lowest moved in) and the
    transposition order (S1 members' partners lexicographically smallest) become sums over the pairs.
    """

    def __init__(self, bsn: dict[int, int], p: int) -> None:
        n = len(bsn)
        self.bsn = bsn
        self.n = n
        base = n + 1
        levels = _Levels([1, n, 1 << (p + 1), 1 << (n + 1), base ** (n + 1)], n // 2 + 1)
        self.bits = levels.width
        # The key of a pair is low[lo] + (n - hi) * high[lo] (BSNs lo < hi): the packed levels, split by what
        # depends on the lower BSN alone.
        self.low = [0] * (n + 1)
        self.high = [0] * (n + 1)
        for lo in range(1, n + 1):
            first = lo <= p
            self.low[lo] = levels.pack(
                [1 if first else 0, -lo, -(1 << lo) if first else 0, 0 if first else 1 << (n - lo), 0]
            )
            self.high[lo] = base ** (n - lo) << levels.shifts[4]

    def __call__(self, a: int, b: int) -> int:
        x, y = self.bsn.get(a), self.bsn.get(b)
        if x is None or y is None:
            return 0
        if x > y:
            x, y = y, x
        return self.low[x] + (self.n - y) * self.high[x]


class _MdpKeys(_OrderKeys):
    """Heterogeneous bracket: the first valid MDP set, then the S2 transposition for the MDPs (4.2, 4.4)."""

    def __init__(self, mdps: dict[int, int], residents: dict[int, int]) -> None:
        self.mdps = mdps
        self.residents = residents
        m0 = len(mdps)
        self.n = len(residents)
        base = self.n + 1
        levels = _Levels([1 << (m0 + 1), base ** (m0 + 1)], m0 + 1)
        self.bits = levels.width
        # The key of MDP i with resident j is low[i] + (n - j) * high[i] (the packed levels).
        ranks = [m0 - i - 1 for i in range(m0)]
        self.low: list[int] = [1 << rank << levels.shifts[0] for rank in ranks]
        self.high: list[int] = [base**rank << levels.shifts[1] for rank in ranks]

    def __call__(self, a: int, b: int) -> int:
        i = self.mdps.get(a)
        j = self.residents.get(b)
        if i is None or j is None:
            i = self.mdps.get(b)
            j = self.residents.get(a)
            if i is None or j is None:
                return 0
        return self.low[i] + (self.n - j) * self.high[i]
