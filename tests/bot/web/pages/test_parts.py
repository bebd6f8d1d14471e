"""The pages' pieces of an event's state are made once beside its standings, in a worker process in the bot."""

from __future__ import annotations

from bot.director.tables import compute_views
from bot.web.pages.parts import PAGES_VIEW, PageParts, pages_view
from bot.workers import Workers
from storage.history import get_history
from tests.bot.web.pages.conftest import Served
from tests.bot.web.pages.test_pages import finished_event, get


async def test_the_pieces_made_in_a_worker_process_are_the_ones_made_here_and_the_pages_show_them(
    served: Served,
) -> None:
    event_id = await finished_event(served, players=7, rounds=3)
    director = served.world.director
    history = await get_history(served.world.db, event_id)
    derive = {PAGES_VIEW: pages_view(director.lichess_url)}
    here = compute_views(history, None, derive)
    workers = Workers(1)
    workers.start()
    try:
        there = await workers.run(compute_views, history, None, derive)
    finally:
        await workers.close()
    assert workers.offloaded == 1 and there == here
    parts = there.derived[PAGES_VIEW]
    assert isinstance(parts, PageParts)
    assert parts.standings_rows.count("<tr>") == 7 and parts.crosstable_rows.count("<tr>") == 7
    assert parts.crosstable_rounds == 3 and "<svg" in parts.chart
    assert compute_views(history, 2, derive).derived == {}  # "after round 2" views are the standings only
    _, page, _ = await get(f"{served.url}/events/{event_id}")
    _, crosstable, _ = await get(f"{served.url}/events/{event_id}/crosstable")
    assert parts.standings_rows in page and parts.chart in page and parts.crosstable_rows in crosstable
