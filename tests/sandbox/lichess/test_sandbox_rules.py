"""The sandbox follows Lichess's rules, and its control API does what docs/sandbox.md says."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import aiohttp
import chess
import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.lichess.gateway import LichessGateway
from sandbox.lichess import Sandbox, make_app, run_sandbox
from sandbox.lichess.autoplay import MIX, choose_plan, game_rng
from sandbox.lichess.state import UNPLAYED_GAME_LIFETIME
from tests.support.lichess_sandbox import gateway_kwargs


async def request(sandbox: Sandbox, method: str, path: str, body: Any = None, data: Any = None) -> tuple[int, Any]:
    headers = {"Authorization": f"Bearer {sandbox.bot_token}"}
    async with (
        aiohttp.ClientSession() as http,
        http.request(method, sandbox.url + path, json=body, data=data, headers=headers) as resp,
    ):
        text = await resp.text()
        if resp.content_type == "application/x-ndjson":
            return resp.status, [json.loads(line) for line in text.splitlines() if line]
        return resp.status, json.loads(text)


async def challenge(sandbox: Sandbox, white: str, black: str, name: str, rules: str = "noEarlyDraw") -> str:
    form = {"clock.limit": "300", "clock.increment": "3", "users": f"{white},{black}", "name": name, "rules": rules}
    status, reply = await request(sandbox, "POST", "/api/challenge/open", data=form)
    assert status == 200, reply
    gid: str = reply["id"]
    return gid


def board_of(moves: str) -> chess.Board:
    board = chess.Board()
    for san in moves.split():
        board.push_san(san)
    return board


async def exported(sandbox: Sandbox, gid: str) -> dict[str, Any] | None:
    status, games = await request(sandbox, "POST", "/api/games/export/_ids", data=gid)
    assert status == 200
    return games[0] if games else None


# --- noEarlyDraw --------------------------------------------------------------------------------


async def test_no_agreed_draw_before_ply_60_under_no_early_draw(sandbox: Sandbox) -> None:
    gid = await challenge(sandbox, "alice", "bob", "R1 B1")
    status, reply = await request(
        sandbox, "POST", f"/sandbox/games/{gid}/play", {"status": "draw", "plies": 40, "reason": "agreement"}
    )
    assert status == 400 and "noEarlyDraw" in reply["error"]
    assert sandbox.state.games[gid].status == "created"
    status, reply = await request(sandbox, "POST", f"/sandbox/games/{gid}/play", {"status": "draw", "plies": 60})
    assert status == 200 and reply["status"] == "draw" and len(reply["moves"].split()) == 60


async def test_without_the_rule_an_early_agreed_draw_is_allowed(sandbox: Sandbox) -> None:
    gid = await challenge(sandbox, "alice", "bob", "R1 B1", rules="noRematch")
    status, reply = await request(sandbox, "POST", f"/sandbox/games/{gid}/play", {"status": "draw", "plies": 20})
    assert status == 200 and len(reply["moves"].split()) == 20


async def test_automatic_draws_still_happen_before_ply_60(sandbox: Sandbox) -> None:
    gid = await challenge(sandbox, "alice", "bob", "R1 B1")
    status, reply = await request(sandbox, "POST", f"/sandbox/games/{gid}/play", {"status": "draw", "plies": 26})
    assert status == 200
    board = board_of(reply["moves"])
    assert board.ply() == 26 and board.is_fivefold_repetition()

    gid = await challenge(sandbox, "carol", "dave", "R1 B2")
    body = {"status": "draw", "reason": "insufficient", "plies": 0}
    status, reply = await request(sandbox, "POST", f"/sandbox/games/{gid}/play", body)
    assert status == 200 and board_of(reply["moves"]).is_insufficient_material()

    gid = await challenge(sandbox, "bob", "carol", "R1 B3")
    status, reply = await request(sandbox, "POST", f"/sandbox/games/{gid}/play", {"status": "stalemate", "plies": 23})
    assert status == 200 and board_of(reply["moves"]).is_stalemate()


async def test_played_games_replay_legally_and_end_as_asked(sandbox: Sandbox) -> None:
    for n, (winner, status_name, plies) in enumerate(
        [("white", "mate", 30), ("black", "mate", 50), ("white", "resign", 33), ("black", "outoftime", 90)]
    ):
        gid = await challenge(sandbox, "alice", "bob", f"R2 B{n}")
        body = {"winner": winner, "status": status_name, "plies": plies}
        status, reply = await request(sandbox, "POST", f"/sandbox/games/{gid}/play", body)
        assert status == 200, reply
        board = board_of(reply["moves"])
        assert (reply["status"], reply["winner"]) == (status_name, winner)
        if status_name == "mate":
            assert board.is_checkmate() and board.turn == (chess.BLACK if winner == "white" else chess.WHITE)
            assert board.ply() >= plies
        else:
            assert board.ply() == plies and not board.is_game_over()


async def test_play_refuses_what_lichess_would_not_do(sandbox: Sandbox) -> None:
    gid = await challenge(sandbox, "alice", "bob", "R3 B1")
    for body in (
        {"status": "mate", "winner": None},
        {"status": "draw", "winner": "white"},
        {"status": "aborted", "plies": 5},
        {"status": "exploded"},
        {"status": "stalemate", "plies": 20},
        {"status": "resign", "winner": "green"},
    ):
        status, _ = await request(sandbox, "POST", f"/sandbox/games/{gid}/play", body)
        assert status == 400, body
    status, _ = await request(sandbox, "POST", "/sandbox/games/nope/play", {"status": "draw"})
    assert status == 404
    await request(sandbox, "POST", f"/sandbox/games/{gid}/play", {"status": "resign", "winner": "white", "plies": 10})
    status, _ = await request(sandbox, "POST", f"/sandbox/games/{gid}/play", {"status": "draw", "plies": 70})
    assert status == 409


# --- a game nobody moves in ---------------------------------------------------------------------


async def test_a_game_nobody_moves_in_stays_started_then_is_deleted_after_24_hours() -> None:
    now = [1_800_000_000.0]
    async with run_sandbox(seed=1, clock=lambda: now[0]) as sandbox:
        sandbox.add_user("alice")
        sandbox.add_user("bob")
        idle = await challenge(sandbox, "alice", "bob", "R1 B1")
        one_move = await challenge(sandbox, "bob", "alice", "R1 B2")
        played = await challenge(sandbox, "alice", "bob", "R1 B3")
        await request(sandbox, "POST", f"/sandbox/games/{idle}/play", {"status": "started", "plies": 0})
        await request(sandbox, "POST", f"/sandbox/games/{one_move}/play", {"status": "started", "plies": 1})
        await request(sandbox, "POST", f"/sandbox/games/{played}/play", {"status": "started", "plies": 2})

        now[0] += UNPLAYED_GAME_LIFETIME - 1
        idle_game = await exported(sandbox, idle)
        assert idle_game is not None and idle_game["status"] == "started" and idle_game["moves"] == ""

        now[0] += 1
        assert await exported(sandbox, idle) is None
        assert await exported(sandbox, one_move) is None
        assert await exported(sandbox, played) is not None
        status, _ = await request(sandbox, "GET", f"/game/export/{idle}")
        assert status == 404


async def test_the_control_clock_advances_time(sandbox: Sandbox) -> None:
    pending = await challenge(sandbox, "alice", "bob", "R1 B1")
    status, _ = await request(sandbox, "POST", "/sandbox/clock", {"advance": 24 * 3600})
    assert status == 200
    status, games = await request(sandbox, "GET", "/sandbox/games")
    assert pending not in [g["id"] for g in games]  # an open challenge expires after 24 h


# --- control API --------------------------------------------------------------------------------


async def test_users_are_created_and_validated(sandbox: Sandbox) -> None:
    status, user = await request(sandbox, "POST", "/sandbox/users", {"username": "Zed", "rating": 2222, "bio": "hello"})
    assert status == 201 and user["perfs"]["blitz"]["rating"] == 2222 and user["profile"]["bio"] == "hello"
    status, user = await request(
        sandbox, "POST", "/sandbox/users", {"username": "Zed", "rating": 2222, "bio": "code-9"}
    )
    assert status == 201 and user["profile"]["bio"] == "code-9"  # the same name updates the account
    for bad in ({"username": "no spaces"}, {"username": "ok", "rating": "high"}, {"username": "ok", "title": "KING"}):
        status, _ = await request(sandbox, "POST", "/sandbox/users", bad)
        assert status == 400, bad


async def test_games_are_listed(sandbox: Sandbox) -> None:
    first = await challenge(sandbox, "alice", "bob", "R1 B1")
    second = await challenge(sandbox, "carol", "dave", "R1 B2")
    await request(
        sandbox, "POST", f"/sandbox/games/{second}/play", {"status": "resign", "winner": "black", "plies": 20}
    )
    status, games = await request(sandbox, "GET", "/sandbox/games")
    assert status == 200
    assert [(g["id"], g["white"], g["black"], g["name"], g["status"]) for g in games] == [
        (first, "alice", "bob", "R1 B1", "created"),
        (second, "carol", "dave", "R1 B2", "resign"),
    ]


async def test_faults_apply_to_the_next_matching_requests_only(sandbox: Sandbox) -> None:
    status, _ = await request(sandbox, "POST", "/sandbox/faults", {"path": "/api/user/", "status": 503, "count": 2})
    assert status == 201
    codes = [
        (await request(sandbox, "GET", path))[0]
        for path in ("/api/account", "/api/user/alice", "/api/user/bob", "/api/user/bob")
    ]
    assert codes == [200, 503, 503, 200]
    status, _ = await request(sandbox, "POST", "/sandbox/faults", {"path": "/sandbox/users", "status": 500})
    assert status == 400


async def test_export_takes_at_most_300_ids(sandbox: Sandbox) -> None:
    ids = []
    for n in range(301):
        game = sandbox.state.create_challenge(
            white="alice", black="bob", name=f"B{n}", clock_limit=60, clock_increment=0,
            days=None, rated=False, rules=frozenset(), creator=None, expires_at=None,
        )  # fmt: skip
        sandbox.state.start(game)
        ids.append(game.id)
    status, games = await request(sandbox, "POST", "/api/games/export/_ids", data=",".join(ids))
    assert status == 200 and len(games) == 300 and ids[300] not in {g["id"] for g in games}


# --- autoplay -----------------------------------------------------------------------------------


PLAYERS = [f"player{n:02d}" for n in range(24)]


async def _autoplayed_event(seed: int, names: list[str]) -> list[tuple[str, str, str | None, str]]:
    async with run_sandbox(seed=seed, autoplay=True) as sandbox:
        for n, name in enumerate(PLAYERS):
            sandbox.add_user(name, rating=2000 - 10 * n)
        gw = LichessGateway(sandbox.url, sandbox.bot_token, **gateway_kwargs())
        ids = []
        for n, name in enumerate(names):
            white, black = PLAYERS[n % 24], PLAYERS[(n * 7 + 1) % 24]
            if white == black:
                black = PLAYERS[(n + 1) % 24]
            ids.append(
                (
                    await gw.create_game(
                        white, black, clock_limit=300, clock_increment=3, name=name, rated=False, rules=("noEarlyDraw",)
                    )
                ).game_id
            )
        games = {g.id: g for g in await gw.export_games(ids)}
        await gw.close()
        return [
            (g.status, g.moves, g.winner, sandbox.state.games[gid].name or "")
            if (g := games.get(gid))
            else ("missing", "", None, "")
            for gid in ids
        ]


async def test_autoplay_is_reproducible_with_a_seed() -> None:
    names = [f"Open R{r} B{b}" for r in range(1, 3) for b in range(1, 13)]
    first = await _autoplayed_event(11, names)
    again = await _autoplayed_event(11, names)
    other = await _autoplayed_event(12, names)
    assert first == again
    assert first != other


@pytest.mark.slow
async def test_autoplay_plays_a_plausible_mix_within_lichess_rules() -> None:
    names = [f"Mix R{r} B{b}" for r in range(1, 21) for b in range(1, 13)]
    results = await _autoplayed_event(5, names)
    kinds: Counter[str] = Counter()
    for status, moves, winner, _ in results:
        board = board_of(moves)
        if status == "missing":
            kinds["nobody joined"] += 1
        elif status == "started":
            assert board.ply() in (0, 1)
            kinds["no-show"] += 1
        elif status == "aborted":
            assert board.ply() < 2 and winner is None
            kinds["aborted"] += 1
        elif status == "draw":
            assert board.ply() >= 60 or board.is_fivefold_repetition()  # noEarlyDraw
            kinds["early draw" if board.ply() < 60 else "long draw"] += 1
        else:
            assert winner in ("white", "black")
            if status == "mate":
                assert board.is_checkmate()
            kinds["decisive"] += 1
    # 240 games: mostly decisive and long draws; each rare case happens, but only now and then.
    assert 0.60 * len(results) < kinds["decisive"] < 0.85 * len(results)
    assert 0.10 * len(results) < kinds["long draw"] < 0.30 * len(results)
    for rare in ("early draw", "no-show", "aborted"):
        assert 0 < kinds[rare] <= 0.06 * len(results), (rare, kinds)
    assert kinds["nobody joined"] <= 0.03 * len(results)


def test_autoplay_mix_has_the_documented_rates() -> None:
    """Over many seeded rolls, each kind of game comes up at its rate (rare cases at 2-3 % each)."""
    kinds = Counter(choose_plan(game_rng(3, "white", "black", f"R{n}")).kind for n in range(20_000))
    share = {kind: count / 20_000 for kind, count in kinds.items()}
    assert abs(sum(rate for _, rate in MIX) - 1) < 1e-9
    for kind, rate in MIX:
        seen = share.get(kind, 0.0)
        if kind == "no-show":
            seen = share.get("white-no-show", 0.0) + share.get("black-no-show", 0.0)
        assert abs(seen - rate) < 0.006, (kind, seen, rate)
    no_shows = share["white-no-show"] + share["black-no-show"] + share["nobody-joins"]
    assert 0.02 <= no_shows <= 0.03 and 0.02 <= share["early-repetition"] <= 0.04 and share["aborted"] <= 0.03


async def test_make_app_works_with_aiohttp_test_utils() -> None:
    async with TestClient(TestServer(make_app(seed=2))) as client:
        resp = await client.post("/sandbox/users", json={"username": "Ann", "rating": 1999})
        assert resp.status == 201
        resp = await client.get("/api/user/ann")
        assert resp.status == 200 and (await resp.json())["perfs"]["rapid"]["rating"] == 1999
