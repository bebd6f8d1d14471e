"""Every sandbox response the bot reads validates against the official Lichess OpenAPI schemas."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

from sandbox.lichess import Sandbox
from tests.sandbox.lichess.helpers import REDIRECT, authorize, personal_token
from tests.support.data import lichess_spec as spec


def schema(path: str, method: str, status: str = "200", media: str | None = None) -> dict[str, Any]:
    """The response schema of one operation, from the official spec."""
    content = spec()["paths"][path][method]["responses"][status]["content"]
    found: dict[str, Any] = content[media or next(iter(content))]["schema"]
    return found


def component(name: str) -> dict[str, Any]:
    found: dict[str, Any] = spec()["components"]["schemas"][name]
    return found


def check(instance: Any, against: dict[str, Any]) -> None:
    errors = sorted(Draft202012Validator(against).iter_errors(instance), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])


async def call(sandbox: Sandbox, method: str, path: str, *, token: bool = True, **kwargs: Any) -> tuple[int, str]:
    headers = {"Authorization": f"Bearer {sandbox.bot_token}"} if token else {}
    headers.update(kwargs.pop("headers", {}))
    async with (
        aiohttp.ClientSession() as http,
        http.request(method, sandbox.url + path, headers=headers, **kwargs) as resp,
    ):
        return resp.status, await resp.text()


def lines(text: str) -> list[Any]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


async def open_challenge(sandbox: Sandbox, white: str, black: str, name: str, **extra: str) -> dict[str, Any]:
    form = {"clock.limit": "600", "clock.increment": "5", "rated": "false", "name": name, "users": f"{white},{black}"}
    form.update({"rules": "noEarlyDraw,noRematch,noGiveTime,noClaimWin"} | extra)
    status, text = await call(sandbox, "POST", "/api/challenge/open", data=form)
    assert status == 200, text
    reply: dict[str, Any] = json.loads(text)
    return reply


async def test_open_challenge_and_challenge_list(sandbox: Sandbox) -> None:
    reply = await open_challenge(sandbox, "alice", "bob", "R1 B1")
    check(reply, schema("/api/challenge/open", "post"))
    check(reply, component("ChallengeOpenJson"))
    assert reply["open"]["userIds"] == ["alice", "bob"]
    correspondence = await open_challenge(
        sandbox, "carol", "dave", "R1 B2", **{"clock.limit": "", "clock.increment": "", "days": "3"}
    )
    check(correspondence, schema("/api/challenge/open", "post"))

    status, text = await call(sandbox, "GET", "/api/challenge")
    assert status == 200
    listed = json.loads(text)
    check(listed, schema("/api/challenge", "get"))
    assert [c["id"] for c in listed["out"]] == [reply["id"], correspondence["id"]]


async def test_cancelling_a_challenge(sandbox: Sandbox) -> None:
    pending = await open_challenge(sandbox, "alice", "bob", "R1 B1")
    joined = await open_challenge(sandbox, "carol", "dave", "R1 B2")
    sandbox.state.start(sandbox.state.games[joined["id"]])
    status, text = await call(sandbox, "POST", f"/api/challenge/{pending['id']}/cancel")
    assert status == 200, text
    check(json.loads(text), schema("/api/challenge/{challengeId}/cancel", "post"))
    assert pending["id"] not in sandbox.state.games
    # the game exists: the bot, who plays in it, finds nothing to cancel; a player aborts it
    status, text = await call(sandbox, "POST", f"/api/challenge/{joined['id']}/cancel")
    assert status == 404
    check(json.loads(text), schema("/api/challenge/{challengeId}/cancel", "post", "404"))
    carol = await personal_token(sandbox, "carol")
    headers = {"Authorization": f"Bearer {carol}"}
    status, text = await call(sandbox, "POST", f"/api/challenge/{joined['id']}/cancel", headers=headers)
    assert status == 200, text
    check(json.loads(text), schema("/api/challenge/{challengeId}/cancel", "post"))
    assert sandbox.state.games[joined["id"]].status == "aborted"
    status, text = await call(sandbox, "POST", f"/api/challenge/{pending['id']}/cancel")
    assert status == 404
    check(json.loads(text), schema("/api/challenge/{challengeId}/cancel", "post", "404"))
    _, listed = await call(sandbox, "GET", "/api/challenge")
    assert json.loads(listed)["out"] == []


async def test_bad_challenge_parameters_give_the_error_shape(sandbox: Sandbox) -> None:
    for extra in ({"rules": "noEarlyDraw,noTakeback"}, {"users": "alice"}, {"rated": "True"}, {"clock.limit": "x"}):
        form = {"clock.limit": "600", "clock.increment": "5", "users": "alice,bob"} | extra
        status, text = await call(sandbox, "POST", "/api/challenge/open", data=form)
        assert status == 400, extra
        check(json.loads(text), schema("/api/challenge/open", "post", "400"))


@pytest.mark.parametrize(
    "ending",
    [
        None,
        {"status": "started", "plies": 0},
        {"status": "started", "plies": 1},
        {"status": "aborted", "plies": 0},
        {"status": "mate", "winner": "black", "plies": 30},
        {"status": "resign", "winner": "white", "plies": 45},
        {"status": "outoftime", "winner": "black", "plies": 70},
        {"status": "draw", "plies": 24},
        {"status": "draw", "plies": 80},
        {"status": "stalemate", "plies": 19},
    ],
)
async def test_exported_games(sandbox: Sandbox, ending: dict[str, Any] | None) -> None:
    reply = await open_challenge(sandbox, "alice", "bob", "R2 B1")
    gid = reply["id"]
    if ending is not None:
        async with (
            aiohttp.ClientSession() as http,
            http.post(f"{sandbox.url}/sandbox/games/{gid}/play", json=ending) as resp,
        ):
            assert resp.status == 200, await resp.text()

    status, text = await call(sandbox, "POST", "/api/games/export/_ids", data=f"{gid},zzzzzzzz")
    assert status == 200
    exported = lines(text)
    if ending is None:  # an open challenge nobody joined is not a game yet
        assert exported == []
        return
    (one,) = exported
    check(one, schema("/api/games/export/_ids", "post"))
    check(one, component("GameJson"))
    assert one["status"] == ending["status"] and one.get("winner") == ending.get("winner")

    status, text = await call(sandbox, "POST", "/api/games/export/_ids?pgnInJson=true", data=gid)
    check(lines(text)[0], component("GameJson"))
    status, text = await call(sandbox, "GET", f"/game/export/{gid}", headers={"Accept": "application/json"})
    assert status == 200
    check(json.loads(text), schema("/game/export/{gameId}", "get"))
    status, text = await call(sandbox, "GET", "/api/games/user/alice?ongoing=true")
    for game in lines(text):
        check(game, schema("/api/games/user/{username}", "get"))


async def test_users_and_the_account(sandbox: Sandbox) -> None:
    sandbox.add_user("Titled", rating=2400, title="IM", bio="verify-123")
    sandbox.add_user("Newbie", rating=1500, provisional=True)
    sandbox.add_user("Flagged", tos_violation=True)
    sandbox.add_user("Closed", disabled=True)
    for name in ("alice", "Titled", "Newbie", "Flagged", "Closed"):
        status, text = await call(sandbox, "GET", f"/api/user/{name}", token=False)
        assert status == 200
        check(json.loads(text), schema("/api/user/{username}", "get"))
    status, text = await call(sandbox, "GET", "/api/account")
    assert status == 200
    check(json.loads(text), schema("/api/account", "get"))


async def test_teams(sandbox: Sandbox) -> None:
    sandbox.add_user("alice", rating=1850, teams=("club",))
    sandbox.add_user("bob", rating=1720, teams=("club", "other"))
    status, text = await call(sandbox, "GET", "/api/team/of/bob")
    assert status == 200
    teams = json.loads(text)
    check(teams, schema("/api/team/of/{username}", "get"))
    assert sorted(t["id"] for t in teams) == ["club", "other"]
    status, text = await call(sandbox, "GET", "/api/team/club/users")
    members = lines(text)
    assert [m["id"] for m in members] == ["alice", "bob"]
    for member in members:
        check(member, schema("/api/team/{teamId}/users", "get"))


async def test_not_found_and_unauthorised_bodies(sandbox: Sandbox) -> None:
    for path in ("/api/user/nobody", "/game/export/zzzzzzzz", "/api/team/nope/users", "/api/games/user/nobody"):
        status, text = await call(sandbox, "GET", path, headers={"Accept": "application/json"})
        assert status == 404, path
        check(json.loads(text), component("NotFound"))
    status, text = await call(sandbox, "GET", "/api/account", token=False)
    assert status == 401
    check(json.loads(text), component("Error"))


# --- OAuth, bulk pairing and the game stream -------------------------------------------------------


async def test_oauth_token_answers(sandbox: Sandbox) -> None:
    code, verifier = await authorize(sandbox, "alice")
    status, text = await call(sandbox, "POST", "/api/token", token=False, data=token_form(code, "x" * 43))
    assert status == 400
    check(json.loads(text), schema("/api/token", "post", "400"))
    code, verifier = await authorize(sandbox, "alice")
    status, text = await call(sandbox, "POST", "/api/token", token=False, data=token_form(code, verifier))
    assert status == 200
    issued = json.loads(text)
    check(issued, schema("/api/token", "post"))
    status, text = await call(
        sandbox, "POST", "/api/token/test", token=False, data=f"{issued['access_token']},{sandbox.bot_token},lip_no"
    )
    assert status == 200
    check(json.loads(text), schema("/api/token/test", "post"))
    status, text = await call(
        sandbox, "DELETE", "/api/token", token=False, headers={"Authorization": f"Bearer {issued['access_token']}"}
    )
    assert status == 204 and "204" in spec()["paths"]["/api/token"]["delete"]["responses"]


def token_form(code: str, verifier: str) -> dict[str, str]:
    return {
        "grant_type": "authorization_code",
        "code": code,
        "code_verifier": verifier,
        "redirect_uri": REDIRECT,
        "client_id": "swissbot.example",
    }


async def test_bulk_pairing_answers(sandbox: Sandbox) -> None:
    players = [await personal_token(sandbox, name, scopes=["challenge:write"]) for name in ("alice", "bob")]
    start = round((sandbox.state.now() + 60) * 1000)
    form = {
        "players": f"{players[0]}:{players[1]}",
        "clock.limit": "300",
        "clock.increment": "3",
        "startClocksAt": str(start),
        "rules": "noAbort,noEarlyDraw",
        "message": "Your game: {game}",
    }
    status, text = await call(sandbox, "POST", "/api/bulk-pairing", data=form)
    assert status == 200
    bulk = json.loads(text)
    check(bulk, schema("/api/bulk-pairing", "post"))
    status, text = await call(sandbox, "POST", "/api/bulk-pairing", data=form | {"rules": "noTakeback"})
    assert status == 400
    check(json.loads(text), schema("/api/bulk-pairing", "post", "400"))

    status, text = await call(sandbox, "GET", "/api/bulk-pairing")
    check(json.loads(text), schema("/api/bulk-pairing", "get"))
    status, text = await call(sandbox, "GET", f"/api/bulk-pairing/{bulk['id']}")
    shown = json.loads(text)
    assert shown["pairedAt"] is not None
    check(shown, schema("/api/bulk-pairing/{id}", "get"))
    status, text = await call(sandbox, "GET", "/api/bulk-pairing/nothere")
    assert status == 404
    check(json.loads(text), schema("/api/bulk-pairing/{id}", "get", "404"))

    status, text = await call(sandbox, "POST", f"/api/bulk-pairing/{bulk['id']}/start-clocks")
    check(json.loads(text), schema("/api/bulk-pairing/{id}/start-clocks", "post"))
    status, text = await call(
        sandbox, "GET", f"/api/bulk-pairing/{bulk['id']}/games", headers={"Accept": "application/x-ndjson"}
    )
    games = lines(text)
    assert len(games) == 1
    for game in games:
        check(game, schema("/api/bulk-pairing/{id}/games", "get", media="application/x-ndjson"))
        check(game, component("GameJson"))
    status, text = await call(sandbox, "DELETE", f"/api/bulk-pairing/{bulk['id']}")
    check(json.loads(text), schema("/api/bulk-pairing/{id}", "delete"))
    status, text = await call(sandbox, "DELETE", f"/api/bulk-pairing/{bulk['id']}")
    assert status == 404
    check(json.loads(text), schema("/api/bulk-pairing/{id}", "delete", "404"))


async def test_game_stream_lines(sandbox: Sandbox) -> None:
    players = [await personal_token(sandbox, name) for name in ("alice", "bob", "carol", "dave")]
    form = {"players": f"{players[0]}:{players[1]},{players[2]}:{players[3]}", "days": "3"}
    status, text = await call(sandbox, "POST", "/api/bulk-pairing", data=form)
    assert status == 200
    first, second = (g["id"] for g in json.loads(text)["games"])
    await call(sandbox, "GET", "/api/account")  # a request: the bulk pairs
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{sandbox.url}/sandbox/games/{second}/play", json={"status": "mate", "winner": "black"}) as done,
    ):
        assert done.status == 200
    line_schema = schema("/api/stream/games/{streamId}", "post")["items"]
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{sandbox.url}/api/stream/games/schema", data=f"{first},{second}") as resp,
    ):
        seen = [json.loads(await resp.content.readline()) for _ in range(2)]
        status, text = await call(sandbox, "POST", "/api/stream/games/schema/add", data=first)
        check(json.loads(text), schema("/api/stream/games/{streamId}/add", "post"))
    assert {s["statusName"] for s in seen} == {"started", "mate"}
    for line in seen:
        check(line, line_schema)


async def test_showing_a_challenge_even_accepted(sandbox: Sandbox) -> None:
    joined = await open_challenge(sandbox, "carol", "dave", "R1 B2")
    sandbox.state.start(sandbox.state.games[joined["id"]])
    status, text = await call(sandbox, "GET", f"/api/challenge/{joined['id']}/show", token=False)
    assert status == 200, text
    shown = json.loads(text)
    check(shown, schema("/api/challenge/{challengeId}/show", "get"))
    assert (shown["status"], shown["open"]["userIds"], shown["challenger"]["id"]) == (
        "accepted",
        ["carol", "dave"],
        "carol",
    )
    casual = sandbox.state.casual_game(white="carol", black="dave", clock_limit=600, clock_increment=5)
    status, text = await call(sandbox, "GET", f"/api/challenge/{casual.id}/show")
    assert status == 404  # a lobby game is no challenge
