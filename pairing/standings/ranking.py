"""Standings: points, then an ordered list of tie-breaks reapplied to every still-tied subgroup (C.07 Art. 2)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from pairing.model import Points, Tournament
from pairing.tiebreaks.calculator import TiebreakCalculator
from pairing.tiebreaks.codes import DEFAULT_TIEBREAKS, SCORE_LIKE, TiebreakSpec, parse_tiebreak
from pairing.tiebreaks.encounter import direct_encounter, mini_table
from pairing.tiebreaks.unplayed import Edition


@dataclass(frozen=True)
class StandingRow:
    """One line of the standings; `tiebreaks` maps each canonical code to its exact value."""

    rank: int
    number: int
    name: str
    points: Points
    tiebreaks: dict[str, Points]


def compute_standings(
    tournament: Tournament,
    tiebreaks: Sequence[str] = DEFAULT_TIEBREAKS,
    *,
    edition: Edition = "2026",
    exclude: Collection[int] = (),
    through_round: int | None = None,
    lichess_sb: bool = False,
) -> list[StandingRow]:
    """Rank the players by points, then by each tie-break within every still-tied subgroup.

    `exclude` leaves players out of the ranking without changing anyone's points or values (their games
    still count). `through_round` gives the standings after that round (default: the last paired round).
    DE's value is the player's score in the mini-table of the group it was applied to (0 when not tied).
    Players tied on everything share a rank and are listed by starting number.
    Raises UnknownTiebreak for a bad code and ValueError for an unknown excluded number.
    """
    specs = [parse_tiebreak(code) for code in tiebreaks]
    unknown = sorted(set(exclude) - tournament.by_number.keys())
    if unknown:
        raise ValueError(f"cannot exclude player {unknown[0]}: no such starting number")
    calc = TiebreakCalculator(tournament, edition=edition, through_round=through_round, lichess_sb=lichess_sb)
    ranked = [p.number for p in tournament.players if p.number not in exclude]
    values: dict[int, dict[str, Points]] = {
        n: {s.code: Fraction(0) if s.name == "DE" else calc.value(s, n) for s in specs} for n in ranked
    }
    groups = split_ties(ranked, calc.score, higher_first=True)
    de_done: set[tuple[str, int]] = set()
    for spec in specs:
        refined: list[list[int]] = []
        for group in groups:
            if len(group) == 1:
                refined.append(group)
            elif spec.name == "DE":
                refined.extend(_apply_de(calc, spec, group, values, de_done))
            else:
                refined.extend(split_ties(group, value_of(values, spec.code), higher_first=spec.higher_is_better))
        groups = refined
    rows: list[StandingRow] = []
    for group in groups:
        rank = len(rows) + 1
        for number in sorted(group):
            player = tournament.player(number)
            rows.append(StandingRow(rank, number, player.name, calc.score(number), values[number]))
    return rows


def split_ties(group: Iterable[int], key: Callable[[int], Points], *, higher_first: bool) -> list[list[int]]:
    """The group cut into subgroups of equal key, ordered by the key (players or teams alike)."""
    buckets: dict[Points, list[int]] = {}
    for n in group:
        buckets.setdefault(key(n), []).append(n)
    return [buckets[k] for k in sorted(buckets, reverse=higher_first)]


def value_of(values: dict[int, dict[str, Points]], code: str) -> Callable[[int], Points]:
    """One tie-break's value of each number, from the table of every value."""
    return lambda number: values[number][code]


def _apply_de(
    calc: TiebreakCalculator,
    spec: TiebreakSpec,
    group: list[int],
    values: dict[int, dict[str, Points]],
    done: set[tuple[str, int]],
) -> list[list[int]]:
    table = mini_table(calc.sheet, group, forfeits_played=spec.forfeits_played)
    for n in group:
        if (spec.code, n) not in done:
            values[n][spec.code] = table[n]
            done.add((spec.code, n))
    return direct_encounter(calc.sheet, group, forfeits_played=spec.forfeits_played)


def format_value(value: Points, decimals: int = 0) -> str:
    """A value for display: exact decimals when finite (at least `decimals`), else rounded to 2 places."""
    text = _exact_decimal(value)
    if text is None:
        text = f"{float(value):.2f}"
    whole, _, frac = text.partition(".")
    if len(frac) < decimals:
        frac = frac.ljust(decimals, "0")
    return f"{whole}.{frac}" if frac else whole


def _exact_decimal(value: Fraction) -> str | None:
    numerator, denominator = value.as_integer_ratio()
    sign = "-" if numerator < 0 else ""
    numerator = abs(numerator)
    for places in range(7):  # integer arithmetic: the standings pages format thousands of values
        scale = 10**places
        if scale % denominator == 0:
            whole, frac = divmod(numerator * (scale // denominator), scale)
            return f"{sign}{whole}" + (f".{frac:0{places}d}" if places else "")
    return None


def format_standings(rows: Sequence[StandingRow], tiebreaks: Sequence[str] | None = None) -> str:
    """The standings as a plain-text table (rank, number, name, points, one column per tie-break)."""
    codes = list(tiebreaks) if tiebreaks is not None else (list(rows[0].tiebreaks) if rows else [])
    codes = [parse_tiebreak(c).code for c in codes]
    header = ["Rk", "No", "Name", "Pts", *codes]
    table = [header]
    previous = None
    for row in rows:
        rank = "" if row.rank == previous else str(row.rank)
        previous = row.rank
        cells = [rank, str(row.number), row.name, format_value(row.points, 1)]
        for code in codes:
            spec = parse_tiebreak(code)
            cells.append(format_value(row.tiebreaks.get(code, Fraction(0)), 1 if spec.name in SCORE_LIKE else 0))
        table.append(cells)
    return text_table(table)


def text_table(table: Sequence[Sequence[str]], *, left: Iterable[int] = (2,), gap: int = 2, rule: bool = False) -> str:
    """Rows of cells as aligned plain text: columns in `left` left-aligned, the others right; `rule` draws a
    line of dashes under the first row (the header). Every text table of the project is drawn here."""
    left_set = frozenset(left)
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    lines = []
    for line in table:
        parts = [c.ljust(w) if i in left_set else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths, strict=True))]
        lines.append((" " * gap).join(parts).rstrip())
    if rule and lines:
        lines.insert(1, "-" * (sum(widths) + gap * (len(widths) - 1)))
    return "\n".join(lines)
