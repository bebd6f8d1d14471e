"""Small HTTP helpers shared by the local Lichess's tests (raw aiohttp, so every status and body is visible)."""

from __future__ import annotations

import json
import secrets
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import aiohttp

from sandbox.lichess import Sandbox
from sandbox.lichess.oauth import challenge_of

REDIRECT = "http://127.0.0.1:9999/callback"


async def call(sandbox: Sandbox, method: str, path: str, *, token: str | None = None, **kwargs: Any) -> tuple[int, Any]:
    """One request with an optional bearer token; JSON or ndjson bodies are decoded, anything else is text."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    headers.update(kwargs.pop("headers", {}))
    async with (
        aiohttp.ClientSession() as http,
        http.request(method, sandbox.url + path, headers=headers, allow_redirects=False, **kwargs) as resp,
    ):
        text = await resp.text()
        if resp.content_type == "application/x-ndjson":
            return resp.status, [json.loads(line) for line in text.splitlines() if line.strip()]
        if resp.content_type == "application/json":
            return resp.status, json.loads(text)
        if resp.status == 302:
            return resp.status, resp.headers["Location"]
        return resp.status, text


async def control(sandbox: Sandbox, method: str, path: str, body: Any = None) -> Any:
    """A control-API call that must succeed; its JSON reply."""
    status, reply = await call(sandbox, method, path, json=body)
    assert status in (200, 201), reply
    return reply


async def personal_token(sandbox: Sandbox, username: str, scopes: list[str] | None = None) -> str:
    """A personal token for `username` (all scopes unless given)."""
    body: dict[str, Any] = {"username": username}
    if scopes is not None:
        body["scopes"] = scopes
    reply = await control(sandbox, "POST", "/sandbox/tokens", body)
    token: str = reply["token"]
    return token


def auth_query(challenge: str, *, state: str = "st-1", scope: str = "challenge:write", **extra: str) -> str:
    """The query string of `GET /oauth` for a PKCE request."""
    params = {
        "response_type": "code",
        "client_id": "swissbot.example",
        "redirect_uri": REDIRECT,
        "code_challenge_method": "S256",
        "code_challenge": challenge,
        "scope": scope,
        "state": state,
    } | extra
    return urlencode(params)


def redirect_params(location: str) -> dict[str, str]:
    """The query parameters of a redirect to `REDIRECT`."""
    parts = urlsplit(location)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == REDIRECT
    return {k: v[0] for k, v in parse_qs(parts.query).items()}


async def authorize(sandbox: Sandbox, username: str, scope: str = "challenge:write") -> tuple[str, str]:
    """Play the browser: approve as `username`; the code and the verifier."""
    verifier = secrets.token_urlsafe(48)
    status, location = await call(
        sandbox, "GET", "/oauth?" + auth_query(challenge_of(verifier), scope=scope, sandbox_user=username)
    )
    assert status == 302, location
    return redirect_params(location)["code"], verifier


async def exchange(sandbox: Sandbox, code: str, verifier: str, **extra: str) -> tuple[int, Any]:
    """`POST /api/token` for a code."""
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "code_verifier": verifier,
        "redirect_uri": REDIRECT,
        "client_id": "swissbot.example",
    } | extra
    return await call(sandbox, "POST", "/api/token", data=form)


async def oauth_token(sandbox: Sandbox, username: str, scope: str = "challenge:write") -> str:
    """A `lio_` token for `username` through the whole PKCE flow."""
    code, verifier = await authorize(sandbox, username, scope)
    status, reply = await exchange(sandbox, code, verifier)
    assert status == 200, reply
    token: str = reply["access_token"]
    return token
