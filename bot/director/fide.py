"""FIDE-rated events: a member's FIDE profile (their own, or an organiser's for them) and the event's TRF header."""

from __future__ import annotations

from dataclasses import replace

from bot.director import organiser
from bot.director.context import Context
from bot.director.lookups import get_event, linked_player, sentence
from bot.director.models import Actor
from bot.errors import InvalidSetting, NotLinked, NotOrganiser
from domain.entry import PlayerRow
from domain.event import Event
from domain.fide import FideProfile, TrfHeader
from storage import errors as storage_errors
from storage import players as storage_players


async def set_fide_profile(ctx: Context, actor: Actor, profile: FideProfile, player: str | None = None) -> PlayerRow:
    """Record a FIDE profile: the actor's own, or (organisers) a player's named by Discord id or Lichess name."""
    if player is None:
        target = await linked_player(ctx.db, actor)
    else:
        if not actor.is_organiser:
            raise NotOrganiser()
        target = await _player(ctx, player)
    problems = profile.problems()
    if problems:
        raise InvalidSetting(sentence("; ".join(problems)))
    try:
        return await storage_players.set_fide_profile(
            ctx.db, target.id, profile, at=ctx.clock.now(), actor=actor.audit_name
        )
    except storage_errors.InvalidInput as exc:
        raise InvalidSetting(str(exc)) from None


async def set_trf_header(ctx: Context, actor: Actor, event_id: int, header: TrfHeader) -> Event:
    """Record the event's TRF header for the arbiter's report (an edit of its settings: audited)."""
    event = await get_event(ctx.db, event_id)
    return await organiser.edit_event(ctx, actor, event_id, replace(event.settings, trf_header=header))


async def _player(ctx: Context, key: str) -> PlayerRow:
    """A player known to the bot by Discord id or Lichess name, or NotLinked."""
    typed = key.strip()
    found = await storage_players.player_by_discord(ctx.db, int(typed)) if typed.isdigit() else None
    found = found or await storage_players.player_by_lichess(ctx.db, typed)
    if found is None:
        raise NotLinked(f"{typed} is not a member with a linked Lichess account.")
    return found
