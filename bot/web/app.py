"""The aiohttp application factory and the server the bot and the demo start and stop."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

import aiohttp_jinja2
import jinja2
from aiohttp import web

from bot.config import WebConfig
from bot.director.api import Director
from bot.web.keys import DIRECTOR

LOG = logging.getLogger(__name__)

RouteModule = Callable[[web.Application], None]


def default_route_modules() -> tuple[RouteModule, ...]:
    """The route modules of a running bot (add a module's `add_routes` here for new pages)."""
    from bot.web import oauth  # route modules import `keys`, never this module

    return (oauth.add_routes,)


def make_app(director: Director, route_modules: Sequence[RouteModule] | None = None) -> web.Application:
    """The web application: the director under `DIRECTOR`, the templates, and every route module's routes."""
    app = web.Application()
    app[DIRECTOR] = director
    aiohttp_jinja2.setup(
        app, loader=jinja2.PackageLoader("bot.web", "templates"), autoescape=jinja2.select_autoescape(["html"])
    )
    for add_routes in route_modules if route_modules is not None else default_route_modules():
        add_routes(app)
    return app


class WebServer:
    """The endpoint's listening side: `start` binds `[web] host:port`, `close` stops it."""

    def __init__(self, config: WebConfig, director: Director, route_modules: Sequence[RouteModule] | None = None):
        self.config = config
        self.app = make_app(director, route_modules)
        self._runner: web.AppRunner | None = None
        self.port: int | None = None

    async def start(self) -> None:
        """Listen (port 0 picks a free one, then `port` tells which)."""
        runner = web.AppRunner(self.app, access_log=None)  # the callback's query holds codes: no access log
        await runner.setup()
        site = web.TCPSite(runner, self.config.host, self.config.port)
        await site.start()
        self._runner = runner
        addresses = runner.addresses
        self.port = int(addresses[0][1]) if addresses else self.config.port
        LOG.info("web endpoint on %s:%d (public address %s)", self.config.host, self.port, self.config.public_url)

    @property
    def local_url(self) -> str:
        """The address the endpoint listens at (for tests and the demo)."""
        return f"http://{self.config.host}:{self.port}"

    async def close(self) -> None:
        """Stop listening."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
