"""The gateway, driven through berserk against the sandbox on loopback."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import random
from typing import Any

import aiohttp
import chess
import pytest

from bot.lichess.errors import (
    LichessAuthError,
    LichessBadRequest,
    LichessRateLimited,
    LichessUnavailable,
    LichessUserNotFound,
)
from bot.lichess.gateway import LichessGateway
from bot.lichess.payloads import Challenge
from domain.settings import DEFAULT_RULES
from sandbox.lichess import Sandbox
from sandbox.lichess.games import quiet_moves
from sandbox.lichess.state import LoggedRequest
from tests.support.lichess_sandbox import gateway_kwargs


async def control(sandbox: Sandbox, method: str, path: str, body: Any = None) -> Any:
    """Call the sandbox's control API over HTTP."""
    async with aiohttp.ClientSession() as http, http.request(method, sandbox.url + path, json=body) as resp:
        assert resp.status < 300, await resp.text()
        return await resp.json()


def requests_to(sandbox: Sandbox, prefix: str) -> list[LoggedRequest]:
    return [r for r in sandbox.state.requests if r.path.startswith(prefix)]


async def create(
    gateway: LichessGateway, white: str = "alice", black: str = "bob", name: str = "Club R1 B1"
) -> Challenge:
    return await gateway.create_game(
        white, black, clock_limit=600, clock_increment=5, name=name, rated=False, rules=DEFAULT_RULES
    )


# --- operations ---------------------------------------------------------------------------------


async def test_create_game_makes_one_restricted_open_challenge(sandbox: Sandbox, gateway: LichessGateway) -> None:
    challenge = await create(gateway, "Alice", "Bob", "Club Open R3 B5")
    game = sandbox.state.games[challenge.game_id]
    assert (game.white, game.black, game.name) == ("alice", "bob", "Club Open R3 B5")
    assert game.rules == frozenset({"noEarlyDraw", "noRematch", "noGiveTime", "noClaimWin"})
    assert (game.clock_limit, game.clock_increment, game.rated) == (600, 5, False)
    assert game.creator == "swissbot"
    assert challenge.url.endswith("/" + challenge.game_id)
    assert challenge.url_white and challenge.url_white.endswith("color=white")
    assert [r.path for r in sandbox.state.requests] == ["/api/challenge/open"]


async def test_create_game_with_an_unknown_rule_is_a_bad_request(sandbox: Sandbox, gateway: LichessGateway) -> None:
    with pytest.raises(LichessBadRequest, match="noTakebacks"):
        await gateway.create_game(
            "alice", "bob", clock_limit=600, clock_increment=0, name="x", rated=True, rules=["noTakebacks"]
        )
    assert sandbox.state.games == {}
    assert len(sandbox.state.requests) == 1  # a 400 is not retried


async def test_create_game_for_an_unknown_user_is_a_bad_request(gateway: LichessGateway) -> None:
    with pytest.raises(LichessBadRequest, match="nobody"):
        await create(gateway, "alice", "nobody")


async def test_export_games_reads_results_and_moves(sandbox: Sandbox, gateway: LichessGateway) -> None:
    first = await create(gateway, "alice", "bob", "R1 B1")
    second = await create(gateway, "carol", "dave", "R1 B2")
    pending = await create(gateway, "bob", "carol", "R1 B3")
    await control(
        sandbox, "POST", f"/sandbox/games/{first.game_id}/play", {"winner": "black", "status": "resign", "plies": 41}
    )
    await control(
        sandbox, "POST", f"/sandbox/games/{second.game_id}/play", {"winner": None, "status": "draw", "plies": 64}
    )

    games = await gateway.export_games([second.game_id, first.game_id, pending.game_id, "unknown1"])

    assert [g.id for g in games] == [second.game_id, first.game_id]  # input order; unstarted ones absent
    drawn, won = games
    assert (won.white, won.black, won.status, won.winner, won.plies) == ("alice", "bob", "resign", "black", 41)
    assert (drawn.status, drawn.winner, drawn.plies) == ("draw", None, 64)
    board = chess.Board()
    for san in won.moves.split():
        board.push_san(san)
    assert board.ply() == 41
    assert isinstance(won.raw["createdAt"], int) and won.raw["players"]["white"]["user"]["id"] == "alice"
    assert won.created_at.tzinfo is not None and won.finished


async def test_export_of_more_than_300_games_is_batched(sandbox: Sandbox, gateway: LichessGateway) -> None:
    state = sandbox.state
    ids = []
    for n in range(650):
        game = state.create_challenge(
            white="alice", black="bob", name=f"B{n}", clock_limit=300, clock_increment=0,
            days=None, rated=False, rules=frozenset(), creator="swissbot", expires_at=None,
        )  # fmt: skip
        state.start(game)
        ids.append(game.id)

    games = await gateway.export_games([*ids, ids[0]])

    assert [g.id for g in games] == ids
    assert all(g.status == "started" and g.plies == 0 for g in games)
    assert len(requests_to(sandbox, "/api/games/export/_ids")) == 3


async def test_get_user_reads_ratings_bio_and_flags(sandbox: Sandbox, gateway: LichessGateway) -> None:
    sandbox.add_user("Erin", rating=2010, bio="chess fan swiss-4821", title="FM", provisional=True)
    sandbox.add_user("Mallory", rating=1400, tos_violation=True)
    sandbox.add_user("Gone", disabled=True)

    erin = await gateway.get_user("erin")
    assert (erin.id, erin.username, erin.title, erin.bio) == ("erin", "Erin", "FM", "chess fan swiss-4821")
    assert erin.ratings["blitz"] == 2010 and erin.ratings["classical"] == 2010
    assert "rapid" in erin.provisional
    assert not erin.disabled and not erin.tos_violation and not erin.is_bot
    assert (await gateway.get_user("Mallory")).tos_violation
    gone = await gateway.get_user("gone")
    assert gone.disabled and gone.ratings == {}


async def test_get_users_reads_300_accounts_a_request(sandbox: Sandbox, gateway: LichessGateway) -> None:
    names = [f"Member{i:03d}" for i in range(650)]
    for i, name in enumerate(names):
        sandbox.add_user(name, rating=1200 + i)
    sandbox.add_user("Gone", disabled=True)

    users = await gateway.get_users([*names, "gone", "no-such-player", "not a name!"])

    assert len(users) == 651 and users["member649"].ratings["blitz"] == 1849 and users["gone"].disabled
    assert "no-such-player" not in users
    assert [r.status for r in requests_to(sandbox, "/api/users")] == [200, 200, 200]
    assert requests_to(sandbox, "/api/user/") == []


async def test_the_local_lichess_keeps_the_8000_users_per_10_minutes_limit(sandbox: Sandbox) -> None:
    names = ",".join(f"u{i}" for i in range(300))
    async with aiohttp.ClientSession() as http:
        statuses = []
        for _ in range(27):  # 26 x 300 = 7,800 users fit, the 27th call would make 8,100
            async with http.post(sandbox.url + "/api/users", data=names) as reply:
                statuses.append(reply.status)
        async with http.post(sandbox.url + "/api/users", data=",".join(f"u{i}" for i in range(301))) as reply:
            too_many = reply.status
    assert statuses == [200] * 26 + [429] and too_many == 400


async def test_unknown_user_raises_a_typed_error(gateway: LichessGateway) -> None:
    with pytest.raises(LichessUserNotFound) as info:
        await gateway.get_user("no-such-player")
    assert info.value.username == "no-such-player"


async def test_team_membership(sandbox: Sandbox, gateway: LichessGateway) -> None:
    sandbox.add_user("Alice", rating=1850, teams=("club-chess",))
    assert await gateway.is_team_member("club-chess", "alice")
    assert not await gateway.is_team_member("club-chess", "bob")
    assert not await gateway.is_team_member("other-team", "alice")


async def test_whoami_is_the_token_owner(sandbox: Sandbox, gateway: LichessGateway) -> None:
    me = await gateway.whoami()
    assert (me.id, me.username, me.is_bot) == ("swissbot", "SwissBot", True)


async def test_without_or_with_a_wrong_token_whoami_is_an_auth_error(sandbox: Sandbox) -> None:
    for token in (None, "lip_wrong"):
        gw = LichessGateway(sandbox.url, token, **gateway_kwargs())
        with pytest.raises(LichessAuthError):
            await gw.whoami()
        await gw.close()


async def test_from_env_reads_the_token(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LICHESS_TOKEN", sandbox.bot_token)
    gw = LichessGateway.from_env(sandbox.url, **gateway_kwargs())
    assert (await gw.whoami()).id == "swissbot"
    await gw.close()


# --- one request at a time, 429, retries, timeouts ----------------------------------------------


async def test_requests_never_overlap(sandbox: Sandbox, gateway: LichessGateway) -> None:
    await control(sandbox, "POST", "/sandbox/faults", {"path": "/api/user/", "status": None, "delay": 0.05, "count": 4})
    names = ["alice", "bob", "carol", "dave", "alice", "bob"]
    users = await asyncio.gather(*(gateway.get_user(n) for n in names), gateway.whoami())
    assert [u.id for u in users] == [*names, "swissbot"]
    spans = sorted((r.started, r.at) for r in sandbox.state.requests)
    assert all(end <= next_start for (_, end), (next_start, _) in itertools.pairwise(spans))


async def test_a_cancelled_call_still_holds_the_line_until_its_request_ends(
    sandbox: Sandbox, gateway: LichessGateway
) -> None:
    await control(sandbox, "POST", "/sandbox/faults", {"path": "/api/user/", "status": None, "delay": 0.4})
    slow = asyncio.create_task(gateway.get_user("alice"))
    await asyncio.sleep(0.1)
    slow.cancel()
    assert (await gateway.whoami()).id == "swissbot"
    assert slow.cancelled()
    user_request, account_request = sandbox.state.requests
    assert account_request.started >= user_request.at


async def test_429_pauses_every_caller(sandbox: Sandbox) -> None:
    pause = 0.3
    gw = LichessGateway(sandbox.url, sandbox.bot_token, **gateway_kwargs(rate_limit_pause=pause))
    await control(sandbox, "POST", "/sandbox/faults", {"path": "/api/user/", "status": 429, "count": 1})

    async def later_caller() -> str:
        await asyncio.sleep(0.05)  # starts while the pause is on
        return (await gw.whoami()).id

    user, me = await asyncio.gather(gw.get_user("alice"), later_caller())

    assert (user.id, me) == ("alice", "swissbot")
    limited = [r for r in sandbox.state.requests if r.status == 429]
    assert len(limited) == 1
    after = [r for r in sandbox.state.requests if r.started > limited[0].at]
    assert {r.path for r in after} == {"/api/user/alice", "/api/account"}
    assert all(r.started - limited[0].at >= pause * 0.95 for r in after)
    await gw.close()


async def test_a_repeated_429_pauses_longer(sandbox: Sandbox) -> None:
    pause = 0.2
    gw = LichessGateway(sandbox.url, sandbox.bot_token, **gateway_kwargs(rate_limit_pause=pause))
    await control(sandbox, "POST", "/sandbox/faults", {"path": "/api/account", "status": 429, "count": 2})
    assert (await gw.whoami()).id == "swissbot"
    first, second, ok = sandbox.state.requests
    assert (first.status, second.status, ok.status) == (429, 429, 200)
    assert second.started - first.at >= pause * 0.95
    assert ok.started - second.at >= 2 * pause * 0.95
    await gw.close()


async def test_a_429_that_persists_raises_rate_limited(sandbox: Sandbox) -> None:
    gw = LichessGateway(sandbox.url, sandbox.bot_token, **gateway_kwargs(rate_limit_pause=0.02, rate_limit_attempts=3))
    await control(sandbox, "POST", "/sandbox/faults", {"path": "/api/account", "status": 429, "count": 10})
    with pytest.raises(LichessRateLimited):
        await gw.whoami()
    assert len(sandbox.state.requests) == 3
    await gw.close()


async def test_5xx_on_a_read_is_retried(sandbox: Sandbox, gateway: LichessGateway) -> None:
    await control(sandbox, "POST", "/sandbox/faults", {"path": "/api/user/", "status": 502, "count": 2})
    assert (await gateway.get_user("bob")).id == "bob"
    assert [r.status for r in sandbox.state.requests] == [502, 502, 200]


async def test_5xx_that_persists_raises_unavailable(sandbox: Sandbox) -> None:
    gw = LichessGateway(sandbox.url, sandbox.bot_token, **gateway_kwargs(retries=2))
    await control(sandbox, "POST", "/sandbox/faults", {"path": "/api/games/export", "status": 503, "count": 10})
    with pytest.raises(LichessUnavailable):
        await gw.export_games(["abcdefgh"])
    assert [r.status for r in sandbox.state.requests] == [503, 503, 503]
    await gw.close()


async def test_a_read_that_times_out_is_retried(sandbox: Sandbox) -> None:
    gw = LichessGateway(sandbox.url, sandbox.bot_token, **gateway_kwargs(timeout=0.3))
    await control(sandbox, "POST", "/sandbox/faults", {"path": "/api/user/", "status": None, "delay": 1.0, "count": 1})
    assert (await gw.get_user("carol")).id == "carol"
    assert len(requests_to(sandbox, "/api/user/carol")) == 1  # the slow one is still sleeping, or done
    await gw.close()


async def test_network_errors_raise_unavailable() -> None:
    gw = LichessGateway("http://127.0.0.1:9", None, **gateway_kwargs(retries=1))
    with pytest.raises(LichessUnavailable):
        await gw.get_user("alice")
    await gw.close()


# --- creates that fail --------------------------------------------------------------------------


async def test_create_failed_before_lichess_recorded_it_is_created_once(
    sandbox: Sandbox, gateway: LichessGateway
) -> None:
    await control(sandbox, "POST", "/sandbox/faults", {"path": "/api/challenge/open", "status": 502, "count": 1})
    challenge = await create(gateway, name="R2 B1")
    assert list(sandbox.state.games) == [challenge.game_id]
    paths = [r.path for r in sandbox.state.requests]
    assert paths == ["/api/challenge/open", "/api/challenge", "/api/games/user/alice", "/api/challenge/open"]


async def test_create_failed_after_lichess_recorded_it_makes_no_duplicate(
    sandbox: Sandbox, gateway: LichessGateway
) -> None:
    fault = {"path": "/api/challenge/open", "status": 500, "count": 1, "after": True}
    await control(sandbox, "POST", "/sandbox/faults", fault)
    challenge = await create(gateway, name="R2 B2")
    assert list(sandbox.state.games) == [challenge.game_id]
    assert sandbox.state.games[challenge.game_id].name == "R2 B2"
    assert len(requests_to(sandbox, "/api/challenge/open")) == 1


async def test_create_timed_out_after_lichess_recorded_it_makes_no_duplicate(sandbox: Sandbox) -> None:
    gw = LichessGateway(sandbox.url, sandbox.bot_token, **gateway_kwargs(timeout=0.3))
    fault = {"path": "/api/challenge/open", "status": None, "delay": 1.0, "count": 1, "after": True}
    await control(sandbox, "POST", "/sandbox/faults", fault)
    challenge = await create(gw, name="R2 B3")
    assert list(sandbox.state.games) == [challenge.game_id]
    await gw.close()


async def test_a_lost_create_whose_game_already_started_is_found(sandbox: Sandbox, gateway: LichessGateway) -> None:
    game = sandbox.state.create_challenge(
        white="carol", black="dave", name="R4 B1", clock_limit=600, clock_increment=5,
        days=None, rated=False, rules=frozenset(), creator="swissbot", expires_at=None,
    )  # fmt: skip
    sandbox.state.start(game)
    sandbox.state.games[game.id].moves = [m.uci() for m in quiet_moves(random.Random(1), 3)]
    found = await gateway.find_created_game("carol", "dave", name="R4 B1", since_ms=0)
    assert found is not None and found.game_id == game.id
    assert await gateway.find_created_game("dave", "carol", name="R4 B1", since_ms=0) is None


def _started(sandbox: Sandbox, white: str, black: str, name: str, *, finish: bool = False) -> str:
    """A game Lichess has between two users (both joined, a few moves; finished if asked)."""
    game = sandbox.state.create_challenge(
        white=white, black=black, name=name, clock_limit=600, clock_increment=5,
        days=None, rated=False, rules=frozenset(), creator="swissbot", expires_at=None,
    )  # fmt: skip
    sandbox.state.start(game)
    game.moves = [m.uci() for m in quiet_moves(random.Random(len(sandbox.state.games)), 4)]
    if finish:
        game.status, game.winner = "resign", "white"
    return game.id


async def test_the_sandbox_lists_ongoing_games_only_when_asked(sandbox: Sandbox) -> None:
    ongoing = _started(sandbox, "carol", "dave", "R1 B1")
    finished = _started(sandbox, "carol", "dave", "R1 B1 G2", finish=True)

    async def listed(query: str) -> list[str]:
        url = f"{sandbox.url}/api/games/user/carol?vs=dave{query}"
        async with aiohttp.ClientSession() as http, http.get(url) as resp:
            assert resp.status == 200
            return [json.loads(line)["id"] for line in (await resp.text()).splitlines() if line]

    assert await listed("") == [finished]
    assert set(await listed("&ongoing=true")) == {ongoing, finished}
    assert await listed("&ongoing=true&finished=false") == [ongoing]


async def test_a_lost_create_reply_whose_game_started_meanwhile_is_found(
    sandbox: Sandbox, gateway: LichessGateway
) -> None:
    # Lichess records the challenge, the players join and move, and only then does the reply get lost.
    fault = {"path": "/api/challenge/open", "status": 502, "count": 1, "after": True, "delay": 0.3}
    await control(sandbox, "POST", "/sandbox/faults", fault)

    async def players_join() -> None:
        while not sandbox.state.games:
            await asyncio.sleep(0.01)
        (game,) = sandbox.state.games.values()
        sandbox.state.start(game)
        game.moves = [m.uci() for m in quiet_moves(random.Random(3), 4)]

    joining = asyncio.create_task(players_join())
    challenge = await create(gateway, "alice", "bob", name="R5 B1")
    await joining
    (game,) = sandbox.state.games.values()
    assert game.status == "started" and challenge.game_id == game.id
    assert len(requests_to(sandbox, "/api/challenge/open")) == 1


async def test_the_look_up_skips_the_boards_earlier_games(sandbox: Sandbox, gateway: LichessGateway) -> None:
    earlier = _started(sandbox, "carol", "dave", "R2 B1", finish=True)
    assert await gateway.find_created_game("carol", "dave", name="R2 B1 G2", since_ms=0, exclude={earlier}) is None
    replay = _started(sandbox, "carol", "dave", "R2 B1 G2")
    found = await gateway.find_created_game("carol", "dave", name="R2 B1 G2", since_ms=0, exclude={earlier})
    assert found is not None and found.game_id == replay
    assert await gateway.find_created_game("carol", "dave", name="x", since_ms=0, exclude={earlier, replay}) is None


async def test_a_replay_whose_create_failed_is_not_mistaken_for_the_earlier_game(
    sandbox: Sandbox, gateway: LichessGateway
) -> None:
    earlier = _started(sandbox, "alice", "bob", "R3 B1", finish=True)
    await control(sandbox, "POST", "/sandbox/faults", {"path": "/api/challenge/open", "status": 502, "count": 1})
    challenge = await gateway.create_game(
        "alice", "bob", clock_limit=600, clock_increment=5, name="R3 B1 G2", rated=False, exclude={earlier}
    )
    assert challenge.game_id != earlier
    assert sandbox.state.games[challenge.game_id].name == "R3 B1 G2"
    assert len(requests_to(sandbox, "/api/challenge/open")) == 2


# --- the token stays secret ---------------------------------------------------------------------


async def test_the_token_never_appears_in_logs_or_errors(sandbox: Sandbox, caplog: pytest.LogCaptureFixture) -> None:
    secret = "lip_TopSecret0123456789"
    sandbox.add_user("owner", token=secret)
    caplog.set_level(logging.DEBUG)
    gw = LichessGateway(sandbox.url, secret, **gateway_kwargs(retries=1, rate_limit_pause=0.01, rate_limit_attempts=1))
    errors: list[Exception] = []
    await control(sandbox, "POST", "/sandbox/faults", {"path": "/api/account", "status": 503, "count": 5})
    await control(sandbox, "POST", "/sandbox/faults", {"path": "/api/user/", "status": 429, "count": 1})
    for call in (
        gw.whoami(),
        gw.get_user("nobody-here"),
        gw.get_user("nobody-else"),
        gw.create_game("alice", "x!", clock_limit=1, clock_increment=0, name="n", rated=False, rules=["bad"]),
    ):
        with pytest.raises(Exception) as info:
            await call
        errors.append(info.value)
    kinds = [type(e) for e in errors]
    assert kinds == [LichessUnavailable, LichessRateLimited, LichessUserNotFound, LichessBadRequest]
    texts = [str(e) for e in errors] + [repr(e) for e in errors] + [repr(gw), caplog.text]
    assert all(secret not in text for text in texts)
    assert "HTTP 503" in caplog.text or "503" in caplog.text
    await gw.close()


async def test_the_look_up_keeps_to_the_attempts_window_and_clock(sandbox: Sandbox, gateway: LichessGateway) -> None:
    game_id = _started(sandbox, "carol", "dave", "R3 B1")  # clock 600+5, started now
    started_ms = int((sandbox.state.games[game_id].started_at or 0.0) * 1000)  # at or just before the start
    found = await gateway.find_created_game("carol", "dave", name="R3 B1", since_ms=started_ms, clock=(600, 5))
    assert found is not None and found.game_id == game_id
    after = started_ms + 1000
    later = await gateway.find_created_game("carol", "dave", name="R3 B1", since_ms=after, clock=(600, 5))
    assert later is None  # a game from before the attempt is never taken
    assert await gateway.find_created_game("carol", "dave", name="R3 B1", since_ms=started_ms, clock=(180, 2)) is None
    assert await gateway.find_created_game("carol", "dave", name="R3 B1 G2", since_ms=started_ms) is None  # its name


async def test_a_casual_game_of_the_same_two_players_is_never_taken(sandbox: Sandbox, gateway: LichessGateway) -> None:
    # the attempt's challenge never reached Lichess; meanwhile the two players started a game of their own from the
    # lobby, with the event's clock: no challenge of that id, so it is not the attempt's game
    casual = await control(sandbox, "POST", "/sandbox/games", {"white": "carol", "black": "dave", "clock": [600, 5]})
    assert sandbox.state.games[casual["id"]].source == "lobby"
    found = await gateway.find_created_game("carol", "dave", name="R7 B1", since_ms=0, clock=(600, 5), rated=False)
    assert found is None
    assert [r.status for r in requests_to(sandbox, "/api/challenge/")] == [404]  # shown: no such challenge


async def test_another_events_challenge_between_the_two_players_is_never_taken(
    sandbox: Sandbox, gateway: LichessGateway
) -> None:
    other = _started(sandbox, "carol", "dave", "Other club #9 R2 B4")  # same clock, not stored here
    found = await gateway.find_created_game("carol", "dave", name="Night #3 R1 B2", since_ms=0, clock=(600, 5))
    assert found is None
    mine = _started(sandbox, "carol", "dave", "Night #3 R1 B2")
    found = await gateway.find_created_game("carol", "dave", name="Night #3 R1 B2", since_ms=0, clock=(600, 5))
    assert found is not None and found.game_id == mine != other


async def test_an_accepted_challenge_is_shown_for_three_hours(sandbox: Sandbox, gateway: LichessGateway) -> None:
    game_id = _started(sandbox, "carol", "dave", "R8 B1")
    shown = await gateway.show_challenge(game_id)
    assert shown is not None and shown["status"] == "accepted" and shown["open"]["userIds"] == ["carol", "dave"]
    await control(sandbox, "POST", "/sandbox/clock", {"advance": 3 * 3600 + 1})
    assert await gateway.show_challenge(game_id) is None  # lila removes it 3 hours after acceptance
    assert await gateway.find_created_game("carol", "dave", name="R8 B1", since_ms=0) is None
    assert await gateway.show_challenge("../../api") is None  # never another path


async def test_cancel_challenge(sandbox: Sandbox, gateway: LichessGateway) -> None:
    challenge = await create(gateway, name="R6 B1")
    assert await gateway.cancel_challenge(challenge.game_id) is True
    assert challenge.game_id not in sandbox.state.games
    assert await gateway.cancel_challenge(challenge.game_id) is False  # gone: nothing to do
    played = _started(sandbox, "carol", "dave", "R6 B2")
    assert await gateway.cancel_challenge(played) is False  # a game exists: the bot plays in none, lila finds nothing
    assert sandbox.state.games[played].status == "started"


async def test_a_game_is_aborted_with_both_players_tokens(
    sandbox: Sandbox, gateway: LichessGateway, caplog: pytest.LogCaptureFixture
) -> None:
    write = frozenset({"challenge:write"})
    for name in ("carol", "dave", "erin"):
        sandbox.state.add_user(name, token=f"lio_{name}", scopes=write)
    played = _started(sandbox, "carol", "dave", "R6 B3")  # moves on the board: no player may abort it alone
    with pytest.raises(LichessBadRequest, match="Missing opponentToken"):
        await gateway.cancel_challenge(played, token="lio_carol")
    with pytest.raises(LichessBadRequest, match="Not the opponent token"):
        await gateway.cancel_challenge(played, token="lio_carol", opponent_token="lio_erin")
    assert await gateway.cancel_challenge(played, token="lio_erin", opponent_token="lio_dave") is False  # no player
    assert sandbox.state.games[played].status == "started"
    caplog.set_level(logging.DEBUG, logger="urllib3")
    assert await gateway.cancel_challenge(played, token="lio_carol", opponent_token="lio_dave") is True
    assert sandbox.state.games[played].status == "aborted"
    assert "lio_dave" not in caplog.text  # urllib3's request line carries the query string
    assert f"/api/challenge/{played}/cancel" not in caplog.text  # that line dropped whole
    await gateway.cancel_challenge(played, token="lio_carol")
    assert f"/api/challenge/{played}/cancel" in caplog.text  # urllib3 logs the others
    assert await gateway.cancel_challenge(played, token="lio_carol", opponent_token="lio_dave") is False  # over


async def test_the_look_up_needs_no_challenge_read_scope(sandbox: Sandbox) -> None:
    # the README's token has challenge:write and challenge:bulk only: lila refuses it the challenge list (403), and
    # answers `show` to anyone, so the look-up asks it without the token
    made = await control(
        sandbox, "POST", "/sandbox/tokens", {"username": sandbox.bot_username, "scopes": ["challenge:write"]}
    )
    gw = LichessGateway(sandbox.url, made["token"], **gateway_kwargs())
    game_id = _started(sandbox, "carol", "dave", "R9 B1")
    found = await gw.find_created_game("carol", "dave", name="R9 B1", since_ms=0, clock=(600, 5), rated=False)
    assert found is not None and found.game_id == game_id
    assert [r.status for r in requests_to(sandbox, "/api/challenge")] == [403, 200]  # the list, then show
    assert requests_to(sandbox, "/api/challenge/")[0].user is None  # show: anonymous
    await gw.close()
