"""The gateway's bulk pairing, token and OAuth calls against the local Lichess (and lila's other list shape)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import berserk
import pytest
from aiohttp import web

from bot.lichess.errors import LichessOAuthRefused, LichessTokensRefused
from bot.lichess.gateway import LichessGateway
from bot.lichess.payloads import BulkPairing
from domain.settings import DEFAULT_RULES
from sandbox.lichess import Sandbox
from sandbox.lichess.state import Token
from tests.support.lichess_sandbox import gateway_kwargs

RULES = ("noAbort", *DEFAULT_RULES)


def add_token(sandbox: Sandbox, name: str, scopes: frozenset[str]) -> str:
    """A personal token of the account with these scopes (as `POST /sandbox/tokens` makes)."""
    secret = f"lip_test_{name.lower()}_{len(sandbox.state.tokens)}"
    sandbox.state.tokens[secret] = Token(secret, name.lower(), scopes)
    return secret


def player_tokens(sandbox: Sandbox, *names: str) -> list[str]:
    """A challenge:write token for each account."""
    return [add_token(sandbox, name, frozenset({"challenge:write"})) for name in names]


async def bulk(gateway: LichessGateway, pairs: list[tuple[str, str]], start_ms: int) -> BulkPairing:
    return await gateway.create_bulk(
        pairs,
        clock_limit=300,
        clock_increment=3,
        rated=True,
        rules=RULES,
        start_clocks_at_ms=start_ms,
        message="Your game with {opponent}: {game}",
    )


def test_berserks_own_bulk_create_is_still_broken(sandbox: Sandbox) -> None:
    """The reason `create_bulk` sends the form itself: if this starts passing, the workaround can go."""
    client = berserk.Client(berserk.TokenSession(sandbox.bot_token), base_url=sandbox.url)
    with pytest.raises(TypeError):
        client.bulk_pairings.create([("a", "b")], clock_limit=300, clock_increment=3)


async def test_create_bulk_sends_the_spec_form_and_reads_the_game_ids(
    sandbox: Sandbox, gateway: LichessGateway, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    a, b, c, d = player_tokens(sandbox, "Alice", "Bob", "Carol", "Dave")
    start = round(sandbox.state.now() * 1000) + 600_000
    reply = await bulk(gateway, [(a, b), (c, d)], start)
    stored = sandbox.state.bulks[reply.id]
    assert [(g.white, g.black) for g in reply.games] == [("alice", "bob"), ("carol", "dave")]
    assert [g.id for g in reply.games] == [g.id for g in stored.games]
    assert reply.start_clocks_at == start
    assert set(stored.rules) == set(RULES) and stored.rated
    assert (stored.clock_limit, stored.clock_increment) == (300, 3)
    listed = await gateway.list_bulks()
    assert [x.id for x in listed] == [reply.id]
    assert not any(token in caplog.text for token in (a, b, c, d))  # the players' tokens never reach a log


async def test_a_refused_token_is_named_but_not_in_the_message(sandbox: Sandbox, gateway: LichessGateway) -> None:
    a, b = player_tokens(sandbox, "Alice", "Bob")
    c = add_token(sandbox, "Carol", frozenset())  # no challenge:write
    d = player_tokens(sandbox, "Dave")[0]
    with pytest.raises(LichessTokensRefused) as caught:
        await bulk(gateway, [(a, b), (c, d)], round(sandbox.state.now() * 1000) + 600_000)
    assert set(caught.value.tokens) == {c}
    assert c not in str(caught.value) and sandbox.state.bulks == {}


async def test_token_test_answers_each_token(sandbox: Sandbox, gateway: LichessGateway) -> None:
    (good,) = player_tokens(sandbox, "Alice")
    answers = await gateway.test_tokens([good, "lio_nosuchtoken", sandbox.bot_token])
    assert answers["lio_nosuchtoken"] is None
    info = answers[good]
    assert info is not None and info.user_id == "alice" and info.scopes == frozenset({"challenge:write"})
    bot = answers[sandbox.bot_token]
    assert bot is not None and "challenge:bulk" in bot.scopes
    await gateway.revoke_token(good)
    assert (await gateway.test_tokens([good]))[good] is None
    await gateway.revoke_token(good)  # revoking a dead token is fine


async def test_a_code_lichess_refuses_is_an_oauth_refusal(gateway: LichessGateway) -> None:
    with pytest.raises(LichessOAuthRefused):
        await gateway.exchange_code("liu_nope", "v" * 64, "http://bot.test/oauth/callback", "swissbot")


@pytest.fixture
async def lila_shaped() -> AsyncIterator[str]:
    """A server answering `GET /api/bulk-pairing` the way lila's code does: `{"bulks": [...]}`."""

    async def bulks(_: web.Request) -> web.Response:
        item = {"id": "B1", "games": [{"id": "g1", "white": "Alice", "black": "bob"}], "startClocksAt": 5}
        return web.json_response({"bulks": [item]})

    app = web.Application()
    app.router.add_get("/api/bulk-pairing", bulks)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    yield f"http://127.0.0.1:{runner.addresses[0][1]}"
    await runner.cleanup()


async def test_list_bulks_accepts_lilas_object_shape_too(lila_shaped: str) -> None:
    gateway = LichessGateway(lila_shaped, "lip_x", **gateway_kwargs())
    try:
        (only,) = await gateway.list_bulks()
    finally:
        await gateway.close()
    assert (only.id, only.start_clocks_at, [(g.id, g.white, g.black) for g in only.games]) == (
        "B1",
        5,
        [("g1", "alice", "bob")],
    )
