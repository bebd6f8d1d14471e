"""Shared helpers for the sandbox's handlers: app keys, errors, bodies, query flags."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from aiohttp import web

from sandbox.lichess.state import SandboxState, Token, User

STATE = web.AppKey("state", SandboxState)
ME = web.RequestKey("me", User)
TOKEN = web.RequestKey("token", Token)
CUT = web.RequestKey("cut", int)  # a fault that drops a stream after this many lines


class BadRequest(Exception):
    """A 400 with Lichess's `{"error": ...}` body."""


class NotFound(Exception):
    """A 404 with Lichess's `{"error": "Not found."}` body."""


def error(status: int, message: str) -> web.Response:
    """Lichess's error shape."""
    return web.json_response({"error": message}, status=status)


def not_found() -> web.Response:
    """Lichess's 404 body."""
    return error(404, "Not found.")


def state_of(request: web.Request) -> SandboxState:
    """The sandbox's state."""
    return request.app[STATE]


def me(request: web.Request) -> User | None:
    """The account of the request's token, if any."""
    user: User | None = request.get(ME)
    return user


def scoped(request: web.Request, scope: str, *others: str) -> User | web.Response:
    """The token owner if the token carries `scope` (or one of `others`); else lila's 401 (no token) or 403 (missing
    scope)."""
    token: Token | None = request.get(TOKEN)
    user = me(request)
    if token is None or user is None:
        return error(401, "No token provided")
    if not token.scopes & {scope, *others}:
        return error(403, f"Missing scope: {scope}")
    return user


def base_url(request: web.Request) -> str:
    """The origin this request was sent to (used in urls we hand out)."""
    return f"{request.scheme}://{request.host}"


def trueish(value: str | None, default: bool) -> bool:
    """lila's query-string booleans: true, 1, yes (any case)."""
    if value is None:
        return default
    return value.lower() in ("true", "1", "yes")


async def form_or_json(request: web.Request) -> dict[str, Any]:
    """A body posted as a form (as the spec documents) or as JSON (as berserk sends)."""
    if request.content_type == "application/json":
        try:
            body = await request.json()
        except json.JSONDecodeError as exc:
            raise BadRequest("Invalid JSON body") from exc
        if not isinstance(body, dict):
            raise BadRequest("Invalid JSON body")
        return {k: v for k, v in body.items() if v is not None}
    form = await request.post()
    return {k: v for k, v in form.items() if isinstance(v, str)}


def ndjson(request: web.Request, items: Iterable[dict[str, Any]]) -> web.Response:
    """An `application/x-ndjson` body."""
    body = "".join(json.dumps(item) + "\n" for item in items)
    return web.Response(text=body, content_type="application/x-ndjson")
