"""The application-command payloads the bot would sync, built offline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.config import Config
from bot.discord.bot import SwissBot


async def offline_bot(config: Config | None = None) -> SwissBot:
    """A bot with every command registered, never connected (for payloads, tests and syncing)."""
    bot = SwissBot(config or Config(database=Path("unused.sqlite3")), commands_only=True)
    await bot.add_commands()
    return bot


async def command_payloads(config: Config | None = None) -> list[dict[str, Any]]:
    """Every top-level command as `Command.to_dict` builds it for Discord's bulk-overwrite endpoint."""
    bot = await offline_bot(config)
    try:
        return [command.to_dict(bot.tree) for command in bot.tree.get_commands()]
    finally:
        await bot.close()
