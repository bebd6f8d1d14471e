"""The aiohttp application factory and the server the bot and the demo start and stop.

Every response of the endpoint carries the security headers (`SECURITY_HEADERS`: a Content-Security-Policy
with no inline script, no framing, no MIME sniffing, no referrer to other sites) and names no server version;
a handler that sets no `Cache-Control` gets `no-cache`. An over-long request line or header is refused (414,
431) without a traceback in the log.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import aiohttp_jinja2
import jinja2
from aiohttp import web
from aiohttp.http_exceptions import LineTooLong
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_request import BaseRequest

from bot.config import WebConfig
from bot.director.api import Director
from bot.web.keys import DIRECTOR

if TYPE_CHECKING:
    from bot.web.oauth import DiscordSignIn

LOG = logging.getLogger(__name__)

RouteModule = Callable[[web.Application], None]

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:;"
    " connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}
SERVER_NAME = "swissbot"  # no framework or Python version
MAX_LINE_SIZE = 2048  # the longest request line (the OAuth callback's is under 400 characters)
MAX_FIELD_SIZE = 8190  # the longest header line (aiohttp's default)


def default_route_modules(signin: DiscordSignIn | None = None) -> tuple[RouteModule, ...]:
    """The route modules of a running bot (add a module's `add_routes` here for new pages); `signin`: /link's
    browser signs in with Discord before Lichess."""
    from bot.web import oauth  # route modules import `keys`, never this module

    return (oauth.oauth_routes(signin),)


async def _secure(request: web.Request, response: web.StreamResponse) -> None:
    """Before any response leaves (errors too): the security headers, a default cache rule, no server version."""
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    response.headers.setdefault("Cache-Control", "no-cache")
    response.headers["Server"] = SERVER_NAME


def make_app(director: Director, route_modules: Sequence[RouteModule] | None = None) -> web.Application:
    """The web application: the director under `DIRECTOR`, the templates, and every route module's routes."""
    app = web.Application(handler_args={"max_line_size": MAX_LINE_SIZE, "max_field_size": MAX_FIELD_SIZE})
    app[DIRECTOR] = director
    app.on_response_prepare.append(_secure)
    aiohttp_jinja2.setup(
        app, loader=jinja2.PackageLoader("bot.web", "templates"), autoescape=jinja2.select_autoescape(["html"])
    )
    for add_routes in route_modules if route_modules is not None else default_route_modules():
        add_routes(app)
    return app


class _RequestHandler(RequestHandler):
    """aiohttp's connection handler, but a request line or header over the limit is a 414 or 431 and one log line
    (aiohttp answers 400 and logs the traceback at ERROR level)."""

    def handle_error(
        self, request: BaseRequest, status: int = 500, exc: BaseException | None = None, message: str | None = None
    ) -> web.StreamResponse:
        if not isinstance(exc, LineTooLong):
            return super().handle_error(request, status, exc, message)
        request_line = exc.args[1] == MAX_LINE_SIZE
        status, what = (414, "request line") if request_line else (431, "header line")
        LOG.info("web: refused a request whose %s is over the limit (%d)", what, status)
        response = web.Response(status=status, text=f"{status} {what} too long\n", headers=SECURITY_HEADERS)
        response.headers["Server"] = SERVER_NAME
        response.headers["Cache-Control"] = "no-store"
        response.force_close()
        return response


class _Server(web.Server):
    def __call__(self) -> RequestHandler:
        return _RequestHandler(self, loop=self._loop, **self._kwargs)


class Runner(web.AppRunner):
    """`web.AppRunner` whose connections answer over-long lines with 414/431 quietly (the bot's and tests' runner)."""

    async def _make_server(self) -> web.Server:
        server = await super()._make_server()
        return _Server(
            server.request_handler,
            request_factory=server.request_factory,
            handler_cancellation=server.handler_cancellation,
            loop=server._loop,
            **server._kwargs,
        )


class WebServer:
    """The endpoint's listening side: `start` binds `[web] host:port`, `close` stops it."""

    def __init__(self, config: WebConfig, director: Director, route_modules: Sequence[RouteModule] | None = None):
        self.config = config
        self.app = make_app(director, route_modules)
        self._runner: Runner | None = None
        self.port: int | None = None

    async def start(self) -> None:
        """Listen (port 0 picks a free one, then `port` tells which)."""
        runner = Runner(self.app, access_log=None)  # the callback's query holds codes: no access log
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
