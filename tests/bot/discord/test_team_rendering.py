"""What a team event's member reads: /mygame names the team, the opposing team, the match and the board;
/standings lists the teams by match points with each player's board results."""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction

from bot.director.models import (
    BoardView,
    MyGame,
    PlayerRef,
    TeamGame,
    TeamPlayerLine,
    TeamStandingView,
    TeamView,
)
from bot.discord.cogs.member import my_game_text
from bot.rendering.teams import team_line, team_standings_lines
from domain.event import Event, EventStatus
from domain.settings import EventSettings

ALICE = PlayerRef(1, "alice", 101, 2000)
ERIN = PlayerRef(5, "erin", 105, 1700)
EVENT = Event(1, EventSettings(name="Club Teams", rounds=3, system="team", team_boards=2), EventStatus.RUNNING, 0,
              datetime(2026, 3, 7, tzinfo=UTC), current_round=1)  # fmt: skip


def test_mygame_names_the_match_and_the_board() -> None:
    board = BoardView(3, ERIN, ALICE, "abcd1234", "https://lichess.org/abcd1234", None)
    game = MyGame(EVENT, 1, board, "black", ERIN, TeamGame("Knights", "Bishops", 2, 1))
    text = my_game_text(game)
    assert text.splitlines() == [
        "**Club Teams**, round 1: **Knights** against **Bishops** (match 2).",
        "You play board 1 with **black** against **erin** (1700).",
        "Your game: https://lichess.org/abcd1234",
    ]
    individual = my_game_text(MyGame(EVENT, 1, board, "black", ERIN))
    assert individual.startswith("**Club Teams**, round 1, board 3: you play **black**")


def test_team_lines_and_standings() -> None:
    team = TeamView(4, "Pawns", (PlayerRef(7, "gina", 0, 1600), PlayerRef(8, "hank", 0, 1550), ERIN), 2)
    assert team_line(team) == "4. Pawns: gina, hank (reserves: erin)"
    rows = [
        TeamStandingView(1, 4, "Pawns", Fraction(4), Fraction(7, 2), {"GP": Fraction(7, 2), "ESB": Fraction(12)},
                         (TeamPlayerLine(ALICE, ("1:½", "2:1", "-"), Fraction(3, 2)),)),
        TeamStandingView(2, 1, "Knights", Fraction(2), Fraction(2), {"GP": Fraction(2), "ESB": Fraction(3)}, ()),
    ]  # fmt: skip
    lines = team_standings_lines(rows)
    assert lines[0].split() == ["#", "Team", "MP", "GP", "ESB"]
    assert lines[2].split() == ["1", "Pawns", "4", "3½", "12"] and lines[3].split() == ["2", "Knights", "2", "2", "3"]
    assert "1. Pawns" in lines and any(line.split() == ["alice", "1½", "1:½", "2:1", "-"] for line in lines)
