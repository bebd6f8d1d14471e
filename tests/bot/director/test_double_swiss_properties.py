"""Generated Double-Swiss events through the real director, SQLite and the local Lichess: whatever members do
between and during the games (no-shows, withdrawals, byes asked for, late joins), the exported TRF is one that
`pairing.checker` accepts for Double-Swiss (every second game the first reversed, no rematch of a match, the PAB
rules), and no second game is created on Lichess for a player who is gone."""

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
from pairing import checker, trf
from tests.bot.director.director_world import World, make_world

pytestmark = pytest.mark.slow  # property tests over generated events


async def _play_round(w: World, event_id: int, rng: random.Random) -> None:
    """Every board of the current round with a game ends: mostly played, sometimes a player never moves."""
    view = await w.director.pairings(event_id)
    for board in view.boards:
        if board.result is not None or board.game_id is None:
            continue
        roll = rng.random()
        if roll < 0.12:
            await w.play(event_id, board.number, None, status="started", plies=rng.choice((0, 1)))  # a no-show
        else:
            await w.play(event_id, board.number, rng.choice(("white", "black", None)))


async def _between_rounds(w: World, event_id: int, members: list[Actor], rng: random.Random) -> None:
    """What members do while a round is played: withdraw, ask for a bye, join late."""
    entries = {e.discord_id: e for e in await w.director.entries(event_id)}
    for actor in members:
        entry = entries.get(actor.discord_id)
        if entry is None or entry.status is not EntryStatus.ACTIVE:
            continue
        roll = rng.random()
        try:
            if roll < 0.06:
                await w.director.withdraw(actor, event_id)
            elif roll < 0.12:
                await w.director.request_bye(actor, event_id)
        except SwissbotError as refusal:  # e.g. the bye limit: one sentence, nothing changed
            assert "\n" not in str(refusal)
    if rng.random() < 0.3:
        late = await w.member(f"late{len(members) + 1:02d}", rating=rng.randint(1200, 2100))
        try:
            await w.director.join(late, event_id)
        except SwissbotError as refusal:  # every match already paired, or more than half of them
            assert "\n" not in str(refusal)
        members.append(late)


async def _run_event(seed: int, players: int, matches: int) -> None:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as folder:
        async with make_world(Path(folder) / "swiss.sqlite3", seed=seed, autoplay=False) as w:
            event_id, members = await w.event(players=players, rounds=2 * matches, system="double")
            await w.start(event_id)
            for _ in range(4 * matches):
                event = await w.director.event(event_id)
                if event.status.value == "finished":
                    break
                await _between_rounds(w, event_id, members, rng)
                await _play_round(w, event_id, rng)
                w.clock.advance(6 * 60)  # past the no-show deadline: absentees lose and are marked absent
                await w.scheduler.run_due()
                await w.next_round(event_id)
            assert (await w.director.event(event_id)).status.value == "finished"
            exported = (await w.director.export(event_id, "trf")).decode()
            tournament = trf.parse(exported, require_rounds=False)
            assert checker.check_tournament(tournament, "double") == [], exported
            played = (await w.director.event(event_id)).current_round  # fewer when no pairing was left
            for number in range(2, played + 1, 2):
                view = await w.director.pairings(event_id, number)
                for board in view.boards:
                    if board.game_id is None:
                        assert board.result is not None and board.result.kind.value == "forfeit", board


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), players=st.integers(3, 9), matches=st.integers(1, 3))
def test_generated_double_swiss_events_export_a_checked_trf(seed: int, players: int, matches: int) -> None:
    asyncio.run(_run_event(seed, players, matches))
