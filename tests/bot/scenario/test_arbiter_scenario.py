"""The held-pairing scenario (tests/scenarios/arbiter-corrects-a-held-pairing.toml) read from its transcript and the
database: an accepted correction the checker flags leaves the round held, the games come with the confirmation, and
the transcript prints a command before what it caused (printed the other way round, the confirmation's pairings
stood under the accepted correction's reply and read as games created at once, the hold ignored: issue #27)."""

from __future__ import annotations

import io

import pytest

from bot.scenario.format import load
from bot.scenario.runner import run_scenario
from tests.support.paths import ROOT

SCENARIO = ROOT / "tests" / "scenarios" / "arbiter-corrects-a-held-pairing.toml"


@pytest.mark.slow  # boots the real bot against the local Discord and Lichess
async def test_the_transcript_shows_the_games_of_an_accepted_correction_after_the_confirmation() -> None:
    out = io.StringIO()
    await run_scenario(load(SCENARIO), out)
    lines = out.getvalue().splitlines()

    def first(text: str, after: int = 0) -> int:
        return next(n for n, line in enumerate(lines) if n >= after and text in line)

    accepted = first("organiser: /arbiter pair player_a:alice player_b:carol accept:True →")
    confirmed = first("organiser: /arbiter confirm →", accepted)
    pairings = first("Review Night — round 2 pairings")
    assert accepted < confirmed < pairings, "\n".join(lines[accepted : pairings + 1])
    assert "Applied. The games are created at 19:16 UTC" in "\n".join(lines[accepted:confirmed])
    # Round 1: the withdrawal during the hold is told before the re-pair, under the /withdraw that caused it.
    withdrew = first("dave: /withdraw →")
    told = first("names dave, who withdrew")
    assert withdrew < told < first("organiser: /arbiter repair →")
