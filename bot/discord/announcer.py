"""The Announcer on Discord: one message per round edited in place; every post a record in the database, written
before it is sent (with the nonce Discord dedupes it by) and completed with its message id after."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import logging
import secrets
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, ParamSpec, Protocol

import aiohttp
import discord

from bot.config import Config
from bot.director.announcer import AnnouncementFailed
from bot.director.models import Crosstable, RoundView, StandingRow
from bot.discord.components import join_view
from bot.discord.options import describe_settings
from bot.discord.replies import NO_MENTIONS, bytes_file, pinging, text_file, to_embed, to_embeds
from bot.rendering.image import crosstable_png, standings_png
from bot.rendering.text import (
    EmbedPage,
    MessagePage,
    clip,
    crosstable_lines,
    mention_pages,
    round_messages,
    round_players,
    standings_embeds,
    standings_lines,
)
from domain.event import Event
from storage.db import Database
from storage.errors import StorageError
from storage.messages import MessageRef, get_message, renew_message, reserve_message, set_digest, set_message

log = logging.getLogger(__name__)
P = ParamSpec("P")


class CrosstableSource(Protocol):
    """What the announcer asks the director for at the end of an event."""

    async def crosstable(self, event_id: int) -> Crosstable:
        """Each player's results by round."""
        ...


def _guarded(method: Callable[P, Coroutine[Any, Any, None]]) -> Callable[P, Coroutine[Any, Any, None]]:
    """An announcement that fails (Discord down, permissions removed) is logged, never raised into the director."""

    @functools.wraps(method)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            await method(*args, **kwargs)
        except (discord.HTTPException, StorageError) as error:
            log.error("announcement %s failed: %s", method.__name__, error)

    return wrapper


def _required(method: Callable[P, Coroutine[Any, Any, None]]) -> Callable[P, Coroutine[Any, Any, None]]:
    """An announcement the director retries: Discord's refusal (HTTP error, 5xx or 429 beyond discord.py's own
    retries, a timeout) or a post record the database did not take becomes `AnnouncementFailed`, so it is not
    marked as posted (a post Discord took whose id was not stored is resent with its nonce: it lands once)."""

    @functools.wraps(method)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            await method(*args, **kwargs)
        except (discord.DiscordException, aiohttp.ClientError, TimeoutError, StorageError) as error:
            log.error("announcement %s failed (to be retried): %s", method.__name__, error)
            raise AnnouncementFailed(f"{method.__name__}: {error}") from error

    return wrapper


def new_nonce() -> str:
    """A post's nonce: unique, within Discord's 25 characters."""
    return secrets.token_urlsafe(15)  # 20 characters


def shown_digest(message: dict[str, Any]) -> str:
    """What a message shows where an edit can change it (embeds, components, files), as a hash."""
    view = message.get("view")
    files = []
    for file in message.get("files", []):
        data = file.fp.read()
        file.reset()
        files.append([file.filename, hashlib.sha256(data).hexdigest()])
    shown = {
        "embeds": [embed.to_dict() for embed in message.get("embeds", [])],
        "components": None if view is None else view.to_components(),
        "files": files,
    }
    return hashlib.sha256(json.dumps(shown, sort_keys=True, default=str).encode()).hexdigest()[:32]


def _standings_media(
    event: Event, rows: Sequence[StandingRow], final: bool
) -> tuple[list[MessagePage], bytes, list[str]]:
    """The standings' message pages, PNG and (when they take more than one page) text file; pure, for a thread."""
    pages = standings_embeds(event, rows, final=final)
    lines = standings_lines(rows, event.settings.tiebreaks) if len(pages) > 1 else []
    return pages, standings_png(event, rows, final=final), lines


class DiscordAnnouncer:
    """Posts an event's life to its channel: the join button, each round (edited as results come), standings."""

    def __init__(self, client: discord.Client, db: Database, config: Config) -> None:
        self.client = client
        self.db = db
        self.config = config
        self.director: CrosstableSource | None = None

    async def _channel(self, channel_id: int) -> Any:
        """A channel the bot can post in (from the cache, else fetched)."""
        channel = self.client.get_channel(channel_id)
        if channel is None:
            channel = await self.client.fetch_channel(channel_id)
        if not hasattr(channel, "send") or not hasattr(channel, "get_partial_message"):
            raise discord.InvalidData(f"channel {channel_id} cannot hold the bot's messages")
        return channel

    async def _post(self, event: Event, kind: str, round_number: int, *, edit: bool = True, **message: Any) -> None:
        """The post of (kind, round): sent once, or its message edited in place when it shows something else.

        The post's record (where, a nonce) is written before it is sent and completed with the message id after;
        a record left pending (Discord took the post but its id was not stored, or the bot died in between) is
        sent again with the same nonce and `enforce_nonce`, so Discord returns the message it already took.
        With `edit` False a posted message is left as it is.
        """
        digest = shown_digest(message)
        ref = await self._record(event, kind, round_number)
        if ref.message_id is not None:
            if not edit or ref.digest == digest:
                return  # the message shows it already
            channel = await self._channel(ref.channel_id)
            changes = {key: value for key, value in message.items() if key in ("embeds", "view")}
            if "files" in message:
                changes["attachments"] = message["files"]
            try:
                await channel.get_partial_message(ref.message_id).edit(**changes)
            except discord.NotFound:
                log.info("message %s of event %s was deleted; posting it again", ref.message_id, event.id)
                ref = await renew_message(
                    self.db, event.id, kind, channel_id=event.channel_id, nonce=new_nonce(), round_number=round_number
                )
            else:
                await set_digest(self.db, event.id, kind, digest, round_number=round_number)
                return
        channel = await self._channel(ref.channel_id)
        sent = await channel.send(nonce=ref.nonce, **message)
        await set_message(
            self.db,
            event.id,
            kind,
            channel_id=sent.channel.id,
            message_id=sent.id,
            round_number=round_number,
            digest=digest,
        )

    async def _record(self, event: Event, kind: str, round_number: int) -> MessageRef:
        """The record of the post of (kind, round), written (pending, with a fresh nonce) unless there is one."""
        ref = await get_message(self.db, event.id, kind, round_number=round_number)
        if ref is not None:
            return ref
        return await reserve_message(
            self.db, event.id, kind, channel_id=event.channel_id, nonce=new_nonce(), round_number=round_number
        )

    async def _post_pages(
        self, event: Event, kind: str, round_number: int, pages: Sequence[MessagePage], **first: Any
    ) -> None:
        """Post or edit a run of pages (kinds 'kind:0', 'kind:1', …); extra arguments go with the first page."""
        for index, page in enumerate(pages):
            extra = first if index == 0 else {}
            message: dict[str, Any] = {"embeds": to_embeds(page), "allowed_mentions": NO_MENTIONS} | extra
            await self._post(event, f"{kind}:{index}", round_number, **message)

    @_required
    async def event_opened(self, event: Event) -> None:
        """The event's card with its settings and the persistent Join button."""
        page = EmbedPage(
            clip(f"{event.name} — open for entries", 256),
            f"{describe_settings(event.settings)}\n\nClick **Join** or use `/join`. "
            "Link your Lichess account first with `/link`.",
        )
        await self._post(
            event, "join", 0, embeds=[to_embed(page)], view=join_view(event.id), allowed_mentions=NO_MENTIONS
        )

    @_required
    async def round_paired(self, event: Event, round: RoundView) -> None:
        """The round's boards and links in one message (more only for very large rounds), players pinged once.

        (The director DMs each player their own pairing through `dm`.)
        """
        pages = round_messages(event, round, mention=False)
        title = f"{event.round_name(round.number).capitalize()} of **{event.name}** is paired:"
        pings = mention_pages(title, round_players(round))
        ref = await get_message(self.db, event.id, "round:0", round_number=round.number)
        first = ref is None or not ref.posted  # re-announced after a restart: nobody is pinged twice
        ping = {"content": pings[0][0], "allowed_mentions": pinging(pings[0][1])} if pings and first else {}
        if first:  # the pings beyond the first page are owed with it: their records are written before it is sent
            for index in range(1, len(pings)):
                await self._record(event, f"pings:{index}", round.number)
        await self._post_pages(event, "round", round.number, pages, **ping)
        for index, (content, users) in enumerate(pings[1:], start=1):
            owed = await get_message(self.db, event.id, f"pings:{index}", round_number=round.number)
            if owed is not None and not owed.posted:
                await self._post(
                    event, f"pings:{index}", round.number, edit=False, content=content, allowed_mentions=pinging(users)
                )

    @_required
    async def results_updated(self, event: Event, round: RoundView) -> None:
        """Edit the round's message(s) in place with the results so far."""
        await self._post_pages(event, "round", round.number, round_messages(event, round, mention=False))

    @_required
    async def standings(self, event: Event, rows: Sequence[StandingRow], final: bool) -> None:
        """The standings as text pages and a PNG; after a correction the same round's message is edited."""
        kind = "final" if final else "standings"
        pages, png, lines = await asyncio.to_thread(_standings_media, event, rows, final)  # off the event loop
        files = [bytes_file("standings.png", png)]
        if len(pages) > 1:
            files.append(text_file("standings.txt", lines))
        if final:  # the crosstable goes with the final standings, so a correction after the end updates both
            files.extend(await self._crosstable_files(event))
        await self._post_pages(event, kind, event.current_round, pages, files=files)

    async def _crosstable_files(self, event: Event) -> list[discord.File]:
        """The crosstable as a PNG and a text file (none without a director or before anyone played)."""
        if self.director is None:
            return []
        table = await self.director.crosstable(event.id)
        if not table.rows:
            return []
        png, lines = await asyncio.to_thread(lambda: (crosstable_png(event, table), crosstable_lines(table)))
        return [bytes_file("crosstable.png", png), text_file("crosstable.txt", lines)]

    @_required
    async def event_finished(self, event: Event, rows: Sequence[StandingRow], reason: str) -> None:
        """The end: why, the final standings (unless already posted) and the crosstable."""
        final = await get_message(self.db, event.id, "final:0", round_number=event.current_round)
        if (final is None or not final.posted) and rows:
            await self.standings(event, rows, True)  # with the crosstable
        files = [] if rows else await self._crosstable_files(event)
        text = clip(f"**{event.name}** is over: {reason}", 2000)
        await self._post(event, "end", 0, edit=False, content=text, files=files, allowed_mentions=NO_MENTIONS)

    @_required
    async def bulletin(self, event: Event, text: str) -> None:
        """A line for everyone, in the event's channel: posted once (its record is keyed by the text)."""
        key = "bulletin:" + hashlib.sha256(text.encode()).hexdigest()[:16]
        content = clip(f"📢 **{event.name}**: {text}", 2000)
        await self._post(event, key, 0, edit=False, content=content, allowed_mentions=NO_MENTIONS)

    @_guarded
    async def notice(self, event: Event, text: str) -> None:
        """A line for the organisers: in the log channel when configured, else in the event's channel."""
        channel_id = self.config.discord.log_channel_id or event.channel_id
        channel = await self._channel(channel_id)
        await channel.send(clip(f"🛠️ **{event.name}** (organisers): {text}", 2000), allowed_mentions=NO_MENTIONS)

    async def dm(self, discord_id: int, text: str) -> None:
        """A private message when DMs are on in the config; players who closed their DMs are skipped."""
        if not self.config.discord.dm_players:
            return
        try:
            user = self.client.get_user(discord_id) or await self.client.fetch_user(discord_id)
            await user.send(clip(text, 2000), allowed_mentions=NO_MENTIONS)
        except discord.HTTPException as error:
            log.info("could not DM %s: %s", discord_id, error)
