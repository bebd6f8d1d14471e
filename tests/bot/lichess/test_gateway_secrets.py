"""The bot's own Lichess token goes only where the bot acts as itself: never on the OAuth code exchange."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from aiohttp import web

from bot.lichess.gateway import LichessGateway
from tests.support.lichess_sandbox import gateway_kwargs

BOT_TOKEN = "lip_the_bots_own_token"


@dataclass
class Seen:
    """The requests a recording Lichess received: method, path, headers, body."""

    requests: list[tuple[str, str, dict[str, str], str]] = field(default_factory=list)


@pytest.fixture
async def recording() -> AsyncIterator[tuple[str, Seen]]:
    seen = Seen()

    async def record(request: web.Request) -> web.Response:
        seen.requests.append((request.method, request.path, dict(request.headers), await request.text()))
        if request.path == "/api/token":
            return web.json_response({"token_type": "Bearer", "access_token": "lio_member", "expires_in": 60})
        return web.json_response({"id": "alice", "username": "Alice", "perfs": {}})

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", record)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    yield f"http://127.0.0.1:{runner.addresses[0][1]}", seen
    await runner.cleanup()


async def test_the_code_exchange_carries_no_bot_token_and_the_members_calls_their_own(
    recording: tuple[str, Seen],
) -> None:
    url, seen = recording
    gateway = LichessGateway(url, BOT_TOKEN, **gateway_kwargs())
    try:
        token = await gateway.exchange_code("code123", "v" * 64, "https://bot.test/oauth/callback", "swissbot")
        await gateway.account_of(token.token)
        await gateway.whoami()  # the bot acting as itself still sends its token
    finally:
        await gateway.close()
    (exchange, account, own) = seen.requests
    assert exchange[:2] == ("POST", "/api/token")
    assert "Authorization" not in exchange[2] and BOT_TOKEN not in exchange[3] and "code123" in exchange[3]
    assert account[2]["Authorization"] == "Bearer lio_member"
    assert own[2]["Authorization"] == f"Bearer {BOT_TOKEN}"
