"""A member's own FIDE profile (`/fide`), for FIDE-rated events' reports; shown only in the organisers' export."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord.actors import actor_for
from bot.discord.cogs.arbiter import FIDE_HELP, FIDE_RENAMES, Title, profile_text
from bot.discord.context import BotContext
from domain.fide import normalised_profile

Interaction = discord.Interaction[Any]


class FideCog(commands.Cog, name="Fide"):
    """The member's `/fide` command."""

    def __init__(self, bot: BotContext) -> None:
        self.bot = bot

    @app_commands.command(name="fide", description="Your FIDE profile for FIDE-rated events (organisers only see it)")
    @app_commands.guild_only()
    @app_commands.rename(**FIDE_RENAMES)
    @app_commands.describe(**FIDE_HELP)
    async def fide(
        self,
        interaction: Interaction,
        fide_id: str | None = None,
        federation: str | None = None,
        title: Title | None = None,
        birth_year: app_commands.Range[int, 1900, 2100] | None = None,
    ) -> None:
        """Record the caller's FIDE profile (every field at once; left out: none)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        profile = normalised_profile(fide_id, federation, title, birth_year)
        row = await self.bot.director.set_fide_profile(actor_for(self.bot.config, interaction), profile)
        await interaction.followup.send(f"Recorded: {profile_text(row.fide)}.", ephemeral=True)
