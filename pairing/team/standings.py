"""Team standings: the primary score, then team tie-breaks of FIDE C.07 reapplied to every still-tied subgroup.

A tie-break code is an individual one computed on the teams with match points or game points as the points,
in the TRF26 grammar `NAME[:MP|:GP][/modifiers]` (`BH:MP/C1`, `SB:GP`, `DE`, `PS:MP`; without a qualifier the
event's primary score), or one of the team codes: `MP` and `GP` (the totals), `ESB` (the team Sonneborn-Berger:
each opponent's match points times the game points scored against it, with SB's modifiers). Art. 16 handles
unplayed rounds as for players: a forfeited match and a PAB are unplayed rounds; the dummy opponent's cap of
the 2026 edition is a drawn match (in the points of the qualifier) times the rounds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from pairing.model import Points, Scoring, exact_sum
from pairing.standings.ranking import split_ties, value_of
from pairing.team.model import Primary, TeamEvent
from pairing.tiebreaks.calculator import TiebreakCalculator
from pairing.tiebreaks.codes import TiebreakSpec, UnknownTiebreak, parse_tiebreak
from pairing.tiebreaks.encounter import direct_encounter, mini_table
from pairing.tiebreaks.unplayed import Edition, UnplayedCategory

DEFAULT_TEAM_TIEBREAKS: tuple[str, ...] = ("GP", "ESB", "BH:MP", "DE")
"""The order this module ships for a match-point event: game points, team Sonneborn-Berger, Buchholz, DE."""

_ON_TEAMS = frozenset({"BH", "SB", "PS", "DE", "WIN", "STD", "TPN", "RTNG", "KS"})
_MATCH_ONLY = frozenset({"WIN", "STD", "KS"})


@dataclass(frozen=True)
class TeamTiebreak:
    """A parsed team tie-break: the tie-break, and the points it reads (MP, GP; ESB mixes them)."""

    code: str
    spec: TiebreakSpec | None
    points: Primary | None

    @property
    def higher_is_better(self) -> bool:
        """False only for TPN."""
        return self.spec is None or self.spec.higher_is_better


def parse_team_tiebreak(code: str, primary: Primary = Primary.MP) -> TeamTiebreak:
    """Parse a team tie-break code (case-insensitive); UnknownTiebreak for a code the teams cannot use."""
    text = code.strip().upper().replace(" ", "")
    if text in ("MP", "GP"):
        return TeamTiebreak(text, None, Primary(text))
    name, _, rest = text.partition("/")
    base, _, qualifier = name.partition(":")
    if base == "ESB":
        if qualifier:
            raise UnknownTiebreak(code, "ESB reads match points and game points; it takes no :MP or :GP")
        spec = parse_tiebreak("SB" + (f"/{rest}" if rest else ""))
        if spec.fore:
            raise UnknownTiebreak(code, "team tie-breaks have no Fore variant")
        return TeamTiebreak("/".join(["ESB", *spec.code.split("/")[1:]]), spec, None)
    if qualifier not in ("", "MP", "GP"):
        raise UnknownTiebreak(code, f"unknown qualifier :{qualifier} (known: :MP, :GP)")
    spec = parse_tiebreak(base + (f"/{rest}" if rest else ""))
    if spec.name not in _ON_TEAMS or spec.fore:
        raise UnknownTiebreak(code, f"{spec.code} is not a team tie-break here (known: MP, GP, ESB, {_known()})")
    points = Primary(qualifier) if qualifier else primary
    if spec.name in _MATCH_ONLY:
        points = Primary.MP
    if spec.name in ("TPN", "RTNG"):
        return TeamTiebreak(spec.code, spec, None)
    parts = spec.code.split("/")
    return TeamTiebreak("/".join([f"{parts[0]}:{points.value}", *parts[1:]]), spec, points)


def _known() -> str:
    return ", ".join(sorted(_ON_TEAMS))


@dataclass(frozen=True)
class TeamStandingRow:
    """One line of the team standings; `tiebreaks` maps each canonical code to its exact value."""

    rank: int
    number: int
    name: str
    match_points: Points
    game_points: Points
    tiebreaks: dict[str, Points]


class TeamTiebreaks:
    """The tie-break values of a team event after a given round."""

    def __init__(self, event: TeamEvent, *, edition: Edition = "2026", through_round: int | None = None) -> None:
        rounds = event.rounds_completed if through_round is None else through_round
        self.event = event
        teams = event.match_tournament()
        self.match = TiebreakCalculator(teams, edition=edition, through_round=rounds)
        mp = self.match.sheet
        game = event.tournament.scoring
        boards = event.rules.boards
        gp_scoring = Scoring(win=game.win * boards, draw=game.draw * boards, loss=game.loss * boards)
        gp_teams = replace(teams, scoring=gp_scoring)
        points = {
            t.number: tuple(event.record(t.number, r).game_points for r in range(1, rounds + 1)) for t in event.teams
        }
        adjusted = {
            n: exact_sum(
                gp_scoring.draw if c is UnplayedCategory.LATE_BYE else p
                for p, c in zip(got, mp.categories[n], strict=True)
            )
            for n, got in points.items()
        }
        gp_sheet = replace(
            mp,
            tournament=gp_teams,
            points=points,
            scores={n: exact_sum(got) for n, got in points.items()},
            adjusted=adjusted,
        )
        self.game = TiebreakCalculator(gp_teams, edition=edition, through_round=rounds)
        self.game.sheet = gp_sheet
        # The team Sonneborn-Berger: match-point scores of the opponents, game points scored against them.
        self.mixed = TiebreakCalculator(teams, edition=edition, through_round=rounds)
        self.mixed.sheet = replace(mp, points=points)

    def calculator(self, points: Primary | None) -> TiebreakCalculator:
        """The calculator reading match points or game points."""
        return self.game if points is Primary.GP else self.match

    def value(self, tiebreak: TeamTiebreak, number: int) -> Points:
        """One team's value of a tie-break (DE: see `team_standings`)."""
        if tiebreak.spec is None:
            return self.calculator(tiebreak.points).score(number)
        if tiebreak.code.startswith("ESB"):
            return self.mixed.value(tiebreak.spec, number)
        return self.calculator(tiebreak.points).value(tiebreak.spec, number)


def team_standings(
    event: TeamEvent,
    tiebreaks: Sequence[str] = DEFAULT_TEAM_TIEBREAKS,
    *,
    edition: Edition = "2026",
    through_round: int | None = None,
) -> list[TeamStandingRow]:
    """Rank the teams by the primary score, then by each tie-break within every still-tied subgroup.

    DE's value is the team's score in the mini-table of the group it was applied to (0 when not tied). Teams
    tied on everything share a rank and are listed by number. UnknownTiebreak for a bad code.
    """
    specs = [parse_team_tiebreak(code, event.rules.primary) for code in tiebreaks]
    calc = TeamTiebreaks(event, edition=edition, through_round=through_round)
    numbers = [t.number for t in event.teams]
    values = {n: {s.code: _initial(calc, s, n) for s in specs} for n in numbers}
    primary = calc.calculator(event.rules.primary)
    groups = split_ties(numbers, primary.score, higher_first=True)
    for spec in specs:
        refined: list[list[int]] = []
        for group in groups:
            if len(group) == 1:
                refined.append(group)
            elif spec.spec is not None and spec.spec.name == "DE":
                sheet = calc.calculator(spec.points).sheet
                table = mini_table(sheet, group, forfeits_played=spec.spec.forfeits_played)
                for n in group:
                    values[n][spec.code] = table[n]
                refined.extend(direct_encounter(sheet, group, forfeits_played=spec.spec.forfeits_played))
            else:
                refined.extend(split_ties(group, value_of(values, spec.code), higher_first=spec.higher_is_better))
        groups = refined
    rows: list[TeamStandingRow] = []
    for group in groups:
        rank = len(rows) + 1
        for number in sorted(group):
            rows.append(
                TeamStandingRow(
                    rank,
                    number,
                    event.team(number).name,
                    calc.match.score(number),
                    calc.game.score(number),
                    values[number],
                )
            )
    return rows


def _initial(calc: TeamTiebreaks, spec: TeamTiebreak, number: int) -> Points:
    if spec.spec is not None and spec.spec.name == "DE":
        return Fraction(0)
    return calc.value(spec, number)
