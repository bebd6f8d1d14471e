"""OAuth linking: /link through Lichess's authorisation page (PKCE S256), the members' tokens, their checks.

A member's `challenge:write` token lets the bot put their games into bulk pairings. The token is sealed
with the context's `TokenVault` before it is stored and never logged; without a vault the bot stores no
token and /link uses the bio code. Each failure of the callback is one sentence, shown on the landing page
and sent to the member, and leaves nothing stored.

A link is bound to the Discord member who asked: /link's button opens the bot's own page (`START_PATH`), which
names that member before sending the browser to Lichess, and the landing page names them again. Where the web
endpoint signs the browser in with Discord (`bot.web.oauth`), the callback completes only with `confirmed` true:
the browser that comes back from Lichess signed in as that member.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import secrets
from dataclasses import dataclass, field
from datetime import timedelta
from urllib.parse import urlencode

from bot.director.context import Context
from bot.director.members import check_account
from bot.director.models import Actor
from bot.director.tokens import SCOPE
from bot.errors import InvalidState, LichessAccountRefused
from bot.lichess.errors import LichessError, LichessOAuthRefused
from storage import oauth as storage_oauth
from storage import players as storage_players

LOG = logging.getLogger(__name__)

CALLBACK_PATH = "/oauth/callback"
START_PATH = "/oauth/start"
CLIENT_ID = "swissbot"


NOT_CONFIRMED = (
    "A /link of the Discord member {name} came back from Lichess in a browser not signed in to Discord as"
    " {name}, so nothing was linked. Only the member who ran /link can complete it: run /link again."
)


@dataclass(frozen=True)
class OAuthOutcome:
    """What the callback did: `linked` or not, the sentence for the member, who they are (if known)."""

    linked: bool
    sentence: str
    discord_id: int | None = None
    lichess_name: str | None = None


@dataclass(frozen=True)
class PendingLink:
    """A /link waiting for the member's browser: who asked, and Lichess's authorisation page for it."""

    discord_id: int
    display_name: str
    lichess_url: str = field(repr=False)


def oauth_enabled(ctx: Context) -> bool:
    """/link goes through Lichess's OAuth page: the web endpoint is public and tokens can be sealed."""
    return ctx.public_url is not None and ctx.vault is not None


def redirect_uri(ctx: Context) -> str:
    """Where Lichess sends the member back (`<public_url>/oauth/callback`)."""
    if ctx.public_url is None:
        raise InvalidState("The bot has no public web address ([web] public_url): link with the bio code.")
    return ctx.public_url.rstrip("/") + CALLBACK_PATH


def code_challenge(verifier: str) -> str:
    """PKCE S256: base64url(sha256(verifier)) without padding."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


async def start_oauth_link(ctx: Context, actor: Actor) -> str:
    """The URL of /link's button: the bot's page that names the member, then sends the browser on to Lichess (a
    fresh single-use `state`, expiring)."""
    if not oauth_enabled(ctx):
        raise InvalidState("Linking through Lichess is off on this bot: use /link with your username.")
    now = ctx.clock.now()
    state = secrets.token_urlsafe(32)
    verifier = secrets.token_urlsafe(64)
    expires = now + timedelta(seconds=ctx.settings.link_code_lifetime)
    await storage_oauth.create_state(ctx.db, state, actor.discord_id, actor.name, verifier, at=now, expires_at=expires)
    assert ctx.public_url is not None
    return f"{ctx.public_url.rstrip('/')}{START_PATH}?{urlencode({'state': state})}"


async def pending_link(ctx: Context, state: str) -> PendingLink | None:
    """Whose link this `state` is and where Lichess's page for it is; None when it is unknown, used or expired."""
    if not oauth_enabled(ctx) or not state:
        return None
    pending = await storage_oauth.peek_state(ctx.db, state)
    if pending is None or (pending.expires_at is not None and ctx.clock.now() > pending.expires_at):
        return None
    query = urlencode(
        {
            "response_type": "code",
            "client_id": CLIENT_ID,
            "redirect_uri": redirect_uri(ctx),
            "code_challenge_method": "S256",
            "code_challenge": code_challenge(pending.verifier),
            "scope": SCOPE,
            "state": state,
        }
    )
    return PendingLink(pending.discord_id, pending.display_name, f"{ctx.lichess.base_url}/oauth?{query}")


async def prefers_oauth(ctx: Context, discord_id: int) -> bool:
    """/link without a username opens Lichess's page, unless the member is finishing a bio-code link."""
    if not oauth_enabled(ctx):
        return False
    return await storage_players.pending_link_code(ctx.db, discord_id, at=ctx.clock.now()) is None


async def finish_oauth_link(
    ctx: Context, state: str | None, code: str | None, error: str | None, *, confirmed: bool = True
) -> OAuthOutcome:
    """The callback: check the `state`, exchange the code, check the account, link it and store the token.

    `confirmed` False (the web endpoint signs browsers in with Discord, and this one did not sign in as the member
    who asked) uses up the state and links nothing; the member is told.
    """
    outcome = await _finish(ctx, state or "", code, error, confirmed)
    if outcome.discord_id is not None:
        await ctx.announcer.dm(outcome.discord_id, outcome.sentence)
    return outcome


async def _finish(ctx: Context, state: str, code: str | None, error: str | None, confirmed: bool) -> OAuthOutcome:
    if ctx.vault is None or ctx.public_url is None:
        return OAuthOutcome(False, "Linking through Lichess is off on this bot: use /link with your username.")
    pending = await storage_oauth.take_state(ctx.db, state) if state else None
    if pending is None:
        return OAuthOutcome(False, "This link is not valid or was already used: run /link again in Discord.")
    who = pending.discord_id
    if pending.expires_at is not None and ctx.clock.now() > pending.expires_at:
        return OAuthOutcome(False, "This link expired: run /link again in Discord.", who)
    if not confirmed:
        return OAuthOutcome(False, NOT_CONFIRMED.format(name=pending.display_name), who)
    if error or not code:
        return OAuthOutcome(False, "You did not allow the bot on Lichess, so nothing was linked.", who)
    try:
        token = await ctx.lichess.exchange_code(code, pending.verifier, redirect_uri(ctx), CLIENT_ID)
    except LichessOAuthRefused:
        return OAuthOutcome(False, "Lichess refused the authorisation (it may have expired): run /link again.", who)
    except LichessError:
        return OAuthOutcome(False, "Lichess is not answering right now: run /link again in a minute.", who)
    try:
        outcome = await _link(ctx, pending.discord_id, pending.display_name, token.token, token.expires_in)
    except Exception:
        await _revoke_quietly(ctx, token.token)
        raise
    if not outcome.linked:
        await _revoke_quietly(ctx, token.token)  # nothing is stored: Lichess forgets the token too
    return outcome


async def _link(ctx: Context, discord_id: int, display_name: str, token: str, expires_in: int | None) -> OAuthOutcome:
    """Read the account behind the token, check it, link it and store the sealed token."""
    assert ctx.vault is not None
    try:
        user = check_account(await ctx.lichess.account_of(token))
    except LichessAccountRefused as exc:
        return OAuthOutcome(False, str(exc), discord_id)
    except LichessError:
        return OAuthOutcome(False, "Lichess is not answering right now: run /link again in a minute.", discord_id)
    try:
        info = (await ctx.lichess.test_tokens([token])).get(token)
    except LichessError:
        info = None
    if info is None or SCOPE not in info.scopes:
        return OAuthOutcome(False, f"Lichess gave no {SCOPE} permission, so nothing was linked.", discord_id)
    now = ctx.clock.now()
    sealed = ctx.vault.seal(token)
    expires = now + timedelta(seconds=expires_in) if expires_in else info.expires
    async with ctx.db.transaction():
        other = await storage_players.player_by_lichess(ctx.db, user.id)
        if other is not None and other.discord_id != discord_id:
            return OAuthOutcome(False, f"The Lichess account {user.username} is linked to another member.", discord_id)
        mine = await storage_players.player_by_discord(ctx.db, discord_id)
        if mine is not None and mine.lichess_id is not None and mine.lichess_id != user.id:
            return OAuthOutcome(
                False,
                f"You are already linked to {mine.lichess_name}; you signed in on Lichess as {user.username}.",
                discord_id,
            )
        player = await storage_players.ensure_player(ctx.db, discord_id, display_name, at=now)
        await storage_players.link_account(
            ctx.db, discord_id, user.username, at=now, actor=f"{display_name} ({discord_id})"
        )
        await storage_oauth.store_token(ctx.db, player.id, user.id, sealed, info.scopes, at=now, expires_at=expires)
    LOG.info("OAuth: Discord user %d linked the Lichess account %s", discord_id, user.id)
    return OAuthOutcome(
        True,
        f"The Lichess account {user.username} is now linked to the Discord member {display_name}: their games will"
        " start by themselves.",
        discord_id,
        user.username,
    )


async def _revoke_quietly(ctx: Context, token: str) -> None:
    try:
        await ctx.lichess.revoke_token(token)
    except LichessError:
        LOG.warning("OAuth: could not revoke a refused token on Lichess")


async def revoke_member_token(ctx: Context, discord_id: int) -> bool:
    """Forget a member's token and revoke it on Lichess (call it when a member unlinks); True if there was one.

    The stored token is deleted first, so even if Lichess cannot be reached the bot never uses it again.
    """
    player = await storage_players.player_by_discord(ctx.db, discord_id)
    if player is None:
        return False
    stored = await storage_oauth.delete_token(ctx.db, player.id)
    if stored is None:
        return False
    if ctx.vault is not None:
        try:
            await ctx.lichess.revoke_token(ctx.vault.open(stored.secret))
        except LichessError:
            LOG.warning("OAuth: could not revoke player %d's token on Lichess (deleted here)", player.id)
    return True
