"""The members' use cases: linking a Lichess account, joining and withdrawing, asking for a bye."""

from __future__ import annotations

import secrets
from datetime import timedelta

from bot.director.challenges import forfeit_departed
from bot.director.context import Context
from bot.director.lookups import ACTIVE_EVENT_STATUSES, OVER, get_event, linked_player, sentence
from bot.director.models import SYSTEM_ACTOR, Actor, LinkChallenge, LinkedAccount
from bot.errors import (
    AlreadyJoined,
    AlreadyLinked,
    Banned,
    ByeLimitReached,
    InvalidSetting,
    InvalidState,
    JoiningClosed,
    LichessAccountRefused,
    LinkCodeMissing,
    NotEntered,
    NotTeamMember,
    RatingOutOfRange,
)
from bot.lichess.errors import LichessError, LichessUnavailable, LichessUserNotFound
from bot.lichess.payloads import LichessUser, valid_username
from domain.entry import Entry, EntryStatus, first_round_open
from domain.event import Event, EventStatus
from domain.rounds import ByeRefused, match_bye_round
from storage import entries as storage_entries
from storage import errors as storage_errors
from storage import events as storage_events
from storage import players as storage_players


async def start_link(ctx: Context, actor: Actor, lichess_username: str) -> LinkChallenge:
    """Issue a one-time code for the player to put in their Lichess profile bio."""
    lichess_username = lichess_username.strip().lstrip("@")
    if not valid_username(lichess_username):
        shown = lichess_username if len(lichess_username) <= 40 else lichess_username[:39] + "…"
        raise InvalidSetting(f"'{shown}' is not a Lichess username: 2 to 30 letters, digits, _ or -.")
    user = await _account(ctx, lichess_username)
    now = ctx.clock.now()
    async with ctx.db.transaction():
        mine = await storage_players.player_by_discord(ctx.db, actor.discord_id)
        if mine is not None and mine.lichess_id is not None:
            raise AlreadyLinked(f"You are already linked to {mine.lichess_name}.")
        other = await storage_players.player_by_lichess(ctx.db, user.id)
        if other is not None and other.discord_id != actor.discord_id:
            raise AlreadyLinked(f"The Lichess account {user.username} is linked to another member.")
        await storage_players.ensure_player(ctx.db, actor.discord_id, actor.name, at=now)
        code = ctx.settings.link_code_prefix + secrets.token_hex(4)
        expires = now + timedelta(seconds=ctx.settings.link_code_lifetime)
        await storage_players.create_link_code(ctx.db, actor.discord_id, user.id, code, at=now, expires_at=expires)
    return LinkChallenge(code, user.username, expires)


async def complete_link(ctx: Context, actor: Actor) -> LinkedAccount:
    """Read the bio back; link when the code is there (one account per user and vice versa)."""
    now = ctx.clock.now()
    pending = await storage_players.get_link_code(ctx.db, actor.discord_id)
    if pending is None:
        raise LinkCodeMissing("Start with /link and your Lichess username.")
    if now > pending.expires_at:
        raise LinkCodeMissing("Your code expired: run /link again for a new one.")
    user = await _account(ctx, pending.lichess_id)
    if pending.code not in user.bio:
        raise LinkCodeMissing(
            f"The code {pending.code} is not in the bio of {user.username} yet "
            f"({ctx.lichess.base_url.rstrip('/')}/account/profile)."
        )
    async with ctx.db.transaction():
        player = await storage_players.ensure_player(ctx.db, actor.discord_id, actor.name, at=now)
        if player.lichess_id is not None:
            raise AlreadyLinked(f"You are already linked to {player.lichess_name}.")
        if await storage_players.player_by_lichess(ctx.db, user.id) is not None:
            raise AlreadyLinked(f"The Lichess account {user.username} is linked to another member.")
        await storage_players.link_account(ctx.db, actor.discord_id, user.username, at=now, actor=actor.audit_name)
    return LinkedAccount(actor.discord_id, user.id, user.username, now)


async def linked_account(ctx: Context, discord_id: int) -> LinkedAccount | None:
    """The verified Lichess account of a Discord user, if any."""
    player = await storage_players.player_by_discord(ctx.db, discord_id)
    if player is None or player.lichess_id is None or player.linked_at is None:
        return None
    return LinkedAccount(discord_id, player.lichess_id, player.lichess_name or player.lichess_id, player.linked_at)


async def join(ctx: Context, actor: Actor, event_id: int) -> Entry:
    """Enter an event (rating limits, account state, bans, team, late join with one half-point bye)."""
    now = ctx.clock.now()
    async with ctx.db.snapshot():
        event = await get_event(ctx.db, event_id)
        player = await linked_player(ctx.db, actor)
        current = await storage_entries.find_entry(ctx.db, event_id, player.id)
        ban = await storage_players.get_ban(ctx.db, event.guild_id, player.id)
    if event.status not in ACTIVE_EVENT_STATUSES:
        raise JoiningClosed(f"{event.name} is not open for entries.")
    if event.current_round > event.settings.rounds // 2:
        raise JoiningClosed(f"More than half of the rounds of {event.name} have started: joining is closed.")
    if current is not None and current.status is EntryStatus.ACTIVE:
        raise AlreadyJoined(f"You are already in {event.name}.")
    if event.settings.pairing_system.team and current is None and event.status is not EventStatus.OPEN:
        raise JoiningClosed(f"{event.name} is a team event under way: its teams were formed before the start.")
    if ban is not None and ban.active(now):
        raise Banned(ban.until)
    assert player.lichess_id is not None
    user = await _account(ctx, player.lichess_id)
    refusal, rating = entry_condition(event, user)
    if refusal is not None:
        raise RatingOutOfRange(f"{refusal} for {event.name}.")
    if event.settings.team:
        try:
            member = await ctx.lichess_of(event.guild_id).is_team_member(event.settings.team, user.id)
        except LichessError as exc:
            raise LichessUnavailable() from exc
        if not member:
            raise NotTeamMember(f"{event.name} is for members of the Lichess team {event.settings.team}.")
    late = current is None and event.status is not EventStatus.OPEN and event.current_round >= 1
    late_bye = 1 if late and event.settings.late_join_bye else None
    try:
        entry = await storage_entries.join_event(
            ctx.db, event_id, player.id, rating, at=now, actor=actor.audit_name, late_bye_round=late_bye
        )
    except storage_errors.AlreadyJoined as exc:
        raise AlreadyJoined(str(exc)) from None
    except (storage_errors.EntryBarred, storage_errors.WrongStatus) as exc:
        raise JoiningClosed(sentence(str(exc))) from None
    ctx.changed()
    return entry


async def withdraw(ctx: Context, actor: Actor, event_id: int) -> Entry:
    """Leave an event: not paired again, points kept, the board of the round in play lost by forfeit at once; may
    rejoin while joining is open."""
    now = ctx.clock.now()
    async with ctx.db.transaction():
        event = await get_event(ctx.db, event_id)
        if event.status in OVER:
            raise InvalidState(
                f"{event.name} is {event.status.value}: there is nothing to withdraw from, and your results stay."
            )
        entry = await _active_entry(ctx, actor, event)
        left = await storage_entries.set_entry_status(
            ctx.db, event_id, entry.player_id, EntryStatus.WITHDRAWN, at=now, actor=actor.audit_name
        )
    async with ctx.lock(event_id):
        await forfeit_departed(ctx, actor, event_id, left, "withdrew")
    ctx.changed()
    return left


async def request_bye(ctx: Context, actor: Actor, event_id: int, round_number: int | None) -> int:
    """Ask for a half-point bye in a coming round (the next one by default); returns the round."""
    now = ctx.clock.now()
    async with ctx.db.snapshot():
        event = await get_event(ctx.db, event_id)
        entry = await _active_entry(ctx, actor, event)
    target = round_number if round_number is not None else first_round_open(event)
    try:
        request = await storage_entries.request_bye(
            ctx.db, event_id, entry.player_id, target, at=now, actor=actor.audit_name
        )
    except storage_errors.ByeNotAllowed as exc:
        raise ByeLimitReached(sentence(str(exc))) from None
    ctx.changed()
    return request.round  # with two-game matches, the match's first game round


def entry_condition(event: Event, user: LichessUser, *, you: str = "Your") -> tuple[str | None, int]:
    """Lichess's entry conditions on the rating at the event's speed: (why the player is refused or None, the
    rating that seeds them). With rating limits, no rating or a provisional one at that speed is refused; a
    minimum of rated games at that speed is checked too. With neither, an unrated player seeds at 1500."""
    speed = event.settings.speed
    rating = user.ratings.get(speed)
    low, high = event.settings.rating_min, event.settings.rating_max
    needed = event.settings.min_rated_games
    games = user.rated_games.get(speed, 0)
    if needed and games < needed:
        return f"{you} {games} rated {speed} game(s) are fewer than the {needed} required", rating or 1500
    if low is None and high is None:
        return None, rating if rating is not None else 1500
    if rating is None:
        return f"{you} account has no {speed} rating on Lichess, which the rating limits need", 1500
    if speed in user.provisional:
        return f"{you} {speed} rating {rating} is provisional (play more rated {speed} games first)", rating
    if (low is not None and rating < low) or (high is not None and rating > high):
        limits = f"{low if low is not None else '…'} to {high if high is not None else '…'}"
        return f"{you} {speed} rating {rating} is outside {limits}", rating
    return None, rating


async def check_entries_at_start(ctx: Context, event_id: int) -> None:
    """At the start, as Lichess does: each entrant's entry conditions again (a player who no longer meets
    them is withdrawn and told) and the ratings of now, which seed the event."""
    async with ctx.db.snapshot():
        event = await get_event(ctx.db, event_id)
        entries = [e for e in await storage_entries.list_entries(ctx.db, event_id) if e.status is EntryStatus.ACTIVE]
    now = ctx.clock.now()
    to_check = [e for e in entries if e.lichess_id is not None and e.number is None]
    unread: list[str] = []
    try:  # 300 accounts a request, not one request a player
        users = await ctx.lichess_of(event.guild_id).get_users([e.lichess_id or "" for e in to_check])
    except LichessError:  # Lichess in trouble must not hold the start: the ratings at entry stand
        users, unread, to_check = {}, [e.name for e in to_check], []
    for entry in to_check:
        user = users.get((entry.lichess_id or "").lower())
        refusal: str | None
        if user is None or user.disabled or user.tos_violation:
            refusal, rating = "The Lichess account is closed or flagged", entry.rating
        else:
            refusal, rating = entry_condition(event, user, you="The")
        if refusal is None:
            await storage_entries.set_entry_rating(
                ctx.db, event_id, entry.player_id, rating, at=now, actor=SYSTEM_ACTOR.name, reason="rating at the start"
            )
            continue
        await storage_entries.set_entry_status(
            ctx.db, event_id, entry.player_id, EntryStatus.WITHDRAWN, at=now, actor=SYSTEM_ACTOR.name, reason=refusal
        )
        text = f"{entry.name} is withdrawn at the start: {refusal[0].lower()}{refusal[1:]}."
        await ctx.announcer.notice(event, text)
        await ctx.announcer.dm(entry.discord_id, f"{event.name}: you are withdrawn at the start. {refusal}.")
    if unread:
        names = ", ".join(unread)
        await ctx.announcer.notice(
            event, f"Lichess did not answer for {names} at the start: their ratings at entry seed them, unchecked."
        )


async def cancel_bye(ctx: Context, actor: Actor, event_id: int, round_number: int | None) -> int:
    """Take back a requested bye for a round not yet paired (the next one by default); returns the round."""
    async with ctx.db.snapshot():
        event = await get_event(ctx.db, event_id)
        entry = await _active_entry(ctx, actor, event)
        requested = sorted(
            b.round for b in await storage_entries.bye_requests(ctx.db, event_id, player_id=entry.player_id)
        )
    coming = [r for r in requested if r > event.current_round]
    target = round_number if round_number is not None else (coming[0] if coming else event.current_round + 1)
    try:
        target = match_bye_round(event, target)  # a Double-Swiss bye is kept under its match's game 1
        cancelled = await storage_entries.cancel_bye(
            ctx.db, event_id, entry.player_id, target, at=ctx.clock.now(), actor=actor.audit_name
        )
    except (storage_errors.ByeNotAllowed, ByeRefused) as exc:
        raise ByeLimitReached(sentence(str(exc))) from None
    if not cancelled:
        raise NotEntered(f"You have no bye requested for round {target} of {event.name}.")
    ctx.changed()
    return target


async def unlink(ctx: Context, actor: Actor) -> str:
    """Remove the member's Lichess link (refused while they play in an event); returns the account's name."""
    async with ctx.db.transaction():
        player = await linked_player(ctx.db, actor)
        live = frozenset(ACTIVE_EVENT_STATUSES)
        for event in await storage_events.list_events(ctx.db, statuses=live):
            entry = await storage_entries.find_entry(ctx.db, event.id, player.id)
            if entry is not None and entry.status is EntryStatus.ACTIVE:
                raise InvalidState(f"You are playing in {event.name}: withdraw from it first (/withdraw), then unlink.")
        await storage_players.unlink_account(ctx.db, actor.discord_id, at=ctx.clock.now(), actor=actor.audit_name)
    return player.lichess_name or player.lichess_id or ""


async def _account(ctx: Context, username: str) -> LichessUser:
    """The Lichess account, refused when it is closed, flagged or a BOT."""
    try:
        user = await ctx.lichess.get_user(username)
    except LichessUserNotFound as exc:
        raise LichessAccountRefused(str(exc)) from None
    except LichessError as exc:
        raise LichessUnavailable() from exc
    return check_account(user)


def check_account(user: LichessUser) -> LichessUser:
    """The account, refused (`LichessAccountRefused`) when it is closed, flagged or a BOT."""
    if user.disabled:
        raise LichessAccountRefused(f"The Lichess account {user.username} is closed.")
    if user.tos_violation:
        raise LichessAccountRefused(f"The Lichess account {user.username} is flagged for a terms-of-service violation.")
    if user.is_bot:
        raise LichessAccountRefused(f"{user.username} is a BOT account; BOT accounts cannot play in events.")
    return user


async def _active_entry(ctx: Context, actor: Actor, event: Event) -> Entry:
    """The actor's entry in the event, or NotEntered unless they are still playing."""
    player = await linked_player(ctx.db, actor)
    entry = await storage_entries.find_entry(ctx.db, event.id, player.id)
    if entry is None or entry.status is not EntryStatus.ACTIVE:
        raise NotEntered(f"You are not playing in {event.name}.")
    return entry
