"""The OAuth callback of /link: Lichess sends the member's browser here with `code` and `state`."""

from __future__ import annotations

import logging

import aiohttp_jinja2
from aiohttp import web

from bot.director.oauth import CALLBACK_PATH
from bot.web.keys import DIRECTOR

LOG = logging.getLogger(__name__)


def add_routes(app: web.Application) -> None:
    """GET /oauth/callback."""
    app.router.add_get(CALLBACK_PATH, callback)


async def callback(request: web.Request) -> web.Response:
    """Finish the link and say what happened in one sentence."""
    director = request.app[DIRECTOR]
    query = request.query
    try:
        outcome = await director.finish_oauth_link(query.get("state"), query.get("code"), query.get("error"))
    except Exception:
        LOG.exception("OAuth callback failed")
        return _page(request, "Something went wrong on the bot's side; nothing was linked. Try /link again later.", 500)
    return _page(request, outcome.sentence, 200 if outcome.linked else 400)


def _page(request: web.Request, sentence: str, status: int) -> web.Response:
    response = aiohttp_jinja2.render_template(
        "landing.html", request, {"sentence": sentence, "ok": status == 200}, status=status
    )
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response
