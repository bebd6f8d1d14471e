"""The members' Lichess tokens as the use cases need them: opened from the vault, tested, and marked invalid (the
member told to link again) when Lichess no longer accepts them. `oauth` stores them; bulk pairings and cancelling a
game that exists (`challenges.plan_cancel`) use them."""

from __future__ import annotations

from collections.abc import Iterable

from bot.director.context import Context
from storage import oauth as storage_oauth
from storage import players as storage_players

SCOPE = "challenge:write"  # what the bot asks a member for: their games in bulk pairings, and aborting one


async def valid_tokens(ctx: Context, player_ids: Iterable[int], *, context: str = "") -> dict[int, str]:
    """The players' tokens Lichess accepts with `challenge:write` (tested, 1000 per request), by player id.

    A token that is dead, expired, lacks the scope or belongs to another account is marked invalid and its
    member is told to link again (once). Tokens are opened only here and in memory.
    """
    if ctx.vault is None:
        return {}
    stored = {pid: t for pid, t in (await storage_oauth.tokens_of(ctx.db, player_ids)).items() if t.invalid_at is None}
    if not stored:
        return {}
    opened = {pid: ctx.vault.open(t.secret) for pid, t in stored.items()}
    answers = await ctx.lichess.test_tokens(list(opened.values()))
    good: dict[int, str] = {}
    bad: list[int] = []
    for pid, token in opened.items():
        info = answers.get(token)
        if info is not None and SCOPE in info.scopes and info.user_id == stored[pid].lichess_id:
            good[pid] = token
        else:
            bad.append(pid)
    await invalidate(ctx, bad, context=context)
    return good


async def invalidate(ctx: Context, player_ids: Iterable[int], *, context: str = "") -> None:
    """Mark these players' tokens invalid and tell each member (once) to link again."""
    ids = sorted(set(player_ids))
    if not ids:
        return
    now = ctx.clock.now()
    await storage_oauth.mark_invalid(ctx.db, ids, at=now)
    for pid in ids:
        player = await storage_players.get_player(ctx.db, pid)
        where = f" ({context})" if context else ""
        await ctx.announcer.dm(
            player.discord_id,
            f"Lichess no longer accepts the bot's permission for your account{where}: run /link again so your"
            " games start by themselves; until then you get an open challenge.",
        )
