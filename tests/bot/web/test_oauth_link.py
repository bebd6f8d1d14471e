"""OAuth linking through the bot's real web endpoint and the local Lichess's OAuth pages."""

from __future__ import annotations

import html
import re
import sqlite3
from urllib.parse import parse_qs, urlsplit

import aiohttp

from bot.director.models import Actor
from bot.director.tokens import valid_tokens
from storage import oauth as storage_oauth
from storage import players as storage_players
from tests.bot.web.conftest import Site

ALICE = Actor(501, "alice-discord")
BOB = Actor(502, "bob-discord")


async def _lichess_url(start: str) -> str:
    """Play the member's browser on the bot's page before Lichess: where its button leads."""
    async with aiohttp.ClientSession() as http, http.get(start) as reply:
        assert reply.status == 200, await reply.text()
        found = re.search(r'id="next" href="([^"]+)"', await reply.text())
    assert found is not None
    return html.unescape(found.group(1))


async def _authorise(url: str, *, extra: str) -> str:
    """Play the member's browser from /link's button through Lichess's page: the callback URL Lichess redirects to."""
    lichess = await _lichess_url(url)
    async with aiohttp.ClientSession() as http, http.get(lichess + extra, allow_redirects=False) as reply:
        assert reply.status == 302, await reply.text()
        return reply.headers["Location"]


async def _visit(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as http, http.get(url) as reply:
        return reply.status, await reply.text()


def _db_bytes(site: Site) -> bytes:
    """Every byte of the SQLite file and its WAL (what an attacker with the disk would read)."""
    data = site.db_path.read_bytes()
    wal = site.db_path.with_name(site.db_path.name + "-wal")
    return data + (wal.read_bytes() if wal.exists() else b"")


def _dms(site: Site, who: Actor) -> list[str]:
    return [text for discord_id, text in site.announcer.of("dm") if discord_id == who.discord_id]


async def test_the_authorisation_url_asks_for_challenge_write_with_pkce(site: Site) -> None:
    start = await site.director.start_oauth_link(ALICE)
    assert start.startswith(f"{site.web.local_url}/oauth/start?state=")
    url = await _lichess_url(start)
    query = parse_qs(urlsplit(url).query)
    assert url.startswith(f"{site.sandbox.url}/oauth?")
    assert query["scope"] == ["challenge:write"]
    assert query["code_challenge_method"] == ["S256"]
    assert query["redirect_uri"] == [f"{site.web.local_url}/oauth/callback"]
    assert len(query["state"][0]) >= 32
    other = parse_qs(urlsplit(await _lichess_url(await site.director.start_oauth_link(BOB))).query)
    assert other["state"] != query["state"] and other["code_challenge"] != query["code_challenge"]


async def test_linking_stores_the_token_encrypted_and_tells_the_member(site: Site) -> None:
    site.sandbox.add_user("Alice", rating=1800)
    callback = await _authorise(await site.director.start_oauth_link(ALICE), extra="&sandbox_user=alice")
    assert callback.startswith(f"{site.web.local_url}/oauth/callback?")
    status, page = await _visit(callback)
    assert status == 200
    linked = "The Lichess account Alice is now linked to the Discord member alice-discord"
    assert linked in page and "Not that Discord member?" in page
    assert _dms(site, ALICE) == [f"{linked}: their games will start by themselves."]
    player = await storage_players.player_by_discord(site.db, ALICE.discord_id)
    assert player is not None and player.lichess_id == "alice"
    stored = await storage_oauth.tokens_of(site.db, [player.id])
    assert stored[player.id].scopes == frozenset({"challenge:write"})
    issued = [t for t in site.sandbox.state.tokens if t.startswith("lio_")]
    assert len(issued) == 1
    assert site.director.ctx.vault is not None
    assert site.director.ctx.vault.open(stored[player.id].secret) == issued[0]
    await site.db.connection.execute("PRAGMA wal_checkpoint(FULL)")
    raw = _db_bytes(site)
    assert b"lio_" not in raw and issued[0].encode() not in raw
    with sqlite3.connect(site.db_path) as conn:
        assert conn.execute("SELECT count(*) FROM player_tokens WHERE token LIKE '%lio_%'").fetchone() == (0,)
    # the token works for what the bot needs it for
    assert set((await valid_tokens(site.director.ctx, [player.id])).values()) == {issued[0]}


async def test_a_reused_state_is_refused_and_changes_nothing(site: Site) -> None:
    site.sandbox.add_user("Alice", rating=1800)
    callback = await _authorise(await site.director.start_oauth_link(ALICE), extra="&sandbox_user=alice")
    assert (await _visit(callback))[0] == 200
    before = len(site.announcer.of("dm"))
    status, page = await _visit(callback)
    assert status == 400
    assert "This link is not valid or was already used: run /link again in Discord." in page
    assert len(site.announcer.of("dm")) == before  # nobody to tell: the state names no one any more


async def test_a_wrong_state_is_refused_and_stores_nothing(site: Site) -> None:
    site.sandbox.add_user("Alice", rating=1800)
    callback = await _authorise(await site.director.start_oauth_link(ALICE), extra="&sandbox_user=alice")
    forged = callback.replace("state=", "state=x")
    status, page = await _visit(forged)
    assert status == 400 and "This link is not valid or was already used" in page
    assert await storage_players.player_by_discord(site.db, ALICE.discord_id) is None
    status, _ = await _visit(f"{site.web.local_url}/oauth/callback")
    assert status == 400


async def test_an_expired_state_is_refused(site: Site) -> None:
    site.sandbox.add_user("Alice", rating=1800)
    callback = await _authorise(await site.director.start_oauth_link(ALICE), extra="&sandbox_user=alice")
    site.clock.advance(site.director.ctx.settings.link_code_lifetime + 1)
    status, page = await _visit(callback)
    assert status == 400 and "This link expired: run /link again in Discord." in page
    assert _dms(site, ALICE) == ["This link expired: run /link again in Discord."]
    assert await storage_players.player_by_discord(site.db, ALICE.discord_id) is None


async def test_a_code_lichess_refuses_is_said_and_stores_nothing(site: Site) -> None:
    site.sandbox.add_user("Alice", rating=1800)
    callback = await _authorise(await site.director.start_oauth_link(ALICE), extra="&sandbox_user=alice")
    query = parse_qs(urlsplit(callback).query)
    bad = f"{site.web.local_url}/oauth/callback?code=liu_forged&state={query['state'][0]}"
    status, page = await _visit(bad)
    assert status == 400 and "Lichess refused the authorisation" in page
    assert _dms(site, ALICE) == ["Lichess refused the authorisation (it may have expired): run /link again."]
    assert await storage_players.player_by_discord(site.db, ALICE.discord_id) is None


async def test_a_denied_consent_is_said_and_stores_nothing(site: Site) -> None:
    site.sandbox.add_user("Alice", rating=1800)
    callback = await _authorise(await site.director.start_oauth_link(ALICE), extra="&sandbox_deny=1")
    assert "error=access_denied" in callback
    status, page = await _visit(callback)
    assert status == 400 and "You did not allow the bot on Lichess, so nothing was linked." in page
    assert _dms(site, ALICE) == ["You did not allow the bot on Lichess, so nothing was linked."]
    assert await storage_players.player_by_discord(site.db, ALICE.discord_id) is None


async def test_an_account_linked_elsewhere_is_refused_and_its_new_token_revoked(site: Site) -> None:
    site.sandbox.add_user("Alice", rating=1800)
    first = await _authorise(await site.director.start_oauth_link(ALICE), extra="&sandbox_user=alice")
    assert (await _visit(first))[0] == 200
    second = await _authorise(await site.director.start_oauth_link(BOB), extra="&sandbox_user=alice")
    status, page = await _visit(second)
    assert status == 400 and "The Lichess account Alice is linked to another member." in page
    assert _dms(site, BOB) == ["The Lichess account Alice is linked to another member."]
    assert await storage_players.player_by_discord(site.db, BOB.discord_id) is None
    issued = [t for t in site.sandbox.state.tokens if t.startswith("lio_")]
    answers = await site.gateway.test_tokens(issued)
    assert sum(1 for info in answers.values() if info is not None) == 1  # Bob's new token was revoked


async def test_closed_flagged_and_bot_accounts_are_refused(site: Site) -> None:
    cases = [("Closed1", {"disabled": True}, "is closed"), ("Flagged1", {"tosViolation": True}, "flagged")]
    for index, (name, extra, words) in enumerate(cases):
        site.sandbox.add_user(name, rating=1500)
        actor = Actor(600 + index, f"m{index}")
        callback = await _authorise(await site.director.start_oauth_link(actor), extra=f"&sandbox_user={name}")
        for key, value in extra.items():
            setattr(site.sandbox.state.users[name.lower()], _attr(key), value)
        status, page = await _visit(callback)
        assert status == 400 and words in page, page
        assert await storage_players.player_by_discord(site.db, actor.discord_id) is None


def _attr(key: str) -> str:
    return {"disabled": "disabled", "tosViolation": "tos_violation"}[key]


async def test_unlinking_revokes_the_token_on_lichess(site: Site) -> None:
    site.sandbox.add_user("Alice", rating=1800)
    assert (await _visit(await _authorise(await site.director.start_oauth_link(ALICE), extra="&sandbox_user=alice")))[
        0
    ] == 200
    issued = next(t for t in site.sandbox.state.tokens if t.startswith("lio_"))
    assert (await site.gateway.test_tokens([issued]))[issued] is not None
    assert await site.director.revoke_member_token(ALICE.discord_id) is True
    assert (await site.gateway.test_tokens([issued]))[issued] is None
    player = await storage_players.player_by_discord(site.db, ALICE.discord_id)
    assert player is not None and await storage_oauth.tokens_of(site.db, [player.id]) == {}
    assert await site.director.revoke_member_token(ALICE.discord_id) is False


async def test_a_token_revoked_on_lichess_is_found_and_the_member_told_to_link_again(site: Site) -> None:
    site.sandbox.add_user("Alice", rating=1800)
    assert (await _visit(await _authorise(await site.director.start_oauth_link(ALICE), extra="&sandbox_user=alice")))[
        0
    ] == 200
    issued = next(t for t in site.sandbox.state.tokens if t.startswith("lio_"))
    await site.gateway.revoke_token(issued)
    player = await storage_players.player_by_discord(site.db, ALICE.discord_id)
    assert player is not None
    assert await valid_tokens(site.director.ctx, [player.id], context="round 1") == {}
    assert "run /link again" in _dms(site, ALICE)[-1]
    told = len(_dms(site, ALICE))
    assert await valid_tokens(site.director.ctx, [player.id]) == {}
    assert len(_dms(site, ALICE)) == told  # told once
