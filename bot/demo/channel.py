"""The club's channel on the console: what the bot posted on the local Discord, as members would read it."""

from __future__ import annotations

import asyncio
import re
from contextlib import suppress
from typing import Any, TextIO

import aiohttp


def message_lines(message: dict[str, Any], names: dict[int, str], *, edited: bool = False) -> list[str]:
    """A message as text lines: its content, its embeds (title, text, fields, footer) and its files' names; of an
    edited message, the embeds alone (the content is the pings, which an edit does not send again)."""
    lines: list[str] = []
    if message.get("content") and not edited:
        lines += _plain(_mentions(str(message["content"]), names)).splitlines()
    for embed in message.get("embeds") or []:
        if embed.get("title"):
            lines.append(f"== {embed['title']} ==" + (" (edited)" if edited else ""))
        if embed.get("description"):
            lines += _plain(_mentions(str(embed["description"]), names)).splitlines()
        for embed_field in embed.get("fields") or []:
            lines.append(f"{embed_field.get('name', '')}:")
            lines += _plain(str(embed_field.get("value", ""))).splitlines()
        footer = (embed.get("footer") or {}).get("text")
        if footer:
            lines.append(f"({footer})")
    for name in message.get("attachments") or []:
        lines.append(f"[file: {name}]")
    return lines


def _mentions(text: str, names: dict[int, str]) -> str:
    return re.sub(r"<@!?(\d+)>", lambda m: "@" + names.get(int(m.group(1)), m.group(1)), text)


def _plain(text: str) -> str:
    """Discord's markdown left out (code fences and spans, bold, links shown as their address): the console has
    its own monospace."""
    text = re.sub(r"\[([^\]]*)\]\((https?://[^)\s]+)\)", r"\2", text.replace("**", ""))
    return "\n".join(line.replace("`", "") for line in text.splitlines() if not line.startswith("```"))


def _footer(message: dict[str, Any]) -> str:
    return "".join(str((embed.get("footer") or {}).get("text", "")) for embed in message.get("embeds") or [])


class ChannelView:
    """Prints the channel's new messages, and a message again when an edit changes its footer (a round whose
    results are all in); reads `GET /sandbox/channels/{id}/messages` of the local Discord."""

    def __init__(self, http: aiohttp.ClientSession, discord_url: str, channel_id: int, out: TextIO) -> None:
        self.http = http
        self.url = f"{discord_url}/sandbox/channels/{channel_id}/messages"
        self.out = out
        self.names: dict[int, str] = {}
        self._footers: dict[str, str] = {}
        self._task: asyncio.Task[None] | None = None

    async def show_new(self) -> None:
        """Print what changed since the last look."""
        async with self.http.get(self.url) as reply:
            if reply.status != 200:
                return
            messages: list[dict[str, Any]] = await reply.json()
        for message in messages:
            if message.get("deleted"):
                continue
            footer = _footer(message)
            seen = self._footers.get(message["id"])
            if seen is not None and seen == footer:
                continue
            self._footers[message["id"]] = footer
            lines = message_lines(message, self.names, edited=seen is not None)
            print("", *lines, sep="\n", file=self.out, flush=True)

    def start(self, every: float = 0.2) -> None:
        """Follow the channel until `stop`."""

        async def follow() -> None:
            while True:
                with suppress(aiohttp.ClientError):
                    await self.show_new()
                await asyncio.sleep(every)

        self._task = asyncio.create_task(follow())

    async def stop(self) -> None:
        """Stop following, after showing what is left."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        with suppress(aiohttp.ClientError):
            await self.show_new()
