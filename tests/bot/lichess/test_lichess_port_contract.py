"""The in-memory Lichess keeps the gateway's contract: the same director operations give the same results through
the real gateway and the local Lichess over HTTP as through `MemoryLichess`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.lichess.errors import LichessBadRequest, LichessUnavailable, LichessUserNotFound
from sandbox.lichess.state import Fault, Token
from tests.bot.director.director_world import World, make_world


async def an_event_played_to_its_end(world: World) -> list[Any]:
    """Six members, three rounds, every game played by the simulated players: what the director shows."""
    event_id, _ = await world.event(players=6, rounds=3)
    await world.run_until(lambda: world.finished(event_id))
    rounds = []
    for number in (1, 2, 3):
        view = await world.director.pairings(event_id, number)
        rounds.append([(b.number, b.white, b.black, b.result, b.game_id, b.detail) for b in view.boards])
    standings = [(row.rank, row.player, row.points, row.tiebreaks) for row in await world.director.standings(event_id)]
    return [rounds, standings, [name for name, _ in world.announcer.calls]]


async def the_port_answered_directly(world: World) -> list[Any]:
    """Calls whose answers or errors the director relies on."""
    port = world.gateway
    answers: list[Any] = []
    await world.member("alice", rating=1850)
    world.sandbox.add_user("bob", rating=1700, teams=("club",))
    user = await port.get_user("Alice")
    answers.append((user.id, user.username, dict(user.ratings), user.title, user.disabled))
    for missing in ("nobody", "bad/name"):
        with pytest.raises(LichessUserNotFound) as lost:
            await port.get_user(missing)
        answers.append(str(lost.value))
    answers.append([await port.is_team_member("club", name) for name in ("bob", "alice", "x/y")])
    with pytest.raises(LichessBadRequest) as refused:
        await port.create_game("alice", "ghost", clock_limit=180, clock_increment=2, name="R1 B1", rated=True)
    answers.append(str(refused.value))
    made = await port.create_game("alice", "bob", clock_limit=180, clock_increment=2, name="R1 B2", rated=True)
    answers.append((made.game_id, made.white, made.black, made.name, made.url.removeprefix(port.base_url)))
    found = await port.find_created_game("alice", "bob", name="R1 B2", since_ms=0)
    answers.append(found == made)
    answers.append(await port.export_games([made.game_id, "unknown1"]))  # nobody joined yet: not a game
    answers.append([await port.cancel_challenge(made.game_id), await port.cancel_challenge(made.game_id)])
    casual = world.sandbox.state.casual_game(white="alice", black="bob", clock_limit=180, clock_increment=2)
    answers.append(await port.find_created_game("alice", "bob", name="R1 B2", since_ms=0, clock=(180, 2)))  # None
    answers.append(casual.id in world.sandbox.state.games)
    for name in ("alice", "bob"):
        world.sandbox.state.tokens[f"lio_{name}"] = Token(f"lio_{name}", name, frozenset({"challenge:write"}))
    answers.append(await port.cancel_challenge(casual.id))  # a game exists: the bot plays in none
    answers.append(await port.cancel_challenge(casual.id, token="lio_alice"))  # abortable by a player alone
    moved = world.sandbox.state.casual_game(white="alice", black="bob", clock_limit=180, clock_increment=2)
    moved.moves = ["e2e4", "e7e5"]
    with pytest.raises(LichessBadRequest) as alone:
        await port.cancel_challenge(moved.id, token="lio_alice")
    answers.append(str(alone.value))
    answers.append(await port.cancel_challenge(moved.id, token="lio_alice", opponent_token="lio_bob"))
    answers.append([world.sandbox.state.games[g.id].status for g in (casual, moved)])
    bulk = await port.create_bulk(
        [("lio_alice", "lio_bob")], clock_limit=180, clock_increment=2, rated=False, rules=(),
        start_clocks_at_ms=0, message="{game}",
    )  # fmt: skip
    answers.append([await port.cancel_bulk(bulk.id), await port.cancel_bulk(bulk.id), await port.cancel_bulk("x/y")])
    tested = await port.test_tokens([world.sandbox.bot_token, "lip_dead"])
    answers.append({token: info and (info.user_id, "challenge:bulk" in info.scopes) for token, info in tested.items()})
    world.sandbox.state.faults.append(Fault("/api/user/bob", 503, 10))
    with pytest.raises(LichessUnavailable):
        await port.get_user("bob")
    return answers


@pytest.mark.parametrize(
    ("operations", "autoplay"), [(an_event_played_to_its_end, True), (the_port_answered_directly, False)]
)
async def test_the_fake_answers_as_the_gateway_over_http(operations: Any, autoplay: bool, tmp_path: Path) -> None:
    results = []
    for http in (True, False):
        async with make_world(tmp_path / f"http-{http}.sqlite3", seed=11, autoplay=autoplay, http=http) as world:
            results.append(await operations(world))
    over_http, in_memory = results
    assert in_memory == over_http
