"""Generated Team Swiss events through the real director, SQLite and the local Lichess: teams with and without
reserves, members who never move, withdraw or ask for a bye, so reserves step in and short teams sit out; the
exported TRF always passes the team checker (`pairing.team.check`, which re-pairs every round) and every match
point it gives comes from the board results."""

from __future__ import annotations

import asyncio
import random
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.director.models import Actor
from bot.errors import SwissbotError
from domain.entry import EntryStatus
from pairing import trf
from pairing.team import check as team_check
from pairing.team.trf import event_from_tournament
from tests.bot.director.director_world import ORGANISER, World, make_world

pytestmark = pytest.mark.slow  # property tests over generated events


async def _play_round(w: World, event_id: int, rng: random.Random) -> None:
    view = await w.director.pairings(event_id)
    for board in view.boards:
        if board.result is not None or board.game_id is None:
            continue
        if rng.random() < 0.08:
            await w.play(event_id, board.number, None, status="started", plies=rng.choice((0, 1)))  # a no-show
        else:
            await w.play(event_id, board.number, rng.choice(("white", "black", None)))


async def _members_act(w: World, event_id: int, actors: list[Actor], rng: random.Random) -> None:
    for entry in await w.director.entries(event_id):
        if entry.status is not EntryStatus.ACTIVE:
            continue
        actor = next(a for a in actors if a.discord_id == entry.discord_id)
        try:
            roll = rng.random()
            if roll < 0.05:
                await w.director.withdraw(actor, event_id)
            elif roll < 0.1:
                await w.director.request_bye(actor, event_id)
        except SwissbotError as refusal:
            assert "\n" not in str(refusal)


async def _run_event(seed: int, teams: int, boards: int, reserves: int, rounds: int) -> None:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as folder:
        async with make_world(Path(folder) / "swiss.sqlite3", seed=seed, autoplay=False) as w:
            size = boards + reserves
            event_id, actors = await w.event(players=teams * size, rounds=rounds, system="team", team_boards=boards)
            names = [f"player{i + 1:02d}" for i in range(teams * size)]
            rng.shuffle(names)
            for index in range(teams):
                roster = names[index * size : (index + 1) * size]
                await w.director.add_team(ORGANISER, event_id, f"Team {index + 1}", roster)
            await w.start(event_id)
            for _ in range(2 * rounds):
                if (await w.director.event(event_id)).status.value == "finished":
                    break
                await _members_act(w, event_id, actors, rng)
                await _play_round(w, event_id, rng)
                w.clock.advance(6 * 60)
                await w.scheduler.run_due()
                await w.next_round(event_id)
            assert (await w.director.event(event_id)).status.value == "finished"
            exported = (await w.director.export(event_id, "trf")).decode()
            tournament = trf.parse(exported, require_rounds=False)
            assert team_check.check_tournament(tournament) == [], exported
            event = event_from_tournament(tournament)
            for t in event.teams:  # match points are the board results' sums, round by round
                for number in range(1, event.rounds_completed + 1):
                    record = event.record(t.number, number)
                    if record.opponent is None or not record.is_played:
                        continue
                    ours, theirs = record.game_points, record.opponent_game_points
                    expected = 2 if ours > theirs else 1 if ours == theirs else 0
                    assert record.match_points == expected, (t.name, number, ours, theirs)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    teams=st.integers(3, 6),
    boards=st.integers(1, 3),
    reserves=st.integers(0, 1),
    rounds=st.integers(2, 4),
)
def test_generated_team_events_export_a_trf_the_team_checker_accepts(
    seed: int, teams: int, boards: int, reserves: int, rounds: int
) -> None:
    asyncio.run(_run_event(seed, teams, boards, reserves, rounds))
