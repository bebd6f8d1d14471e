"""The TRF team records of a team event: 310 (and TRF16's 013, read only), 192, 320, 330, 352 and 362."""

from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction

from pairing.errors import TeamError
from pairing.model import (
    Colour,
    Points,
    RecordKind,
    Tournament,
    format_points,
)
from pairing.team.model import ColourType, Primary, Team, TeamEvent, TeamRules

TEAM_TAGS = frozenset({"192", "310", "013", "320", "330", "352", "362"})
"""TRF header records this module reads and writes (the others are kept as they are)."""


_TYPE_192 = re.compile(r"FIDE_TEAM(?:_TYPE(?P<type>[AB]))?(?:_(?P<primary>MP|GP))?(?:_(?P<secondary>MP|GP))?(?:_BAKU)?")
_SCALE_362 = re.compile(r"T?([WDLP])\s*(-?\d+(?:\.\d*)?)")


def _number(text: str, tag: str, what: str) -> int:
    try:
        return int(text) if text.strip() else 0
    except ValueError:
        raise TeamError(f"record {tag}: {what} must be a whole number, got {text.strip()!r}") from None


def _points(text: str, tag: str, what: str) -> Points | None:
    if not text.strip():
        return None
    try:
        return Fraction(text.strip())
    except ValueError:
        raise TeamError(f"record {tag}: {what} must be a number like 1.5, got {text.strip()!r}") from None


def _col(line: str, first: int, last: int) -> str:
    return line[first - 1 : last]


def event_from_tournament(tournament: Tournament) -> TeamEvent:
    """The team event of a TRF-read tournament, from its team records (310, or TRF16's 013) and 192/320/352/362.

    TeamError when the file has no team records or they are inconsistent (a short roster, a player in two teams).
    """
    teams: list[Team] = []
    legacy: list[Team] = []
    pattern: str | None = None
    pab_points: tuple[Points | None, str] | None = None
    rules = TeamRules()
    for line in tournament.header:
        tag = line[:3]
        if tag == "310":
            teams.append(
                Team(
                    number=_number(_col(line, 5, 7), tag, "team number"),
                    name=_col(line, 9, 40).strip(),
                    players=_ids(line, 74, tag),
                    rating=_number(_col(line, 48, 53), tag, "strength"),
                )
            )
        elif tag == "013":
            legacy.append(Team(number=len(legacy) + 1, name=_col(line, 5, 36).strip(), players=_ids(line, 37, tag)))
        elif tag == "192":
            rules = _read_192(line[4:].strip().upper(), rules)
        elif tag == "352":
            pattern = line[4:].strip().upper()
        elif tag == "362":
            for letter, value in _SCALE_362.findall(line[4:].upper()):
                points = Fraction(value)
                if letter == "W":
                    rules = replace(rules, match_win=points)
                elif letter == "D":
                    rules = replace(rules, match_draw=points)
                elif letter == "L":
                    rules = replace(rules, match_loss=points)
                else:
                    rules = replace(rules, pab_match=points)
        elif tag == "320":
            pab_points = (_points(_col(line, 5, 8), tag, "PAB match points"), _col(line, 10, 13))
    chosen = teams or legacy
    if not chosen:
        raise TeamError("the file has no team records (310 or 013); a team event needs them")
    boards = len(pattern) if pattern else min(len(t.players) for t in chosen)
    rules = replace(rules, boards=boards, pattern=pattern or "WB")
    if pab_points is not None:
        # Values equal to the defaults (a drawn match) are read as the defaults, so the rules round-trip.
        pab_match = pab_points[0]
        pab_game = _points(pab_points[1], "320", "PAB game points")
        rules = replace(
            rules,
            pab_match=None if pab_match == rules.match_draw else pab_match,
            pab_game=None if pab_game == tournament.scoring.draw * boards else pab_game,
        )
    return TeamEvent(tournament, tuple(sorted(chosen, key=lambda t: t.number)), rules)


def _ids(line: str, first: int, tag: str) -> tuple[int, ...]:
    """The player ids of a team record: 4 columns each, from column `first`, one blank column apart."""
    ids = (_number(_col(line, start, start + 3), tag, "player id") for start in range(first, len(line) + 1, 5))
    return tuple(pid for pid in ids if pid > 0)


def _read_192(code: str, rules: TeamRules) -> TeamRules:
    """Record 192's FIDE_TEAM[_TYPEA|_TYPEB]_MP|GP[_GP|MP][_BAKU]: the colour type and the scores' roles."""
    match = _TYPE_192.fullmatch(code)
    if match is None:
        return rules
    if match["type"]:
        colours = ColourType(match["type"])
    else:
        colours = ColourType.A if match["primary"] is None else ColourType.NONE
    primary = Primary(match["primary"]) if match["primary"] else Primary.MP
    secondary = match["secondary"] is not None or match["primary"] is None
    return replace(rules, colours=colours, primary=primary, secondary_for_colours=secondary)


def team_records(event: TeamEvent) -> list[str]:
    """The TRF header records of a team event: 192, 352, 362, one 310 per team, 320 and 330."""
    rules, game = event.rules, event.tournament.scoring
    kind = {ColourType.A: "_TYPEA", ColourType.B: "_TYPEB", ColourType.NONE: ""}[rules.colours]
    secondary = Primary.GP if rules.primary is Primary.MP else Primary.MP
    code = f"FIDE_TEAM{kind}_{rules.primary.value}" + (f"_{secondary.value}" if rules.secondary_for_colours else "")
    scale = "    ".join(
        f"{letter}{format_points(value)}"
        for letter, value in (("W", rules.match_win), ("D", rules.match_draw), ("L", rules.match_loss))
    )
    lines = [f"192 {code}", f"352 {rules.pattern}", f"362  {scale}"]
    ranks = _ranks(event)
    for team in event.teams:
        head = (
            f"310 {team.number:3d} {team.name[:32]:<32} {'':5} {team.rating:6d} "
            f"{format_points(event.match_points(team.number), 6)} {format_points(event.game_points(team.number), 6)} "
            f"{ranks[team.number]:3d}"
        )
        lines.append(head + "  " + " ".join(f"{pid:4d}" for pid in team.players))
    rounds = event.rounds_completed
    byes = [
        next((t.number for t in event.teams if event.record(t.number, r).kind is RecordKind.PAB), 0)
        for r in range(1, rounds + 1)
    ]
    lines.append(
        f"320 {format_points(rules.pab_match_points)} {format_points(rules.pab_game_points(game))}"
        + "".join(f" {t:3d}" for t in byes)
    )
    for r in range(1, rounds + 1):
        for team in event.teams:
            rec = event.record(team.number, r)
            if rec.kind not in (RecordKind.FORFEIT_WIN, RecordKind.FORFEIT_LOSS) or rec.colour is not Colour.WHITE:
                continue
            assert rec.opponent is not None
            theirs = event.record(rec.opponent, r).kind
            mark = "+" if rec.kind is RecordKind.FORFEIT_WIN else "-"
            other = "+" if theirs is RecordKind.FORFEIT_WIN else "-"
            lines.append(f"330 {mark}{other} {r:3d} {team.number:3d} {rec.opponent:3d}")
    return lines


def _ranks(event: TeamEvent) -> dict[int, int]:
    """Ranks by primary then secondary score (ties share a rank) for record 310's informative column."""
    keyed = {t.number: (event.score(t.number), event.secondary(t.number)) for t in event.teams}
    ordered = sorted(keyed.values(), reverse=True)
    return {n: ordered.index(k) + 1 for n, k in keyed.items()}


def to_tournament(event: TeamEvent) -> Tournament:
    """The players' tournament with the team records in its header, ready for `trf.dumps`."""
    kept = tuple(line for line in event.tournament.header if line[:3] not in TEAM_TAGS)
    return replace(event.tournament, header=(*kept, *team_records(event)))
