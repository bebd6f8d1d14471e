"""The persistent "Join" button: its custom_id carries the event id, so it works after a restart."""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.discord.actors import actor_for
from bot.discord.context import BotContext
from bot.discord.errors import report_error
from bot.errors import EventNotFound

JOIN_TEMPLATE = r"swiss:join:(?P<event>[0-9]{1,18})"


def join_custom_id(event_id: int) -> str:
    """The custom_id of an event's join button."""
    return f"swiss:join:{event_id}"


class JoinButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=JOIN_TEMPLATE):
    """A button that enters the member who clicks it into the event."""

    def __init__(self, event_id: int) -> None:
        button: discord.ui.Button[Any] = discord.ui.Button(
            label="Join", style=discord.ButtonStyle.success, custom_id=join_custom_id(event_id), emoji="♟️"
        )
        super().__init__(button)
        self.event_id = event_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> JoinButton:
        """Rebuild the button from a click on a message posted before a restart."""
        return cls(int(match["event"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        """Join the event, answering privately (errors included)."""
        bot: BotContext = interaction.client
        try:
            await interaction.response.defer(ephemeral=True, thinking=True)
            # Only an event of this server: a crafted custom_id must not enter anyone into another club's event.
            event = await bot.director.event(self.event_id)
            if event.guild_id != interaction.guild_id:
                raise EventNotFound(f"There is no event #{self.event_id} in this server.")
            entry = await bot.director.join(actor_for(bot.config, interaction), self.event_id)
            text = f"You are in **{event.name}** as {discord.utils.escape_markdown(entry.name)} ({entry.rating})."
            await interaction.followup.send(text, ephemeral=True)
        except Exception as error:  # a button has no tree error handler: report here
            await report_error(interaction, error)


def join_view(event_id: int) -> discord.ui.View:
    """A view holding an event's join button, for the "event opened" message."""
    view = discord.ui.View(timeout=None)
    view.add_item(JoinButton(event_id))
    return view
