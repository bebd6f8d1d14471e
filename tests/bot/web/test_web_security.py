"""The web endpoint as an attacker sees it: no Discord id or audit line in any public response, security headers on
every response, canonical routes only (aliases neither answer nor flush the cache), a quiet 414."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import aiohttp
import pytest

from bot.config import ClubConfig, WebConfig
from bot.director.models import Actor
from bot.web.app import WebServer
from bot.web.pages.site import FRAGMENT_HEADER, SITE, page_routes
from domain.settings import EventSettings
from tests.bot.director.director_world import World, make_world

GUILD = 800_000_000_000_000_001
CHANNEL = 800_000_000_000_000_002
ORGANISER = Actor(800_000_000_000_000_003, "orgname", True)
MEMBER_IDS = [800_000_000_000_000_101 + i for i in range(7)]
REASON = "reason-only-organisers-see"
SNOWFLAKE = re.compile(r"\d{17,20}")


@dataclass
class Endpoint:
    """The real web endpoint (`WebServer`) serving the pages of a club whose ids are real-sized snowflakes."""

    world: World
    server: WebServer

    @property
    def url(self) -> str:
        return self.server.local_url


@pytest.fixture
async def endpoint(tmp_path: Path) -> AsyncIterator[Endpoint]:
    async with make_world(tmp_path / "swiss.sqlite3", autoplay=False) as world:
        clubs = [ClubConfig(GUILD, "TD", CHANNEL, name="Snowflake Club", public=True)]
        config = WebConfig(host="127.0.0.1", port=0, public_url="https://swiss.example")
        server = WebServer(config, world.director, [page_routes(clubs, refresh_seconds=0.3)])
        await server.start()
        try:
            yield Endpoint(world, server)
        finally:
            await server.close()


async def get(url: str, **headers: str) -> tuple[int, str, dict[str, str]]:
    async with aiohttp.ClientSession() as http, http.get(url, headers=headers, allow_redirects=False) as reply:
        return reply.status, await reply.text(), dict(reply.headers)


async def busy_event(endpoint: Endpoint, *, finish: bool) -> int:
    """An event with everything private an organiser can add: a forbidden pair, a requested bye, a corrected result
    and a disqualification with reasons, its members and organiser under Discord snowflakes."""
    w = endpoint.world
    settings = EventSettings(
        name="Busy Swiss",
        rounds=3,
        start_at=w.clock.now() + timedelta(minutes=5),
        round_interval=120,
        no_show_seconds=300,
    )
    event = await w.director.create_event(ORGANISER, GUILD, CHANNEL, settings)
    await w.director.open_event(ORGANISER, event.id)
    members = []
    for i, discord_id in enumerate(MEMBER_IDS):
        member = await w.member(f"player{i + 1:02d}", rating=2000 - 10 * i, discord_id=discord_id)
        await w.director.join(member, event.id)
        members.append(member)
    await w.director.forbid(ORGANISER, event.id, "player01", "player02")
    assert await w.director.request_bye(members[3], event.id, 2) == 2
    await w.start(event.id)
    await w.play_all(event.id, "white")
    w.clock.advance(60)
    await w.scheduler.run_due()
    await w.director.set_result(ORGANISER, event.id, 1, 1, "0-1", REASON)
    await w.director.disqualify(ORGANISER, event.id, "player07", REASON)
    if finish:
        for _ in range(100):
            if await w.finished(event.id):
                break
            await w.play_all(event.id, "white")
            w.clock.advance(60)
            await w.scheduler.run_due()
        assert await w.finished(event.id)
    else:
        await w.next_round(event.id)
    return event.id


async def public_paths(endpoint: Endpoint, event_id: int) -> list[str]:
    """Every public route of the event: the index, its pages, every round and player, the downloads, the script."""
    event = await endpoint.world.director.event(event_id)
    players = len(MEMBER_IDS)
    return [
        "/",
        "/static/live.js",
        f"/events/{event_id}",
        f"/events/{event_id}/crosstable",
        *(f"/events/{event_id}/rounds/{n}" for n in range(1, event.current_round + 1)),
        *(f"/events/{event_id}/players/{n}" for n in range(1, players + 1)),
        *(f"/events/{event_id}.{fmt}" for fmt in ("trf", "pgn", "json")),
    ]


@pytest.mark.parametrize("finish", [False, True], ids=["running", "finished"])
async def test_no_public_response_carries_a_discord_id_or_an_audit_line(endpoint: Endpoint, finish: bool) -> None:
    event_id = await busy_event(endpoint, finish=finish)
    secrets = [str(i) for i in (GUILD, CHANNEL, ORGANISER.discord_id, *MEMBER_IDS)]
    full = (await endpoint.world.director.export(event_id, "json")).decode()
    assert all(s in full for s in secrets) and REASON in full  # the organisers' export keeps them
    for path in await public_paths(endpoint, event_id):
        for fragment in ("0", "1"):
            status, body, _ = await get(endpoint.url + path, **{FRAGMENT_HEADER: fragment})
            assert status == 200, path
            assert not SNOWFLAKE.search(body), (path, SNOWFLAKE.search(body))
            assert REASON not in body and "orgname" not in body and endpoint.world.sandbox.bot_token not in body, path
    _, body, _ = await get(f"{endpoint.url}/events/{event_id}.json")
    document = json.loads(body)
    assert not {"audit", "requested_byes", "forbidden_pairs"} & set(document)
    assert "created_by" not in document["event"] and "guild_id" not in document["event"]["settings"]
    assert all("discord_id" not in entry for entry in document["entries"]) and len(document["entries"]) == 7


EXPECTED_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Server": "swissbot",
}


def assert_secure(path: str, headers: dict[str, str]) -> None:
    for name, value in EXPECTED_HEADERS.items():
        assert headers.get(name) == value, (path, name, headers.get(name))
    policy = headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in policy and "script-src 'self'" in policy, path
    assert "unsafe-inline" not in policy.split("script-src")[1].split(";")[0], path
    assert "aiohttp" not in str(headers) and "Python" not in str(headers), path
    assert headers.get("Cache-Control"), path


async def test_every_response_carries_the_security_headers_and_a_fitting_cache_rule(endpoint: Endpoint) -> None:
    running = await busy_event(endpoint, finish=False)
    for path in [*await public_paths(endpoint, running), "/events/999", "/nothing", "/oauth/nothing"]:
        status, body, headers = await get(endpoint.url + path)
        assert_secure(path, headers)
        if path.startswith("/events/") and status == 200:
            assert headers["Cache-Control"] == "no-cache", path  # a live page or file: always revalidated
        if status == 200 and "text/html" in headers["Content-Type"]:
            assert not re.search(r"<script(?![^>]*\bsrc=)", body), path  # no inline script
            assert not re.search(r"<[^>]+\son[a-z]+=", body), path  # no inline event handler
    _, page, _ = await get(f"{endpoint.url}/events/{running}")
    assert '<script src="/static/live.js" defer></script>' in page and "data-refresh-ms=" in page
    _, script, headers = await get(f"{endpoint.url}/static/live.js")
    assert headers["Content-Type"].startswith("text/javascript") and "X-Swissbot-Fragment" in script


async def test_a_finished_events_pages_and_files_are_cacheable(endpoint: Endpoint) -> None:
    finished = await busy_event(endpoint, finish=True)
    for path in (f"/events/{finished}", f"/events/{finished}/rounds/1", f"/events/{finished}.pgn"):
        _, _, headers = await get(endpoint.url + path)
        assert_secure(path, headers)
        assert headers["Cache-Control"].startswith("public, max-age="), path


@pytest.mark.parametrize(
    "alias",
    [
        "/events/0{id}",
        "/events/00{id}/crosstable",
        "/events/{id}/rounds/01",
        "/events/{id}/players/0001",
        "/events/{arabic}",
        "/events/{fullwidth}",
        "/events/{arabic}/crosstable",
        "/events/{id}/rounds/\u0661",
        "/events/0{id}.json",
        "/events/{id}/rounds/0",
        "/events/%EF%BC%91",
    ],
)
async def test_aliases_of_numeric_routes_are_404_and_never_reach_the_cache(endpoint: Endpoint, alias: str) -> None:
    event_id = await busy_event(endpoint, finish=True)
    arabic = "".join(chr(0x0660 + int(d)) for d in str(event_id))
    fullwidth = "".join(chr(0xFF10 + int(d)) for d in str(event_id))
    site = endpoint.server.app[SITE]
    status, _, _ = await get(f"{endpoint.url}/events/{event_id}/crosstable")
    assert status == 200
    cached = dict(site.cache)
    status, body, headers = await get(endpoint.url + alias.format(id=event_id, arabic=arabic, fullwidth=fullwidth))
    assert status == 404 and "Not found" in body
    assert_secure(alias, headers)
    assert site.cache == cached  # an alias adds nothing, so it cannot push the real pages out


async def test_the_cache_holds_one_entry_per_page_whatever_the_request(endpoint: Endpoint) -> None:
    event_id = await busy_event(endpoint, finish=True)
    site = endpoint.server.app[SITE]
    site.cache.clear()
    for query in ("", "?a=1", "?b=2", "?a=1&c=3"):
        status, _, _ = await get(f"{endpoint.url}/events/{event_id}{query}")
        assert status == 200
    for fragment in ("1", "yes", "2"):
        await get(f"{endpoint.url}/events/{event_id}", **{FRAGMENT_HEADER: fragment})
    assert len(site.cache) == 1  # one rendering serves the page and its fragment


async def test_an_over_long_request_line_is_a_414_without_a_traceback(
    endpoint: Endpoint, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    reader, writer = await asyncio.open_connection("127.0.0.1", endpoint.server.port)
    writer.write(b"GET /events/" + b"1" * 20_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(4096), 10)
    writer.close()
    head = answer.decode("latin-1")
    assert re.match(r"HTTP/1\.[01] 414 ", head), head[:200]
    assert "Server: swissbot" in head and "X-Content-Type-Options: nosniff" in head
    assert "Traceback" not in caplog.text and not any(r.exc_info for r in caplog.records)
    assert "414" in caplog.text
    status, _, _ = await get(endpoint.url + "/")  # the endpoint still answers
    assert status == 200
