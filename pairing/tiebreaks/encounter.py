"""Direct encounter (FIDE C.07 Art. 6): the mini-table of games among tied players, and the Swiss procedure."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from pairing.model import Points, RecordKind
from pairing.tiebreaks.unplayed import ScoreSheet

_FORFEITS = frozenset({RecordKind.FORFEIT_WIN, RecordKind.FORFEIT_LOSS})


def _meetings(sheet: ScoreSheet, group: Sequence[int], forfeits_played: bool) -> dict[tuple[int, int], list[Points]]:
    """Points `a` scored against `b` in each of their games, for every ordered pair of the group."""
    members = set(group)
    out: dict[tuple[int, int], list[Points]] = {}
    for a in group:
        for r in range(1, sheet.rounds + 1):
            rec = sheet.record(a, r)
            if rec.opponent is None or rec.opponent not in members or rec.opponent == a:
                continue
            if rec.is_played or (forfeits_played and rec.kind in _FORFEITS):
                out.setdefault((a, rec.opponent), []).append(sheet.round_points(a, r))
    return out


def mini_table(sheet: ScoreSheet, group: Sequence[int], *, forfeits_played: bool = False) -> dict[int, Points]:
    """Each player's points in games against the others of the group; several meetings are averaged (6.1.2)."""
    meetings = _meetings(sheet, group, forfeits_played)
    table = dict.fromkeys(group, Fraction(0))
    for (a, _), got in meetings.items():
        table[a] += sum(got, Fraction(0)) / len(got)
    return table


def direct_encounter(sheet: ScoreSheet, group: Sequence[int], *, forfeits_played: bool = False) -> list[list[int]]:
    """Split a tied group into ordered subgroups by direct encounter; a subgroup of several stays tied."""
    if len(group) < 2:
        return [list(group)]
    meetings = _meetings(sheet, group, forfeits_played)
    table = mini_table(sheet, group, forfeits_played=forfeits_played)
    missing = {a: sum(1 for b in group if b != a and (a, b) not in meetings) for a in group}
    if not any(missing.values()):
        return _split_all_met(sheet, group, table, forfeits_played)
    # Art. 6.3: a player ahead whatever the results of the games not played is ranked first; repeat.
    win = sheet.tournament.scoring.win
    best = max(group, key=lambda a: table[a])
    if all(table[best] > table[b] + win * missing[b] for b in group if b != best):
        rest = [b for b in group if b != best]
        return [[best], *direct_encounter(sheet, rest, forfeits_played=forfeits_played)]
    return [list(group)]


def _split_all_met(
    sheet: ScoreSheet, group: Sequence[int], table: dict[int, Points], forfeits_played: bool
) -> list[list[int]]:
    levels = sorted({table[a] for a in group}, reverse=True)
    if len(levels) == 1:
        return [list(group)]
    out: list[list[int]] = []
    for level in levels:
        sub = [a for a in group if table[a] == level]
        out.extend(direct_encounter(sheet, sub, forfeits_played=forfeits_played))
    return out
