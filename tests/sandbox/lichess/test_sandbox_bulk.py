"""Bulk pairing on the local Lichess: all or nothing, Lichess's limits, cancel, start-clocks, clocks that run."""

from __future__ import annotations

import asyncio
from typing import Any

import berserk
import pytest

from sandbox.lichess import Sandbox, run_sandbox
from sandbox.lichess.bulk import MAX_GAMES
from sandbox.lichess.state import UNPLAYED_GAME_LIFETIME
from tests.sandbox.lichess.helpers import call, control, oauth_token, personal_token

RULES = "noAbort,noRematch,noGiveTime,noClaimWin,noEarlyDraw"


async def create(
    sandbox: Sandbox, players: str, extra: dict[str, Any] | None = None, *, token: str | None = None, **fields: Any
) -> tuple[int, Any]:
    """`POST /api/bulk-pairing` as a form (berserk's `bulk_pairings.create` is broken)."""
    form = {"players": players, "clock.limit": "300", "clock.increment": "2", "rated": "false", "rules": RULES}
    form.update({k: str(v) for k, v in ((extra or {}) | fields).items()})
    return await call(sandbox, "POST", "/api/bulk-pairing", token=token or sandbox.bot_token, data=form)


async def created(sandbox: Sandbox, players: str, **fields: Any) -> dict[str, Any]:
    """A bulk that must be accepted."""
    status, bulk = await create(sandbox, players, **fields)
    assert status == 200, bulk
    found: dict[str, Any] = bulk
    return found


async def tokens(sandbox: Sandbox, *names: str) -> list[str]:
    """A `challenge:write` token for each player, the first through OAuth (as the bot will get them)."""
    found = [await oauth_token(sandbox, names[0])]
    for name in names[1:]:
        found.append(await personal_token(sandbox, name, scopes=["challenge:write"]))
    return found


def now_ms(sandbox: Sandbox) -> int:
    return round(sandbox.state.now() * 1000)


async def advance(sandbox: Sandbox, seconds: float) -> None:
    await control(sandbox, "POST", "/sandbox/clock", {"advance": seconds})


async def game(sandbox: Sandbox, gid: str) -> dict[str, Any]:
    status, games = await call(sandbox, "POST", "/api/games/export/_ids", data=gid)
    assert status == 200 and len(games) == 1, games
    found: dict[str, Any] = games[0]
    return found


async def test_a_bulk_pairs_its_games_directly(sandbox: Sandbox) -> None:
    a, b, c, d = await tokens(sandbox, "alice", "bob", "carol", "dave")
    message = "Round 1 against {opponent}: {game}"
    status, bulk = await create(sandbox, f"{a}:{b},{c}:{d}", message=message)
    assert status == 200, bulk
    assert [(g["white"], g["black"]) for g in bulk["games"]] == [("alice", "bob"), ("carol", "dave")]
    assert bulk["pairedAt"] is None and bulk["pairAt"] == pytest.approx(now_ms(sandbox), abs=2000)
    assert bulk["rules"] == sorted(RULES.split(",")) and bulk["clock"] == {"limit": 300, "increment": 2}

    status, shown = await call(sandbox, "GET", f"/api/bulk-pairing/{bulk['id']}", token=sandbox.bot_token)
    assert status == 200 and shown["pairedAt"] is not None  # paired on the next tick: no accept step
    for planned in bulk["games"]:
        exported = await game(sandbox, planned["id"])
        assert exported["status"] == "started" and exported["source"] == "api"
        assert exported["players"]["white"]["user"]["id"] == planned["white"]
    listed = {g["id"]: g for g in await control(sandbox, "GET", "/sandbox/games")}
    assert listed[bulk["games"][0]["id"]]["rules"] == sorted(RULES.split(","))

    messages = await control(sandbox, "GET", "/sandbox/messages")
    first = bulk["games"][0]["id"]
    assert [(m["to"], m["game"]) for m in messages][:2] == [("alice", first), ("bob", first)]
    assert messages[0]["text"] == f"Round 1 against {sandbox.url}/@/Bob: {sandbox.url}/{first}"
    assert messages[0]["from"] == "swissbot" and messages[0]["bulk"] == bulk["id"]


async def test_one_bad_or_unscoped_token_refuses_the_whole_bulk(sandbox: Sandbox) -> None:
    a, b = await tokens(sandbox, "alice", "bob")
    unscoped = await personal_token(sandbox, "carol", scopes=["challenge:read"])
    status, reply = await create(sandbox, f"{a}:{b},{unscoped}:lip_nobody")
    assert status == 400
    assert reply == {"tokens": {unscoped: "Missing scope: challenge:write", "lip_nobody": "No such token"}}
    await control(sandbox, "POST", "/sandbox/users", {"username": "Dave", "disabled": True})
    closed = await personal_token(sandbox, "dave")
    status, reply = await create(sandbox, f"{a}:{closed}")
    assert status == 400 and reply == {"tokens": {closed: "No such user"}}
    assert sandbox.state.bulks == {} and sandbox.state.games == {}
    status, listed = await call(sandbox, "GET", "/api/bulk-pairing", token=sandbox.bot_token)
    assert listed == []


async def test_the_organiser_needs_challenge_bulk(sandbox: Sandbox) -> None:
    a, b = await tokens(sandbox, "alice", "bob")
    organiser = await personal_token(sandbox, "carol", scopes=["challenge:write"])
    status, reply = await create(sandbox, f"{a}:{b}", token=organiser)
    assert status == 403 and reply == {"error": "Missing scope: challenge:bulk"}
    status, reply = await call(sandbox, "POST", "/api/bulk-pairing", data={"players": f"{a}:{b}"})
    assert status == 401


async def test_a_player_twice_is_refused_in_real_time(sandbox: Sandbox) -> None:
    a, b, c = await tokens(sandbox, "alice", "bob", "carol")
    status, reply = await create(sandbox, f"{a}:{b},{a}:{c}")
    assert status == 400 and reply == {"error": "Tokens must be unique for real-time games (not correspondence)"}
    second_alice = await personal_token(sandbox, "alice", scopes=["challenge:write"])
    status, reply = await create(sandbox, f"{a}:{b},{second_alice}:{c}")
    assert status == 400 and reply == {"duplicateUsers": ["alice"]}
    # correspondence allows several pairings of one player
    status, reply = await create(sandbox, f"{a}:{b},{a}:{c}", {"clock.limit": "", "clock.increment": "", "days": 3})
    assert status == 200 and reply["correspondence"] == {"daysPerTurn": 3} and "clock" not in reply


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"players": "abc"}, "players: Not enough tokens"),
        ({"clock.limit": "", "clock.increment": ""}, "clock or correspondence days required"),
        ({"rules": "noAbort,noTakeback"}, "rules: unknown rule noTakeback"),
        ({"message": "no placeholder"}, "message: The message must contain {game}"),
        ({"rated": "yes"}, "rated: error.boolean"),
    ],
)
async def test_bad_forms(sandbox: Sandbox, fields: dict[str, str], message: str) -> None:
    a, b = await tokens(sandbox, "alice", "bob")
    status, reply = await create(sandbox, fields.pop("players", f"{a}:{b}"), fields)
    assert status == 400 and reply["error"].startswith(message)


async def test_dates_at_most_seven_days_ahead(sandbox: Sandbox) -> None:
    a, b = await tokens(sandbox, "alice", "bob")
    eight_days = now_ms(sandbox) + 8 * 24 * 3600 * 1000
    for field in ("pairAt", "startClocksAt"):
        status, reply = await create(sandbox, f"{a}:{b}", {field: eight_days})
        assert status == 400 and reply == {"error": f"{field}: error.max"}


def many_players(sandbox: Sandbox, count: int) -> list[str]:
    """`count` players with `challenge:write` personal tokens (made directly: a thousand HTTP calls is slow)."""
    secrets = []
    for i in range(count):
        secret = f"lip_p{i}"
        sandbox.add_user(f"p{i}", token=secret, scopes=frozenset({"challenge:write"}))
        secrets.append(secret)
    return secrets


def pairs(secrets: list[str]) -> str:
    return ",".join(f"{w}:{b}" for w, b in zip(secrets[::2], secrets[1::2], strict=True))


async def test_500_games_per_10_minutes(sandbox: Sandbox) -> None:
    players = many_players(sandbox, 2 * MAX_GAMES + 2)
    status, reply = await create(sandbox, pairs(players[: 2 * MAX_GAMES + 2]))
    assert status == 400 and reply["error"] == f"players: Too many tokens (max: {2 * MAX_GAMES})"
    status, reply = await create(sandbox, pairs(players[: 2 * MAX_GAMES - 2]))
    assert status == 200 and len(reply["games"]) == MAX_GAMES - 1
    later = now_ms(sandbox) + 3600_000  # other players, another time: only the rate limit can refuse it
    status, reply = await create(sandbox, pairs(players[-4:]), pairAt=later)
    assert status == 429 and reply == {"error": f"Ratelimited! Max games per 10 minutes: {MAX_GAMES}"}
    status, reply = await create(sandbox, pairs(players[-2:]), pairAt=later)
    assert status == 200  # exactly 500 in the window
    await advance(sandbox, 600)
    status, reply = await create(sandbox, pairs(players[-4:-2]), pairAt=later + 1)
    assert status == 200


async def test_twenty_scheduled_bulks_and_collisions(sandbox: Sandbox) -> None:
    players = many_players(sandbox, 44)
    start = now_ms(sandbox) + 3600_000
    for i in range(20):
        status, reply = await create(sandbox, pairs(players[2 * i : 2 * i + 2]), pairAt=start + i)
        assert status == 200, reply
    status, reply = await create(sandbox, pairs(players[40:42]), pairAt=start + 100)
    assert status == 400 and reply == {"error": "Already too many bulks queued"}
    bulks = await control(sandbox, "GET", "/sandbox/games")
    assert bulks == []  # nothing paired yet
    status, listed = await call(sandbox, "GET", "/api/bulk-pairing", token=sandbox.bot_token)
    assert len(listed) == 20 and listed[0]["pairAt"] == start + 19  # latest first
    first = listed[-1]["id"]
    assert (await call(sandbox, "DELETE", f"/api/bulk-pairing/{first}", token=sandbox.bot_token))[0] == 200
    # p2 is already in the bulk at start + 1
    status, reply = await create(sandbox, pairs([players[2], players[42]]), pairAt=start + 1)
    assert status == 400 and reply == {"error": "A bulk containing the same players is scheduled at the same time"}
    status, reply = await create(sandbox, pairs(players[42:44]), pairAt=start + 1)
    assert status == 200


async def test_a_thousand_scheduled_games(sandbox: Sandbox) -> None:
    players = many_players(sandbox, 2 * MAX_GAMES)
    start = now_ms(sandbox) + 3600_000
    assert (await create(sandbox, pairs(players), pairAt=start))[0] == 200
    await advance(sandbox, 600)
    assert (await create(sandbox, pairs(players), pairAt=start + 1))[0] == 200
    await advance(sandbox, 600)
    status, reply = await create(sandbox, pairs(players[:2]), pairAt=start + 2)
    assert status == 400 and reply == {"error": "Already too many games queued"}


async def test_cancel_before_the_pairing_time(sandbox: Sandbox) -> None:
    a, b = await tokens(sandbox, "alice", "bob")
    status, bulk = await create(sandbox, f"{a}:{b}", pairAt=now_ms(sandbox) + 60_000)
    client = berserk.Client(session=berserk.TokenSession(sandbox.bot_token), base_url=sandbox.url)
    upcoming = await asyncio.to_thread(client.bulk_pairings.get_upcoming)
    assert [u["id"] for u in upcoming] == [bulk["id"]]
    status, reply = await call(sandbox, "POST", f"/api/bulk-pairing/{bulk['id']}/start-clocks", token=sandbox.bot_token)
    assert status == 404  # the games do not exist yet
    await asyncio.to_thread(client.bulk_pairings.cancel, bulk["id"])
    await advance(sandbox, 120)
    assert await control(sandbox, "GET", "/sandbox/games") == []
    status, reply = await call(sandbox, "GET", f"/api/bulk-pairing/{bulk['id']}", token=sandbox.bot_token)
    assert status == 404 and reply == {"error": "Not found."}
    other = await personal_token(sandbox, "carol")  # someone else's bulk is not found either
    status, bulk = await create(sandbox, f"{a}:{b}")
    assert (await call(sandbox, "GET", f"/api/bulk-pairing/{bulk['id']}", token=other))[0] == 404


async def test_scheduled_pairing_happens_at_pair_at(sandbox: Sandbox) -> None:
    a, b = await tokens(sandbox, "alice", "bob")
    bulk = await created(sandbox, f"{a}:{b}", pairAt=now_ms(sandbox) + 60_000)
    gid = bulk["games"][0]["id"]
    await advance(sandbox, 30)
    assert await control(sandbox, "GET", "/sandbox/games") == []
    await advance(sandbox, 31)
    (paired,) = await control(sandbox, "GET", "/sandbox/games")
    assert paired["id"] == gid and paired["status"] == "started" and paired["bulk"] == bulk["id"]


async def test_the_absent_player_loses_on_time_once_clocks_start(sandbox: Sandbox) -> None:
    a, b, c, d = await tokens(sandbox, "alice", "bob", "carol", "dave")
    bulk = await created(sandbox, f"{a}:{b},{c}:{d}", startClocksAt=now_ms(sandbox) + 120_000)
    white_absent, black_absent = (g["id"] for g in bulk["games"])
    await advance(sandbox, 1)
    await control(sandbox, "POST", f"/sandbox/games/{black_absent}/play", {"status": "started", "plies": 1})
    await advance(sandbox, 119 + 299)  # clocks started; a second short of the 300 s limit
    assert (await game(sandbox, white_absent))["status"] == "started"
    await advance(sandbox, 2)
    flagged = await game(sandbox, white_absent)
    assert (flagged["status"], flagged["winner"], flagged["moves"]) == ("outoftime", "black", "")
    flagged = await game(sandbox, black_absent)
    assert (flagged["status"], flagged["winner"], len(flagged["moves"].split())) == ("outoftime", "white", 1)


async def test_start_clocks_now(sandbox: Sandbox) -> None:
    a, b = await tokens(sandbox, "alice", "bob")
    bulk = await created(sandbox, f"{a}:{b}")
    gid = bulk["games"][0]["id"]
    await advance(sandbox, 1000)
    assert (await game(sandbox, gid))["status"] == "started"  # no startClocksAt: nothing runs
    client = berserk.Client(session=berserk.TokenSession(sandbox.bot_token), base_url=sandbox.url)
    await asyncio.to_thread(client.bulk_pairings.start_clocks, bulk["id"])
    shown = (await call(sandbox, "GET", f"/api/bulk-pairing/{bulk['id']}", token=sandbox.bot_token))[1]
    assert shown["startClocksAt"] == pytest.approx(now_ms(sandbox), abs=2000)
    await advance(sandbox, 301)
    assert (await game(sandbox, gid))["status"] == "outoftime"


async def test_nobody_moves_white_loses_on_time_as_lila_decides(sandbox: Sandbox) -> None:
    a, b = await tokens(sandbox, "alice", "bob")
    bulk = await created(sandbox, f"{a}:{b}", startClocksAt=now_ms(sandbox))
    await advance(sandbox, 301)
    flagged = await game(sandbox, bulk["games"][0]["id"])
    # lila's Finisher.outOfTime: the side to move (white, at ply 0) flags; a bulk game is never aborted for it
    assert (flagged["status"], flagged["winner"]) == ("outoftime", "black")


async def test_both_players_moving_starts_the_clock(sandbox: Sandbox) -> None:
    a, b = await tokens(sandbox, "alice", "bob")
    bulk = await created(sandbox, f"{a}:{b}")
    gid = bulk["games"][0]["id"]
    await advance(sandbox, 1)
    await control(sandbox, "POST", f"/sandbox/games/{gid}/play", {"status": "started", "plies": 2})
    await advance(sandbox, 301)
    flagged = await game(sandbox, gid)
    assert (flagged["status"], flagged["winner"]) == ("outoftime", "black")


async def test_without_clocks_an_unplayed_bulk_game_is_deleted_after_24_hours(sandbox: Sandbox) -> None:
    a, b = await tokens(sandbox, "alice", "bob")
    await created(sandbox, f"{a}:{b}")
    await advance(sandbox, UNPLAYED_GAME_LIFETIME + 1)
    assert await control(sandbox, "GET", "/sandbox/games") == []


async def test_bulk_games_export(sandbox: Sandbox) -> None:
    a, b, c, d = await tokens(sandbox, "alice", "bob", "carol", "dave")
    bulk = await created(sandbox, f"{a}:{b},{c}:{d}")
    first, second = (g["id"] for g in bulk["games"])
    await advance(sandbox, 1)
    await control(sandbox, "POST", f"/sandbox/games/{first}/play", {"status": "resign", "winner": "white", "plies": 30})
    path = f"/api/bulk-pairing/{bulk['id']}/games"
    ndjson = {"Accept": "application/x-ndjson"}
    status, games = await call(sandbox, "GET", path, token=sandbox.bot_token, headers=ndjson)
    assert [(g["id"], g["status"]) for g in games] == [(first, "resign"), (second, "started")]
    status, pgn = await call(sandbox, "GET", path, token=sandbox.bot_token)
    assert status == 200 and pgn.count("[Event ") == 2 and f'[GameId "{first}"]' in pgn


async def test_simulated_players_play_bulk_games_and_absent_ones_do_not() -> None:
    async with run_sandbox(seed=11, autoplay=True) as sandbox:
        for name in ("alice", "bob", "carol", "dave"):
            sandbox.add_user(name)
        await control(sandbox, "POST", "/sandbox/users/alice/absent", {"absent": True})
        a, b, c, d = await tokens(sandbox, "alice", "bob", "carol", "dave")
        bulk = await created(sandbox, f"{a}:{b},{c}:{d}", startClocksAt=now_ms(sandbox) + 60_000)
        no_show, played = (g["id"] for g in bulk["games"])
        await advance(sandbox, 1)
        assert (await game(sandbox, no_show))["moves"] == ""
        assert len((await game(sandbox, played))["moves"].split()) >= 2  # seed 11: a game both players play
        await advance(sandbox, 60 + 300)
        flagged = await game(sandbox, no_show)
        assert (flagged["status"], flagged["winner"]) == ("outoftime", "black")


async def test_faults_apply_to_the_new_paths(sandbox: Sandbox) -> None:
    a, b = await tokens(sandbox, "alice", "bob")
    await control(sandbox, "POST", "/sandbox/faults", {"path": "/api/bulk-pairing", "status": 502, "after": True})
    status, reply = await create(sandbox, f"{a}:{b}")
    assert (status, reply) == (502, {"error": "Sandbox fault 502"})
    status, listed = await call(sandbox, "GET", "/api/bulk-pairing", token=sandbox.bot_token)
    assert len(listed) == 1  # Lichess scheduled it although the client saw an error
    await control(sandbox, "POST", "/sandbox/faults", {"path": "/api/token", "status": 429})
    status, reply = await call(sandbox, "POST", "/api/token/test", data=a)
    assert (status, reply) == (429, {"error": "Too many requests. Try again later."})
    status, reply = await call(sandbox, "POST", "/api/token/test", data=a)
    assert status == 200 and reply[a] is not None
