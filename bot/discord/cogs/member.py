"""Member commands: /link, /unlink, /join, /withdraw, /bye, /standings, /pairings, /mygame (guild only)."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.director.models import MyGame
from bot.discord.actors import actor_for
from bot.discord.autocomplete import PLAYING, pairings_event, standings_event
from bot.discord.context import BotContext
from bot.discord.replies import send_pages, send_table
from bot.rendering.teams import team_standings_lines
from bot.rendering.text import crosstable_lines, round_messages, standings_lines
from domain.event import EventStatus

Interaction = discord.Interaction[Any]
MEMBER_VISIBLE = frozenset({EventStatus.OPEN, EventStatus.RUNNING, EventStatus.PAUSED, EventStatus.FINISHED})
EVENT_HELP = "The event (the one in progress if you leave it empty)"


async def event_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Events of this server whose name contains what was typed (at most 25, from the cache); drafts stay hidden."""
    bot: BotContext = interaction.client
    return await bot.events.choices(interaction.guild_id, current, MEMBER_VISIBLE)


def my_game_text(game: MyGame) -> str:
    """A player's board this round, in one message."""
    board = game.board
    opponent = f"**{discord.utils.escape_markdown(game.opponent.name)}**"
    if game.opponent.rating:
        opponent += f" ({game.opponent.rating})"
    where = f"**{game.event.name}**, {game.event.round_name(game.round_number)}, board {board.number}"
    lines = [f"{where}: you play **{game.colour}** against {opponent}."]
    if game.team is not None:  # a team event: the match, and the board within it
        t = game.team
        mine, theirs = discord.utils.escape_markdown(t.team), discord.utils.escape_markdown(t.opponent_team)
        lines = [
            f"**{game.event.name}**, round {game.round_number}: **{mine}** against **{theirs}** (match {t.match}).",
            f"You play board {t.board} with **{game.colour}** against {opponent}.",
        ]
    if board.result is not None:
        lines.append(f"Result: {board.result.value}.")
    elif board.url:
        lines.append(f"Your game: {board.url}")
    else:
        lines.append("The game link is on its way; it will be posted in the event's channel.")
    return "\n".join(lines)


class MemberCog(commands.Cog, name="Members"):
    """The commands every member of the club can use."""

    def __init__(self, bot: BotContext) -> None:
        self.bot = bot

    @app_commands.command(
        name="link", description="Link your Lichess account: give your username, then run /link again"
    )
    @app_commands.guild_only()
    @app_commands.rename(username="lichess-username")
    @app_commands.describe(
        username="Your Lichess username (bio code); leave empty to sign in on Lichess, or to finish a code link"
    )
    async def link(self, interaction: Interaction, username: app_commands.Range[str, 2, 30] | None = None) -> None:
        """Start a link (a one-time code for the Lichess bio) or complete it (read the bio back)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        actor = actor_for(self.bot.config, interaction)
        if not username and await self.bot.director.prefers_oauth(actor.discord_id):
            url = await self.bot.director.start_oauth_link(actor)
            view = discord.ui.View()
            view.add_item(discord.ui.Button(style=discord.ButtonStyle.link, label="Link on Lichess", url=url))
            minutes = round(self.bot.director.settings.link_code_lifetime / 60)
            text = (
                f"Sign in on Lichess and allow the bot to create your games (the button works once, for {minutes}"
                " minutes). No code in your bio is needed; `/link your-username` still uses the bio code."
            )
            await interaction.followup.send(text, ephemeral=True, view=view)
            return
        if username:
            challenge = await self.bot.director.start_link(actor, username.strip())
            expires = discord.utils.format_dt(challenge.expires_at, "R")
            text = (
                f"Put this code in your Lichess profile bio: `{challenge.code}`\n"
                f"({self.bot.director.lichess_url}/account/profile, the 'Biography' field), then run `/link` again "
                f"without a username. The code expires {expires}."
            )
        else:
            account = await self.bot.director.complete_link(actor)
            text = (
                f"Linked: you are **{discord.utils.escape_markdown(account.lichess_username)}** on Lichess. "
                "You can remove the code from your bio now."
            )
        await interaction.followup.send(text, ephemeral=True)

    @app_commands.command(name="unlink", description="Remove the link to your Lichess account")
    @app_commands.guild_only()
    async def unlink(self, interaction: Interaction) -> None:
        """Unlink the caller's Lichess account (refused while they play in an event)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        name = await self.bot.director.unlink(actor_for(self.bot.config, interaction))
        text = f"Unlinked: you are no longer **{discord.utils.escape_markdown(name)}** here. `/link` links an account."
        await interaction.followup.send(text, ephemeral=True)

    @app_commands.command(name="join", description="Enter an event")
    @app_commands.guild_only()
    @app_commands.describe(event=EVENT_HELP)
    @app_commands.autocomplete(event=event_autocomplete)
    async def join(self, interaction: Interaction, event: str | None = None) -> None:
        """Enter an event (the rating limits, bans and team rules are the director's)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        found = await self.bot.events.resolve(interaction.guild_id, event)
        entry = await self.bot.director.join(actor_for(self.bot.config, interaction), found.id)
        text = f"You are in **{found.name}** as {discord.utils.escape_markdown(entry.name)} ({entry.rating})."
        if entry.joined_round > 1:
            text += f" You join from {found.round_name(entry.joined_round)}."
        await interaction.followup.send(text, ephemeral=True)

    @app_commands.command(name="withdraw", description="Leave an event (you keep your points)")
    @app_commands.guild_only()
    @app_commands.describe(event=EVENT_HELP)
    @app_commands.autocomplete(event=event_autocomplete)
    async def withdraw(self, interaction: Interaction, event: str | None = None) -> None:
        """Leave an event: no further pairings."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        found = await self.bot.events.resolve(interaction.guild_id, event)
        await self.bot.director.withdraw(actor_for(self.bot.config, interaction), found.id)
        await interaction.followup.send(f"You have withdrawn from **{found.name}**.", ephemeral=True)

    @app_commands.command(name="bye", description="Ask for a half-point bye in a coming round")
    @app_commands.guild_only()
    @app_commands.describe(
        event=EVENT_HELP,
        round="The round (the next one if you leave it empty)",
        cancel="Take back a bye you asked for instead",
    )
    @app_commands.autocomplete(event=event_autocomplete)
    async def bye(
        self,
        interaction: Interaction,
        event: str | None = None,
        round: app_commands.Range[int, 1, 99] | None = None,
        cancel: bool = False,
    ) -> None:
        """Request a half-point bye, or take one back."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        found = await self.bot.events.resolve(interaction.guild_id, event)
        if cancel:
            taken = await self.bot.director.cancel_bye(actor_for(self.bot.config, interaction), found.id, round)
            text = f"Your bye in {found.bye_name(taken)} of **{found.name}** is cancelled: you will be paired."
            await interaction.followup.send(text, ephemeral=True)
            return
        granted = await self.bot.director.request_bye(actor_for(self.bot.config, interaction), found.id, round)
        await interaction.followup.send(
            f"You have a half-point bye in {found.bye_name(granted)} of **{found.name}**.", ephemeral=True
        )

    @app_commands.command(name="standings", description="The standings of an event")
    @app_commands.guild_only()
    @app_commands.describe(event=EVENT_HELP, crosstable="Show the crosstable (every result by round) instead")
    @app_commands.autocomplete(event=event_autocomplete)
    async def standings(self, interaction: Interaction, event: str | None = None, crosstable: bool = False) -> None:
        """The current standings (or crosstable), paged or attached when long."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        found = await self.bot.events.resolve(interaction.guild_id, event, PLAYING, otherwise=standings_event)
        if crosstable:
            table = await self.bot.director.crosstable(found.id)
            await send_table(
                interaction, f"{found.name} — crosstable", crosstable_lines(table), "crosstable.txt", ephemeral=True
            )
            return
        if found.settings.pairing_system.team:
            teams = await self.bot.director.team_standings(found.id)
            if teams:
                lines = team_standings_lines(teams)
                await send_table(interaction, f"{found.name} — team standings", lines, "standings.txt", ephemeral=True)
                return
        rows = await self.bot.director.standings(found.id)
        if not rows:
            await interaction.followup.send(f"Nobody has joined **{found.name}** yet.", ephemeral=True)
            return
        lines = standings_lines(rows, found.settings.tiebreaks)
        await send_table(interaction, f"{found.name} — standings", lines, "standings.txt", ephemeral=True)

    @app_commands.command(name="pairings", description="The pairings of a round, with the game links")
    @app_commands.guild_only()
    @app_commands.describe(event=EVENT_HELP, round="The round (the current one if you leave it empty)")
    @app_commands.autocomplete(event=event_autocomplete)
    async def pairings(
        self, interaction: Interaction, event: str | None = None, round: app_commands.Range[int, 1, 99] | None = None
    ) -> None:
        """A round's boards, links and results."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        found = await self.bot.events.resolve(interaction.guild_id, event, PLAYING, otherwise=pairings_event)
        if found.current_round == 0 and round is None:
            when = found.next_round_at
            start = f"at <t:{int(when.timestamp())}:f>" if when else "when an organiser starts it"
            await interaction.followup.send(
                f"**{found.name}** has not started: round 1 is paired {start}.", ephemeral=True
            )
            return
        view = await self.bot.director.pairings(found.id, round)
        await send_pages(interaction, round_messages(found, view, mention=False), ephemeral=True)

    @app_commands.command(name="mygame", description="Your opponent, colour and game link this round")
    @app_commands.guild_only()
    @app_commands.describe(event=EVENT_HELP)
    @app_commands.autocomplete(event=event_autocomplete)
    async def mygame(self, interaction: Interaction, event: str | None = None) -> None:
        """The caller's board in the current round (of this server's events only)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        actor = actor_for(self.bot.config, interaction)
        found = await self.bot.events.resolve(interaction.guild_id, event) if event else None
        event_id = found.id if found is not None else None
        game = await self.bot.director.my_game(actor, event_id, interaction.guild_id)
        text = my_game_text(game) if game else "You have no game right now."
        await interaction.followup.send(text, ephemeral=True)
