"""OAuth2 with PKCE as lichess.org does it: the authorization page, the token endpoint, revocation, token test."""

from __future__ import annotations

import base64
import hashlib
import html
import secrets
import string
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit, urlunsplit

from aiohttp import web

from sandbox.lichess.http import TOKEN, BadRequest, error, form_or_json, state_of
from sandbox.lichess.state import ALL_SCOPES, AuthCode, SandboxState, Token

CODE_LIFETIME = 120.0  # authorization codes are short-lived and single-use
TOKEN_LIFETIME = 365 * 24 * 3600  # lila: OAuth tokens last about a year, with no refresh token
TOKEN_TEST_LIMIT = 1000
VERIFIER_MIN_LENGTH = 43

routes = web.RouteTableDef()


class OAuthError(Exception):
    """lila's OAuth protocol error: an `error` code and an `error_description`."""

    def __init__(self, code: str, description: str) -> None:
        super().__init__(description)
        self.code = code
        self.description = description


@dataclass(frozen=True)
class AuthRequest:
    """A checked authorization request (the query of `GET /oauth`)."""

    client_id: str
    redirect_uri: str
    challenge: str
    scopes: frozenset[str]
    state: str
    username: str | None


def _secret(prefix: str) -> str:
    alphabet = string.ascii_letters + string.digits
    return prefix + "".join(secrets.choice(alphabet) for _ in range(32))


def challenge_of(verifier: str) -> str:
    """`BASE64URL(SHA256(code_verifier))` without padding: the S256 code challenge."""
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def _redirect_allowed(uri: str) -> bool:
    parts = urlsplit(uri)
    return bool(parts.scheme) and (parts.scheme in ("http", "https", "ionic", "capacitor") or "." in parts.scheme)


def check_request(params: dict[str, str]) -> AuthRequest:
    """The authorization request's parameters, checked in lila's order (raises `OAuthError`)."""
    response_type = params.get("response_type", "")
    if not response_type:
        raise OAuthError("invalid_request", "response_type required")
    if response_type != "code":
        raise OAuthError("unsupported_response_type", "supports only response_type 'code'")
    client_id = params.get("client_id", "")
    if not client_id:
        raise OAuthError("invalid_request", "client_id required (choose any)")
    redirect_uri = params.get("redirect_uri", "")
    if not redirect_uri:
        raise OAuthError("invalid_request", "redirect_uri required")
    if not _redirect_allowed(redirect_uri):
        raise OAuthError("invalid_request", "redirect_uri invalid")
    method = params.get("code_challenge_method", "")
    if not method:
        raise OAuthError("invalid_request", "code_challenge_method required")
    if method != "S256":
        raise OAuthError("unauthorized_client", "supports only code_challenge_method 'S256'")
    challenge = params.get("code_challenge", "")
    if not challenge:
        raise OAuthError("invalid_request", "code_challenge required")
    scopes = frozenset(params.get("scope", "").split())
    for scope in sorted(scopes - ALL_SCOPES):
        raise OAuthError("invalid_scope", f"invalid scope: {scope}")
    return AuthRequest(client_id, redirect_uri, challenge, scopes, params.get("state", ""), params.get("username"))


def _with_query(uri: str, query: dict[str, str]) -> str:
    parts = urlsplit(uri)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), parts.fragment))


def _redirect(location: str) -> web.Response:
    return web.Response(status=302, headers={"Location": location})


def _approve(state: SandboxState, req: AuthRequest, uid: str) -> web.Response:
    code = _secret("liu_")
    state.auth_codes[code] = AuthCode(
        code, uid, req.scopes, req.client_id, req.redirect_uri, req.challenge, state.now() + CODE_LIFETIME
    )
    return _redirect(_with_query(req.redirect_uri, {"code": code, "state": req.state}))


def _deny(req: AuthRequest) -> web.Response:
    query = {"error": "access_denied", "error_description": "user cancelled authorization", "state": req.state}
    return _redirect(_with_query(req.redirect_uri, query))


def _error_page(exc: OAuthError) -> web.Response:
    body = (
        "<!doctype html><title>Bad authorization request</title>"
        f"<h1>{exc.code}</h1><p>{html.escape(exc.description)}</p>"
    )
    return web.Response(status=400, text=body, content_type="text/html")


def _page(state: SandboxState, req: AuthRequest, params: dict[str, str]) -> web.Response:
    hidden = "".join(
        f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
        for k, v in params.items()
        if not k.startswith("sandbox_")
    )
    options = "".join(
        f'<option value="{u.id}"{" selected" if req.username and u.id == req.username.lower() else ""}>'
        f"{html.escape(u.username)}</option>"
        for u in state.users.values()
        if not u.disabled
    )
    scopes = "".join(f"<li>{html.escape(s)}</li>" for s in sorted(req.scopes)) or "<li>(no scope)</li>"
    body = (
        "<!doctype html><title>Authorize</title>"
        f"<h1>{html.escape(req.client_id)} wants to access your Lichess account</h1><ul>{scopes}</ul>"
        f'<form method="post" action="/oauth">{hidden}<label>Signed in as <select name="sandbox_user">{options}'
        '</select></label><button name="sandbox_decision" value="approve">Authorize</button>'
        '<button name="sandbox_decision" value="deny">Cancel</button></form>'
    )
    return web.Response(text=body, content_type="text/html")


def _decide(state: SandboxState, req: AuthRequest, user: str | None, deny: bool) -> web.Response | None:
    """Approve as `user` or deny; None if nobody decided yet (then the page is shown)."""
    if deny:
        return _deny(req)
    if user is None:
        return None
    account = state.users.get(user.lower())
    if account is None or account.disabled:
        return _error_page(OAuthError("invalid_request", f"no such sandbox user: {user}"))
    return _approve(state, req, account.id)


def _queued_decision(state: SandboxState, req: AuthRequest) -> tuple[str | None, bool] | None:
    """A decision the control API queued for this request's state (or for any request)."""
    for wanted in (req.state, None):
        for i, (for_state, user) in enumerate(state.oauth_decisions):
            if for_state == wanted:
                del state.oauth_decisions[i]
                return user, user is None
    return None


@routes.get("/oauth")
async def authorize(request: web.Request) -> web.Response:
    """`oauth`: the authorization page; `sandbox_user` or `sandbox_deny` (or a queued decision) answers at once."""
    state = state_of(request)
    params = dict(request.query)
    try:
        req = check_request(params)
    except OAuthError as exc:
        return _error_page(exc)
    deny = params.get("sandbox_deny", "") not in ("", "0", "false")
    decided = _decide(state, req, params.get("sandbox_user"), deny)
    if decided is not None:
        return decided
    queued = _queued_decision(state, req)
    if queued is not None:
        decided = _decide(state, req, *queued)
        if decided is not None:
            return decided
    return _page(state, req, params)


@routes.post("/oauth")
async def authorize_form(request: web.Request) -> web.Response:
    """The authorization page's form: `sandbox_decision=approve|deny` as `sandbox_user`."""
    state = state_of(request)
    form = await request.post()
    params = {k: v for k, v in form.items() if isinstance(v, str)}
    try:
        req = check_request(params)
    except OAuthError as exc:
        return _error_page(exc)
    deny = params.get("sandbox_decision") == "deny"
    decided = _decide(state, req, params.get("sandbox_user"), deny)
    return decided if decided is not None else _page(state, req, params)


def _oauth_error(exc: OAuthError) -> web.Response:
    return web.json_response({"error": exc.code, "error_description": exc.description}, status=400)


def exchange(state: SandboxState, body: dict[str, str]) -> Token:
    """Check an authorization-code grant in lila's order and issue the token (raises `OAuthError`)."""
    grant_type = body.get("grant_type", "")
    if not grant_type:
        raise OAuthError("invalid_request", "grant_type required")
    if grant_type != "authorization_code":
        raise OAuthError("unsupported_grant_type", "supports only grant_type 'authorization_code'")
    code, verifier = body.get("code", ""), body.get("code_verifier", "")
    if not code:
        raise OAuthError("invalid_request", "code required")
    if not verifier:
        raise OAuthError("invalid_request", "code_verifier required")
    if len(verifier) < VERIFIER_MIN_LENGTH:
        raise OAuthError("invalid_request", "code_verifier too short")
    redirect_uri, client_id = body.get("redirect_uri", ""), body.get("client_id", "")
    if not redirect_uri:
        raise OAuthError("invalid_request", "redirect_uri required")
    if not client_id:
        raise OAuthError("invalid_request", "client_id required (choose any)")
    pending = state.auth_codes.pop(code, None)  # consumed by any attempt, as lila does
    if pending is None:
        raise OAuthError("invalid_grant", "authorization code invalid, expired or consumed")
    if state.now() >= pending.expires:
        raise OAuthError("invalid_grant", "authorization code expired")
    if pending.redirect_uri != redirect_uri:
        raise OAuthError("invalid_grant", f"authorization code was issued for a different redirect_uri: {redirect_uri}")
    if pending.client_id != client_id:
        raise OAuthError("invalid_grant", f"authorization code was issued for a different client_id: {client_id}")
    if challenge_of(verifier) != pending.challenge:
        raise OAuthError("invalid_grant", "hash of code_verifier does not match code_challenge")
    token = Token(_secret("lio_"), pending.user, pending.scopes, state.now() + TOKEN_LIFETIME)
    state.tokens[token.secret] = token
    return token


@routes.post("/api/token")
async def token_endpoint(request: web.Request) -> web.Response:
    """`apiToken`: exchange an authorization code (with its PKCE verifier) for an access token."""
    try:
        body = {k: str(v) for k, v in (await form_or_json(request)).items()}
    except BadRequest as exc:
        return _oauth_error(OAuthError("invalid_request", str(exc)))
    try:
        token = exchange(state_of(request), body)
    except OAuthError as exc:
        return _oauth_error(exc)
    return web.json_response({"token_type": "Bearer", "access_token": token.secret, "expires_in": TOKEN_LIFETIME})


@routes.delete("/api/token")
async def revoke_token(request: web.Request) -> web.Response:
    """`apiTokenDelete`: revoke the token that authenticates this request."""
    token: Token | None = request.get(TOKEN)
    if token is None:
        return error(401, "No token provided")
    state_of(request).tokens.pop(token.secret, None)
    return web.Response(status=204)


def token_test(state: SandboxState, secrets_: list[str]) -> dict[str, object]:
    """`tokenTest`'s answer: for the first 1000 tokens, `{userId, scopes, expires}` or null."""
    reply: dict[str, object] = {}
    for secret in secrets_[:TOKEN_TEST_LIMIT]:
        token = state.token(secret)
        reply[secret] = (
            None
            if token is None
            else {
                "userId": token.user,
                "scopes": ",".join(sorted(token.scopes)),
                "expires": None if token.expires is None else round(token.expires * 1000),
            }
        )
    return reply


@routes.post("/api/token/test")
async def test_tokens(request: web.Request) -> web.Response:
    """`tokenTest`: for up to 1000 tokens, `{userId, scopes, expires}` or null."""
    secrets_ = [t.strip() for t in (await request.text()).split(",") if t.strip()]
    return web.json_response(token_test(state_of(request), secrets_))
