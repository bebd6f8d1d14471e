"""A create the bot was killed in (its attempt left 'creating'): found on Lichess by its own challenge name, or
created again with the organisers told once; a game of the same two players is never taken for it."""

from __future__ import annotations

from typing import Any

import pytest

from domain.result import GameStatus
from storage.games import games_of_round
from tests.bot.director.director_world import World


class Killed(Exception):
    """The process stops inside the create (the attempt stays 'creating')."""


def kill_next_create(w: World, monkeypatch: pytest.MonkeyPatch, *, after_lichess: bool) -> None:
    """The next create dies: before its request reaches Lichess, or after Lichess recorded it."""
    real = w.gateway.create_game

    async def dying(*args: Any, **kwargs: Any) -> Any:
        monkeypatch.setattr(w.gateway, "create_game", real)
        if after_lichess:
            await real(*args, **kwargs)
        raise Killed()

    monkeypatch.setattr(w.gateway, "create_game", dying)


def casual_game(w: World) -> str:
    """A game the two players started themselves: the event's clock, just now."""
    game = w.sandbox.state.create_challenge(
        white="player01", black="player02", name="casual", clock_limit=180, clock_increment=2,
        days=None, rated=False, rules=frozenset(), creator="player01", expires_at=None,
    )  # fmt: skip
    w.sandbox.state.start(game)
    return game.id


def told(w: World) -> list[str]:
    """The organisers' notices about an interrupted create."""
    return [n[1] for n in w.announcer.of("notice") if "when the bot stopped" in n[1]]


async def test_an_interrupted_create_not_on_lichess_is_created_again_and_the_organisers_told_once(
    quiet_world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=2, rounds=1)
    casual = casual_game(w)
    kill_next_create(w, monkeypatch, after_lichess=False)
    await w.start(event_id)
    assert [g.status for g in await games_of_round(w.db, event_id, 1)] == [GameStatus.CREATING]
    for _ in range(3):
        w.clock.advance(60)
        await w.scheduler.run_due()
    board = (await w.director.pairings(event_id)).boards[0]
    assert board.game_id not in (None, casual)
    assert w.sandbox.state.games[board.game_id].name == "Club Swiss #1 R1 B1"
    assert len(w.sandbox.state.games) == 2
    assert len(told(w)) == 1 and "board 1" in told(w)[0]


async def test_an_interrupted_create_lichess_recorded_is_adopted_by_its_name_beside_another_game_of_the_players(
    quiet_world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=2, rounds=1)
    casual = casual_game(w)
    kill_next_create(w, monkeypatch, after_lichess=True)
    await w.start(event_id)
    for _ in range(3):
        w.clock.advance(60)
        await w.scheduler.run_due()
    board = (await w.director.pairings(event_id)).boards[0]
    assert board.game_id not in (None, casual)
    assert w.sandbox.state.games[board.game_id].name == "Club Swiss #1 R1 B1"
    assert len(w.sandbox.state.games) == 2  # the casual game and the adopted challenge: nothing created twice
    assert not told(w)
