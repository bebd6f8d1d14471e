"""`swissbot demo --system team`: the organiser forms teams through the local Discord, the team event runs to
its end on the local Lichess, the channel gets the team standings, and the TRF passes the team checker."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bot.cli import main as swissbot
from bot.demo.runner import DemoOptions, run_demo


@pytest.mark.slow
async def test_demo_runs_a_team_event_with_teams_formed_by_command(tmp_path: Path) -> None:
    out = io.StringIO()
    opts = DemoOptions(players=14, rounds=3, seed=5, out=tmp_path / "team", speed=120.0, system="team", boards=2)
    assert await run_demo(opts, out) == 0
    text = out.getvalue()
    assert text.count("/swiss team add Team ") == 5  # 14 members: four teams of three, one of two
    assert "(reserves: " in text and "teams of 2 boards" in text
    assert "team standings after round 1" in text and "final team standings\n1. Team " in text
    trf_file = tmp_path / "team" / "tournament.trf"
    lines = trf_file.read_text().splitlines()
    assert sum(1 for line in lines if line.startswith("310 ")) == 5
    assert swissbot(["check", "--system", "team", str(trf_file)]) == 0
