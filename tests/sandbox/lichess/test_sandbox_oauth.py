"""OAuth2 with PKCE on the local Lichess: the authorization page, codes, tokens, revocation, token test."""

from __future__ import annotations

import asyncio
import secrets
from urllib.parse import parse_qsl

import berserk
import pytest

from sandbox.lichess import Sandbox
from sandbox.lichess.oauth import CODE_LIFETIME, TOKEN_LIFETIME, challenge_of
from tests.sandbox.lichess.helpers import (
    auth_query,
    authorize,
    call,
    control,
    exchange,
    oauth_token,
    personal_token,
    redirect_params,
)


def test_the_s256_challenge_is_rfc_7636s_example() -> None:
    # RFC 7636, appendix B
    assert challenge_of("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"


async def test_approval_redirects_with_a_code_that_gives_a_lio_token(sandbox: Sandbox) -> None:
    code, verifier = await authorize(sandbox, "alice", scope="challenge:write challenge:read")
    assert code.startswith("liu_")
    status, reply = await exchange(sandbox, code, verifier)
    assert status == 200, reply
    assert reply["token_type"] == "Bearer" and reply["expires_in"] == TOKEN_LIFETIME
    token = reply["access_token"]
    assert token.startswith("lio_")

    client = berserk.Client(session=berserk.TokenSession(token), base_url=sandbox.url)
    account = await asyncio.to_thread(client.account.get)
    assert account["id"] == "alice"
    tested = await asyncio.to_thread(client.oauth.test_tokens, token, "lio_nonsense")
    assert tested["lio_nonsense"] is None
    assert tested[token]["userId"] == "alice"
    assert tested[token]["scopes"].split(",") == ["challenge:read", "challenge:write"]
    assert tested[token]["expires"] == pytest.approx((sandbox.state.now() + TOKEN_LIFETIME) * 1000, abs=5000)


async def test_the_state_comes_back_unchanged(sandbox: Sandbox) -> None:
    verifier = secrets.token_urlsafe(48)
    query = auth_query(challenge_of(verifier), state="a b&c=d", sandbox_user="bob")
    status, location = await call(sandbox, "GET", "/oauth?" + query)
    assert status == 302
    assert redirect_params(location)["state"] == "a b&c=d"


async def test_a_wrong_verifier_is_refused_and_the_code_is_consumed(sandbox: Sandbox) -> None:
    code, verifier = await authorize(sandbox, "alice")
    status, reply = await exchange(sandbox, code, secrets.token_urlsafe(48))
    assert status == 400
    mismatch = "hash of code_verifier does not match code_challenge"
    assert reply == {"error": "invalid_grant", "error_description": mismatch}
    status, reply = await exchange(sandbox, code, verifier)  # even the right verifier now: the code is spent
    assert status == 400 and reply["error"] == "invalid_grant"
    assert "consumed" in reply["error_description"]


async def test_a_code_is_single_use(sandbox: Sandbox) -> None:
    code, verifier = await authorize(sandbox, "alice")
    assert (await exchange(sandbox, code, verifier))[0] == 200
    status, reply = await exchange(sandbox, code, verifier)
    assert status == 400 and reply["error_description"] == "authorization code invalid, expired or consumed"


async def test_a_code_expires(sandbox: Sandbox) -> None:
    code, verifier = await authorize(sandbox, "alice")
    await control(sandbox, "POST", "/sandbox/clock", {"advance": CODE_LIFETIME + 1})
    status, reply = await exchange(sandbox, code, verifier)
    assert status == 400 and reply["error_description"] == "authorization code expired"


async def test_the_code_is_bound_to_its_redirect_uri_and_client(sandbox: Sandbox) -> None:
    code, verifier = await authorize(sandbox, "alice")
    status, reply = await exchange(sandbox, code, verifier, redirect_uri="http://127.0.0.1:9999/other")
    assert status == 400 and "different redirect_uri" in reply["error_description"]
    code, verifier = await authorize(sandbox, "alice")
    status, reply = await exchange(sandbox, code, verifier, client_id="someone.else")
    assert status == 400 and "different client_id" in reply["error_description"]


@pytest.mark.parametrize(
    ("field", "value", "error", "description"),
    [
        ("grant_type", "password", "unsupported_grant_type", "supports only grant_type 'authorization_code'"),
        ("code_verifier", "short", "invalid_request", "code_verifier too short"),
        ("code", "", "invalid_request", "code required"),
    ],
)
async def test_bad_token_requests(sandbox: Sandbox, field: str, value: str, error: str, description: str) -> None:
    code, verifier = await authorize(sandbox, "alice")
    form = {"code": code, "code_verifier": verifier} | {field: value}
    status, reply = await exchange(sandbox, form.pop("code"), form.pop("code_verifier"), **form)
    assert status == 400 and reply == {"error": error, "error_description": description}


async def test_denial_redirects_with_access_denied(sandbox: Sandbox) -> None:
    query = auth_query(challenge_of(secrets.token_urlsafe(48)), state="s9", sandbox_deny="1")
    status, location = await call(sandbox, "GET", "/oauth?" + query)
    assert status == 302
    assert redirect_params(location) == {
        "error": "access_denied",
        "error_description": "user cancelled authorization",
        "state": "s9",
    }


async def test_the_page_and_its_form(sandbox: Sandbox) -> None:
    verifier = secrets.token_urlsafe(48)
    query = auth_query(challenge_of(verifier), state="s2", username="Carol")
    status, page = await call(sandbox, "GET", "/oauth?" + query)
    assert status == 200 and "<form" in page and '<option value="carol" selected>' in page
    form = dict(parse_qsl(query)) | {"sandbox_user": "carol", "sandbox_decision": "approve"}
    status, location = await call(sandbox, "POST", "/oauth", data=form)
    assert status == 302
    params = redirect_params(location)
    assert params["state"] == "s2"
    status, reply = await exchange(sandbox, params["code"], verifier)
    assert status == 200
    assert sandbox.state.tokens[reply["access_token"]].user == "carol"


async def test_the_control_api_decides_for_the_browser(sandbox: Sandbox) -> None:
    await control(sandbox, "POST", "/sandbox/oauth/decisions", {"username": "dave", "state": "mine"})
    await control(sandbox, "POST", "/sandbox/oauth/decisions", {"deny": True})
    # the decision for another state is not used; the general one (deny) is
    status, location = await call(sandbox, "GET", "/oauth?" + auth_query("x" * 43, state="other"))
    assert status == 302 and redirect_params(location)["error"] == "access_denied"
    verifier = secrets.token_urlsafe(48)
    status, location = await call(sandbox, "GET", "/oauth?" + auth_query(challenge_of(verifier), state="mine"))
    assert status == 302
    status, reply = await exchange(sandbox, redirect_params(location)["code"], verifier)
    assert sandbox.state.tokens[reply["access_token"]].user == "dave"
    status, page = await call(sandbox, "GET", "/oauth?" + auth_query("x" * 43, state="mine"))
    assert status == 200 and "<form" in page  # nothing queued any more: the page waits for the user


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"code_challenge_method": "plain"}, "supports only code_challenge_method"),
        ({"response_type": "token"}, "supports only response_type"),
        ({"scope": "challenge:write nonsense:scope"}, "invalid scope: nonsense:scope"),
        ({"redirect_uri": "javascript:alert(1)"}, "redirect_uri invalid"),
    ],
)
async def test_a_bad_authorization_request_shows_an_error(
    sandbox: Sandbox, change: dict[str, str], message: str
) -> None:
    status, page = await call(sandbox, "GET", "/oauth?" + auth_query("x" * 43, sandbox_user="alice", **change))
    assert status == 400 and message in page


async def test_revocation(sandbox: Sandbox) -> None:
    token = await oauth_token(sandbox, "bob")
    assert (await call(sandbox, "GET", "/api/account", token=token))[0] == 200
    status, _ = await call(sandbox, "DELETE", "/api/token", token=token)
    assert status == 204
    status, reply = await call(sandbox, "GET", "/api/account", token=token)
    assert status == 401 and reply == {"error": "No such token"}
    status, tested = await call(sandbox, "POST", "/api/token/test", data=token)
    assert tested == {token: None}
    assert (await call(sandbox, "DELETE", "/api/token"))[0] == 401


async def test_personal_tokens_keep_their_scopes(sandbox: Sandbox) -> None:
    narrow = await personal_token(sandbox, "alice", scopes=["challenge:read"])
    _, tested = await call(sandbox, "POST", "/api/token/test", data=f"{narrow},{sandbox.bot_token}")
    assert tested[narrow] == {"userId": "alice", "scopes": "challenge:read", "expires": None}
    assert "challenge:bulk" in tested[sandbox.bot_token]["scopes"].split(",")
    assert (await call(sandbox, "GET", "/api/account", token=narrow))[1]["id"] == "alice"


async def test_token_test_answers_at_most_1000_tokens(sandbox: Sandbox) -> None:
    many = ",".join(f"lip_{i}" for i in range(1005))
    status, tested = await call(sandbox, "POST", "/api/token/test", data=many)
    assert status == 200 and len(tested) == 1000 and set(tested.values()) == {None}
