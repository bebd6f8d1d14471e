"""Turning rendered pages into discord.py embeds, messages and files."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import discord

from bot.rendering.text import MESSAGE_LIMIT, EmbedPage, MessagePage, code_pages

COLOUR = discord.Colour.from_rgb(88, 140, 70)
NO_MENTIONS = discord.AllowedMentions.none()


def pinging(discord_ids: Sequence[int]) -> discord.AllowedMentions:
    """Mentions that ping exactly these users (Discord parses nothing else in the message: no name can ping)."""
    return discord.AllowedMentions(
        everyone=False, roles=False, users=[discord.Object(i) for i in discord_ids], replied_user=False
    )


MAX_FOLLOWUPS = 5


def to_embed(page: EmbedPage) -> discord.Embed:
    """One rendered embed page as a discord.py embed."""
    embed = discord.Embed(title=page.title, description=page.description, colour=COLOUR)
    if page.footer:
        embed.set_footer(text=page.footer)
    return embed


def to_embeds(page: MessagePage) -> list[discord.Embed]:
    """The embeds of one rendered message."""
    return [to_embed(embed) for embed in page.embeds]


def text_file(name: str, lines: Sequence[str]) -> discord.File:
    """Lines as an attached UTF-8 text file."""
    return discord.File(io.BytesIO(("\n".join(lines) + "\n").encode("utf-8")), filename=name)


def bytes_file(name: str, data: bytes) -> discord.File:
    """Bytes as an attached file."""
    return discord.File(io.BytesIO(data), filename=name)


async def send_pages(interaction: discord.Interaction[Any], pages: Sequence[MessagePage], *, ephemeral: bool) -> None:
    """Send rendered messages as followups of a deferred interaction (at most a few; the rest is cut)."""
    shown = list(pages[:MAX_FOLLOWUPS])
    for index, page in enumerate(shown):
        content = page.content
        if index == len(shown) - 1 and len(pages) > len(shown):
            content = (content + "\n" if content else "") + f"({len(pages) - len(shown)} more pages in the channel.)"
        await interaction.followup.send(
            content=content or discord.utils.MISSING,
            embeds=to_embeds(page),
            ephemeral=ephemeral,
            allowed_mentions=NO_MENTIONS,
        )


async def send_table(
    interaction: discord.Interaction[Any], title: str, lines: Sequence[str], filename: str, *, ephemeral: bool
) -> None:
    """A monospace table in one message: whole if it fits, else its first page plus the full table as a file."""
    pages = code_pages(lines, MESSAGE_LIMIT - 60, prefix=f"**{title}**")
    if len(pages) == 1:
        await interaction.followup.send(pages[0], ephemeral=ephemeral, allowed_mentions=NO_MENTIONS)
        return
    note = f"\n(first of {len(pages)} pages; the whole table is attached)"
    await interaction.followup.send(
        pages[0] + note, file=text_file(filename, lines), ephemeral=ephemeral, allowed_mentions=NO_MENTIONS
    )
