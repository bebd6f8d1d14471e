"""The event pages in a real browser (headless Chromium): standings as `swissbot standings` computes them from
the exported TRF, links that lead somewhere, a result that appears without a reload, and a screenshot."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from bot.cli import main as swissbot
from tests.bot.web.pages.conftest import Served
from tests.bot.web.pages.test_pages import finished_event
from tests.support.browser import chromium, keep_screenshot, require_chromium

pytestmark = pytest.mark.slow  # headless Chromium

T = TypeVar("T")


async def run(call: Callable[[], T]) -> T:
    """A blocking WebDriver call, off the event loop that serves the pages."""
    return await asyncio.to_thread(call)


def cli_standings(trf: Path, codes: tuple[str, ...]) -> list[dict[str, object]]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert swissbot(["standings", str(trf), "--json", "--tiebreaks", ",".join(codes)]) == 0
    rows: list[dict[str, object]] = json.loads(out.getvalue())
    return rows


def points(text: str) -> float:
    """'2½' as 2.5."""
    return float(text.replace("½", "")) + 0.5 if "½" in text and text != "½" else 0.5 if text == "½" else float(text)


def table_rows(browser: WebDriver, selector: str) -> list[list[str]]:
    rows = browser.find_elements(By.CSS_SELECTOR, f"{selector} tbody tr")
    return [[cell.text for cell in row.find_elements(By.CSS_SELECTOR, "th, td")] for row in rows]


@pytest.mark.lichess_http  # the browser follows a game link to the local Lichess
async def test_a_finished_event_in_the_browser(served: Served, tmp_path: Path) -> None:
    require_chromium()
    event_id = await finished_event(served, players=8, rounds=3)
    event = await served.world.director.event(event_id)
    trf = tmp_path / "event.trf"
    trf.write_bytes(await served.world.director.export(event_id, "trf"))
    expected = cli_standings(trf, event.settings.tiebreaks)
    with chromium() as browser:
        await run(lambda: browser.get(f"{served.url}/events/{event_id}"))
        assert browser.title == event.name
        rows = await run(lambda: table_rows(browser, "#standings"))
        names = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#standings tbody tr th a")]
        shown = [(int(r[0]), name, points(r[4])) for r, name in zip(rows, names, strict=True)]
        assert shown == [(e["rank"], e["name"], float(str(e["points"]))) for e in expected]
        keep_screenshot(browser, f"event-{event_id}.png")
        for path, heading in (
            (f"/events/{event_id}/crosstable", "crosstable"),
            (f"/events/{event_id}/rounds/1", "round 1"),
            ("/", "Events"),
        ):
            await run(lambda path=path: browser.get(served.url + path))  # type: ignore[misc]
            assert heading in browser.find_element(By.TAG_NAME, "h1").text
        # a player link leads to the player's page, with every round of theirs
        await run(lambda: browser.get(f"{served.url}/events/{event_id}"))
        link = browser.find_element(By.CSS_SELECTOR, "#standings tbody tr th a")
        name = link.text
        await run(link.click)
        assert browser.find_element(By.TAG_NAME, "h1").text == name
        assert len(await run(lambda: table_rows(browser, "#games"))) == 3
        # a game link leads to the game on (the local) Lichess
        await run(lambda: browser.get(f"{served.url}/events/{event_id}/rounds/2"))
        game = browser.find_element(By.LINK_TEXT, "game")
        href = game.get_attribute("href") or ""
        assert href.startswith(served.world.sandbox.url)
        await run(game.click)
        assert " vs " in browser.title and browser.current_url == href


async def test_a_result_appears_without_reloading(served: Served) -> None:
    require_chromium()
    w = served.world
    event_id, _ = await w.event(players=4, rounds=2)
    await w.start(event_id)
    with chromium() as browser:
        await run(lambda: browser.get(f"{served.url}/events/{event_id}"))
        await run(lambda: browser.execute_script("window.stayedOnThisPage = 42;"))
        before = await run(lambda: table_rows(browser, "#main table:nth-of-type(1)"))
        assert before
        await w.play(event_id, 1, "black")
        w.clock.advance(30)
        await w.scheduler.run_due()
        assert (await w.director.pairings(event_id)).boards[0].result is not None

        def shows_result(_: object) -> bool:
            return "0-1" in browser.find_element(By.ID, "main").text

        await run(lambda: WebDriverWait(browser, 10, poll_frequency=0.2).until(shows_result))
        assert await run(lambda: browser.execute_script("return window.stayedOnThisPage;")) == 42
        keep_screenshot(browser, f"event-{event_id}-live.png")
