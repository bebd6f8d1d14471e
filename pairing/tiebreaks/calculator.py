"""The individual tie-breaks of FIDE C.07 (2024 and 2026 editions), with cut and median modifiers."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from fractions import Fraction
from functools import cached_property
from typing import ClassVar, TypeVar

from pairing.model import Colour, Outcome, Points, RecordKind, RoundRecord, Tournament, exact_sum
from pairing.tiebreaks.codes import (
    DEFAULT_TIEBREAKS,
    KNOWN_TIEBREAKS,
    TiebreakSpec,
    UnknownTiebreak,
    parse_tiebreak,
    parse_tiebreaks,
)
from pairing.tiebreaks.rating_tables import dp, expected
from pairing.tiebreaks.unplayed import EDITIONS, Edition, ScoreSheet, is_voluntary, score_sheet

__all__ = [
    "DEFAULT_TIEBREAKS",
    "EDITIONS",
    "KNOWN_TIEBREAKS",
    "Edition",
    "TiebreakCalculator",
    "TiebreakSpec",
    "UnknownTiebreak",
    "parse_tiebreak",
    "parse_tiebreaks",
    "tiebreak_values",
]

_PLAYED = RecordKind.PLAYED
_FORFEITS = frozenset({RecordKind.FORFEIT_WIN, RecordKind.FORFEIT_LOSS})
_NOT_ELECTED = frozenset({RecordKind.HALF_BYE, RecordKind.ZERO_BYE, RecordKind.NOT_PAIRED, RecordKind.FORFEIT_LOSS})
_GAME_POINTS = {Outcome.WIN: Fraction(1), Outcome.DRAW: Fraction(1, 2), Outcome.LOSS: Fraction(0)}


_N = TypeVar("_N", int, Fraction)
# One round's contribution to a sum: (value, how significant it is for cutting, voluntarily unplayed). The values
# are exact: Fractions, or integers in the units of the score sheet's `scaled` view.
_Entry = tuple[_N, tuple[_N, ...], bool]


def _trim(entries: Iterable[_Entry[_N]], low: int, high: int, article16: bool) -> list[_Entry[_N]]:
    """Drop the `low` least and then the `high` most significant entries (Art. 14, with the 16.5 exception)."""
    rest = list(entries)
    for _ in range(low):
        if not rest:
            break
        least = min(rest, key=lambda e: e[1])
        voluntary = [e for e in rest if e[2]]
        if article16 and voluntary:
            lowest = min(voluntary, key=lambda e: (e[0], e[1]))
            if lowest[0] >= least[0]:
                least = lowest
        rest.remove(least)
    for _ in range(high):
        if not rest:
            break
        rest.remove(max(rest, key=lambda e: e[1]))
    return rest


def _total(entries: Iterable[_Entry[Fraction]]) -> Points:
    return exact_sum(e[0] for e in entries)


def _scaled_total(entries: Iterable[_Entry[int]], unit: int) -> Points:
    """The exact sum of integer entries in units of 1/`unit`."""
    return Fraction(sum(e[0] for e in entries), unit)


def _round_half_up(value: Fraction) -> int:
    return math.floor(value + Fraction(1, 2))


def _fore(tournament: Tournament, last: int) -> Tournament:
    """The tournament with every paired game of round `last` turned into a played draw."""
    changes: dict[int, RoundRecord] = {}
    for player in tournament.players:
        rec = player.record(last)
        if rec.opponent is not None:
            colour = rec.colour or (Colour.WHITE if player.number < rec.opponent else Colour.BLACK)
            changes[player.number] = RoundRecord.played(rec.opponent, colour, Outcome.DRAW, rec.rated)
    return tournament.with_round(last, changes) if changes else tournament


class TiebreakCalculator:
    """Computes tie-break values of a tournament as it stood after a given round."""

    def __init__(
        self,
        tournament: Tournament,
        *,
        edition: Edition = "2026",
        through_round: int | None = None,
        lichess_sb: bool = False,
    ) -> None:
        rounds = tournament.rounds_completed if through_round is None else through_round
        if rounds < 0:
            raise ValueError(f"through_round must not be negative, got {rounds}")
        self.tournament = tournament
        self.edition: Edition = edition
        self.lichess_sb = lichess_sb
        self.sheet: ScoreSheet = score_sheet(tournament, rounds, edition)
        self._cache: dict[tuple[str, int], Points] = {}
        self._entries: dict[tuple[int, bool, bool], list[_Entry[int]]] = {}

    @property
    def rounds(self) -> int:
        """The rounds the values cover (1 .. rounds)."""
        return self.sheet.rounds

    def score(self, number: int) -> Points:
        """A player's points after the rounds covered."""
        return self.sheet.scores[number]

    @cached_property
    def fore(self) -> TiebreakCalculator:
        """The calculator of the Fore variant (last covered round's paired games drawn)."""
        if self.rounds == 0:
            return self
        fore = _fore(self.tournament.truncated(self.rounds), self.rounds)
        return TiebreakCalculator(fore, edition=self.edition, through_round=self.rounds, lichess_sb=self.lichess_sb)

    def value(self, tiebreak: TiebreakSpec | str, number: int) -> Points:
        """The value of one tie-break for one player (DE needs a tied group: see `pairing.tiebreaks.encounter`)."""
        spec = parse_tiebreak(tiebreak) if isinstance(tiebreak, str) else tiebreak
        key = (spec.code, number)
        cached = self._cache.get(key)
        if cached is None:
            cached = self._compute(spec, number)
            self._cache[key] = cached
        return cached

    def _compute(self, spec: TiebreakSpec, number: int) -> Points:
        name = spec.name
        if name == "FB" or (spec.fore and name in ("BH", "SB")):
            return self.fore.value(replace(spec, name="BH" if name == "FB" else name, fore=False), number)
        if name == "DE":
            raise ValueError("DE is computed on a group of tied players (pairing.tiebreaks.encounter.direct_encounter)")
        simple = self._SIMPLE.get(name)
        if simple is not None:
            return simple(self, number)
        unit = self.sheet.scaled.unit
        if name == "BH":
            entries = self._opponent_entries(number, spec.forfeits_played, weighted=False)
            return _scaled_total(_trim(entries, spec.low, spec.high, article16=True), unit)
        if name == "SB":
            if self.lichess_sb:
                return _total(_trim(self._lichess_sb_entries(number), spec.low, spec.high, article16=False))
            entries = self._opponent_entries(number, spec.forfeits_played, weighted=True)
            return _scaled_total(_trim(entries, spec.low, spec.high, article16=True), unit * unit)
        if name == "PS":
            kept = _trim(self._progressive_entries(number), spec.low, spec.high, article16=False)
            return _scaled_total(kept, unit)
        if name == "ARO":
            ratings: list[_Entry[int]] = [(r, (r,), False) for r, _ in self._rated_games(number)]
            kept = _trim(ratings, spec.low, spec.high, article16=False)
            if not kept:
                return Fraction(0)
            total, count = sum(e[0] for e in kept), len(kept)
            return Fraction((2 * total + count) // (2 * count))  # the mean rounded half up, in integers
        if name == "AOB":
            source = self.fore if spec.fore else self
            opponents = self._otb_opponents(number)
            if not opponents:
                return Fraction(0)
            return exact_sum(source.value("BH", o) for o in opponents) / len(opponents)
        if name in ("APRO", "APPO"):
            opponents = self._otb_opponents(number)
            if not opponents:
                return Fraction(0)
            inner = "TPR" if name == "APRO" else "PTP"
            mean = exact_sum(self.value(inner, o) for o in opponents) / len(opponents)
            return Fraction(_round_half_up(mean))
        if name == "KS":
            return self._koya(number, spec)
        raise UnknownTiebreak(spec.code)

    # --- opponent-based (Art. 8, 9) -------------------------------------------------------

    def _opponent_entries(self, number: int, forfeits_played: bool, *, weighted: bool) -> list[_Entry[int]]:
        """Each round's opponent score (times the round's points if `weighted`) in the scaled units (weighted:
        squared), made once per player and kind and shared by the codes and cuts that read them."""
        key = (number, forfeits_played, weighted)
        cached = self._entries.get(key)
        if cached is not None:
            return cached
        sheet = self.sheet
        scaled = sheet.scaled
        adjusted, got = scaled.adjusted, scaled.points[number]
        out: list[_Entry[int]] = []
        for r, rec in enumerate(sheet.records[number][: self.rounds], start=1):
            kind = rec.kind
            counts_as_game = kind is _PLAYED or (forfeits_played and kind in _FORFEITS)
            if rec.opponent is not None and counts_as_game:
                base, voluntary = adjusted[rec.opponent], False
            else:
                base, voluntary = sheet.scaled_dummy(number, r), is_voluntary(rec)
            if weighted:
                product = base * got[r - 1]
                out.append((product, (base, product), voluntary))
            else:
                out.append((base, (base,), voluntary))
        self._entries[key] = out
        return out

    def _lichess_sb_entries(self, number: int) -> list[_Entry[Fraction]]:
        """Lichess's Sonneborn-Berger: real current scores; a bye adds a virtual opponent (lila SwissScoring)."""
        sheet, scoring = self.sheet, self.tournament.scoring
        out: list[_Entry[Fraction]] = []
        before = Fraction(0)
        for r in range(1, self.rounds + 1):
            rec = sheet.record(number, r)
            got = sheet.round_points(number, r)
            if rec.opponent is not None:
                base = sheet.scores[rec.opponent]
                out.append((base * got / scoring.win, (base, got), False))
            elif rec.kind in (RecordKind.PAB, RecordKind.FULL_BYE):
                virtual = before + (scoring.win - got) + scoring.draw * (self.rounds - r)
                out.append((virtual * got / scoring.win, (virtual, got), False))
            before += got
        return out

    def _koya(self, number: int, spec: TiebreakSpec) -> Points:
        sheet, scoring = self.sheet, self.tournament.scoring
        threshold = scoring.win * self.rounds / 2 + scoring.draw * spec.limit
        total = Fraction(0)
        for r in range(1, self.rounds + 1):
            rec = sheet.record(number, r)
            if rec.opponent is None or not (rec.is_played or (spec.forfeits_played and rec.kind in _FORFEITS)):
                continue
            if sheet.scores[rec.opponent] >= threshold:
                total += sheet.round_points(number, r)
        return total

    # --- own results (Art. 7) ---------------------------------------------------------------

    def _progressive_entries(self, number: int) -> list[_Entry[int]]:
        running = 0
        out: list[_Entry[int]] = []
        for r, got in enumerate(self.sheet.scaled.points[number][: self.rounds], start=1):
            running += got
            out.append((running, (r,), False))
        return out

    def _records(self, number: int) -> tuple[RoundRecord, ...]:
        return self.sheet.records[number]

    @cached_property
    def _win_units(self) -> int | None:
        """A win's points in the units of the sheet's `scaled` view (None: no round can score it)."""
        units = self.sheet.scaled.unit * self.tournament.scoring.win
        return int(units) if units.denominator == 1 else None

    def _wins(self, number: int) -> Points:
        units = self._win_units
        if units is None:
            return Fraction(0)
        return Fraction(self.sheet.scaled.points[number].count(units))

    def _won(self, number: int) -> Points:
        return Fraction(sum(1 for rec in self._records(number) if rec.is_played and rec.outcome is Outcome.WIN))

    def _black_games(self, number: int) -> Points:
        return Fraction(sum(1 for rec in self._records(number) if rec.is_played and rec.colour is Colour.BLACK))

    def _black_wins(self, number: int) -> Points:
        return Fraction(
            sum(
                1
                for rec in self._records(number)
                if rec.outcome is Outcome.WIN and rec.colour is Colour.BLACK and rec.kind is _PLAYED
            )
        )

    def _elected(self, number: int) -> Points:
        return Fraction(sum(1 for rec in self._records(number) if rec.kind not in _NOT_ELECTED))

    def _standard(self, number: int) -> Points:
        """STD (2026 Art. 7.7): 1 per round scoring more than the opponent (unplayed: than a draw), ½ if equal."""
        sheet, draw = self.sheet, self.tournament.scoring.draw
        total = Fraction(0)
        for r in range(1, self.rounds + 1):
            rec = sheet.record(number, r)
            mine = sheet.round_points(number, r)
            theirs = sheet.round_points(rec.opponent, r) if rec.is_played and rec.opponent is not None else draw
            if mine > theirs:
                total += 1
            elif mine == theirs:
                total += Fraction(1, 2)
        return total

    def _starting_number(self, number: int) -> Points:
        return Fraction(number)

    def _rating(self, number: int) -> Points:
        return Fraction(self.tournament.player(number).rating)

    # --- ratings (Art. 10) --------------------------------------------------------------

    def _otb_opponents(self, number: int) -> list[int]:
        return [rec.opponent for rec in self._records(number) if rec.is_played and rec.opponent is not None]

    def _rated_games(self, number: int) -> list[tuple[int, Points]]:
        """(opponent rating, game points) of games played over the board against rated opponents."""
        out = []
        ratings = self._ratings
        for rec in self._records(number):
            if rec.kind is _PLAYED and rec.opponent is not None and rec.outcome is not None:
                rating = ratings[rec.opponent]
                if rating > 0:
                    out.append((rating, _GAME_POINTS[rec.outcome]))
        return out

    @cached_property
    def _ratings(self) -> dict[int, int]:
        return {p.number: p.rating for p in self.tournament.players}

    def _performance(self, number: int) -> Points:
        games = self._rated_games(number)
        if not games:
            return Fraction(0)
        average = _round_half_up(Fraction(sum(r for r, _ in games), len(games)))
        p = exact_sum(s for _, s in games) / len(games)
        return Fraction(average + dp(p))

    def _perfect_performance(self, number: int) -> Points:
        games = self._rated_games(number)
        if not games:
            return Fraction(0)
        ratings = [r for r, _ in games]
        score = exact_sum(s for _, s in games)
        if score == 0:
            return Fraction(min(ratings) - 800)
        if score == len(games):
            return Fraction(max(ratings) + 800)
        low, high = min(ratings) - 800, max(ratings) + 800
        while low < high:
            mid = (low + high) // 2
            if exact_sum(expected(mid - r) for r in ratings) >= score:
                high = mid
            else:
                low = mid + 1
        return Fraction(low)

    _SIMPLE: ClassVar[Mapping[str, Callable[[TiebreakCalculator, int], Points]]] = {
        "WIN": _wins,
        "WON": _won,
        "BPG": _black_games,
        "BWG": _black_wins,
        "REP": _elected,
        "STD": _standard,
        "TPN": _starting_number,
        "RTNG": _rating,
        "TPR": _performance,
        "PTP": _perfect_performance,
    }


def tiebreak_values(
    tournament: Tournament,
    tiebreaks: Iterable[str] = DEFAULT_TIEBREAKS,
    *,
    edition: Edition = "2026",
    through_round: int | None = None,
    lichess_sb: bool = False,
) -> dict[int, dict[str, Points]]:
    """Every player's value of every tie-break except DE (which depends on the tied group), by code."""
    specs = [parse_tiebreak(code) for code in tiebreaks]
    calc = TiebreakCalculator(tournament, edition=edition, through_round=through_round, lichess_sb=lichess_sb)
    return {p.number: {s.code: calc.value(s, p.number) for s in specs if s.name != "DE"} for p in tournament.players}
