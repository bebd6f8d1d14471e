"""The organisers' /swiss group: create and run events, correct results, manage players."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.director.models import Actor, TeamView
from bot.discord.actors import require_organiser
from bot.discord.autocomplete import NOT_OVER
from bot.discord.context import BotContext
from bot.discord.mentions import player_key, player_keys
from bot.discord.options import apply_changes, describe_settings, settings_changes
from bot.discord.replies import bytes_file
from bot.errors import InvalidSetting, SwissbotError
from bot.rendering.teams import team_line
from domain.event import Event, EventStatus
from pairing import systems

Interaction = discord.Interaction[Any]
Schedule = Literal["interval", "fixed", "manual"]
EarlyDraw = Literal["replay", "forfeit", "review"]  # domain.settings.EarlyDrawPolicy's values
Acceleration = Literal["baku", "us-28r1", "us-28r2"]  # pairing.acceleration.METHODS
ExportFormat = Literal["trf", "pgn", "json"]
RESULT_CHOICES = [
    app_commands.Choice(name="1-0 (white won)", value="1-0"),
    app_commands.Choice(name="0-1 (black won)", value="0-1"),
    app_commands.Choice(name="½-½ (draw)", value="1/2-1/2"),
    app_commands.Choice(name="+- (white wins by forfeit)", value="+-"),
    app_commands.Choice(name="-+ (black wins by forfeit)", value="-+"),
    app_commands.Choice(name="-- (double forfeit)", value="--"),
]
EVENT_HELP = "The event (the one in progress if you leave it empty)"
SETTING_HELP = {
    "minutes": "Clock: minutes per player (e.g. 3, or 0.5 for 30 seconds)",
    "increment": "Clock: seconds added per move",
    "rated": "Rated games on Lichess",
    "system": "Pairing system",
    "start": "Start time: YYYY-MM-DD HH:MM (UTC) or a Discord timestamp",
    "schedule": "How later rounds start: after an interval, at fixed times, or by /swiss next-round",
    "interval": "Minutes between the end of a round and the start of the next",
    "fixed_times": "Round start times for the fixed schedule, comma separated (YYYY-MM-DD HH:MM UTC)",
    "rating_min": "Lowest Lichess rating allowed (for the event's speed)",
    "rating_max": "Highest Lichess rating allowed (for the event's speed)",
    "team": "Lichess team whose members may join (empty: anyone)",
    "tiebreaks": "Tie-break codes in order, e.g. BH/C1, BH, SB, DE",
    "max_byes": "Half-point byes a player may request",
    "accelerated": "Accelerated pairings for the first rounds (Baku unless you pick another method)",
    "acceleration": "The acceleration method: FIDE Baku, US Chess 28R1 (added score) or 28R2 (non-winners)",
    "early_draw": "What a draw before move 30 counts as",
    "noshow": "Minutes a player has to start the game before losing by forfeit",
    "reminder": "Minutes before a round when players are reminded (0: no reminder)",
    "min_games": "Rated games at the event's speed a player needs on Lichess to join",
    "late_join_bye": "A player who joins after round 1 gets a half-point bye for one missed round",
    "lichess_sb": "Compute SB as Lichess does (unplayed rounds count against a virtual opponent)",
    "boards": "Boards per team match",
}
PLAYER_HELP = "@mention or Lichess name"
RENAMES = {
    "fixed_times": "fixed-times",
    "rating_min": "rating-min",
    "rating_max": "rating-max",
    "max_byes": "max-byes",
    "early_draw": "early-draw",
    "min_games": "min-rated-games",
    "late_join_bye": "late-join-bye",
    "lichess_sb": "lichess-sb",
}


def system_choices() -> list[app_commands.Choice[str | int | float]]:
    """The pairing systems `system:` offers: `auto` (chosen each round by the players to pair, as Lichess does)
    and every registered system, by its label."""
    offered = systems.labelled_choices()
    return [app_commands.Choice[str | int | float](name=label, value=value) for value, label in offered]


def _offer_systems(command: app_commands.Command[Any, ..., Any]) -> None:
    """Give a command's `system` option the registry's systems as its choices (this cog's copy of the command
    only: its parameters dict is its own, the parameter is replaced, not changed)."""
    parameter = command._params["system"]
    command._params["system"] = replace(parameter, choices=system_choices())


def _setting_options(values: dict[str, Any]) -> dict[str, Any]:
    """The setting options among a command's arguments (those SETTING_HELP describes, as settings_changes takes)."""
    return {key: value for key, value in values.items() if key in SETTING_HELP}


async def organiser_event_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Events of this server that are not over (at most 25, from the cache)."""
    bot: BotContext = interaction.client
    return await bot.events.choices(interaction.guild_id, current, NOT_OVER)


async def any_event_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    """Every event of this server, finished ones included (for exports)."""
    bot: BotContext = interaction.client
    return await bot.events.choices(interaction.guild_id, current, frozenset(EventStatus))


async def team_autocomplete(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The teams of the event chosen so far (or the one in progress) whose name contains what was typed."""
    bot: BotContext = interaction.client
    try:
        found = await bot.events.resolve(interaction.guild_id, getattr(interaction.namespace, "event", None), NOT_OVER)
        teams = await bot.director.list_teams(found.id)
    except SwissbotError:
        return []
    typed = current.strip().casefold()
    return [app_commands.Choice(name=t.name, value=t.name) for t in teams if typed in t.name.casefold()][:25]


@app_commands.guild_only()
@app_commands.default_permissions(manage_events=True)
class OrganiserCog(commands.GroupCog, group_name="swiss", group_description="Run Swiss events (organisers)"):
    """The /swiss group; Discord hides it from members without Manage Events, and every call checks the role."""

    def __init__(self, bot: BotContext) -> None:
        self.bot = bot
        super().__init__()
        # The systems are the registry's when the cog is built, so a system registered before is offered.
        for command in (self.create, self.edit):
            _offer_systems(command)

    async def interaction_check(self, interaction: Interaction, /) -> bool:
        """Refuse anyone without the club's organiser role (the permission hint can be overridden by admins)."""
        require_organiser(self.bot.config, interaction)
        return True

    async def _defer(self, interaction: Interaction) -> Actor:
        """The organiser calling, once the role is checked and the private answer deferred (the work may be slow)."""
        actor = require_organiser(self.bot.config, interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        return actor

    async def _begin(
        self, interaction: Interaction, event: str | None, *, any_status: bool = False
    ) -> tuple[Actor, Event]:
        """`_defer`, then the event named (the one in progress when left empty; finished ones too with `any_status`)."""
        actor = await self._defer(interaction)
        statuses = frozenset(EventStatus) if any_status else NOT_OVER
        return actor, await self.bot.events.resolve(interaction.guild_id, event, statuses)

    async def _done(self, interaction: Interaction, text: str) -> None:
        """Answer the organiser privately (the event list cache is out of date after a change)."""
        self.bot.events.invalidate(interaction.guild_id)
        await interaction.followup.send(text, ephemeral=True)

    @app_commands.command(name="create", description="Create an event (a draft until you open it)")
    @app_commands.describe(
        name="The event's name", rounds="Number of rounds", channel="Channel for its announcements", **SETTING_HELP
    )
    @app_commands.rename(**RENAMES)
    async def create(
        self,
        interaction: Interaction,
        name: app_commands.Range[str, 1, 80],
        rounds: app_commands.Range[int, 1, 30],
        minutes: app_commands.Range[float, 0.25, 180.0] = 3.0,
        increment: app_commands.Range[int, 0, 180] = 2,
        rated: bool = True,
        system: str = systems.AUTO,
        start: str | None = None,
        schedule: Schedule | None = None,
        interval: app_commands.Range[float, 0.0, 10080.0] | None = None,
        fixed_times: str | None = None,
        rating_min: app_commands.Range[int, 0, 4000] | None = None,
        rating_max: app_commands.Range[int, 0, 4000] | None = None,
        team: str | None = None,
        tiebreaks: str | None = None,
        max_byes: app_commands.Range[int, 0, 10] | None = None,
        accelerated: bool | None = None,
        acceleration: Acceleration | None = None,
        early_draw: EarlyDraw | None = None,
        noshow: app_commands.Range[float, 1.0, 120.0] | None = None,
        reminder: app_commands.Range[float, 0.0, 1440.0] | None = None,
        channel: discord.TextChannel | None = None,
        min_games: app_commands.Range[int, 0, 10000] | None = None,
        late_join_bye: bool | None = None,
        lichess_sb: bool | None = None,
        boards: app_commands.Range[int, 1, 20] | None = None,
    ) -> None:
        """Create a draft event with these settings."""
        actor = await self._defer(interaction)
        changes = settings_changes(**_setting_options(locals()))
        club = self.bot.config.club(interaction.guild_id)
        channel_id = channel.id if channel else (club.channel_id if club else interaction.channel_id)
        if channel_id is None:
            raise InvalidSetting("Pick a channel for the event's announcements.")
        director = self.bot.director
        defaults = director.new_event_settings(name.strip(), rounds)
        settings = apply_changes(defaults, changes, default_interval=director.default_round_interval)
        assert interaction.guild_id is not None  # guild_only
        event = await director.create_event(actor, interaction.guild_id, channel_id, settings)
        await self._done(
            interaction,
            f"Created **{event.name}** (draft): {describe_settings(event.settings)}. "
            f"Announcements go to <#{event.channel_id}>. Open it for entries with `/swiss open`.",
        )

    @app_commands.command(name="edit", description="Change an event's settings (only the options you give)")
    @app_commands.describe(
        event=EVENT_HELP, name="A new name", rounds="Number of rounds (before the start only)", **SETTING_HELP
    )
    @app_commands.rename(**RENAMES)
    @app_commands.autocomplete(event=organiser_event_autocomplete)
    async def edit(
        self,
        interaction: Interaction,
        event: str | None = None,
        name: app_commands.Range[str, 1, 80] | None = None,
        rounds: app_commands.Range[int, 1, 30] | None = None,
        minutes: app_commands.Range[float, 0.25, 180.0] | None = None,
        increment: app_commands.Range[int, 0, 180] | None = None,
        rated: bool | None = None,
        system: str | None = None,
        start: str | None = None,
        schedule: Schedule | None = None,
        interval: app_commands.Range[float, 0.0, 10080.0] | None = None,
        fixed_times: str | None = None,
        rating_min: app_commands.Range[int, 0, 4000] | None = None,
        rating_max: app_commands.Range[int, 0, 4000] | None = None,
        team: str | None = None,
        tiebreaks: str | None = None,
        max_byes: app_commands.Range[int, 0, 10] | None = None,
        accelerated: bool | None = None,
        acceleration: Acceleration | None = None,
        early_draw: EarlyDraw | None = None,
        noshow: app_commands.Range[float, 1.0, 120.0] | None = None,
        reminder: app_commands.Range[float, 0.0, 1440.0] | None = None,
        min_games: app_commands.Range[int, 0, 10000] | None = None,
        late_join_bye: bool | None = None,
        lichess_sb: bool | None = None,
        boards: app_commands.Range[int, 1, 20] | None = None,
    ) -> None:
        """Edit the given settings of an event."""
        actor, found = await self._begin(interaction, event)
        changes = settings_changes(**_setting_options(locals()))
        if name is not None:
            changes["name"] = name.strip()
        if rounds is not None:
            changes["rounds"] = rounds
        if not changes:
            raise InvalidSetting("Nothing to change: give at least one option.")
        director = self.bot.director
        settings = apply_changes(found.settings, changes, default_interval=director.default_round_interval)
        updated = await director.edit_event(actor, found.id, settings)
        text = f"Updated **{updated.name}**: {describe_settings(updated.settings)}."
        if rounds is not None and found.status is not EventStatus.FINISHED and updated.status is EventStatus.FINISHED:
            last = updated.settings.rounds
            text += f" This ended the event: round {last} was its last; the final standings are posted."
        elif rounds is not None and updated.current_round and updated.settings.rounds == updated.current_round:
            text += f" Round {updated.current_round} is now the last: the event ends when it is finished."
        await self._done(interaction, text)

    @app_commands.command(name="open", description="Open an event for entries (posts the join button)")
    @app_commands.describe(event=EVENT_HELP)
    @app_commands.autocomplete(event=organiser_event_autocomplete)
    async def open(self, interaction: Interaction, event: str | None = None) -> None:
        """Accept entries."""
        actor, found = await self._begin(interaction, event)
        opened = await self.bot.director.open_event(actor, found.id)
        await self._done(interaction, f"**{opened.name}** is open for entries in <#{opened.channel_id}>.")

    @app_commands.command(name="start", description="Start an event now (round 1 is paired at once)")
    @app_commands.describe(event=EVENT_HELP)
    @app_commands.autocomplete(event=organiser_event_autocomplete)
    async def start(self, interaction: Interaction, event: str | None = None) -> None:
        """Start now instead of at the start time."""
        actor, found = await self._begin(interaction, event)
        started = await self.bot.director.start_event(actor, found.id)
        await self._done(interaction, f"**{started.name}** has started; the pairings go to <#{started.channel_id}>.")

    @app_commands.command(name="pause", description="Start no new round until resumed (the current round goes on)")
    @app_commands.describe(event=EVENT_HELP)
    @app_commands.autocomplete(event=organiser_event_autocomplete)
    async def pause(self, interaction: Interaction, event: str | None = None) -> None:
        """Pause an event."""
        actor, found = await self._begin(interaction, event)
        paused = await self.bot.director.pause(actor, found.id)
        await self._done(interaction, f"**{paused.name}** is paused; `/swiss resume` goes on.")

    @app_commands.command(name="resume", description="Resume a paused event")
    @app_commands.describe(event=EVENT_HELP)
    @app_commands.autocomplete(event=organiser_event_autocomplete)
    async def resume(self, interaction: Interaction, event: str | None = None) -> None:
        """Resume an event."""
        actor, found = await self._begin(interaction, event)
        resumed = await self.bot.director.resume(actor, found.id)
        await self._done(interaction, f"**{resumed.name}** is running again.")

    @app_commands.command(name="next-round", description="Pair and start the next round now")
    @app_commands.describe(event=EVENT_HELP)
    @app_commands.autocomplete(event=organiser_event_autocomplete)
    async def next_round(self, interaction: Interaction, event: str | None = None) -> None:
        """Start the next round (manual scheduling, or to skip the wait)."""
        actor, found = await self._begin(interaction, event)
        view = await self.bot.director.next_round(actor, found.id)
        await self._done(
            interaction, f"Round {view.number} of **{found.name}** is paired ({len(view.boards)} boards) and announced."
        )

    @app_commands.command(name="result", description="Set or correct a board's result (recorded in the audit log)")
    @app_commands.describe(
        event=EVENT_HELP,
        round="The round",
        board="The board number",
        result="The result",
        reason="Why (kept in the log)",
    )
    @app_commands.choices(result=RESULT_CHOICES)
    @app_commands.autocomplete(event=organiser_event_autocomplete)
    async def result(
        self,
        interaction: Interaction,
        round: app_commands.Range[int, 1, 99],
        board: app_commands.Range[int, 1, 999],
        result: app_commands.Choice[str],
        reason: app_commands.Range[str, 3, 200],
        event: str | None = None,
    ) -> None:
        """Correct a result."""
        actor, found = await self._begin(interaction, event)
        correction = await self.bot.director.set_result(actor, found.id, round, board, result.value, reason)
        await self._done(interaction, correction.message)

    @app_commands.command(name="forbid", description="Never pair two players together in an event")
    @app_commands.rename(player_a="player-a", player_b="player-b")
    @app_commands.describe(event=EVENT_HELP, player_a=PLAYER_HELP, player_b=PLAYER_HELP)
    @app_commands.autocomplete(event=organiser_event_autocomplete)
    async def forbid(self, interaction: Interaction, player_a: str, player_b: str, event: str | None = None) -> None:
        """Forbid a pairing."""
        actor, found = await self._begin(interaction, event)
        await self.bot.director.forbid(actor, found.id, player_key(player_a), player_key(player_b))
        await self._done(interaction, f"{player_a} and {player_b} will not be paired together in **{found.name}**.")

    @app_commands.command(name="allow", description="Lift a forbidden pair: the two players may meet again")
    @app_commands.rename(player_a="player-a", player_b="player-b")
    @app_commands.describe(event=EVENT_HELP, player_a=PLAYER_HELP, player_b=PLAYER_HELP)
    @app_commands.autocomplete(event=organiser_event_autocomplete)
    async def allow(self, interaction: Interaction, player_a: str, player_b: str, event: str | None = None) -> None:
        """Lift a forbidden pairing."""
        actor, found = await self._begin(interaction, event)
        await self.bot.director.allow(actor, found.id, player_key(player_a), player_key(player_b))
        await self._done(interaction, f"{player_a} and {player_b} may be paired together in **{found.name}** again.")

    @app_commands.command(name="reinstate", description="Bring back a withdrawn, removed or no-show player")
    @app_commands.describe(event=EVENT_HELP, player=PLAYER_HELP)
    @app_commands.autocomplete(event=organiser_event_autocomplete)
    async def reinstate(self, interaction: Interaction, player: str, event: str | None = None) -> None:
        """Reinstate a player: paired again from the next round."""
        actor, found = await self._begin(interaction, event)
        entry = await self.bot.director.reinstate(actor, found.id, player_key(player))
        name = discord.utils.escape_markdown(entry.name)
        await self._done(
            interaction,
            f"{name} is back in **{found.name}** from the next round (a no-show ban is lifted by `/swiss unban`).",
        )

    @app_commands.command(name="remove", description="Remove a player from an event (no further pairings)")
    @app_commands.describe(event=EVENT_HELP, player=PLAYER_HELP)
    @app_commands.autocomplete(event=organiser_event_autocomplete)
    async def remove(self, interaction: Interaction, player: str, event: str | None = None) -> None:
        """Remove a player."""
        actor, found = await self._begin(interaction, event)
        entry = await self.bot.director.remove(actor, found.id, player_key(player))
        await self._done(interaction, f"Removed {discord.utils.escape_markdown(entry.name)} from **{found.name}**.")

    @app_commands.command(name="disqualify", description="Disqualify a player (out of the ranking)")
    @app_commands.describe(
        event="The event (the one in progress if you leave it empty; a finished one by name)",
        player=PLAYER_HELP,
        reason="Why (kept in the log)",
    )
    @app_commands.autocomplete(event=any_event_autocomplete)
    async def disqualify(
        self, interaction: Interaction, player: str, reason: app_commands.Range[str, 3, 200], event: str | None = None
    ) -> None:
        """Disqualify a player (also after the end: the final standings are updated)."""
        actor, found = await self._begin(interaction, event, any_status=event is not None)
        entry = await self.bot.director.disqualify(actor, found.id, player_key(player), reason)
        await self._done(interaction, f"Disqualified {discord.utils.escape_markdown(entry.name)} in **{found.name}**.")

    @app_commands.command(name="unban", description="Lift a player's no-show ban in this server")
    @app_commands.describe(player=PLAYER_HELP)
    async def unban(self, interaction: Interaction, player: str) -> None:
        """Lift a ban."""
        actor = await self._defer(interaction)
        assert interaction.guild_id is not None  # guild_only
        await self.bot.director.unban(actor, interaction.guild_id, player_key(player))
        await self._done(interaction, f"{player} may join events again.")

    @app_commands.command(name="finish", description="End an event now with its final standings")
    @app_commands.describe(event=EVENT_HELP)
    @app_commands.autocomplete(event=organiser_event_autocomplete)
    async def finish(self, interaction: Interaction, event: str | None = None) -> None:
        """Finish an event."""
        actor, found = await self._begin(interaction, event)
        finished = await self.bot.director.finish(actor, found.id)
        await self._done(interaction, f"**{finished.name}** is finished; the final standings are posted.")

    @app_commands.command(name="cancel", description="Cancel an event")
    @app_commands.describe(event=EVENT_HELP)
    @app_commands.autocomplete(event=organiser_event_autocomplete)
    async def cancel(self, interaction: Interaction, event: str | None = None) -> None:
        """Cancel an event."""
        actor, found = await self._begin(interaction, event)
        cancelled = await self.bot.director.cancel(actor, found.id)
        await self._done(interaction, f"**{cancelled.name}** is cancelled.")

    @app_commands.command(name="export", description="Download an event as TRF, PGN or JSON")
    @app_commands.describe(event=EVENT_HELP, format="The file format")
    @app_commands.autocomplete(event=any_event_autocomplete)
    async def export(self, interaction: Interaction, format: ExportFormat = "trf", event: str | None = None) -> None:
        """Export an event."""
        _, found = await self._begin(interaction, event, any_status=True)
        data = await self.bot.director.export(found.id, format)
        file = bytes_file(f"event-{found.id}.{format}", data)
        await interaction.followup.send(f"**{found.name}** as {format.upper()}:", file=file, ephemeral=True)

    # -- /swiss team: Team Swiss events ------------------------------------------------------------------------

    team = app_commands.Group(name="team", description="Teams of a team event")

    @team.command(name="add", description="Form a team from members in board order, or a role")
    @app_commands.describe(
        name="The team's name",
        members="Members in board order (extra ones are reserves)",
        role="Or a role's joined members",
        event=EVENT_HELP,
    )
    @app_commands.autocomplete(event=organiser_event_autocomplete)
    async def team_add(
        self,
        interaction: Interaction,
        name: app_commands.Range[str, 1, 32],
        members: str | None = None,
        role: discord.Role | None = None,
        event: str | None = None,
    ) -> None:
        """Form a team of joined members, named in board order or taken from a role."""
        actor, found = await self._begin(interaction, event)
        director = self.bot.director
        if (members is None) == (role is None):
            raise InvalidSetting("Give the team's members or a role, not both and not neither.")
        if role is not None:
            ids = await self._role_members(interaction, role.id)
            view = await director.add_team_from_role(actor, found.id, name, role.id, ids)
        else:
            assert members is not None
            view = await director.add_team(actor, found.id, name, player_keys(members))
        await self._done(interaction, f"Team added to **{found.name}**: {_team_text(view)}")

    @team.command(name="remove", description="Remove a team")
    @app_commands.describe(name="The team's name", event=EVENT_HELP)
    @app_commands.autocomplete(event=organiser_event_autocomplete, name=team_autocomplete)
    async def team_remove(self, interaction: Interaction, name: str, event: str | None = None) -> None:
        """Remove a team."""
        actor, found = await self._begin(interaction, event)
        gone = await self.bot.director.remove_team(actor, found.id, name)
        await self._done(
            interaction, f"Team {discord.utils.escape_markdown(gone.name)} is removed from **{found.name}**."
        )

    @team.command(name="roster", description="Set a team's roster")
    @app_commands.describe(name="The team's name", members="Members in board order", event=EVENT_HELP)
    @app_commands.autocomplete(event=organiser_event_autocomplete, name=team_autocomplete)
    async def team_roster(self, interaction: Interaction, name: str, members: str, event: str | None = None) -> None:
        """Reorder or change a team's roster."""
        actor, found = await self._begin(interaction, event)
        view = await self.bot.director.set_roster(actor, found.id, name, player_keys(members))
        await self._done(interaction, f"Roster of **{found.name}**: {_team_text(view)}")

    @team.command(name="list", description="List an event's teams")
    @app_commands.describe(event=EVENT_HELP)
    @app_commands.autocomplete(event=organiser_event_autocomplete)
    async def team_list(self, interaction: Interaction, event: str | None = None) -> None:
        """List the teams."""
        _, found = await self._begin(interaction, event)
        teams = await self.bot.director.list_teams(found.id)
        lines = [_team_text(t) for t in teams] or [f"**{found.name}** has no teams yet (`/swiss team add`)."]
        await interaction.followup.send("\n".join(lines)[:2000], ephemeral=True)

    async def _role_members(self, interaction: Interaction, role_id: int) -> list[int]:
        """The Discord ids of a role's members, read from Discord (the bot has no members intent to cache them)."""
        assert interaction.guild_id is not None  # guild_only
        found: list[int] = []
        after: int | None = None
        while True:
            page = await interaction.client.http.get_members(interaction.guild_id, 1000, after)
            found += [int(m["user"]["id"]) for m in page if str(role_id) in m.get("roles", [])]
            if len(page) < 1000:
                return found
            after = int(page[-1]["user"]["id"])


def _team_text(view: TeamView) -> str:
    """A team's line, its names safe for Discord's markdown."""
    return discord.utils.escape_markdown(team_line(view))
