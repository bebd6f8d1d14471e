"""A local Discord that discord.py logs into unchanged: REST, the gateway, a control API and faults."""

from sandbox.discord.server import DiscordSandbox, make_app, run_discord_sandbox, serve
from sandbox.discord.state import APPLICATION_ID, BOT_TOKEN, BOT_USER_ID, DiscordState

__all__ = [
    "APPLICATION_ID",
    "BOT_TOKEN",
    "BOT_USER_ID",
    "DiscordSandbox",
    "DiscordState",
    "make_app",
    "run_discord_sandbox",
    "serve",
]
