"""`POST /api/challenge/{id}/cancel` on the local Lichess follows lila's `apiCancel`: the challenger cancels a pending
challenge; a game that exists is aborted only by a player, alone while it is abortable by a user (no move, no
`noAbort`), else with the other player's token as `opponentToken` (then even after moves); and a bulk deleted before
its pairing time creates no game, one deleted after it leaves its games."""

from __future__ import annotations

from typing import Any

from sandbox.lichess import Sandbox
from tests.sandbox.lichess.helpers import call, personal_token
from tests.sandbox.lichess.test_sandbox_bulk import advance, created, now_ms, tokens

CLOCK = {"clock.limit": "600", "clock.increment": "5", "rated": "false"}


async def open_game(sandbox: Sandbox, white: str, black: str, *, join: bool = True) -> str:
    """The bot's open challenge for two players, joined by both (a game on Lichess) unless `join` is False."""
    form = CLOCK | {"users": f"{white},{black}", "name": f"{white} v {black}"}
    status, reply = await call(sandbox, "POST", "/api/challenge/open", token=sandbox.bot_token, data=form)
    assert status == 200, reply
    if join:
        sandbox.state.start(sandbox.state.games[reply["id"]])
    gid: str = reply["id"]
    return gid


async def cancel(sandbox: Sandbox, gid: str, token: str, opponent: str | None = None) -> tuple[int, Any]:
    query = f"?opponentToken={opponent}" if opponent is not None else ""
    return await call(sandbox, "POST", f"/api/challenge/{gid}/cancel{query}", token=token)


def status_of(sandbox: Sandbox, gid: str) -> str:
    return sandbox.state.games[gid].status


async def test_only_the_challenger_cancels_a_pending_challenge(sandbox: Sandbox) -> None:
    gid = await open_game(sandbox, "alice", "bob", join=False)
    alice = await personal_token(sandbox, "alice", scopes=["challenge:write"])
    assert await cancel(sandbox, gid, alice) == (404, {"error": "Not found."})  # named in it, but not its maker
    assert await cancel(sandbox, gid, sandbox.bot_token) == (200, {"ok": True})
    assert gid not in sandbox.state.games
    assert (await cancel(sandbox, gid, sandbox.bot_token))[0] == 404


async def test_a_game_that_exists_is_aborted_by_a_player_not_by_the_challenger(sandbox: Sandbox) -> None:
    gid = await open_game(sandbox, "alice", "bob")
    assert await cancel(sandbox, gid, sandbox.bot_token) == (404, {"error": "Not found."})  # no Pov: not a player
    assert status_of(sandbox, gid) == "started"
    bob = await personal_token(sandbox, "bob", scopes=["challenge:write"])
    assert await cancel(sandbox, gid, bob) == (200, {"ok": True})  # abortable by a user: no move, no noAbort
    assert status_of(sandbox, gid) == "aborted"
    assert (await cancel(sandbox, gid, bob))[0] == 404  # no longer playable


async def test_after_moves_a_player_needs_the_opponents_token(sandbox: Sandbox) -> None:
    gid = await open_game(sandbox, "alice", "bob")
    sandbox.state.games[gid].moves = ["e2e4", "e7e5", "g1f3"]
    alice = await personal_token(sandbox, "alice", scopes=["challenge:write"])
    bob = await personal_token(sandbox, "bob", scopes=["challenge:write"])
    carol = await personal_token(sandbox, "carol", scopes=["challenge:write"])
    read_only = await personal_token(sandbox, "bob", scopes=["challenge:read"])
    assert await cancel(sandbox, gid, alice) == (400, {"error": "Missing opponentToken"})
    assert await cancel(sandbox, gid, alice, carol) == (400, {"error": "Not the opponent token"})
    assert await cancel(sandbox, gid, alice, alice) == (400, {"error": "Not the opponent token"})
    assert await cancel(sandbox, gid, alice, "lio_nobody") == (400, {"error": "No such token"})
    assert await cancel(sandbox, gid, alice, read_only) == (400, {"error": "Missing scope: challenge:write"})
    assert await cancel(sandbox, gid, carol, bob) == (404, {"error": "Not found."})  # the caller must play in it
    assert await cancel(sandbox, gid, read_only) == (403, {"error": "Missing scope: challenge:write"})
    assert status_of(sandbox, gid) == "started"
    assert await cancel(sandbox, gid, alice, bob) == (200, {"ok": True})  # lila's AbortForce, moves or not
    assert status_of(sandbox, gid) == "aborted"


async def test_a_bulk_game_under_no_abort_needs_both_tokens_and_a_finished_game_none(sandbox: Sandbox) -> None:
    a, b, c, d = await tokens(sandbox, "alice", "bob", "carol", "dave")
    bulk = await created(sandbox, f"{a}:{b},{c}:{d}")
    await advance(sandbox, 1)
    first, second = (g["id"] for g in bulk["games"])
    assert sandbox.state.games[first].moves == [] and "noAbort" in sandbox.state.games[first].rules
    assert await cancel(sandbox, first, sandbox.bot_token) == (404, {"error": "Not found."})  # its maker plays not
    assert await cancel(sandbox, first, a) == (400, {"error": "Missing opponentToken"})  # noAbort: not alone
    assert await cancel(sandbox, first, b, a) == (200, {"ok": True})
    assert status_of(sandbox, first) == "aborted"
    sandbox.state.games[second].status = "resign"
    assert await cancel(sandbox, second, c, d) == (404, {"error": "Not found."})  # over: nothing to abort
    assert status_of(sandbox, second) == "resign"


async def test_a_bulk_deleted_before_its_pairing_time_creates_no_game(sandbox: Sandbox) -> None:
    a, b, c, d = await tokens(sandbox, "alice", "bob", "carol", "dave")
    later = await created(sandbox, f"{a}:{b}", pairAt=now_ms(sandbox) + 60_000)
    paired = await created(sandbox, f"{c}:{d}")
    await advance(sandbox, 1)
    assert paired["games"][0]["id"] in sandbox.state.games
    for bulk in (later, paired):
        assert await call(sandbox, "DELETE", f"/api/bulk-pairing/{bulk['id']}", token=sandbox.bot_token) == (
            200,
            {"ok": True},
        )
    await advance(sandbox, 120)
    assert later["games"][0]["id"] not in sandbox.state.games
    assert status_of(sandbox, paired["games"][0]["id"]) == "started"  # created already: it stays
    assert (await call(sandbox, "DELETE", f"/api/bulk-pairing/{later['id']}", token=sandbox.bot_token))[0] == 404


async def test_a_player_who_made_the_open_challenge_is_told_the_game_can_no_longer_be_aborted(
    sandbox: Sandbox,
) -> None:
    alice = await personal_token(sandbox, "alice", scopes=["challenge:write"])
    bob = await personal_token(sandbox, "bob", scopes=["challenge:write"])
    form = CLOCK | {"users": "alice,bob"}
    status, reply = await call(sandbox, "POST", "/api/challenge/open", token=alice, data=form)
    assert status == 200, reply
    gid = reply["id"]
    sandbox.state.start(sandbox.state.games[gid])
    sandbox.state.games[gid].moves = ["e2e4", "e7e5"]
    assert await cancel(sandbox, gid, alice) == (400, {"error": "The game can no longer be aborted"})  # isOpenBy
    assert await cancel(sandbox, gid, bob) == (400, {"error": "Missing opponentToken"})
    assert await cancel(sandbox, gid, bob, alice) == (200, {"ok": True})
