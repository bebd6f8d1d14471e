"""Team Swiss events as text: a team's roster, the team standings with each player's boards, a member's match."""

from __future__ import annotations

from collections.abc import Sequence

from bot.director.models import MyGame, TeamStandingView, TeamView
from bot.rendering.text import NAME_WIDTH, align, clip, format_points, format_tiebreak


def team_line(team: TeamView) -> str:
    """A team in one line: number, name, the board players, then the reserves."""
    names = [p.name for p in team.players]
    line = f"{team.number}. {team.name}: " + ", ".join(names[: team.boards])
    if len(names) > team.boards:
        line += " (reserves: " + ", ".join(names[team.boards :]) + ")"
    return line


def team_standings_lines(rows: Sequence[TeamStandingView]) -> list[str]:
    """The team standings as monospace lines: rank, team, match and game points, the tie-breaks; then under
    each team its players' board and result by round (`2:½` is board 2, a draw; `-` not on a board)."""
    codes = [code for code in (rows[0].tiebreaks if rows else {}) if code != "GP"]
    header = ["#", "Team", "MP", "GP", *codes]
    cells = []
    for row in rows:
        values = [format_tiebreak(code.split(":")[0], row.tiebreaks[code]) for code in codes]
        cells.append(
            [str(row.rank), clip(row.name, NAME_WIDTH), format_points(row.match_points),
             format_points(row.game_points), *values]
        )  # fmt: skip
    lines = align(header, cells)
    for row in rows:
        lines.append("")
        lines.append(f"{row.rank}. {row.name}")
        for player in row.players:
            name = clip(player.player.name, NAME_WIDTH)
            lines.append(f"   {name:<{NAME_WIDTH}} {format_points(player.points):>3}  " + " ".join(player.cells))
    return lines


def team_game_text(game: MyGame) -> str:
    """A team event member's match and board this round, in one line (the game's link follows it)."""
    if game.team is None:
        return ""
    t = game.team
    return (
        f"{game.event.name}, round {game.round_number}: {t.team} against {t.opponent_team} (match {t.match}); "
        f"you play board {t.board} with {game.colour} against {game.opponent.name}."
    )
