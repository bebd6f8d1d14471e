"""The sandbox's aiohttp application, and a helper that runs it on a free loopback port."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from aiohttp import web

from sandbox.lichess import api, bulk, control, oauth, pages, streams
from sandbox.lichess.autoplay_runner import AUTOPLAY, AutoplaySettings, cancel_tasks, tick
from sandbox.lichess.http import CUT, ME, STATE, TOKEN, base_url, error
from sandbox.lichess.state import BOT_TOKEN, BOT_USERNAME, Clock, LoggedRequest, SandboxState, User

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
_FAULT_MESSAGES = {429: "Too many requests. Try again later."}


@web.middleware
async def _log_requests(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Record every Lichess request (not the control API) with its final status."""
    started = time.monotonic()
    response = await handler(request)
    if not request.path.startswith("/sandbox/"):
        user: User | None = request.get(ME)
        request.app[STATE].requests.append(
            LoggedRequest(
                started, time.monotonic(), request.method, request.path, user.id if user else None, response.status
            )
        )
    return response


@web.middleware
async def _faults(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Injected faults: answer an error status, maybe after a delay or after doing the real work."""
    if request.path.startswith("/sandbox/"):
        return await handler(request)
    fault = request.app[STATE].take_fault(request.path)
    if fault is None:
        return await handler(request)
    if fault.cut is not None:  # the stream opens normally and is dropped later
        request[CUT] = fault.cut
        return await handler(request)
    # `after`: Lichess does the work, then the reply is lost (an error status, or too late to be read)
    response = await handler(request) if fault.after else None
    if fault.delay:
        await asyncio.sleep(fault.delay)
    if fault.status is None:
        return response if response is not None else await handler(request)
    return error(fault.status, _FAULT_MESSAGES.get(fault.status, f"Sandbox fault {fault.status}"))


@web.middleware
async def _auth(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Resolve the bearer token to an account; an unknown token is a 401, as on Lichess."""
    state = request.app[STATE]
    if state.public_url == "https://lichess.org":
        state.public_url = base_url(request)
    await tick(request.app)
    header = request.headers.get("Authorization", "")
    if header and not request.path.startswith("/sandbox/"):
        token = state.token(header.removeprefix("Bearer ").strip())
        user = state.users.get(token.user) if token else None
        if token is None or user is None:
            return error(401, "No such token")
        request[ME] = user
        request[TOKEN] = token
    return await handler(request)


TICKER = web.AppKey("ticker", asyncio.Task[None])


async def _tick_forever(app: web.Application, interval: float) -> None:
    while True:
        await asyncio.sleep(interval)
        try:
            await tick(app)
        except Exception:  # one bad tick must not stop the sandbox's time
            logging.getLogger(__name__).exception("sandbox tick failed")


async def _start_ticker(app: web.Application) -> None:
    """Bulks pair, clocks run and flags fall even when nobody sends a request."""
    app[TICKER] = asyncio.create_task(_tick_forever(app, 0.1))


async def _stop_ticker(app: web.Application) -> None:
    task = app.get(TICKER)
    if task is not None:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


def make_app(
    state: SandboxState | None = None,
    *,
    seed: int | None = None,
    autoplay: bool = False,
    autoplay_delay: float = 0.0,
    clock: Clock | None = None,
    stream_keepalive: float = streams.KEEPALIVE,
) -> web.Application:
    """The sandbox as an aiohttp application (for `aiohttp.test_utils` or an `AppRunner`)."""
    app = web.Application(middlewares=[_log_requests, _faults, _auth])
    app[STATE] = state if state is not None else SandboxState(seed=seed, clock=clock)
    app[AUTOPLAY] = AutoplaySettings(enabled=autoplay, delay=autoplay_delay)
    app[streams.STREAMS] = streams.Streams(keepalive=stream_keepalive)
    app.add_routes(api.routes)
    app.add_routes(oauth.routes)
    app.add_routes(bulk.routes)
    app.add_routes(streams.routes)
    app.add_routes(control.routes)
    app.add_routes(pages.routes)
    app.on_startup.append(_start_ticker)
    app.on_shutdown.append(streams.close_all)
    app.on_cleanup.append(_stop_ticker)
    app.on_cleanup.append(cancel_tasks)
    return app


@dataclass(frozen=True)
class Sandbox:
    """A running sandbox: its URL, its state, and the bot account's credentials."""

    url: str
    state: SandboxState
    app: web.Application
    bot_username: str = BOT_USERNAME
    bot_token: str = BOT_TOKEN

    def add_user(self, username: str, **kwargs: object) -> User:
        """Create an account directly (same as `POST /sandbox/users`)."""
        return self.state.add_user(username, **kwargs)  # type: ignore[arg-type]


@asynccontextmanager
async def run_sandbox(
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    seed: int | None = None,
    autoplay: bool = False,
    autoplay_delay: float = 0.0,
    clock: Clock | None = None,
    stream_keepalive: float = streams.KEEPALIVE,
) -> AsyncIterator[Sandbox]:
    """Serve the sandbox in this event loop (port 0: a free port) until the block exits."""
    app = make_app(
        seed=seed, autoplay=autoplay, autoplay_delay=autoplay_delay, clock=clock, stream_keepalive=stream_keepalive
    )
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        await site.start()
        bound_host, bound_port = runner.addresses[0][:2]
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        url = f"http://{shown}:{bound_port}"
        app[STATE].public_url = url
        yield Sandbox(url=url, state=app[STATE], app=app)
    finally:
        await runner.cleanup()
