"""What the route modules read from the application (kept apart so route modules never import the factory)."""

from __future__ import annotations

from aiohttp import web

from bot.director.api import Director

DIRECTOR = web.AppKey("director", Director)
