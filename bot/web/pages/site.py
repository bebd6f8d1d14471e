"""The event pages: a route module of the bot's web endpoint (`page_routes`), which `swissbot demo --serve` runs too.

Only public clubs' events are shown (`[[clubs]] public = true`); everything else, unknown ids and bad paths
answer the 404 page. Pages show what members see in Discord (Lichess names, ratings, results, links),
never Discord ids, and the JSON download is the public export (no Discord ids, requested byes, forbidden pairs
or audit log). A page of an event in progress refreshes its `<main>` by itself: `/static/live.js` (no inline
script: the endpoint's Content-Security-Policy allows none) asks for the same URL with `X-Swissbot-Fragment: 1`
and swaps the content only when its version changed. Numbers in paths are canonical ASCII (`/events/12`, never
`/events/012` or other digits), so every page has one URL and one cache entry.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import importlib.resources
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import jinja2
from aiohttp import web
from markupsafe import Markup

from bot.config import ClubConfig
from bot.director.api import Director
from bot.director.models import RoundView
from bot.director.tables import EventTables
from bot.errors import SwissbotError
from bot.rendering.text import RESULT_LABELS, format_points, format_tiebreak
from bot.web.app import RouteModule, make_app
from bot.web.keys import DIRECTOR
from bot.web.pages.parts import (
    KIND_TEXT,
    PAGES_VIEW,
    PageParts,
    PlayerLink,
    links,
    pages_view,
    running_scores,
    templates,
)
from domain.event import Event, EventStatus
from pairing.model import Outcome, RecordKind
from pairing.standings.crosstable import CrosstableCell

log = logging.getLogger(__name__)

FRAGMENT_HEADER = "X-Swissbot-Fragment"
VERSION_HEADER = "X-Swissbot-Version"
MAX_ID = 2**62  # SQLite's integers: a longer number is no id of ours
LIVE_CACHE = "no-cache"  # a live page or file: revalidate every time
FINISHED_CACHE = "public, max-age=300"  # a finished event changes only by a rare correction
STATIC_CACHE = "public, max-age=86400"
LIVE_SCRIPT = importlib.resources.files("bot.web.pages").joinpath("static/live.js").read_bytes()
LIVE = frozenset({EventStatus.OPEN, EventStatus.RUNNING, EventStatus.PAUSED})
SHOWN = frozenset({EventStatus.OPEN, EventStatus.RUNNING, EventStatus.PAUSED, EventStatus.FINISHED})
DOWNLOADS = {"trf": "text/plain", "pgn": "application/x-chess-pgn", "json": "application/json"}
OUTCOME_TEXT = {Outcome.WIN: "won", Outcome.DRAW: "drew", Outcome.LOSS: "lost"}


@dataclass
class Prefetch:
    """After every change the director makes, the tables of the live events whose pages were read lately are
    computed at once (in the worker process, the pages' pieces with them), one pass at a time, so the reader who
    comes next finds the page of the new version only to be rendered around them."""

    director: Director
    viewed: dict[int, None] = field(default_factory=dict)  # live events read lately, oldest first
    again: bool = False
    task: asyncio.Task[None] | None = None

    def saw(self, event_id: int) -> None:
        """A live event's page was read."""
        self.viewed.pop(event_id, None)
        self.viewed[event_id] = None
        while len(self.viewed) > PREFETCHED:
            self.viewed.pop(next(iter(self.viewed)))

    def changed(self) -> None:
        """The director changed something: compute the viewed events' tables (again, if a pass is running)."""
        if not self.viewed:
            return
        if self.task is not None and not self.task.done():
            self.again = True
            return
        with contextlib.suppress(RuntimeError):  # told outside the loop: the next reader computes them
            self.task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        """Stop a pass under way (the endpoint closes)."""
        self.viewed.clear()
        if self.task is not None and not self.task.done():
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

    async def _run(self) -> None:
        self.again = True
        while self.again:
            self.again = False
            for event_id in list(self.viewed):
                try:
                    await self.director.tables(event_id)
                except Exception:  # the event went away, or the database closed: its readers will see why
                    log.debug("no tables computed ahead for event %s", event_id, exc_info=True)
                    self.viewed.pop(event_id, None)


@dataclass
class Fresh:
    """Each event and its content version as last read, kept `FRESH_SECONDS` and forgotten at every change the
    director makes; one read an event at a time, which every request that comes meanwhile waits for, so the readers
    of an event whose version expired cost one read, not one each (they queued behind each other's reads in the
    database's one thread)."""

    director: Director
    known: dict[int, tuple[float, Event, str]] = field(default_factory=dict)
    reads: dict[int, asyncio.Task[tuple[Event, str]]] = field(default_factory=dict)

    def forget(self) -> None:
        """A change: what was read, and a read under way (it may have begun before the write), serve no reader more."""
        self.known.clear()
        self.reads.clear()

    async def get(self, event_id: int) -> tuple[Event, str]:
        """The event and its content version, read in that order, before any of the page's data."""
        known = self.known.get(event_id)
        if known is not None and time.monotonic() - known[0] <= FRESH_SECONDS:
            return known[1], known[2]
        read = self.reads.get(event_id)
        if read is None:
            read = self.reads[event_id] = asyncio.ensure_future(self._read(event_id))
            read.add_done_callback(_retrieved)
        return await asyncio.shield(read)  # a reader that goes away cancels nobody else's read

    async def _read(self, event_id: int) -> tuple[Event, str]:
        started = time.monotonic()
        try:
            event = await self.director.event(event_id)
            version = await self.director.content_version(event_id)
        finally:
            current = self.reads.get(event_id) is asyncio.current_task()
            if current:
                del self.reads[event_id]  # a failure is not kept either: the next reader reads again
        if current:
            self.known[event_id] = (started, event, version)
            while len(self.known) > CACHE_SIZE:
                self.known.pop(next(iter(self.known)))
        return event, version


def _retrieved(future: asyncio.Future[Any]) -> None:
    """Mark a shared task's failure retrieved: every request waiting for it may have gone (clients disconnected)."""
    if not future.cancelled():
        future.exception()


@dataclass(frozen=True)
class Site:
    """What the pages read: the director, the clubs (only public ones are shown) and the live refresh period;
    `cache` holds each event page's (by path) latest rendering, started for a content version of the event, and
    `shown` its last finished one."""

    director: Director
    clubs: tuple[ClubConfig, ...]
    refresh_seconds: float = 10.0
    cache: dict[str, tuple[str, asyncio.Future[Rendered]]] = field(default_factory=dict, repr=False)
    shown: dict[str, Rendered] = field(default_factory=dict, repr=False)
    winners: dict[tuple[int, int], str | None] = field(default_factory=dict, repr=False)
    fresh: Fresh = field(init=False, repr=False)  # `_event_and_version`
    prefetch: Prefetch = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "fresh", Fresh(self.director))
        object.__setattr__(self, "prefetch", Prefetch(self.director))

    def changed(self) -> None:
        """The director changed something: read events and versions anew, compute the viewed ones' tables ahead."""
        self.fresh.forget()
        self.prefetch.changed()

    async def winner(self, event_id: int) -> str | None:
        """The finished event's winner (first of the standings), computed once per state of its audit log."""
        key = (event_id, await self.director.last_change(event_id))
        if key not in self.winners:
            rows = await self.director.standings(event_id)
            self.winners[key] = next((r.player.name for r in rows if r.rank == 1), None)
        return self.winners[key]

    @property
    def lichess_url(self) -> str:
        """The Lichess the games are played on (player and game links)."""
        return self.director.lichess_url

    def public_club(self, guild_id: int) -> ClubConfig | None:
        """The club of a guild, when it publishes its events."""
        return next((c for c in self.clubs if c.guild_id == guild_id and c.public), None)


SITE = web.AppKey("site", Site)
TEMPLATES = web.AppKey("pages_templates", jinja2.Environment)  # the pages' own Jinja2 environment


def page_routes(clubs: Sequence[ClubConfig], *, refresh_seconds: float = 10.0) -> RouteModule:
    """The route module that adds the pages to the bot's web application (`bot.web.app.make_app`)."""

    def add_routes(app: web.Application) -> None:
        director = app[DIRECTOR]
        app[SITE] = site = Site(director, tuple(clubs), refresh_seconds)
        director.add_listener(site.changed)  # a change the director made shows at the next request
        app.on_cleanup.append(lambda _: site.prefetch.stop())
        app[TEMPLATES] = templates()
        director.derive(PAGES_VIEW, pages_view(director.lichess_url))  # made once per change, beside the standings
        app.middlewares.append(_errors)
        # canonical numbers only: ASCII digits without a leading zero (`\d` would take any script's digits)
        event, number = "{id:[1-9][0-9]*}", "{number:[1-9][0-9]*}"
        app.router.add_get("/", _uncached(index))
        app.router.add_get("/static/live.js", live_script)
        app.router.add_get(f"/events/{event}", _cached(event_page))
        app.router.add_get(f"/events/{event}/rounds/{number}", _cached(round_page))
        app.router.add_get(f"/events/{event}/crosstable", _cached(crosstable_page))
        app.router.add_get(f"/events/{event}/players/{number}", _cached(player_page))
        app.router.add_get(f"/events/{event}.{{fmt:trf|pgn|json}}", download)

    return add_routes


def make_pages_app(
    director: Director, clubs: Sequence[ClubConfig], *, refresh_seconds: float = 10.0
) -> web.Application:
    """The bot's web application with the pages as its only route module (tests, the benchmark)."""
    return make_app(director, [page_routes(clubs, refresh_seconds=refresh_seconds)])


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def _errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Unknown paths and ids, and refusals of the director, are the 404 page; anything else the 500 page."""
    try:
        return await handler(request)
    except (web.HTTPNotFound, web.HTTPMethodNotAllowed, SwissbotError):
        return await _respond(request, View("not_found.html", {"title": "Not found"}, status=404))
    except web.HTTPException:
        raise
    except Exception:
        log.exception("page %s failed", request.path)
        return await _respond(request, View("error.html", {"title": "Something went wrong"}, status=500))


CACHE_SIZE = 512
FRESH_SECONDS = 0.5
STALE_AFTER = 0.02  # seconds between two looks of a waiting request for a burst (other pages rendering beside)
PREFETCHED = 16  # live events whose tables are computed ahead of their readers
PageHandler = Callable[[web.Request], Awaitable["View"]]
EventPageHandler = Callable[[web.Request, Event], Awaitable["View"]]  # an event's page, given the shown event


@dataclass(frozen=True)
class View:
    """A page to render: its template, the template's context and the HTTP status."""

    template: str
    context: dict[str, Any] | Callable[[], dict[str, Any]]  # a function: built in the rendering's thread
    status: int = 200


@dataclass(frozen=True)
class Rendered:
    """A rendered page: its `<main>` content (what the live script swaps in), the whole page, the content's
    version and the HTTP status."""

    main: str
    page: str
    version: str
    status: int


def render(environment: jinja2.Environment, view: View, refresh_ms: int) -> Rendered:
    """Render a view's `<main>` once and the page around it (pure; runs in a worker thread, off the event loop)."""
    template = environment.get_template(view.template)
    values = view.context() if callable(view.context) else view.context
    context = {"live": False, "event": None, **values, "refresh_ms": refresh_ms}
    main = template.render({**context, "fragment": True})
    version = hashlib.sha1(main.encode()).hexdigest()[:16]
    page = template.render({**context, "fragment": False, "version": version, "main_html": Markup(main)})
    return Rendered(main, page, version, view.status)


async def _rendered(request: web.Request, handler: PageHandler) -> Rendered:
    site = request.app[SITE]
    view = await handler(request)
    return await asyncio.to_thread(render, request.app[TEMPLATES], view, round(site.refresh_seconds * 1000))


def _answer(request: web.Request, rendered: Rendered, cache_control: str = LIVE_CACHE) -> web.Response:
    """The page, or only its `<main>` content when the live script asks for it, with its version."""
    fragment = request.headers.get(FRAGMENT_HEADER) == "1"
    return web.Response(
        text=rendered.main if fragment else rendered.page,
        content_type="text/html",
        status=rendered.status,
        headers={VERSION_HEADER: rendered.version, "Cache-Control": cache_control},
    )


async def _respond(request: web.Request, view: View) -> web.Response:
    """A view rendered off the event loop, answered."""
    return _answer(request, await _rendered(request, lambda _: _ready(view)))


async def _ready(view: View) -> View:
    return view


def _uncached(handler: PageHandler) -> Handler:
    """A page rendered for every request (the events list: it spans events)."""

    async def serve(request: web.Request) -> web.StreamResponse:
        return _answer(request, await _rendered(request, handler))

    return serve


def _cached(handler: EventPageHandler) -> Handler:
    """An event's page is rendered once per content version of the event (`Director.content_version`: a result,
    a correction, a new round or game link renders it anew), off the event loop, one rendering of a page at a time.
    Requests that arrive while it renders wait for it when the page was never rendered before; otherwise they get
    the last finished page at once (a live page asks again at its next refresh), so no reader waits for a rendering
    another reader started. The request that starts a rendering waits for it (a reader who reloads after a change
    sees it), except in a burst: when other pages are rendering beside it (after a change each page its readers
    read renders at once, and their reads queue for the one database connection), it gets the last finished page
    too. The last page answered while a new one renders is never kept by the browser."""

    async def serve(request: web.Request) -> web.StreamResponse:
        site = request.app[SITE]
        path = request.path
        event, version = await _event_and_version(request)
        cache_control = FINISHED_CACHE if event.status is EventStatus.FINISHED else LIVE_CACHE
        if event.status in LIVE:
            site.prefetch.saw(event.id)
        known = site.cache.get(path)
        if known is not None and not known[1].done() and path in site.shown:
            return _answer(request, site.shown[path], LIVE_CACHE)  # another request's rendering: the last page
        if known is None or known[0] != version:
            known = _render_for(site, path, version, _rendered(request, lambda r: handler(r, event)))
        rendered = await _rendering_in_time(site, path, known[1])
        if rendered is None:
            return _answer(request, site.shown[path], LIVE_CACHE)
        return _answer(request, rendered, cache_control)

    return serve


async def _rendering_in_time(site: Site, path: str, rendering: asyncio.Future[Rendered]) -> Rendered | None:
    """The page `rendering` makes; or None in a burst: the page was shown before and other pages' renderings are
    under way beside this one (looked at once, and again every `STALE_AFTER` while it lasts)."""
    while not rendering.done():
        if path in site.shown and _rendering_beside(site, rendering):
            return None
        await asyncio.wait([rendering], timeout=STALE_AFTER)  # a timeout cancels no rendering
    return await asyncio.shield(rendering)  # a reader that goes away cancels nobody else's rendering


def _rendering_beside(site: Site, rendering: asyncio.Future[Rendered]) -> bool:
    """Another page's rendering is under way."""
    return any(not other.done() for _, other in site.cache.values() if other is not rendering)


def _render_for(
    site: Site, path: str, version: str, rendering: Awaitable[Rendered]
) -> tuple[str, asyncio.Future[Rendered]]:
    """Start a page's rendering for a version, kept as its latest; once finished, it is the page shown meanwhile.
    A refusal (404) or a failure reaches every request waiting for it and is not kept: the next request renders
    again (it is marked retrieved: its waiters may all have gone, their clients disconnected)."""
    task = asyncio.ensure_future(rendering)

    def finished(future: asyncio.Future[Rendered]) -> None:
        if future.cancelled() or future.exception() is not None:
            if path in site.cache and site.cache[path][1] is future:
                del site.cache[path]
            return
        site.shown.pop(path, None)
        site.shown[path] = future.result()
        while len(site.shown) > CACHE_SIZE:
            site.shown.pop(next(iter(site.shown)))

    task.add_done_callback(finished)
    site.cache.pop(path, None)
    while len(site.cache) >= CACHE_SIZE:
        site.cache.pop(next(iter(site.cache)))
    site.cache[path] = (version, task)
    return site.cache[path]


def _number(request: web.Request, key: str) -> int:
    """A path's number; the routes take only canonical ASCII numbers, and none beyond SQLite's integers."""
    text = request.match_info[key]
    if not (text.isascii() and text.isdigit()) or str(int(text)) != text or int(text) > MAX_ID:
        raise web.HTTPNotFound()
    return int(text)


async def live_script(request: web.Request) -> web.Response:
    """The live pages' refresh script (a file, as the Content-Security-Policy allows no inline script)."""
    return web.Response(
        body=LIVE_SCRIPT, content_type="text/javascript", charset="utf-8", headers={"Cache-Control": STATIC_CACHE}
    )


async def _public_event(request: web.Request) -> Event:
    return (await _event_and_version(request))[0]


async def _event_and_version(request: web.Request) -> tuple[Event, str]:
    """The request's event when it is shown, and its content version (read before the page's data: never newer).
    Both are kept for `FRESH_SECONDS` and dropped at every change the director makes, so a burst of readers costs
    one database read (`Fresh`); a write by another process (`swissbot repair`) shows within that time."""
    site = request.app[SITE]
    event, version = await site.fresh.get(_number(request, "id"))
    if event.status not in SHOWN or site.public_club(event.guild_id) is None:
        raise web.HTTPNotFound()
    return event, version


async def _parts(site: Site, event_id: int) -> PageParts:
    """The pages' pieces of the event's latest state (made with its standings, once per change)."""
    return _parts_of(await site.director.tables(event_id))


def _parts_of(tables: EventTables) -> PageParts:
    parts = tables.derived.get(PAGES_VIEW)
    if not isinstance(parts, PageParts):  # `page_routes` registers the view before the endpoint serves
        raise RuntimeError("the event's tables were computed without the pages' view")
    return parts


# -- views ---------------------------------------------------------------------------------------------


def _settings_line(event: Event) -> str:
    s = event.settings
    minutes = f"{s.clock_limit // 60}" if s.clock_limit % 60 == 0 else f"{s.clock_limit / 60:g}"
    return (
        f"{s.rounds} rounds · {minutes}+{s.clock_increment} · {s.system} pairing · "
        f"{'rated' if s.rated else 'casual'} · tie-breaks {', '.join(s.tiebreaks) or 'none'}"
    )


def _boards(view: RoundView, players: Mapping[int, PlayerLink]) -> list[dict[str, Any]]:
    boards = [
        {
            "number": b.number,
            "white": players.get(b.white.number),
            "black": players.get(b.black.number),
            "result": RESULT_LABELS[b.result] if b.result else "",
            "url": b.url,
            "detail": b.detail,
        }
        for b in view.boards
    ]
    return boards


def _byes(view: RoundView, players: Mapping[int, PlayerLink]) -> list[dict[str, Any]]:
    return [{"player": players.get(bye.player.number), "kind": KIND_TEXT[bye.kind]} for bye in view.byes]


async def index(request: web.Request) -> View:
    """The public clubs' events: upcoming, running, finished (with the winner)."""
    site = request.app[SITE]
    clubs = []
    for club in site.clubs:
        if not club.public:
            continue
        events = [e for e in await site.director.list_events(club.guild_id) if e.status in SHOWN]
        listed = []
        for event in events:
            winner = await site.winner(event.id) if event.status is EventStatus.FINISHED else None
            listed.append({"event": event, "settings": _settings_line(event), "winner": winner})
        clubs.append({"name": club.name or "Club events", "events": listed})
    return View("index.html", {"title": "Events", "clubs": clubs})


async def event_page(request: web.Request, event: Event) -> View:
    """The event: settings, standings with every tie-break, the current round, the leaders' chart."""
    site = request.app[SITE]
    # The round is read here while a worker computes the tables (a cold page waits for the longer of the two).
    parts, view = await asyncio.gather(_parts(site, event.id), _round_in_play(site, event))
    teams = await site.director.team_standings(event.id) if event.settings.pairing_system.team else []
    current = None
    if view is not None:
        current = {"number": view.number, "boards": _boards(view, parts.players), "byes": _byes(view, parts.players)}
    context = {
        "title": event.name,
        "event": event,
        "settings": _settings_line(event),
        "team_codes": list(teams[0].tiebreaks) if teams else [],
        "teams": [
            {
                "rank": t.rank,
                "name": t.name,
                "mp": format_points(t.match_points),
                "gp": format_points(t.game_points),
                "tiebreaks": [format_tiebreak(code.split(":")[0], value) for code, value in t.tiebreaks.items()],
                "players": ", ".join(f"{p.player.name} {format_points(p.points)}" for p in t.players),
            }
            for t in teams
        ],
        "codes": event.settings.tiebreaks,
        "standings_rows": Markup(parts.standings_rows),
        "current": current,
        "rounds": range(1, event.current_round + 1),
        "chart": parts.chart,
        "lichess": site.lichess_url,
        "live": event.status in LIVE,
    }
    return View("event.html", context)


async def _round_in_play(site: Site, event: Event) -> RoundView | None:
    return await site.director.pairings(event.id, event.current_round) if event.current_round else None


async def round_page(request: web.Request, event: Event) -> View:
    """One round's pairings, results and byes."""
    site = request.app[SITE]
    number = _number(request, "number")
    if not 1 <= number <= event.current_round:
        raise web.HTTPNotFound()
    players = links(await site.director.entries(event.id))  # a round's page needs no standings
    view = await site.director.pairings(event.id, number)
    context = {
        "title": f"{event.name}: round {number}",
        "event": event,
        "number": number,
        "boards": _boards(view, players),
        "byes": _byes(view, players),
        "rounds": range(1, event.current_round + 1),
        "lichess": site.lichess_url,
        "live": event.status in LIVE and number == event.current_round,
    }
    return View("round.html", context)


async def crosstable_page(request: web.Request, event: Event) -> View:
    """The FIDE-style crosstable: each round's opponent, colour and result, byes and forfeits as in TRF."""
    site = request.app[SITE]
    parts = await _parts(site, event.id)
    context = {
        "title": f"{event.name}: crosstable",
        "event": event,
        "rows": Markup(parts.crosstable_rows),
        "rounds": range(1, parts.crosstable_rounds + 1),
        "lichess": site.lichess_url,
        "live": event.status in LIVE,
    }
    return View("crosstable.html", context)


async def player_page(request: web.Request, event: Event) -> View:
    """A player's games with links and colours, opponents' ratings, the score after each round, byes and
    forfeits with their reasons, and the event's tie-break figures."""
    site = request.app[SITE]
    number = _number(request, "number")
    # The player's boards are read here while a worker computes the tables.
    tables, boards = await asyncio.gather(site.director.tables(event.id), site.director.player_boards(event.id, number))
    players = _parts_of(tables).players
    player = players.get(number)
    if player is None:
        raise web.HTTPNotFound()
    cells = tables.records.get(number, ())
    row = next((r for r in tables.standings if r.player.number == number), None)
    games = []
    for cell, score in zip(cells, running_scores(cells), strict=True):
        board = boards.get(cell.round)
        games.append(
            {
                "round": cell.round,
                "opponent": players.get(cell.opponent) if cell.opponent is not None else None,
                "colour": {"w": "white", "b": "black"}.get(cell.colour.value, "") if cell.colour else "",
                "result": _outcome(cell),
                "points": format_points(cell.points),
                "score": format_points(score),
                "url": board.url if board is not None and cell.kind is RecordKind.PLAYED else None,
                "detail": board.detail if board is not None else "",
            }
        )
    figures = []
    if row is not None:
        codes = [code for code in event.settings.tiebreaks if code in row.tiebreaks]
        figures = [(code, format_tiebreak(code, row.tiebreaks[code])) for code in codes]
    context = {
        "title": f"{player.name}: {event.name}",
        "event": event,
        "player": player,
        "rank": row.rank if row is not None else None,
        "total": format_points(row.points) if row is not None else "0",
        "games": games,
        "figures": figures,
        "lichess": site.lichess_url,
        "live": event.status in LIVE,
    }
    return View("player.html", context)


def _outcome(cell: CrosstableCell) -> str:
    if cell.kind is RecordKind.PLAYED and cell.outcome is not None:
        return OUTCOME_TEXT[cell.outcome]
    if cell.kind is RecordKind.FORFEIT_WIN:
        return "won by forfeit"
    if cell.kind is RecordKind.FORFEIT_LOSS:
        return "lost by forfeit"
    return KIND_TEXT.get(cell.kind, "")


async def download(request: web.Request) -> web.Response:
    """The event's public export: TRF, PGN, or the JSON without what only organisers see."""
    site = request.app[SITE]
    event = await _public_event(request)
    fmt = request.match_info["fmt"]
    data = await site.director.export(event.id, fmt, public=True)
    response = web.Response(body=data, content_type=DOWNLOADS[fmt], charset="utf-8")
    response.headers["Content-Disposition"] = f'inline; filename="event-{event.id}.{fmt}"'
    response.headers["Cache-Control"] = FINISHED_CACHE if event.status is EventStatus.FINISHED else LIVE_CACHE
    return response
