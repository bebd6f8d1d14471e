"""The local Discord's aiohttp application, a helper that runs it on a free port, and `serve` for the CLI."""

from __future__ import annotations

import asyncio
import hashlib
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from aiohttp import web

from sandbox.discord import control, oauth2, rest
from sandbox.discord.gateway import GATEWAY, Gateway, websocket
from sandbox.discord.http import STATE, DiscordError, reply
from sandbox.discord.state import DiscordState, LoggedRequest
from sandbox.discord.views import error_body

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
# paths authenticated by the interaction token in the path, not by the bot token
OAUTH2_PATHS = frozenset({oauth2.API + "/oauth2/token"})
TOKEN_IN_PATH = (rest.API + "/interactions/", rest.API + "/webhooks/")
GATEWAY_PATHS = ("/", "/gateway")


def _is_api(request: web.Request) -> bool:
    return request.path.startswith("/api/")


@web.middleware
async def _log_requests(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Record every REST request with its final status."""
    started = time.monotonic()
    try:
        response = await handler(request)
    except web.HTTPException as exc:
        response = exc
    if _is_api(request):
        state = request.app[STATE]
        state.requests.append(LoggedRequest(started, time.monotonic(), request.method, request.path, response.status))
    if isinstance(response, web.HTTPException):
        raise response
    return response


@web.middleware
async def _errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Discord's error bodies: raised `DiscordError`s, and 404/405 from the router."""
    try:
        return await handler(request)
    except DiscordError as exc:
        return exc.response()
    except web.HTTPNotFound:
        if not _is_api(request):
            raise
        return reply(error_body(0, "404: Not Found"), status=404)
    except web.HTTPMethodNotAllowed:
        if not _is_api(request):
            raise
        return reply(error_body(0, "405: Method Not Allowed"), status=405)


@web.middleware
async def _faults(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Injected faults: an error status (429 as Discord sends it), maybe after a delay."""
    if not _is_api(request):
        return await handler(request)
    fault = request.app[STATE].take_fault(request.path)
    if fault is None:
        return await handler(request)
    if fault.delay:
        await asyncio.sleep(fault.delay)
    if fault.status is None:
        return await handler(request)
    if fault.status == 429:
        body = error_body(0, "You are being rate limited.") | {
            "retry_after": fault.retry_after,
            "global": fault.is_global,
        }
        headers = {
            "Retry-After": str(math.ceil(fault.retry_after)),
            "X-RateLimit-Scope": "global" if fault.is_global else "user",
            "Via": "1.1 google",
        }
        if fault.is_global:
            headers["X-RateLimit-Global"] = "true"
        else:
            headers |= _limit_headers(_bucket_hash(request), 0, fault.retry_after, limit=request.app[STATE].rate_limit)
        return reply(body, status=429, headers=headers)
    reason = {500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout"}
    message = f"{fault.status}: {reason.get(fault.status, 'Sandbox fault')}"
    return reply(error_body(0, message), status=fault.status)


@web.middleware
async def _auth(request: web.Request, handler: Handler) -> web.StreamResponse:
    """`Authorization: Bot <token>` on every REST path but the interaction-token ones and OAuth2's (the code
    exchange checks the application's secret, `/users/@me` takes a member's Bearer token too)."""
    header = request.headers.get("Authorization", "")
    if request.path == rest.API + "/users/@me":
        answer = oauth2.bearer_user(request.app[STATE], header)
        if answer is not None:
            return answer
    exempt = request.path.startswith(TOKEN_IN_PATH) or request.path in OAUTH2_PATHS
    if _is_api(request) and not exempt and header != f"Bot {request.app[STATE].token}":
        return reply(error_body(0, "401: Unauthorized"), status=401)
    return await handler(request)


def _bucket_hash(request: web.Request) -> str:
    """Discord's opaque bucket id: one per route (method and path template)."""
    info = request.match_info.route.resource
    template = info.canonical if info is not None else request.path
    return hashlib.sha1(f"{request.method} {template}".encode()).hexdigest()[:16]


def _limit_headers(bucket: str, remaining: int, reset_after: float, *, limit: int) -> dict[str, str]:
    return {
        "X-RateLimit-Limit": str(limit),
        "X-RateLimit-Remaining": str(max(remaining, 0)),
        "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
        "X-RateLimit-Reset-After": f"{reset_after:.3f}",
        "X-RateLimit-Bucket": bucket,
    }


@web.middleware
async def _rate_limits(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Per-route buckets (per channel, guild or webhook): `X-RateLimit-*` headers, a real 429 past the limit."""
    if not _is_api(request):
        return await handler(request)
    state = request.app[STATE]
    bucket_hash = _bucket_hash(request)
    major = next((request.match_info[k] for k in ("channel_id", "guild_id", "token") if k in request.match_info), "")
    bucket = state.spend(f"{bucket_hash}:{major}")
    reset_after = max(bucket.reset_at - time.monotonic(), 0.0)
    headers = _limit_headers(bucket_hash, bucket.remaining, reset_after, limit=state.rate_limit)
    if bucket.remaining < 0:
        body = error_body(0, "You are being rate limited.") | {"retry_after": round(reset_after, 3), "global": False}
        headers |= {"Retry-After": str(math.ceil(reset_after)), "X-RateLimit-Scope": "user", "Via": "1.1 google"}
        return reply(body, status=429, headers=headers)
    try:
        response = await handler(request)
    except DiscordError as exc:  # Discord sends the rate-limit headers on errors too
        response = exc.response()
    response.headers.update(headers)
    return response


def make_app(
    state: DiscordState | None = None, *, seed: int | None = None, token: str | None = None
) -> web.Application:
    """The local Discord as an aiohttp application."""
    app = web.Application(
        middlewares=[_log_requests, _errors, _faults, _auth, _rate_limits, control.refusals],
        client_max_size=26 * 1024**2,
    )
    app[STATE] = state if state is not None else DiscordState(seed=seed, token=token)
    app[GATEWAY] = Gateway(app[STATE])
    for path in GATEWAY_PATHS:
        app.router.add_get(path, websocket)
    app.add_routes(rest.routes)
    app.add_routes(oauth2.routes)
    app.add_routes(control.routes)

    async def close_sockets(app: web.Application) -> None:
        await app[GATEWAY].close_all()

    app.on_shutdown.append(close_sockets)
    return app


@dataclass(frozen=True)
class DiscordSandbox:
    """A running local Discord: its URL, the bot token, the application id and the state."""

    url: str
    token: str
    application_id: int
    state: DiscordState
    app: web.Application

    @property
    def api_url(self) -> str:
        """The REST base discord.py's `Route.BASE` takes."""
        return f"{self.url}/api/v10"

    @property
    def gateway(self) -> Gateway:
        """The gateway sessions (to drop a socket, or to check a RESUME)."""
        return self.app[GATEWAY]


@asynccontextmanager
async def run_discord_sandbox(
    host: str = "127.0.0.1", port: int = 0, seed: int | None = None, token: str | None = None
) -> AsyncIterator[DiscordSandbox]:
    """Serve the local Discord in this event loop (port 0: a free port) until the block exits."""
    app = make_app(seed=seed, token=token)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        await site.start()
        bound_host, bound_port = runner.addresses[0][:2]
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        state = app[STATE]
        yield DiscordSandbox(f"http://{shown}:{bound_port}", state.token, state.application_id, state, app)
    finally:
        await runner.cleanup()


async def serve(host: str = "127.0.0.1", port: int = 8091, seed: int | None = None, token: str | None = None) -> None:
    """Run the local Discord until cancelled, printing its URL, the bot token and the application id."""
    async with run_discord_sandbox(host, port, seed, token) as sandbox:
        print(f"Local Discord at {sandbox.url}", flush=True)
        print(f"Bot token: {sandbox.token}", flush=True)
        print(f"Application id: {sandbox.application_id}", flush=True)
        await asyncio.Event().wait()
