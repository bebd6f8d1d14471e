"""Lichess's "Fast Swiss": the `--fast` system of cyanfish's bbpPairings fork, which Lichess runs for 700+ players.

Not a FIDE system; the fork's code is its definition (fide-other-systems.md §7, our restatement). One round:

1. Preparation as in the fork's Burstein code: the rounds played (`pr`, the last round anybody took part in the
   pairing of), the players to pair (no entry in round pr+1 yet), their rank indices (0-based, pairing-number
   order, over the players that count), colour preferences from played games only, the default acceleration
   (without any acceleration given: the top half of the round-1 participants get a win's points in rounds 1-2),
   and the tie-break metrics: Sonneborn-Berger, Buchholz and Median over "adjusted" opponent scores (an unplayed
   round counts as a draw) with a virtual opponent for one's own unplayed rounds (§2.5.2).
2. Sort by (pairing score, SB, BH, Median, rank index); a score group is a run of equal pairing score. With an
   odd count, the lowest player who has had neither a PAB nor a forfeit win gets the PAB (no look-ahead).
3. Greedy, top down: each unpaired player takes the first acceptable opponent in five passes: own group from
   its bottom up with (1) different preferences, (2) no clash of two absolute preferences; (3) lower groups top
   down, no absolute clash; (4) own group, (5) lower groups, colours ignored. A pass gives up at the 11th
   candidate rejected for colour (met opponents do not count). The scans keep the fork's moving cursors (moved
   only past players already paired) and jump over paired players with path-compressed skip pointers, so they
   give the plain scan's answer without walking the paired part of a group again and again.
4. If somebody is left, undo the last pairs (as many pairs as players are left, White then Black appended to
   the left-over list) and pair that list with the fork's Burstein matching (groups of equal score in list
   order, at most one floater per group, groups merged when stuck; then, group by group and best first, each
   player takes the lowest partner that keeps the optimum), with no colour limit; repeat, doubling the window,
   until it succeeds.
5. Colours by the Burstein rule (preferences, absolute, imbalance, strong, last differing round, then the
   higher player's preference or rank-index parity); boards ordered as the fork publishes them.

Where the fork's code is followed over a text: its README says a pass moves on once 10 candidates were discarded
for colour; the code gives up at the 11th (counted before the test), and that is what reproduces its output.
"Players outside the score group" in passes 3 and 5 are all lower players, scanned from the next group's top to
the end of the list. What the README leaves to "as Burstein" (PAB choice, the accelerated rounds 1-2, the virtual
opponent, the comparator whose different-score branch compares Buchholz times score, the fallback's groups in
list order) is the fork's code, and the fallback sorts with libstdc++'s `std::list::sort` because that
comparator need not be a strict weak order. Any acceleration in the tournament (the fork reads only `XXA`)
replaces the default one. When backtracking has undone every other pair, the fork undoes the PAB too (it keeps it
as a pair of the bye player with himself): the player joins the window twice, and the matching may give him the
bye again by pairing him with himself, as it does here. When its matching would instead put him on two boards
(which the fork publishes), or finds no pairing at all (the fork stops the event), the rules win over the fork:
the bye is given anew by its rule, the first eligible player from the bottom whose removal leaves the rest
pairable, and the rest matched again (`_rebye`, `_bye_anew`).

Scale: the history is held column-wise (`FastEvent`: per round, an array of opponents and bytes of result and
colour codes), the preparation is numpy arithmetic on whole columns (the unplayed entries fixed up with masks), the
players and the boards are ordered with `lexsort`, and what the greedy stage reads one player at a time are
memoryviews of those arrays, so 100,000 players after 30 rounds pair in about 0.7 s, with memory linear in
players x rounds (docs/benchmarks.md, "Fast Swiss"). `pair(tournament)` builds the event from the `Tournament`
model first; `pair_event` takes one built directly (`swissbot pair --system fast` reads the TRF file straight into
one: `pairing.systems.fast_trf`).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from pairing.errors import NoValidPairing
from pairing.matching import max_weight_matching
from pairing.model import NOT_PAIRED as NOT_PAIRED_RECORD
from pairing.model import Board, Colour, Outcome, Pairing, Points, RecordKind, Scoring, Tournament
from pairing.systems.common import list_sort

# Result codes of one player in one round (the bytes of FastEvent.results).
NOT_PAIRED, WIN, DRAW, LOSS, FORFEIT_WIN, FORFEIT_LOSS, PAB, FULL_BYE, HALF_BYE, ZERO_BYE = range(10)
# Colour codes (FastEvent.colours); only the colours of played games matter.
NO_COLOUR, WHITE, BLACK = 0, 1, 2

_PARTICIPATED = bytes(1 if code in (WIN, DRAW, LOSS, FORFEIT_WIN, FORFEIT_LOSS, PAB) else 0 for code in range(256))
_PLAYED = frozenset({WIN, DRAW, LOSS})
_UNPLAYED = np.array([code not in _PLAYED for code in range(256)])  # by result code
_BYE_BLOCKERS = frozenset({FORFEIT_WIN, PAB})
_KIND_CODES = {
    RecordKind.FORFEIT_WIN: FORFEIT_WIN,
    RecordKind.FORFEIT_LOSS: FORFEIT_LOSS,
    RecordKind.PAB: PAB,
    RecordKind.FULL_BYE: FULL_BYE,
    RecordKind.HALF_BYE: HALF_BYE,
    RecordKind.ZERO_BYE: ZERO_BYE,
    RecordKind.NOT_PAIRED: NOT_PAIRED,
}
_OUTCOME_CODES = {Outcome.WIN: WIN, Outcome.DRAW: DRAW, Outcome.LOSS: LOSS}
# A pass gives up at the 11th candidate rejected for colour.
_COLOUR_SKIPS = 10


@dataclass(frozen=True)
class FastEvent:
    """A tournament held column-wise for the Fast engine; players are indices 0..n-1 in pairing-number order."""

    numbers: Sequence[int]  # pairing numbers, ascending
    opponents: list[array[int]]  # per round: the opponent's index in a game played over the board, else -1
    results: list[bytes]  # per round: a result code per player (NOT_PAIRED, WIN, ..., ZERO_BYE)
    colours: list[bytes]  # per round: WHITE or BLACK in a game played over the board, else NO_COLOUR
    scoring: Scoring = field(default_factory=Scoring)
    initial_colour: Colour = Colour.WHITE
    acceleration: Mapping[int, tuple[Points, ...]] = field(default_factory=dict)
    forbidden: tuple[frozenset[int], ...] = ()

    @staticmethod
    def from_tournament(tournament: Tournament) -> FastEvent:
        """The column-wise form of a tournament (acceleration and forbidden pairs keyed by index)."""
        players = sorted(tournament.players, key=lambda p: p.number)
        index = {p.number: i for i, p in enumerate(players)}
        width = max((len(p.rounds) for p in players), default=0)
        played = RecordKind.PLAYED
        codes = _KIND_CODES
        padded = [p.rounds + (NOT_PAIRED_RECORD,) * (width - len(p.rounds)) for p in players]
        opponents: list[array[int]] = []
        results: list[bytes] = []
        colours: list[bytes] = []
        for r in range(width):
            column = [rounds[r] for rounds in padded]
            games = [rec.kind is played for rec in column]
            results.append(
                bytes(
                    _OUTCOME_CODES[rec.outcome] if game else codes[rec.kind]  # type: ignore[index]
                    for rec, game in zip(column, games, strict=True)
                )
            )
            opponents.append(
                array(
                    "l",
                    [index[rec.opponent] if game else -1 for rec, game in zip(column, games, strict=True)],  # type: ignore[index]
                )
            )
            colours.append(
                bytes(
                    (WHITE if rec.colour is Colour.WHITE else BLACK) if game else NO_COLOUR
                    for rec, game in zip(column, games, strict=True)
                )
            )
        acceleration = {index[n]: v for n, v in tournament.acceleration.items() if n in index}
        forbidden = tuple(frozenset(index[n] for n in group if n in index) for group in tournament.forbidden)
        return FastEvent(
            numbers=[p.number for p in players],
            opponents=opponents,
            results=results,
            colours=colours,
            scoring=tournament.scoring,
            initial_colour=tournament.initial_colour or Colour.WHITE,
            acceleration=acceleration,
            forbidden=forbidden,
        )


@dataclass(frozen=True)
class FastResult:
    """A paired round by player index: (white, black) boards in published order, and the PAB player."""

    boards: list[tuple[int, int]]
    bye: int | None


def pair(tournament: Tournament, round_number: int | None = None) -> Pairing:
    """Pair the next round (or `round_number`, the event as it stood before it) with Lichess's Fast Swiss;
    raise NoValidPairing if it finds no pairing."""
    if round_number is not None and round_number != tournament.round_to_pair:
        tournament = tournament.truncated(round_number - 1)
    event = FastEvent.from_tournament(tournament)
    return pairing_of(event, pair_event(event))


def pairing_of(event: FastEvent, result: FastResult) -> Pairing:
    """A paired round of the event by pairing number."""
    numbers = event.numbers
    boards = tuple(Board(numbers[w], numbers[b]) for w, b in result.boards)
    return Pairing(boards, None if result.bye is None else numbers[result.bye])


def pair_event(event: FastEvent) -> FastResult:
    """Pair the next round of a column-wise event."""
    ctx = _Context(event)
    return ctx.run()


def _scale(values: Sequence[Points]) -> int:
    scale = 1
    for value in values:
        scale = scale * Fraction(value).denominator // math.gcd(scale, Fraction(value).denominator)
    return scale


class _Context:
    """Everything one round's pairing derives from the event."""

    def __init__(self, event: FastEvent) -> None:
        self.event = event
        n = len(event.numbers)
        self.n = n
        sc = event.scoring
        accel_values = [v for values in event.acceleration.values() for v in values]
        raw = [
            sc.win, sc.draw, sc.loss, sc.forfeit_win_points, sc.forfeit_loss, sc.pab_points,
            sc.full_bye_points, sc.half_bye_points, sc.zero_bye,
        ]  # fmt: skip
        k = _scale(raw + accel_values)
        self.k = k

        def scaled(v: Points) -> int:
            return int(Fraction(v) * k)

        win, draw = scaled(sc.win), scaled(sc.draw)
        self.win, self.draw = win, draw
        pab = scaled(sc.pab_points)
        # Points of each result code; an empty round in the history counts as a zero-point bye (as the fork).
        points = [0] * 256
        for code, value in (
            (NOT_PAIRED, sc.zero_bye), (WIN, sc.win), (DRAW, sc.draw), (LOSS, sc.loss),
            (FORFEIT_WIN, sc.forfeit_win_points), (FORFEIT_LOSS, sc.forfeit_loss), (PAB, sc.pab_points),
            (FULL_BYE, sc.full_bye_points), (HALF_BYE, sc.half_bye_points), (ZERO_BYE, sc.zero_bye),
        ):  # fmt: skip
            points[code] = scaled(value)
        self.points = points
        # The virtual opponent's result in one's own unplayed round (fide-other-systems.md §2.5.2).
        virtual = [scaled(sc.forfeit_loss)] * 256
        for code in (NOT_PAIRED, LOSS, FORFEIT_LOSS, ZERO_BYE):
            virtual[code] = win
        virtual[HALF_BYE] = draw
        if pab < win:
            virtual[PAB] = win if pab < draw else draw
        self.virtual = virtual

        # The rounds played (`pr`) and who is to be paired, column by column as the fork's reader decides them:
        # an entry in round c+1 means at least c rounds were played, one taking part in the pairing means c+1.
        results = event.results
        pr = 0
        for c, col in enumerate(results):
            if col.translate(_PARTICIPATED).find(1) >= 0:
                pr = max(pr, c + 1)
            elif col.count(0) < n:
                pr = max(pr, c)
        if n and pr < len(results) and results[pr].count(0) == 0:
            pr += 1  # everybody has an entry for the next round: it counts as played
        self.pr = pr
        nxt = _codes(results[pr]) if pr < len(results) else np.zeros(n, dtype=np.uint8)
        # Not to be paired: an entry in round pr+1 already; of those, players who never took part do not count.
        self.to_pair_np = np.flatnonzero(nxt == NOT_PAIRED)
        counts = np.ones(n, dtype=bool)
        for i in np.flatnonzero(nxt != NOT_PAIRED).tolist():
            counts[i] = any(_PARTICIPATED[col[i]] for col in results)
        self.rank_np = np.where(counts, np.cumsum(counts) - 1, -1)
        self.rank = _ints(self.rank_np)
        self._accelerate()
        self._scores()
        self._colours()

    def row(self, i: int) -> bytes:
        """The result codes of one player, round by round."""
        return bytes(col[i] for col in self.event.results)

    def _accelerate(self) -> None:
        n, pr = self.n, self.pr
        acc = [0] * n
        if self.event.acceleration:
            for i, values in self.event.acceleration.items():
                if pr < len(values):
                    acc[i] = int(Fraction(values[pr]) * self.k)
        elif pr < 2:
            # The fork's default: walk the pairing list, +1 win each, until the round-1 participants counted
            # so far reach half of them (a player absent from round 1 gets it without using a place).
            first = self.event.results[0] if self.event.results else bytes(n)

            def counts(i: int) -> bool:
                # No round-1 entry at all (only possible before round 1), or took part in round 1's pairing.
                return (pr == 0 and first[i] == 0) or _PARTICIPATED[first[i]] == 1

            bound = sum(1 for i in range(n) if counts(i))
            if bound > 1:
                for i in range(n):
                    acc[i] = self.win
                    if counts(i):
                        bound -= 2
                        if bound <= 1:
                            break
        self.acc = acc

    def _scores(self) -> None:
        """Scores, accelerated scores, SB, Buchholz and Median with virtual opponents, a round at a time on columns."""
        n, pr, draw = self.n, self.pr, self.draw
        results, opponents = self.event.results, self.event.opponents
        largest = max(map(abs, [*self.points, *self.virtual, *self.acc, draw]), default=0) + 1
        # Machine integers while no sum can overflow them, Python's own beyond (an unusual scoring).
        dtype = np.int64 if (pr + 3) ** 2 * largest**2 < 2**62 else object
        points = np.array(self.points, dtype=dtype)
        virtual = np.array(self.virtual, dtype=dtype)
        cols = [_codes(results[c]) if c < len(results) else np.zeros(n, dtype=np.uint8) for c in range(pr)]
        acc = np.array(self.acc, dtype=dtype)
        score = np.zeros(n, dtype=dtype)
        for col in cols:
            score += points[col]
        pairing_score = score + acc
        self.pairing_score = _ints(pairing_score)
        self.pairing_score_np = pairing_score
        # Adjusted scores (an unplayed round counts as a draw); the last entry is index -1's: no opponent.
        adjusted = np.append(pairing_score, 0).astype(dtype)
        for col in cols:
            unplayed = _UNPLAYED[col]
            adjusted[:n][unplayed] += draw - points[col[unplayed]]
        sb = np.zeros(n, dtype=dtype)
        bh = np.zeros(n, dtype=dtype)
        # The Median's smallest and largest parts, kept as running minimum and maximum over the rounds.
        smallest = largest_part = None
        before = acc.copy()  # acceleration plus own points before the round, for the virtual opponents
        for c, col in enumerate(cols):
            pts = points[col]
            opp = np.asarray(opponents[c]) if c < len(opponents) else np.full(n, -1)
            contrib = adjusted[opp]
            unplayed = _UNPLAYED[col]
            # The virtual opponent: own score before this round, draws in the rounds after it (to pr).
            contrib[unplayed] = before[unplayed] + (pr - 1 - c) * draw + virtual[col[unplayed]]
            sb += pts * contrib
            bh += contrib
            smallest = contrib if smallest is None else np.minimum(smallest, contrib)
            largest_part = contrib if largest_part is None else np.maximum(largest_part, contrib)
            before += pts
        self.sb = _ints(sb)
        self.bh = _ints(bh)
        # The Median tie-break: Buchholz without its smallest and largest part; 0 up to two rounds.
        if pr > 2 and smallest is not None and largest_part is not None:
            median = bh - smallest - largest_part
        else:
            median = np.zeros(n, dtype=dtype)
        self.median = _ints(median)
        self.score_np = score
        # The sort's keys, the first deciding: pairing score, SB, Buchholz, Median (all descending).
        self.order_keys = (pairing_score, sb, bh, median)
        # Everybody's opponents over the board, a row a player (-1 for none): a row is read as a list when needed.
        self.opp_rows = (
            np.stack([np.asarray(col, dtype=np.int32) for col in opponents], axis=1)
            if opponents
            else np.zeros((n, 0), dtype=np.int32)
        )
        forbidden: dict[int, set[int]] = {}
        for group in self.event.forbidden:
            for a in group:
                forbidden.setdefault(a, set()).update(group)
        self.forbidden = forbidden

    def _colours(self) -> None:
        """Colour preference, absolute flag, strong flag and imbalance of every player to pair, on columns."""
        n = self.n
        whites = np.zeros(n, dtype=np.int64)
        blacks = np.zeros(n, dtype=np.int64)
        last = np.zeros(n, dtype=np.uint8)  # the last colour played
        before_last = np.zeros(n, dtype=np.uint8)  # the one played before it
        for column in self.event.colours:
            col = _codes(column)
            played = col != NO_COLOUR
            whites += col == WHITE
            blacks += col == BLACK
            before_last = np.where(played, last, before_last)
            last = np.where(played, col, last)
        imbalance = np.abs(whites - blacks)
        lower = np.where(whites > blacks, BLACK, WHITE)
        repeated = (whites + blacks >= 2) & (last == before_last)
        last_other = np.where(last == WHITE, BLACK, WHITE)
        pref = np.where(
            imbalance > 1, lower, np.where(repeated, last_other, np.where(imbalance > 0, lower, last_other))
        )
        counted = np.zeros(n, dtype=bool)
        counted[self.to_pair_np] = True
        counted &= whites + blacks > 0
        absolute = ((imbalance > 1) | repeated) & counted
        self.pref_np = np.where(counted, pref, 0).astype(np.uint8)
        self.absolute_np = absolute.view(np.uint8)
        self.pref = self.pref_np.tobytes()
        self.absolute = absolute.tobytes()
        self.strong = (~absolute & (imbalance > 0) & counted).tobytes()
        self.imbalance = _ints(np.where(counted, imbalance, 0))
        self._histories: dict[int, bytes] = {}

    def history(self, i: int) -> bytes:
        """The colours one player played, round by round."""
        got = self._histories.get(i)
        if got is None:
            got = self._histories[i] = bytes(col[i] for col in self.event.colours).replace(b"\0", b"")
        return got

    # --- comparisons -------------------------------------------------------------------------------------

    def metric_less(self, a: int, b: int) -> bool:
        """The fork's MetricScores `a < b` (a ranks lower than b)."""
        sa, sb_ = self.pairing_score[a], self.pairing_score[b]
        if sa == sb_:
            return (self.sb[a], self.bh[a], self.median[a], self.rank[b]) < (
                self.sb[b], self.bh[b], self.median[b], self.rank[a],
            )  # fmt: skip
        return (self.sb[a], self.bh[a] * sa, self.median[a] * sa, self.rank[b]) < (
            self.sb[b], self.bh[b] * sb_, self.median[b] * sb_, self.rank[a],
        )  # fmt: skip

    def met(self, a: int, b: int) -> bool:
        """True when the two played each other or must not meet (XXP)."""
        if b in self.opp_rows[a].tolist():
            return True
        group = self.forbidden.get(a)
        return group is not None and b in group

    def _neutral_colour(self, p: int, o: int) -> int:
        pp, po = self.pref[p], self.pref[o]
        if pp != po or not pp or not po:
            if pp:
                return pp
            if po:
                return _invert(po)
            return NO_COLOUR
        ap, ao = self.absolute[p], self.absolute[o]
        if ap and (self.imbalance[p] > self.imbalance[o] or not ao):
            return pp
        if ao and (self.imbalance[o] > self.imbalance[p] or not ap):
            return _invert(po)
        if self.strong[p] and not self.strong[o]:
            return pp
        if self.strong[o] and not self.strong[p]:
            return _invert(po)
        hp, ho = self.history(p), self.history(o)
        for cp, co in zip(reversed(hp), reversed(ho), strict=False):
            if cp != co:
                return co
        return NO_COLOUR

    def colour_of(self, p: int, o: int) -> int:
        """The colour the fork gives p, paired with o (p found o)."""
        result = self._neutral_colour(p, o)
        if result != NO_COLOUR:
            return result
        initial = WHITE if self.event.initial_colour is Colour.WHITE else BLACK
        if not self.pref[p]:
            rp, ro = self.rank[p], self.rank[o]
            if rp < ro:
                return _invert(initial) if rp & 1 else initial
            return initial if ro & 1 else _invert(initial)
        if self.metric_less(p, o):
            return _invert(self.pref[o])
        return self.pref[p]

    def board(self, p: int, o: int) -> tuple[int, int]:
        """The (white, black) board of p and o, p the player who found o."""
        return (p, o) if self.colour_of(p, o) == WHITE else (o, p)

    # --- the round ---------------------------------------------------------------------------------------

    def _rebye(
        self, found: list[tuple[int, int]], window: list[int], ranked: Sequence[int]
    ) -> list[tuple[int, int]] | None:
        """The fallback's answer once the PAB was undone: the fork's own when it gives the bye player the bye again
        (a pair of him with himself) or pairs him once; when it would place him twice (the fork then publishes
        him on two boards), the bye goes anew by its rule (from the bottom, the first eligible player whose
        removal leaves the rest pairable) and the rest is matched again: a legal pairing where the fork has none."""
        placed = [p for pair in found for p in ({pair[0]} if pair[0] == pair[1] else pair)]
        if len(placed) == len(set(placed)):
            return found
        return self._bye_anew(window, ranked)

    def _bye_anew(self, window: list[int], ranked: Sequence[int]) -> list[tuple[int, int]] | None:
        """The window (the bye player in it twice) paired with the bye given by its rule: from the bottom, the first
        eligible player whose removal leaves the rest pairable; None when no player's does."""
        players = list(dict.fromkeys(window))
        place = {p: k for k, p in enumerate(ranked)}
        for candidate in sorted(players, key=place.__getitem__, reverse=True):
            if any(c in _BYE_BLOCKERS for c in self.row(candidate)):
                continue
            rest = _Fallback(self, [p for p in players if p != candidate]).solve()
            if rest is not None:
                return [*rest, (candidate, candidate)]
        return None

    def run(self) -> FastResult:
        """Bye, greedy stage, backtracking, board order."""
        order = self._sorted()
        if not order:
            return FastResult([], None)
        bye: int | None = None
        if len(order) & 1:
            for pos in range(len(order) - 1, -1, -1):
                if not any(c in _BYE_BLOCKERS for c in self.row(order[pos])):
                    bye = order[pos]
                    order = _view(np.delete(np.asarray(order), pos))
                    break
            else:
                raise NoValidPairing("No player is eligible for the pairing-allocated bye.")
        pairs, unpaired = self._greedy(order)
        stuck = "The non-bye players cannot be simultaneously paired without violating the absolute criteria."
        while unpaired:
            k = len(unpaired)
            while k > 0 and (pairs or bye is not None):
                if pairs:
                    white, black = pairs.pop()
                else:
                    # The fork keeps the PAB as a pair (bye, bye) first in its list, so it is undone last: the
                    # bye player joins the window twice, and a pair of him with himself is the PAB again.
                    assert bye is not None
                    white = black = bye
                    bye = None
                unpaired += [white, black]
                k -= 2
            found = _Fallback(self, unpaired).solve()
            if found is not None and len(unpaired) != len(set(unpaired)):
                found = self._rebye(found, unpaired, self._sorted())
                if found is None:
                    raise NoValidPairing(stuck)
            elif found is None and len(unpaired) != len(set(unpaired)):
                # Everyone is in the window and the fork would stop here, its bye player leaving the rest
                # unpairable: the bye goes anew by its rule, so the event ends only when no pairing exists.
                found = self._bye_anew(unpaired, self._sorted())
            if found is not None:
                for white, black in found:
                    if white == black:
                        bye = white
                    else:
                        pairs.append((white, black))
                break
            if not pairs and bye is None:
                raise NoValidPairing(stuck)
        return FastResult(self._board_order(pairs), bye)

    def _board_order(self, pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """The boards as the fork publishes them: by the higher player's score, the lower's, the higher's rank."""
        if not pairs:
            return []
        boards = np.array(pairs, dtype=np.int64)
        white, black = boards[:, 0], boards[:, 1]
        score, rank = self.score_np, self.rank_np
        sw, sb, rw, rb = score[white], score[black], rank[white], rank[black]
        white_higher = (sw > sb) | ((sw == sb) & (rw < rb))
        higher = np.where(white_higher, sw, sb)
        lower = np.where(white_higher, sb, sw)
        order = np.lexsort((np.where(white_higher, rw, rb), -lower, -higher))
        return list(zip(white[order].tolist(), black[order].tolist(), strict=True))

    def _sorted(self) -> Sequence[int]:
        """The players to pair by pairing score, SB, Buchholz, Median (all descending), then rank index."""
        players = self.to_pair_np
        keys = [self.rank_np[players], *(-key[players] for key in reversed(self.order_keys))]
        return _view(players[np.lexsort(keys)])

    def _greedy(self, players: Sequence[int]) -> tuple[list[tuple[int, int]], list[int]]:
        """Pair top down in five passes; stop at the first player nobody is left for. The pairs, and the players
        left unpaired in list order."""
        m = len(players)
        placed = np.asarray(players, dtype=np.int64)
        pscore = _ints(self.pairing_score_np[placed])
        pref = self.pref_np[placed].tobytes()
        absolute = self.absolute_np[placed].tobytes()
        opp_rows = self.opp_rows
        forbidden: dict[int, set[int] | frozenset[int]] = dict(self.forbidden)
        taken = bytearray(m)
        pairs: list[tuple[int, int]] = []
        cursor = [0, 0]  # [own group's end, next group's start], moved past players already paired
        # Skip pointers over paired players (path-compressed): the nearest unpaired position above / below.
        up = array("q", np.arange(m + 1, dtype=np.int64).tobytes())
        down = array("q", np.arange(-1, m, dtype=np.int64).tobytes())  # down[j + 1] for j = -1 .. m-1

        def next_up(j: int) -> int:
            r = j
            while up[r] != r:
                r = up[r]
            while up[j] != r:
                up[j], j = r, up[j]
            return r

        def next_down(j: int) -> int:
            r = j
            while down[r + 1] != r:
                r = down[r + 1]
            while down[j + 1] != r:
                down[j + 1], j = r, down[j + 1]
            return r

        no_one: frozenset[int] = frozenset()

        def scan(i: int, which: int, step: int, optimal: bool, allowable: bool) -> int:
            me = players[i]
            met = opp_rows[me].tolist()
            blocked = forbidden.get(me, no_one)
            # A candidate clashes when he has this preference (and, for an "allowable" pass, is absolute too).
            clash = pref[i] if optimal or (allowable and absolute[i]) else -1
            both_absolute = allowable and not optimal
            gap = False
            skipped = 0
            j = cursor[which]
            while i < j < m:
                if taken[j]:
                    j = next_down(j) if step < 0 else next_up(j)
                    continue
                other = players[j]
                if other in met or other in blocked:
                    gap = True
                    j += step
                    continue
                if pref[j] == clash and (not both_absolute or absolute[j]):
                    if skipped >= _COLOUR_SKIPS:
                        return -1
                    skipped += 1
                    gap = True
                    j += step
                    continue
                if not gap:
                    cursor[which] = j + step
                return j
            return -1

        last = None
        for i in range(m):
            if pscore[i] != last:
                nxt = i + 1
                while nxt < m and pscore[nxt] == pscore[i]:
                    nxt += 1
                cursor[0], cursor[1] = nxt - 1, nxt
                last = pscore[i]
            if taken[i]:
                continue
            j = scan(i, 0, -1, True, True)
            if j < 0:
                j = scan(i, 0, -1, False, True)
            if j < 0:
                j = scan(i, 1, 1, False, True)
            if j < 0:
                j = scan(i, 0, -1, False, False)
            if j < 0:
                j = scan(i, 1, 1, False, False)
            if j < 0:
                break
            taken[i] = taken[j] = 1
            for t in (i, j):
                up[t] = t + 1
                down[t + 1] = t - 1
            pairs.append(self.board(players[i], players[j]))
        left = np.flatnonzero(np.frombuffer(taken, dtype=np.uint8) == 0).tolist()
        return pairs, [players[i] for i in left]


def _ints(values: npt.NDArray[Any]) -> Sequence[int]:
    """A column of integers read one at a time: a view of the machine integers (no copy), or Python's own when too
    large for them."""
    if values.dtype == object:
        return list(values.tolist())
    return _view(values)


def _view(values: npt.NDArray[Any]) -> memoryview:
    """Integers as a sequence of Python ints without a copy (a view of the array's machine integers)."""
    return np.ascontiguousarray(values, dtype=np.int64).data


def _codes(column: bytes) -> npt.NDArray[np.uint8]:
    """A column of one-byte codes as an array (no copy)."""
    return np.frombuffer(column, dtype=np.uint8)


def _invert(colour: int) -> int:
    return BLACK if colour == WHITE else WHITE if colour == BLACK else NO_COLOUR


class _Fallback:
    """The fork's Burstein-style matching over the left-over players, in the list's own order (no colour limit)."""

    def __init__(self, ctx: _Context, labels: list[int]) -> None:
        self.ctx = ctx
        self.labels = labels
        self.n = len(labels)
        n = self.n
        # Bit fields as in the fork, sized for this window: pairs, then same-group pairs, then colour, then rank.
        self.colour_w = n * n + 1
        self.same_w = self.colour_w * (n + 1)
        self.compat_w = self.same_w * (n + 1)
        self.weights: dict[tuple[int, int], int] = {}

    def set_weight(self, u: int, v: int, w: int) -> None:
        key = (u, v) if u < v else (v, u)
        if w:
            self.weights[key] = w
        else:
            self.weights.pop(key, None)

    def edge(self, u: int, v: int, same: bool, colour: bool) -> int:
        ctx = self.ctx
        a, b = self.labels[u], self.labels[v]
        if ctx.met(a, b):
            return 0
        weight = self.compat_w
        if same:
            weight += self.same_w
            pa, pb = ctx.pref[a], ctx.pref[b]
            if colour and (pa != pb or not pa or not pb):
                weight += self.colour_w
        return weight

    def matching(self) -> list[int]:
        mate = max_weight_matching(self.n, [(u, v, w) for (u, v), w in self.weights.items()])
        return [v if m < 0 else m for v, m in enumerate(mate)]

    def solve(self) -> list[tuple[int, int]] | None:
        """The pairs, or None when the window cannot be paired."""
        n = self.n
        score = [self.ctx.pairing_score[p] for p in self.labels]
        sg = [0, 0]
        valid = True
        while sg[-1] < n:
            sg.append(sg[-1])
            while True:
                begin = sg[-1]
                while True:
                    x = sg[-1]
                    for v in range(sg[-3], x):
                        self.set_weight(x, v, self.edge(v, x, v >= sg[-2], False))
                    sg[-1] += 1
                    if not (sg[-1] < n and score[begin] == score[sg[-1]]):
                        break
                if sg[-1] & 1:
                    for v in range(sg[-2], sg[-1]):
                        self.set_weight(sg[-1], v, self.compat_w)
                valid = _valid(self.matching(), sg)
                if not (sg[-1] < n and not valid):
                    break
            if sg[-1] < n and not sg[-1] & 1:
                sg.append(sg[-1])
        while len(sg) > 3 and not valid:
            sg.pop()
            boundary = sg.pop()
            start = sg.pop()
            for o in range(sg[-1], boundary):
                for i in range(boundary, n):
                    self.set_weight(o, i, self.edge(o, i, o >= start, False))
            sg += [start, n]
            valid = _valid(self.matching(), sg)
        if not valid:
            return None
        return self._pairs(sg)

    def _pairs(self, sg: list[int]) -> list[tuple[int, int]]:
        ctx, labels, n = self.ctx, self.labels, self.n
        done = bytearray(n)
        pairs: list[tuple[int, int]] = []
        floater: int | None = None
        begin = sg[0]
        for end in sg[1:]:
            if begin == end:
                continue
            group = list(range(begin, end))
            if floater is not None:
                group.append(floater)
                floater = None
            group = list_sort(group, lambda x, y: ctx.metric_less(labels[y], labels[x]))
            for pos, v in enumerate(group):
                for u in reversed(group[pos + 1 :]):
                    self.set_weight(v, u, self.edge(v, u, True, True))
            for pos, v in enumerate(group):
                if done[v]:
                    continue
                priority = 1
                for u in group[pos + 1 :]:
                    if not done[u]:
                        weight = self.edge(v, u, True, True)
                        if weight:
                            self.set_weight(v, u, weight + priority)
                            priority += 1
                mate = self.matching()[v]
                if mate >= end:
                    floater = v
                    continue
                if mate == v:
                    raise NoValidPairing("the fallback matching left a player unpaired")
                done[v] = done[mate] = 1
                pairs.append(ctx.board(labels[v], labels[mate]))
                for u in range(n):
                    if u != v:
                        self.set_weight(v, u, 1 if u == mate else 0)
                    if u != mate:
                        self.set_weight(mate, u, 1 if u == v else 0)
            begin = end
        return pairs


def _valid(mate: list[int], sg: list[int]) -> bool:
    """The fork's check: everybody matched but in the last group, at most one floater out of each group."""
    it = 0
    count = 0
    begin = 0
    last, second_last = sg[-1], sg[-2]
    for v, m in enumerate(mate):
        if v >= last:
            return True
        if v >= sg[it]:
            count = 0
            begin = v
            it += 1
            while v >= sg[it]:
                it += 1
        if m == v and v < second_last:
            return False
        if m == v or m < begin or m >= sg[it]:
            count += 1
            if count > (2 if sg[it] & 1 else 1):
                return False
    return True
