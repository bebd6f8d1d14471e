"""`swissbot demo --system double`: a Double-Swiss event through the real bot, the local Discord and Lichess: every
match two games with reversed colours, named by match and game in the channel, and a TRF the checker accepts."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from bot.cli import main as swissbot
from bot.demo.runner import DemoOptions, run_demo


@pytest.mark.slow
async def test_demo_runs_a_double_swiss_event_of_two_game_matches(tmp_path: Path) -> None:
    out = io.StringIO()
    opts = DemoOptions(players=9, rounds=4, seed=3, out=tmp_path / "double", speed=120.0, system="double")
    assert await run_demo(opts, out) == 0
    text = out.getvalue()
    assert "round 1 (match 1, game 1)" in text and "round 4 (match 2, game 2)" in text
    first = re.search(r"round 1 \(match 1, game 1\) \(0/\d results\) ==\n(.*?)\n\(", text, re.S)
    second = re.search(r"round 2 \(match 1, game 2\) \(0/\d results\) ==\n(.*?)\n\(", text, re.S)
    assert first and second
    pairs = re.compile(r"^\s+\d+ (\w+) \(\d+\) … (\w+) \(\d+\)", re.M)
    assert {(b, w) for w, b in pairs.findall(first.group(1))} == set(pairs.findall(second.group(1)))  # reversed
    trf_file = tmp_path / "double" / "tournament.trf"
    assert "192 FIDE_DOUBLESWISS" in trf_file.read_text()
    assert swissbot(["check", "--system", "double", str(trf_file)]) == 0
