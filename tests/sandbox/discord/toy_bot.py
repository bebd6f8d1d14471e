"""A small discord.py bot for the local Discord's tests: slash commands of every kind, a persistent button."""

from __future__ import annotations

import asyncio
import io
from typing import Any, Literal

import discord
import yarl
from discord import app_commands
from discord.gateway import DiscordWebSocket
from discord.http import Route

EVENTS = ["Blitz Monday", "Blitz Thursday", "Rapid Sunday", "Classical Cup"]
READY_BUTTON = "toy:ready"
OUT_BUTTON = "toy:out"
REFRESH_BUTTON = "toy:refresh"


def point_discord_py_at(api_url: str) -> None:
    """The one way the bot reaches a Discord other than discord.com: REST base from `api_url`."""
    Route.BASE = f"{api_url.rstrip('/')}/api/v10"


async def discover_gateway(client: discord.Client) -> None:
    """Ask `/gateway/bot` where the gateway is (as Discord's docs say to), and connect there."""
    _, url, _ = await client.http.get_bot_gateway()
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(url)


class ReadyView(discord.ui.View):
    """A persistent view: no timeout and a fixed custom_id, so it outlives a restart."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="I'm ready", style=discord.ButtonStyle.success, custom_id=READY_BUTTON)
    async def ready(self, interaction: discord.Interaction, button: discord.ui.Button[ReadyView]) -> None:
        """Confirm privately."""
        await interaction.response.send_message(f"<@{interaction.user.id}> is ready", ephemeral=True)

    @discord.ui.button(label="Count me out", style=discord.ButtonStyle.danger, custom_id=OUT_BUTTON)
    async def out(self, interaction: discord.Interaction, button: discord.ui.Button[ReadyView]) -> None:
        """Update the message itself (callback type 7)."""
        assert interaction.message is not None
        await interaction.response.edit_message(
            content=f"{interaction.message.content} (without <@{interaction.user.id}>)"
        )

    @discord.ui.button(label="Refresh", style=discord.ButtonStyle.secondary, custom_id=REFRESH_BUTTON)
    async def refresh(self, interaction: discord.Interaction, button: discord.ui.Button[ReadyView]) -> None:
        """Acknowledge silently (type 6), then edit the message through the interaction's @original."""
        await interaction.response.defer()
        await interaction.edit_original_response(content="Round 1 is paired (refreshed)", view=None)


class Feedback(discord.ui.Modal, title="Event feedback"):
    """A modal with one text input."""

    comment: discord.ui.TextInput[Feedback] = discord.ui.TextInput(label="Comment", custom_id="toy:comment")

    def __init__(self) -> None:
        super().__init__(custom_id="toy:feedback")


class Swiss(app_commands.Group):
    """The /swiss group: options of several types, choices, a range, an autocomplete, deferrals, files."""

    def __init__(self) -> None:
        super().__init__(name="swiss", description="Swiss tournaments")

    @app_commands.command(name="create", description="Create an event")
    @app_commands.describe(name="The event's name", rounds="How many rounds", rated="Rated games", speed="Time control")
    async def create(
        self,
        interaction: discord.Interaction,
        name: app_commands.Range[str, 1, 30],
        rounds: app_commands.Range[int, 1, 11],
        rated: bool = True,
        speed: Literal["blitz", "rapid"] = "blitz",
        ratio: float = 1.0,
    ) -> None:
        """Reply in public."""
        await interaction.response.send_message(
            f"Created {name}: {rounds} rounds, {speed}, rated={rated}, ratio={ratio}"
        )

    @app_commands.command(name="join", description="Join an event")
    @app_commands.describe(event="The event", note="A note for the organiser")
    async def join(self, interaction: discord.Interaction, event: str, note: str | None = None) -> None:
        """Reply privately."""
        await interaction.response.send_message(f"Joined {event}", ephemeral=True)

    @join.autocomplete("event")
    async def join_event(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        """The events whose name contains what was typed."""
        return [app_commands.Choice(name=e, value=e) for e in EVENTS if current.lower() in e.lower()]

    @app_commands.command(name="pair", description="Pair the next round (slow: deferred)")
    async def pair(self, interaction: discord.Interaction) -> None:
        """Defer in public, then follow up with an embed and a file."""
        await interaction.response.defer(thinking=True)
        await asyncio.sleep(0.05)
        embed = discord.Embed(title="Round 1", description="Alice - Bob\nCarol - Dave", colour=0x2ECC71)
        embed.add_field(name="Boards", value="2")
        pairing = discord.File(io.BytesIO(b"1 Alice Bob\n2 Carol Dave\n"), filename="round1.txt")
        await interaction.followup.send(embed=embed, file=pairing)

    @app_commands.command(name="standings", description="Standings, privately (deferred, then edited)")
    async def standings(self, interaction: discord.Interaction) -> None:
        """Defer privately, then edit the original response."""
        await interaction.response.defer(ephemeral=True)
        await interaction.edit_original_response(content="1. Alice 1.0\n2. Carol 1.0")

    @app_commands.command(name="announce", description="Announce in the channel, with a button, and DM the user")
    async def announce(self, interaction: discord.Interaction) -> None:
        """Post a message (embed, file, persistent button), edit it, DM the user, then answer."""
        await interaction.response.defer(ephemeral=True)
        assert isinstance(interaction.channel, discord.TextChannel)
        embed = discord.Embed(title="Blitz Monday", description="Round 1 starts now")
        message = await interaction.channel.send(
            "Round 1 is paired", embed=embed, file=discord.File(io.BytesIO(b"PGN"), "round1.pgn"), view=ReadyView()
        )
        await message.edit(content="Round 1 is paired (edited)")
        await interaction.user.send("You play Bob on board 1")
        await interaction.followup.send(f"posted {message.id}", ephemeral=True)

    @app_commands.command(name="feedback", description="Opens a form")
    async def feedback(self, interaction: discord.Interaction) -> None:
        """Answer with a modal (callback type 9)."""
        await interaction.response.send_modal(Feedback())

    @app_commands.command(name="slow", description="Answers too late")
    async def slow(self, interaction: discord.Interaction) -> None:
        """Miss Discord's 3-second deadline."""
        await asyncio.sleep(3.3)
        try:
            await interaction.response.send_message("too late")
        except discord.NotFound:
            interaction.client.late_answers_refused += 1  # type: ignore[attr-defined]

    round = app_commands.Group(name="round", description="Rounds")

    @round.command(name="start", description="Start a round")
    @app_commands.describe(number="The round's number")
    async def round_start(self, interaction: discord.Interaction, number: app_commands.Range[int, 1, 20]) -> None:
        """A subcommand in a subcommand group."""
        await interaction.response.send_message(f"Round {number} started")


@app_commands.command(name="reset", description="Organisers only")
@app_commands.default_permissions(manage_guild=True)
async def reset(interaction: discord.Interaction) -> None:
    """A permission-restricted command."""
    await interaction.response.send_message("Reset done", ephemeral=True)


@app_commands.command(name="whois", description="A user and a role")
async def whois(interaction: discord.Interaction, player: discord.Member, team: discord.Role | None = None) -> None:
    """User and role options come resolved."""
    suffix = f" in {team.name}" if team is not None else ""
    await interaction.response.send_message(f"{player.display_name}{suffix}")


class ToyBot(discord.Client):
    """The test bot: syncs its commands to one guild in `setup_hook`, re-registers the persistent view."""

    def __init__(self, guild_id: int) -> None:
        super().__init__(intents=discord.Intents.default(), guild_ready_timeout=0.05)
        self.guild_id = guild_id
        self.tree = app_commands.CommandTree(self)
        self.resumed = asyncio.Event()
        self.late_answers_refused = 0
        self.synced: list[app_commands.AppCommand] = []
        self.interactions: list[discord.Interaction] = []

    async def setup_hook(self) -> None:
        """Find the gateway, register the persistent view, sync the commands to the guild."""
        await discover_gateway(self)
        self.add_view(ReadyView())
        guild = discord.Object(self.guild_id)
        commands: list[app_commands.Group | app_commands.Command[Any, Any, Any]] = [Swiss(), reset, whois]
        for command in commands:
            self.tree.add_command(command, guild=guild)
        self.synced = await self.tree.sync(guild=guild)

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Keep every interaction received, for tests that inspect the payload discord.py parsed."""
        self.interactions.append(interaction)

    async def on_resumed(self) -> None:
        """The gateway session was resumed."""
        self.resumed.set()
