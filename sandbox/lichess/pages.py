"""The human pages links point to: a game (`/{gameId}`) and a player's profile (`/@/{username}`), in plain HTML."""

from __future__ import annotations

from html import escape

from aiohttp import web

from sandbox.lichess.http import state_of

routes = web.RouteTableDef()

_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>
<body><h1>{title}</h1>{body}</body></html>"""


def _html(title: str, body: str, status: int = 200) -> web.Response:
    return web.Response(text=_PAGE.format(title=escape(title), body=body), content_type="text/html", status=status)


@routes.get("/@/{username}")
async def profile(request: web.Request) -> web.Response:
    """A player's profile page: name and ratings."""
    user = state_of(request).users.get(request.match_info["username"].lower())
    if user is None:
        return _html("Page not found", "<p>No such player.</p>", 404)
    ratings = ", ".join(f"{speed} {rating}" for speed, rating in sorted(user.ratings.items()))
    return _html(user.username, f"<p class='ratings'>{escape(ratings)}</p>")


@routes.get(r"/{game_id:[A-Za-z0-9]{8}}")
async def game(request: web.Request) -> web.Response:
    """A game's page: the players, its status and its moves."""
    found = state_of(request).games.get(request.match_info["game_id"])
    if found is None:
        return _html("Page not found", "<p>No such game.</p>", 404)
    body = (
        f"<p class='players'>{escape(found.white)} - {escape(found.black)}</p>"
        f"<p class='status'>{escape(found.status)}</p><p class='moves'>{escape(' '.join(found.moves))}</p>"
    )
    return _html(f"{found.white} vs {found.black}", body)
