"""The team scenario (tests/scenarios/team-event.toml) looked at from the database: the board games follow
the rosters and the board colours, the PAB reaches every board player of one team, match points come from the
board results, and the exported TRF passes `swissbot check --system team`."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from fractions import Fraction
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.cli import main as swissbot
from bot.config import ClubConfig
from bot.scenario.format import load
from bot.scenario.runner import CHANNEL, GUILD, ScenarioRun, booted
from bot.web.pages.site import make_pages_app
from domain.result import Result
from pairing.model import RecordKind
from storage.entries import list_entries
from storage.rounds import list_rounds
from storage.teams import list_teams
from tests.support.paths import ROOT

SCENARIO = ROOT / "tests" / "scenarios" / "team-event.toml"
ONE, HALF, ZERO = Fraction(1), Fraction(1, 2), Fraction(0)
POINTS: dict[Result, tuple[Fraction, Fraction]] = {
    Result.WHITE_WINS: (ONE, ZERO),
    Result.BLACK_WINS: (ZERO, ONE),
    Result.DRAW: (HALF, HALF),
    Result.WHITE_WINS_FORFEIT: (ONE, ZERO),
    Result.BLACK_WINS_FORFEIT: (ZERO, ONE),
    Result.DOUBLE_FORFEIT: (ZERO, ZERO),
}

pytestmark = pytest.mark.slow  # the team scenario through the real bot


@asynccontextmanager
async def finished_event(tmp_path: Path) -> AsyncIterator[ScenarioRun]:
    """The scenario run to its end, its bot still up."""
    async with booted(load(SCENARIO), io.StringIO(), tmp_path) as run:
        await run.run()
        yield run


async def test_the_exported_trf_passes_the_team_checker(tmp_path: Path) -> None:
    async with finished_event(tmp_path) as run:
        data = await run.director.export(run.events[-1], "trf")
    text = data.decode()
    assert "092 Team: Swiss-System" in text and "192 FIDE_TEAM_TYPEA_MP_GP" in text
    assert sum(1 for line in text.splitlines() if line.startswith("310 ")) == 5
    path = tmp_path / "teams.trf"
    path.write_bytes(data)
    assert swissbot(["check", "--system", "team", str(path)]) == 0
    # The checker is not blind: the same file with two teams' first boards swapped in round 1 fails it.
    lines = text.splitlines()
    broken = [line.replace("    5 w =", "    5 b =") if line.startswith("001    1") else line for line in lines]
    assert broken != lines
    path.write_text("\n".join(broken) + "\n")
    assert swissbot(["check", "--system", "team", str(path)]) != 0


async def test_boards_follow_rosters_and_colours_and_match_points_follow_the_boards(tmp_path: Path) -> None:
    async with finished_event(tmp_path) as run:
        event_id = run.events[-1]
        db = run.db
        teams = await list_teams(db, event_id)
        entries = {e.player_id: e for e in await list_entries(db, event_id)}
        rounds = await list_rounds(db, event_id)
        standings = await run.director.team_standings(event_id)
    boards = 2
    team_of = {p: t.name for t in teams for p in t.players}
    roster_index = {p: i for t in teams for i, p in enumerate(t.players)}
    match_points = {t.name: Fraction(0) for t in teams}
    lineups: dict[int, dict[str, list[str]]] = {}
    for summary in rounds:
        number = summary.round.number
        assert len(summary.boards) == 4  # four teams play two matches of two boards; the fifth has the PAB
        lineups[number] = {}
        for first in range(0, len(summary.boards), boards):
            match = summary.boards[first : first + boards]
            a, b = team_of[match[0].white_id], team_of[match[0].black_id]
            assert a != b
            score = {a: Fraction(0), b: Fraction(0)}
            for k, board in enumerate(match):
                # colours alternate: the team with White on board 1 has Black on board 2
                white_team = a if k % 2 == 0 else b
                assert team_of[board.white_id] == white_team
                assert {team_of[board.white_id], team_of[board.black_id]} == {a, b}
                assert board.result is not None
                w, k_points = POINTS[board.result]
                score[team_of[board.white_id]] += w
                score[team_of[board.black_id]] += k_points
            for name in (a, b):
                players = [bd.white_id if team_of[bd.white_id] == name else bd.black_id for bd in match]
                assert [roster_index[p] for p in players] == sorted(roster_index[p] for p in players)
                lineups[number][name] = [entries[p].name for p in players]
            if score[a] == score[b]:
                match_points[a] += 1
                match_points[b] += 1
            else:
                match_points[max(score, key=lambda n: score[n])] += 2
        pab = [p for p, kind in summary.byes.items() if kind is RecordKind.PAB]
        assert len(pab) == boards and len({team_of[p] for p in pab}) == 1  # every board player of one team
        bye_team = team_of[pab[0]]
        assert bye_team not in lineups[number]
        # the team's first players in roster order who still play (gina is out after her round-1 no-show)
        still = [p for t in teams if t.name == bye_team for p in t.players if number == 1 or entries[p].name != "gina"]
        assert sorted(pab, key=roster_index.__getitem__) == still[:boards]
        lineups[number][bye_team] = [entries[p].name for p in still[:boards]]
        match_points[bye_team] += 1  # the PAB scores a drawn match
    assert [r.round.number for r in rounds] == [1, 2, 3]
    # gina (Pawns' first board) was a no-show in round 1: the reserve ivan is on board 2 from round 2 (the PAB)
    assert lineups[1]["Pawns"] == ["gina", "hank"]
    assert lineups[2]["Pawns"] == lineups[3]["Pawns"] == ["hank", "ivan"]
    assert {row.name: row.match_points for row in standings} == match_points
    assert [row.match_points for row in standings] == sorted((row.match_points for row in standings), reverse=True)


async def test_the_event_page_shows_the_team_standings(tmp_path: Path) -> None:
    async with finished_event(tmp_path) as run:
        app = make_pages_app(run.director, (ClubConfig(GUILD, "TD", CHANNEL, name="Club", public=True),))
        async with TestClient(TestServer(app)) as client:
            reply = await client.get(f"/events/{run.events[-1]}")
            page = await reply.text()
    assert reply.status == 200
    table = page[page.index('<table id="team-standings">') : page.index('<table id="standings">')]
    names = ["Knights", "Queens", "Bishops", "Rooks", "Pawns"]
    assert [table.index(f">{name}</th>") for name in names] == sorted(table.index(f">{n}</th>") for n in names)
    assert "<td>4</td><td>4</td>" in table and "gina 0, hank 1, ivan 2" in table
