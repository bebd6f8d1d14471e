"""Discord's OAuth2 authorisation-code flow, as small as the bot's /link sign-in needs it: the authorisation page
(`GET /oauth2/authorize`, the signed-in user chosen with `sandbox_user`), the code exchange
(`POST /api/v10/oauth2/token`, the application's id and secret by HTTP Basic or in the form) and whose token it is
(`GET /api/v10/users/@me` with `Authorization: Bearer`). Only the `identify` scope is granted."""

from __future__ import annotations

import base64
import time
from dataclasses import dataclass
from urllib.parse import urlencode

from aiohttp import web

from sandbox.discord.http import STATE, reply
from sandbox.discord.state import DiscordState
from sandbox.discord.views import user_json

routes = web.RouteTableDef()
API = "/api/v10"
CLIENT_SECRET = "discord_sandbox_client_secret"
CODE_LIFETIME = 10 * 60.0
TOKEN_LIFETIME = 7 * 24 * 3600


@dataclass(frozen=True)
class Grant:
    """An authorisation code or an access token: for whom, and for which redirect address."""

    user_id: int
    redirect_uri: str
    at: float


def _oauth_error(error: str, description: str, status: int = 400) -> web.Response:
    return web.json_response({"error": error, "error_description": description}, status=status)


def _with_query(uri: str, query: dict[str, str]) -> str:
    return f"{uri}{'&' if '?' in uri else '?'}{urlencode(query)}"


@routes.get("/oauth2/authorize")
async def authorize(request: web.Request) -> web.Response:
    """The consent page: with `sandbox_user` (a user id) that user approves at once; `sandbox_deny=1` refuses."""
    state: DiscordState = request.app[STATE]
    query = request.query
    if query.get("response_type") != "code" or query.get("client_id") != str(state.application_id):
        return web.Response(status=400, text="Invalid OAuth2 request: unknown client_id or response_type")
    if "identify" not in query.get("scope", "").split():
        return web.Response(status=400, text="Invalid OAuth2 request: the local Discord grants only identify")
    redirect = query.get("redirect_uri", "")
    if not redirect.startswith(("http://", "https://")):
        return web.Response(status=400, text="Invalid OAuth2 redirect_uri")
    back = {"state": query["state"]} if "state" in query else {}
    if query.get("sandbox_deny"):
        raise web.HTTPFound(_with_query(redirect, {"error": "access_denied", **back}))
    try:
        user_id = int(query.get("sandbox_user", ""))
    except ValueError:
        return web.Response(status=200, text="Sign in to Discord (pass sandbox_user=<user id> to the local Discord)")
    if user_id not in state.users:
        return web.Response(status=400, text="Unknown sandbox_user")
    code = state.secret(30)
    state.oauth_codes[code] = Grant(user_id, redirect, time.time())
    raise web.HTTPFound(_with_query(redirect, {"code": code, **back}))


def _client(request: web.Request, form: dict[str, str]) -> tuple[str, str]:
    header = request.headers.get("Authorization", "")
    if header.startswith("Basic "):
        client_id, _, secret = base64.b64decode(header[6:]).decode().partition(":")
        return client_id, secret
    return form.get("client_id", ""), form.get("client_secret", "")


@routes.post(API + "/oauth2/token")
async def token(request: web.Request) -> web.Response:
    """Exchange an authorisation code for a Bearer token (single use, same redirect address, the app's secret)."""
    state: DiscordState = request.app[STATE]
    form = {k: str(v) for k, v in (await request.post()).items()}
    client_id, secret = _client(request, form)
    if client_id != str(state.application_id) or secret != CLIENT_SECRET:
        return _oauth_error("invalid_client", "Invalid client credentials", 401)
    if form.get("grant_type") != "authorization_code":
        return _oauth_error("unsupported_grant_type", "Only authorization_code")
    grant = state.oauth_codes.pop(form.get("code", ""), None)
    if grant is None or time.time() - grant.at > CODE_LIFETIME or grant.redirect_uri != form.get("redirect_uri"):
        return _oauth_error("invalid_grant", 'Invalid "code" in request.')
    access = state.secret(30)
    state.oauth_tokens[access] = Grant(grant.user_id, grant.redirect_uri, time.time())
    body = {"access_token": access, "token_type": "Bearer", "expires_in": TOKEN_LIFETIME, "scope": "identify"}
    return web.json_response(body)


def bearer_user(state: DiscordState, header: str) -> web.Response | None:
    """`GET /users/@me` with a Bearer token: the user who granted it (None when the header is not a Bearer)."""
    if not header.startswith("Bearer "):
        return None
    grant = state.oauth_tokens.get(header[7:])
    if grant is None or time.time() - grant.at > TOKEN_LIFETIME:
        return reply({"message": "401: Unauthorized", "code": 0}, status=401)
    return reply(user_json(state.users[grant.user_id]))
