"""Who is calling: the director's `Actor` from a Discord interaction, with the club's organiser role."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.config import Config
from bot.director.models import Actor


class NotAnOrganiser(app_commands.CheckFailure):
    """An organiser command used by someone without the club's organiser role."""

    def __init__(self, role: str | None) -> None:
        if role is None:
            message = "This server has no swissbot club configured, so nobody can run events here."
        else:
            message = f"Only members with the organiser role ({role}) can do that."
        super().__init__(message)
        self.message = message


def is_organiser(config: Config, user: discord.abc.User | Any, guild_id: int | None) -> bool:
    """True when `user` has the organiser role of the club configured for `guild_id`."""
    club = config.club(guild_id)
    if club is None:
        return False
    roles = getattr(user, "roles", ())
    return any(club.is_organiser_role(role.id, role.name) for role in roles)


def actor_for(config: Config, interaction: discord.Interaction[Any]) -> Actor:
    """The director's view of the user behind an interaction."""
    user = interaction.user
    return Actor(user.id, user.display_name, is_organiser(config, user, interaction.guild_id))


def require_organiser(config: Config, interaction: discord.Interaction[Any]) -> Actor:
    """The actor, or `NotAnOrganiser` when the user lacks the club's organiser role."""
    actor = actor_for(config, interaction)
    if not actor.is_organiser:
        club = config.club(interaction.guild_id)
        raise NotAnOrganiser(club.organiser_role if club else None)
    return actor
