"""/link in the member's browser: the page that names the Discord member before Lichess, the optional Discord
sign-in, and the OAuth callback Lichess sends the browser back to.

Without Discord OAuth2 credentials the protection is the member's name on both pages: a forwarded link shows
its reader whose link it is before and after Lichess. With them (`[discord] oauth_client_id` and
`SWISSBOT_DISCORD_CLIENT_SECRET`), the browser signs in with Discord (`identify`) first: the bot sends it on to
Lichess only when it signed in as the member who ran /link, and marks that browser with an HttpOnly cookie; the
callback completes the link only in that browser. Sign-ins are kept in memory for the link's lifetime.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlencode

import aiohttp
import aiohttp_jinja2
from aiohttp import web

from bot.director.oauth import CALLBACK_PATH, START_PATH
from bot.web.keys import DIRECTOR

LOG = logging.getLogger(__name__)

DISCORD_PATH = "/oauth/discord"
COOKIE = "swissbot_link"
MAX_SIGNINS = 10_000  # pending sign-ins kept at once (the oldest go first)
DISCORD_TIMEOUT = aiohttp.ClientTimeout(total=15)
INVALID = "This link is not valid, expired or was already used: run /link again in Discord."
BROKEN = "Something went wrong on the bot's side; nothing was linked. Try /link again later."


@dataclass(frozen=True)
class DiscordSignIn:
    """The bot's Discord OAuth2 application (`identify` only) and where Discord and the endpoint are."""

    client_id: int
    client_secret: str = field(repr=False)
    api_url: str = "https://discord.com"
    public_url: str = ""
    lifetime: float = 15 * 60.0

    @property
    def redirect_uri(self) -> str:
        """Where Discord sends the browser back."""
        return self.public_url.rstrip("/") + DISCORD_PATH

    def authorize_url(self, nonce: str) -> str:
        """Discord's authorisation page for `identify`."""
        query = {
            "response_type": "code",
            "client_id": str(self.client_id),
            "scope": "identify",
            "redirect_uri": self.redirect_uri,
            "state": nonce,
            "prompt": "none",
        }
        return f"{self.api_url.rstrip('/')}/oauth2/authorize?{urlencode(query)}"

    async def user_of(self, code: str) -> int:
        """The Discord user id behind an authorisation code (the code exchanged, `/users/@me` read)."""
        api = self.api_url.rstrip("/") + "/api/v10"
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": self.redirect_uri}
        client = {"Authorization": aiohttp.encode_basic_auth(str(self.client_id), self.client_secret)}
        async with aiohttp.ClientSession(timeout=DISCORD_TIMEOUT) as http:
            async with http.post(f"{api}/oauth2/token", data=form, headers=client) as reply:
                if reply.status != 200:
                    raise SignInFailed(f"Discord refused the sign-in code ({reply.status})")
                token = (await reply.json()).get("access_token")
            if not isinstance(token, str) or not token:
                raise SignInFailed("Discord answered without a token")
            headers = {"Authorization": f"Bearer {token}"}
            async with http.get(f"{api}/users/@me", headers=headers) as reply:
                if reply.status != 200:
                    raise SignInFailed(f"Discord did not say who signed in ({reply.status})")
                return int((await reply.json())["id"])


class SignInFailed(Exception):
    """Discord's sign-in did not say who the browser is."""


@dataclass
class Pending:
    """A browser on its way through Discord's sign-in for one /link `state`."""

    state: str
    browser: str
    at: float


@dataclass
class SignIns:
    """The browsers signing in, by the nonce sent to Discord; and the signed-in ones, by /link state."""

    lifetime: float
    by_nonce: dict[str, Pending] = field(default_factory=dict)
    by_state: dict[str, Pending] = field(default_factory=dict)

    def begin(self, state: str, browser: str) -> str:
        """A nonce for Discord's `state`, tied to the /link state and the browser's cookie."""
        self._forget_old()
        nonce = secrets.token_urlsafe(24)
        self.by_nonce[nonce] = Pending(state, browser, time.monotonic())
        return nonce

    def _forget_old(self) -> None:
        now = time.monotonic()
        for table in (self.by_nonce, self.by_state):
            for key in [k for k, p in table.items() if now - p.at > self.lifetime]:
                del table[key]
            while len(table) >= MAX_SIGNINS:
                table.pop(next(iter(table)))


RouteModule = Callable[[web.Application], None]  # as `bot.web.app`'s, which route modules do not import
SIGNIN = web.AppKey("discord_signin", DiscordSignIn)
SIGNINS = web.AppKey("discord_signins", SignIns)


def oauth_routes(signin: DiscordSignIn | None = None) -> RouteModule:
    """The route module of /link's pages; with `signin`, the browser signs in with Discord before Lichess."""

    def add_routes(app: web.Application) -> None:
        app.router.add_get(START_PATH, start)
        app.router.add_get(CALLBACK_PATH, callback)
        if signin is not None:
            app[SIGNIN] = signin
            app[SIGNINS] = SignIns(signin.lifetime)
            app.router.add_get(DISCORD_PATH, discord_callback)

    return add_routes


async def start(request: web.Request) -> web.Response:
    """The page /link's button opens: whose link this is, then on to Lichess (or to Discord's sign-in first)."""
    director = request.app[DIRECTOR]
    state = request.query.get("state", "")
    pending = await director.pending_link(state)
    if pending is None:
        return _landing(request, INVALID, 400)
    signin = request.app.get(SIGNIN)
    context = {"name": pending.display_name, "signin": signin is not None, "next": pending.lichess_url}
    if signin is None:
        return _render(request, "confirm.html", context, 200)
    browser = secrets.token_urlsafe(24)
    context["next"] = signin.authorize_url(request.app[SIGNINS].begin(state, browser))
    response = _render(request, "confirm.html", context, 200)
    response.set_cookie(
        COOKIE,
        browser,
        max_age=int(signin.lifetime),
        path="/oauth",
        httponly=True,
        samesite="Lax",  # sent on the top-level redirects back from Discord and Lichess, not on other sites' requests
        secure=signin.public_url.startswith("https://"),
    )
    return response


async def discord_callback(request: web.Request) -> web.Response:
    """Discord sends the browser back: on to Lichess only if it signed in as the member who ran /link."""
    director = request.app[DIRECTOR]
    signin, signins = request.app[SIGNIN], request.app[SIGNINS]
    pending = signins.by_nonce.pop(request.query.get("state", ""), None)
    if pending is None or pending.browser != request.cookies.get(COOKIE):
        return _landing(request, "This Discord sign-in is not valid here: open the link from /link again.", 400)
    link = await director.pending_link(pending.state)
    if link is None:
        return _landing(request, INVALID, 400)
    code = request.query.get("code")
    if not code:
        return _landing(request, "You did not sign in with Discord, so nothing was linked.", 400)
    try:
        user = await signin.user_of(code)
    except (SignInFailed, aiohttp.ClientError, TimeoutError, ValueError, KeyError) as exc:
        LOG.warning("Discord sign-in failed: %s", type(exc).__name__)
        return _landing(request, "Discord could not confirm who you are right now: try the link again.", 502)
    if user != link.discord_id:
        outcome = await director.finish_oauth_link(pending.state, None, None, confirmed=False)
        return _landing(request, outcome.sentence, 403)
    signins.by_state[pending.state] = pending  # signed in as the member: the callback may complete in this browser
    raise web.HTTPFound(link.lichess_url)


async def callback(request: web.Request) -> web.Response:
    """Finish the link and say what happened in one sentence, naming the Discord member it went to."""
    director = request.app[DIRECTOR]
    query = request.query
    state = query.get("state")
    confirmed = True
    if SIGNINS in request.app:
        signed = request.app[SIGNINS].by_state.pop(state or "", None)
        confirmed = signed is not None and signed.browser == request.cookies.get(COOKIE)
    try:
        outcome = await director.finish_oauth_link(state, query.get("code"), query.get("error"), confirmed=confirmed)
    except Exception:
        LOG.exception("OAuth callback failed")
        return _landing(request, BROKEN, 500)
    response = _landing(request, outcome.sentence, 200 if outcome.linked else 400, linked=outcome.linked)
    if SIGNINS in request.app:
        response.del_cookie(COOKIE, path="/oauth")
    return response


def _landing(request: web.Request, sentence: str, status: int, *, linked: bool = False) -> web.Response:
    return _render(request, "landing.html", {"sentence": sentence, "ok": status == 200, "linked": linked}, status)


def _render(request: web.Request, template: str, context: dict[str, object], status: int) -> web.Response:
    response = aiohttp_jinja2.render_template(template, request, context, status=status)
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response
