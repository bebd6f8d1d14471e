"""The command tree's error handler: domain errors as one ephemeral line, the unexpected logged with context."""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands

from bot.errors import SwissbotError, user_sentence

log = logging.getLogger(__name__)

APOLOGY = "Sorry, something went wrong on our side. The organisers can find the details in the bot's log."
LINE_LIMIT = 300


def user_message(error: BaseException) -> str | None:
    """The line to show for an error the user can act on; None for an unexpected one."""
    if isinstance(error, app_commands.CommandInvokeError | app_commands.TransformerError) and isinstance(
        error.__cause__, SwissbotError
    ):
        error = error.__cause__
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    known = user_sentence(error)
    if known is not None:
        return one_line(known)
    if isinstance(error, app_commands.NoPrivateMessage):
        return "This command works in a server only."
    if isinstance(error, app_commands.MissingRole | app_commands.MissingAnyRole | app_commands.MissingPermissions):
        return "You are not allowed to use this command."
    if isinstance(error, app_commands.BotMissingPermissions):
        missing = ", ".join(p.replace("_", " ") for p in error.missing_permissions)
        return f"I lack the permission to do that here ({missing})."
    if isinstance(error, app_commands.CommandOnCooldown):
        return f"Slow down: try again in {error.retry_after:.0f} s."
    if isinstance(error, app_commands.TransformerError):
        return f"'{error.value}' is not a valid value for this option."
    if isinstance(error, app_commands.CheckFailure):
        message = getattr(error, "message", None) or str(error)
        return one_line(message) if message else "You are not allowed to use this command."
    return None


def one_line(text: str) -> str:
    """The first line of `text`, clipped."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= LINE_LIMIT else line[: LINE_LIMIT - 1] + "…"


def describe(interaction: discord.Interaction[Any]) -> str:
    """Where an error happened, for the log (never any token)."""
    command = interaction.command.qualified_name if interaction.command else "?"
    options = dict(vars(interaction.namespace)) if interaction.namespace else {}
    return (
        f"command=/{command} user={interaction.user.id} guild={interaction.guild_id} "
        f"channel={interaction.channel_id} options={options}"
    )


async def reply_ephemeral(interaction: discord.Interaction[Any], text: str) -> None:
    """Answer privately, whether or not the interaction was already answered or deferred."""
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
    except (discord.NotFound, discord.HTTPException) as error:
        # The interaction expired (more than 3 s without a deferral, or 15 min after it): nothing to answer.
        log.warning("could not answer an interaction (%s): %s", describe(interaction), error)


async def report_error(interaction: discord.Interaction[Any], error: BaseException) -> None:
    """Tell the user what went wrong: a domain error's line, or an apology (the details go to the log)."""
    message = user_message(error)
    if message is None:
        original = error.original if isinstance(error, app_commands.CommandInvokeError) else error
        log.error("unexpected error (%s)", describe(interaction), exc_info=original)
        message = APOLOGY
    await reply_ephemeral(interaction, message)


async def on_app_command_error(interaction: discord.Interaction[Any], error: app_commands.AppCommandError) -> None:
    """The tree's `on_error`: every command's failure ends here."""
    await report_error(interaction, error)
