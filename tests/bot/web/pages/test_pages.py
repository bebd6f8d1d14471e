"""The event pages over HTTP: every page of a running and a finished event, 404s, privacy, downloads, fragments."""

from __future__ import annotations

import asyncio
import re

import aiohttp
import pytest

from bot.web.pages.site import FRAGMENT_HEADER, VERSION_HEADER
from tests.bot.director.director_world import ORGANISER
from tests.bot.web.pages.conftest import Served


async def get(url: str, **headers: str) -> tuple[int, str, dict[str, str]]:
    async with aiohttp.ClientSession() as http, http.get(url, headers=headers) as reply:
        return reply.status, await reply.text(), dict(reply.headers)


async def finished_event(served: Served, players: int = 7, rounds: int = 3) -> int:
    """An event whose every game white wins, played to its end."""
    w = served.world
    event_id, _ = await w.event(players=players, rounds=rounds)
    await w.start(event_id)
    for _ in range(100):
        if await w.finished(event_id):
            return event_id
        await w.play_all(event_id, "white")
        w.clock.advance(60)
        await w.scheduler.run_due()
    raise AssertionError("the event did not finish")


async def test_every_page_of_a_finished_event_renders(served: Served) -> None:
    event_id = await finished_event(served)
    base = f"{served.url}/events/{event_id}"
    for path in (
        "/",
        f"/events/{event_id}",
        f"/events/{event_id}/crosstable",
        f"/events/{event_id}/rounds/2",
        f"/events/{event_id}/players/1",
    ):
        status, html, _ = await get(served.url + path)
        assert status == 200, path
        assert "<script" not in html  # a finished event does not refresh itself
    status, html, _ = await get(base)
    assert html.count("<tr>") >= 7 and "3 rounds · 3+2 · auto pairing" in html
    assert re.search(r"<svg[^>]*role=\"img\"", html)  # the leaders' chart
    status, index, _ = await get(served.url + "/")
    winner = (await served.world.director.standings(event_id))[0].player.name
    assert "Test Chess Club" in index and f"won by {winner}" in index


async def test_standings_on_the_page_match_the_directors(served: Served) -> None:
    event_id = await finished_event(served)
    _, html, _ = await get(f"{served.url}/events/{event_id}")
    table = html[html.index('id="standings"') : html.index("</table>", html.index('id="standings"'))]
    names = re.findall(r'/players/\d+">([^<]+)</a>', table)
    rows = await served.world.director.standings(event_id)
    assert names == [row.player.name for row in rows]


async def test_no_discord_id_or_token_appears(served: Served) -> None:
    event_id = await finished_event(served)
    entries = await served.world.director.entries(event_id)
    pages = [f"/events/{event_id}", f"/events/{event_id}/crosstable", f"/events/{event_id}/players/2", "/"]
    for path in pages:
        _, html, _ = await get(served.url + path)
        for entry in entries:
            assert str(entry.player.discord_id) not in html
        assert served.world.sandbox.bot_token not in html


@pytest.mark.parametrize(
    "path",
    [
        "/events/999",
        "/events/1/rounds/9",
        "/events/1/players/99",
        "/events/123456789012345678901234567890",
        "/events/abc",
        "/nothing/here",
        "/events/1.exe",
    ],
)
async def test_unknown_ids_and_bad_paths_are_a_plain_404_page(served: Served, path: str) -> None:
    await finished_event(served, players=4, rounds=1)
    status, html, _ = await get(served.url + path)
    assert status == 404 and "Not found" in html and "Traceback" not in html


async def test_a_private_clubs_event_is_404(served: Served) -> None:
    w = served.world
    settings = w.director.new_event_settings("Private", 3)
    event = await w.director.create_event(ORGANISER, 7, 8, settings)
    await w.director.open_event(ORGANISER, event.id)
    status, _, _ = await get(f"{served.url}/events/{event.id}")
    assert status == 404
    _, index, _ = await get(served.url + "/")
    assert "Private" not in index


async def test_downloads_are_the_public_exports(served: Served) -> None:
    event_id = await finished_event(served)
    for fmt in ("trf", "pgn", "json"):
        status, body, headers = await get(f"{served.url}/events/{event_id}.{fmt}")
        assert status == 200
        assert body.encode() == await served.world.director.export(event_id, fmt, public=True)
        assert headers["Content-Disposition"].endswith(f'event-{event_id}.{fmt}"')


async def test_the_fragment_changes_version_when_a_result_arrives(served: Served) -> None:
    w = served.world
    event_id, _ = await w.event(players=4, rounds=2)
    await w.start(event_id)
    url = f"{served.url}/events/{event_id}"
    status, page, headers = await get(url)
    assert status == 200 and "<script" in page and 'data-version="' + headers[VERSION_HEADER] in page
    _, fragment, again = await get(url, **{FRAGMENT_HEADER: "1"})
    assert not fragment.lstrip().startswith("<!doctype") and again[VERSION_HEADER] == headers[VERSION_HEADER]
    await w.play(event_id, 1, "black")
    w.clock.advance(30)
    await w.scheduler.run_due()
    _, fragment, later = await get(url, **{FRAGMENT_HEADER: "1"})
    assert later[VERSION_HEADER] != headers[VERSION_HEADER] and "0-1" in fragment


async def test_a_finished_events_page_is_rendered_anew_after_a_correction(served: Served) -> None:
    event_id = await finished_event(served, players=4, rounds=2)
    url = f"{served.url}/events/{event_id}/rounds/2"
    _, first, headers = await get(url)
    _, again, same = await get(url)
    assert again == first and same[VERSION_HEADER] == headers[VERSION_HEADER]
    assert "0-1" not in first  # white won every game
    await served.world.director.set_result(ORGANISER, event_id, 2, 1, "0-1", "arbiter's decision")
    _, corrected, later = await get(url)
    assert later[VERSION_HEADER] != headers[VERSION_HEADER] and "0-1" in corrected


async def test_after_a_change_a_read_live_events_tables_are_computed_before_its_next_reader_comes(
    served: Served,
) -> None:
    w = served.world
    event_id, _ = await w.event(players=4, rounds=2)
    await w.start(event_id)
    url = f"{served.url}/events/{event_id}"
    await get(url)  # a reader: the live event is watched
    tables = w.director.ctx.tables
    computed = tables.computed
    board = (await w.director.pairings(event_id, 1)).boards[0]
    await w.director.set_result(ORGANISER, event_id, 1, board.number, "0-1", "arbiter's decision")
    for _ in range(500):
        if tables.computed > computed:
            break
        await asyncio.sleep(0.01)
    assert tables.computed == computed + 1  # computed ahead, though nobody asked yet
    _, page, _ = await get(url)
    assert tables.computed == computed + 1 and "0-1" in page  # the next reader's page is made around them
