"""The pages under readers who ask at the same moment, through the real endpoint: one rendering of a page and version
whatever the readers, a failed rendering reaching every reader who waited for it and kept by none after, one read of
the event's version for a burst of readers, the last page at once in a burst; and `Fresh`, that read, forgetting a
read begun before a change."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import jinja2
import pytest
from aiohttp import web

from bot.web.app import Runner
from bot.web.pages import site as pages
from bot.web.pages.site import SITE, VERSION_HEADER, Fresh, Rendered, View, make_pages_app
from tests.bot.director.director_world import ORGANISER, World, make_world
from tests.bot.web.pages.conftest import CLUBS

READERS = 12


@dataclass
class Burst:
    """Holds the event's version read until `expected` requests have reached the pages' handlers, so that they all
    ask at the same moment; counts the version reads and the renderings by template."""

    expected: int = 0
    arrived: int = 0
    version_reads: int = 0
    rendered: Counter[str] = field(default_factory=Counter)
    everyone_in: asyncio.Event = field(default_factory=asyncio.Event)

    def expect(self, readers: int) -> None:
        """The next `readers` requests come together."""
        self.expected, self.arrived = readers, 0
        self.everyone_in.clear()

    @web.middleware
    async def middleware(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        self.arrived += 1
        if self.arrived >= self.expected:
            self.everyone_in.set()
        return await handler(request)


@dataclass
class Endpoint:
    world: World
    url: str
    app: web.Application
    burst: Burst


@asynccontextmanager
async def endpoint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Endpoint]:
    """The pages of a director world on loopback, with the burst's middleware innermost and its counters."""
    burst = Burst()
    async with make_world(tmp_path / "swiss.sqlite3", autoplay=False) as world:
        director = world.director
        read_version = director.content_version

        async def held_version(event_id: int) -> str:
            burst.version_reads += 1
            await burst.everyone_in.wait()
            return await read_version(event_id)

        monkeypatch.setattr(director, "content_version", held_version)
        render = pages.render

        def counted(environment: jinja2.Environment, view: View, refresh_ms: int) -> Rendered:
            burst.rendered[view.template] += 1
            return render(environment, view, refresh_ms)

        monkeypatch.setattr(pages, "render", counted)
        app = make_pages_app(director, CLUBS, refresh_seconds=0.3)
        app.middlewares.append(burst.middleware)
        runner = Runner(app)
        await runner.setup()
        server = web.TCPSite(runner, "127.0.0.1", 0)
        await server.start()
        try:
            yield Endpoint(world, f"http://127.0.0.1:{runner.addresses[0][1]}", app, burst)
        finally:
            await runner.cleanup()


async def together(urls: list[str], burst: Burst) -> list[tuple[int, str, str]]:
    """Requests for `urls` at the same moment: each one's status, body and version."""
    burst.expect(len(urls))

    async def one(http: aiohttp.ClientSession, url: str) -> tuple[int, str, str]:
        async with http.get(url) as reply:
            return reply.status, await reply.text(), reply.headers.get(VERSION_HEADER, "")

    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=len(urls))) as http:
        return list(await asyncio.gather(*(one(http, url) for url in urls)))


async def read(url: str, burst: Burst) -> tuple[int, str, str]:
    """One request alone."""
    return (await together([url], burst))[0]


async def correct(w: World, event_id: int, result: str) -> None:
    """An arbiter's correction of round 1's first board: a new version of the event."""
    board = (await w.director.pairings(event_id, 1)).boards[0]
    await w.director.set_result(ORGANISER, event_id, 1, board.number, result, "arbiter's decision")


async def running_event(w: World) -> int:
    event_id, _ = await w.event(players=4, rounds=2)
    await w.start(event_id)
    return event_id


async def settled(app: web.Application, path: str) -> None:
    """The page's latest rendering has finished (it may outlive the request that started it)."""
    known = app[SITE].cache.get(path)
    if known is not None:
        await asyncio.wait([known[1]])


async def test_readers_of_a_page_after_a_change_cost_one_rendering_and_one_version_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with endpoint(tmp_path, monkeypatch) as e:
        w, burst = e.world, e.burst
        event_id = await running_event(w)
        path = f"/events/{event_id}"
        status, _, before = await read(e.url + path, burst)
        assert status == 200
        await correct(w, event_id, "0-1")
        reads, renders = burst.version_reads, burst.rendered["event.html"]
        answers = await together([e.url + path] * READERS, burst)
        await settled(e.app, path)
        assert [status for status, _, _ in answers] == [200] * READERS
        assert burst.version_reads == reads + 1  # the burst read the event's version once
        assert burst.rendered["event.html"] == renders + 1  # and rendered the page of the new version once
        status, page, after = await read(e.url + path, burst)
        assert (status, burst.rendered["event.html"]) == (200, renders + 1) and after != before and "0-1" in page
        # the request that started the rendering waited for it; the others got the last page at once
        assert Counter(version for _, _, version in answers) == Counter({after: 1, before: READERS - 1})


async def test_readers_of_a_page_never_rendered_wait_for_its_one_rendering(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with endpoint(tmp_path, monkeypatch) as e:
        event_id = await running_event(e.world)
        answers = await together([f"{e.url}/events/{event_id}/crosstable"] * READERS, e.burst)
        assert [status for status, _, _ in answers] == [200] * READERS
        assert len({(body, version) for _, body, version in answers}) == 1  # one page for all
        assert (e.burst.rendered["crosstable.html"], e.burst.version_reads) == (1, 1)


async def test_a_failed_rendering_reaches_every_reader_who_waited_and_the_next_reader_renders_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with endpoint(tmp_path, monkeypatch) as e:
        event_id = await running_event(e.world)
        counted = pages.render
        failures = [RuntimeError("the template broke")]

        def fails_once(environment: jinja2.Environment, view: View, refresh_ms: int) -> Rendered:
            if view.template == "crosstable.html" and failures:
                e.burst.rendered[view.template] += 1
                raise failures.pop()
            return counted(environment, view, refresh_ms)

        monkeypatch.setattr(pages, "render", fails_once)
        url = f"{e.url}/events/{event_id}/crosstable"
        answers = await together([url] * READERS, e.burst)
        assert [status for status, _, _ in answers] == [500] * READERS
        assert all("Something went wrong" in body for _, body, _ in answers)
        assert e.burst.rendered["crosstable.html"] == 1  # one rendering, which every reader waited for
        status, page, _ = await read(url, e.burst)
        assert status == 200 and "crosstable" in page
        assert e.burst.rendered["crosstable.html"] == 2  # the failure was not kept: the next reader rendered again


async def test_in_a_burst_a_reader_gets_the_last_page_at_once_and_alone_waits_for_the_new_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with endpoint(tmp_path, monkeypatch) as e:
        w, burst = e.world, e.burst
        event_id = await running_event(w)
        urls = [f"{e.url}/events/{event_id}", f"{e.url}/events/{event_id}/crosstable"]
        first = [version for _, _, version in await together(urls, burst)]
        counted = pages.render
        entered, released = threading.Event(), threading.Event()

        def held(environment: jinja2.Environment, view: View, refresh_ms: int) -> Rendered:
            entered.set()
            released.wait(timeout=30)  # a safety net: the test releases it
            return counted(environment, view, refresh_ms)

        monkeypatch.setattr(pages, "render", held)
        monkeypatch.setattr(pages, "STALE_AFTER", 0)
        await correct(w, event_id, "0-1")
        # both pages of the new version render at once, held: each reader gets the last finished page
        assert [(status, version) for status, _, version in await together(urls, burst)] == [(200, v) for v in first]
        released.set()
        for url in urls:
            await settled(e.app, url.removeprefix(e.url))
        second = [version for _, _, version in await together(urls, burst)]
        assert all(new != old for new, old in zip(second, first, strict=True))
        released.clear()
        entered.clear()
        await correct(w, event_id, "1-0")
        alone = asyncio.ensure_future(read(urls[0], burst))  # no other page renders: it waits for its page
        assert await asyncio.to_thread(entered.wait, 30)
        released.set()
        status, page, version = await alone
        assert status == 200 and version not in (first[0], second[0]) and "1-0" in page


@dataclass
class HeldDirector:
    """What `Fresh` reads, each version read held until released: the event, and a version that moves each read."""

    shown: Any = field(default_factory=object)
    reads: int = 0
    release: list[asyncio.Event] = field(default_factory=list)

    async def event(self, event_id: int) -> Any:
        return self.shown

    async def content_version(self, event_id: int) -> str:
        self.reads += 1
        version = f"v{self.reads}"
        released = asyncio.Event()
        self.release.append(released)
        await released.wait()
        return version


async def test_a_version_read_begun_before_a_change_serves_its_readers_but_is_kept_for_nobody_after() -> None:
    held = HeldDirector()
    fresh = Fresh(held)  # type: ignore[arg-type]  # `Fresh` reads only `event` and `content_version`
    first = asyncio.gather(*(fresh.get(1) for _ in range(3)))
    while held.reads < 1:
        await asyncio.sleep(0)
    fresh.forget()  # a change while the read is under way
    second = asyncio.ensure_future(fresh.get(1))
    while held.reads < 2:
        await asyncio.sleep(0)
    held.release[0].set()
    assert [version for _, version in await first] == ["v1"] * 3  # one read for the three readers before the change
    assert 1 not in fresh.known  # it may have begun before the change's write: kept for nobody after it
    held.release[1].set()
    assert await second == (held.shown, "v2")
    assert await fresh.get(1) == (held.shown, "v2") and held.reads == 2  # kept for the readers after it
