"""The organisers' /arbiter group: correct the last round's pairing before it is played, end its review hold."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.director.arbiter import CorrectionOutcome
from bot.director.models import Actor
from bot.discord.actors import require_organiser
from bot.discord.autocomplete import NOT_OVER
from bot.discord.cogs.organiser import EVENT_HELP, organiser_event_autocomplete
from bot.discord.context import BotContext
from bot.discord.mentions import player_key
from domain.corrections import CorrectionKind
from domain.event import Event
from domain.fide import FideProfile, TrfHeader, normalised_profile

Interaction = discord.Interaction[Any]
PLAYER_HELP = "A player: @mention, Lichess name or #starting-number"
ACCEPT_HELP = "Apply it even if it breaks FIDE criteria (you saw which)"
Title = Literal["GM", "IM", "WGM", "FM", "WIM", "CM", "WFM", "WCM"]  # domain.fide.TITLES
RatingType = Literal["standard", "rapid", "blitz"]  # domain.fide.RATING_TYPES
FIDE_HELP = {
    "fide_id": "FIDE id (digits only)",
    "federation": "Federation, three letters (e.g. NED)",
    "title": "FIDE title",
    "birth_year": "Year of birth",
}
FIDE_RENAMES = {"fide_id": "fide-id", "birth_year": "birth-year"}


def profile_text(profile: FideProfile) -> str:
    """A FIDE profile in one line."""
    parts = [
        f"FIDE id {profile.fide_id}" if profile.fide_id else "no FIDE id",
        profile.federation or "no federation",
        profile.title or "no title",
        f"born {profile.birth_year}" if profile.birth_year else "no birth year",
    ]
    return ", ".join(parts)


def outcome_text(event: Event, outcome: CorrectionOutcome) -> str:
    """The corrected pairing, the criteria it breaks (one sentence each), and whether it was applied."""
    lines = [f"**{event.name}** {event.round_name(outcome.round_number)}:"]
    lines.extend(f"{index}. {white} - {black}" for index, (white, black) in enumerate(outcome.boards, start=1))
    if outcome.bye is not None:
        lines.append(f"Bye: {outcome.bye}")
    if outcome.problems:
        lines.append("It breaks:")
        lines.extend(f"- {problem}" for problem in outcome.problems)
    if not outcome.applied:
        lines.append("Not applied: give the same command with `accept: True` to apply it anyway, or leave it.")
    elif outcome.held_until is not None:
        lines.append(f"Applied. The games are created at {outcome.held_until}, or now with `/arbiter confirm`.")
    else:
        lines.append("Applied. The round's games are created now.")
    return "\n".join(lines)


@app_commands.guild_only()
@app_commands.default_permissions(manage_events=True)
class ArbiterCog(commands.GroupCog, group_name="arbiter", group_description="Correct a round's pairing (organisers)"):
    """The /arbiter group; Discord hides it from members without Manage Events, and every call checks the role."""

    def __init__(self, bot: BotContext) -> None:
        self.bot = bot
        super().__init__()

    async def interaction_check(self, interaction: Interaction, /) -> bool:
        """Refuse anyone without the club's organiser role."""
        require_organiser(self.bot.config, interaction)
        return True

    async def _begin(self, interaction: Interaction, event: str | None) -> tuple[Actor, Event]:
        """The organiser and the event named (the one in progress when left empty), the answer deferred."""
        actor = require_organiser(self.bot.config, interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        return actor, await self.bot.events.resolve(interaction.guild_id, event, NOT_OVER)

    async def _correct(
        self, interaction: Interaction, event: str | None, kind: CorrectionKind, players: tuple[str, ...], accept: bool
    ) -> None:
        actor, found = await self._begin(interaction, event)
        keys = tuple(player_key(p) for p in players)
        outcome = await self.bot.director.correct_pairing(actor, found.id, kind, keys, accept)
        await interaction.followup.send(outcome_text(found, outcome), ephemeral=True)

    @app_commands.command(name="swap", description="Two players change places in the round's pairing")
    @app_commands.rename(player_a="player-a", player_b="player-b")
    @app_commands.describe(event=EVENT_HELP, player_a=PLAYER_HELP, player_b=PLAYER_HELP, accept=ACCEPT_HELP)
    @app_commands.autocomplete(event=organiser_event_autocomplete)
    async def swap(
        self, interaction: Interaction, player_a: str, player_b: str, accept: bool = False, event: str | None = None
    ) -> None:
        """Swap two players (boards, colours, the bye)."""
        await self._correct(interaction, event, CorrectionKind.SWAP, (player_a, player_b), accept)

    @app_commands.command(name="pair", description="Pair two players; their former opponents play each other")
    @app_commands.rename(player_a="player-a", player_b="player-b")
    @app_commands.describe(event=EVENT_HELP, player_a=PLAYER_HELP, player_b=PLAYER_HELP, accept=ACCEPT_HELP)
    @app_commands.autocomplete(event=organiser_event_autocomplete)
    async def pair(
        self, interaction: Interaction, player_a: str, player_b: str, accept: bool = False, event: str | None = None
    ) -> None:
        """Pair two players directly."""
        await self._correct(interaction, event, CorrectionKind.PAIR, (player_a, player_b), accept)

    @app_commands.command(name="bye", description="Give a player the pairing-allocated bye; its holder plays")
    @app_commands.describe(event=EVENT_HELP, player=PLAYER_HELP, accept=ACCEPT_HELP)
    @app_commands.autocomplete(event=organiser_event_autocomplete)
    async def bye(self, interaction: Interaction, player: str, accept: bool = False, event: str | None = None) -> None:
        """Move the pairing-allocated bye to a player."""
        await self._correct(interaction, event, CorrectionKind.BYE, (player,), accept)

    @app_commands.command(name="repair", description="Pair the round again from scratch (games not begun)")
    @app_commands.describe(event=EVENT_HELP, accept=ACCEPT_HELP)
    @app_commands.autocomplete(event=organiser_event_autocomplete)
    async def repair(self, interaction: Interaction, accept: bool = False, event: str | None = None) -> None:
        """Re-pair the last round (after a late withdrawal or a forgotten bye request)."""
        await self._correct(interaction, event, CorrectionKind.REPAIR, (), accept)

    @app_commands.command(name="confirm", description="End the review hold: create the round's games now")
    @app_commands.describe(event=EVENT_HELP)
    @app_commands.autocomplete(event=organiser_event_autocomplete)
    async def confirm(self, interaction: Interaction, event: str | None = None) -> None:
        """Confirm the held pairing."""
        actor, found = await self._begin(interaction, event)
        number = await self.bot.director.confirm_pairing(actor, found.id)
        await interaction.followup.send(
            f"**{found.name}** {found.round_name(number)}: pairing confirmed, the games are created.", ephemeral=True
        )

    @app_commands.command(name="review", description="Minutes each round's pairing is held for corrections")
    @app_commands.describe(event=EVENT_HELP, minutes="0: no hold (the games are created at once)")
    @app_commands.autocomplete(event=organiser_event_autocomplete)
    async def review(
        self, interaction: Interaction, minutes: app_commands.Range[int, 0, 1440], event: str | None = None
    ) -> None:
        """Set the event's pairing review hold."""
        actor, found = await self._begin(interaction, event)
        edited = await self.bot.director.edit_event(actor, found.id, replace(found.settings, pairing_review=minutes))
        self.bot.events.invalidate(interaction.guild_id)
        held = f"held {minutes} minutes for review" if minutes else "not held (the games are created at once)"
        await interaction.followup.send(f"**{edited.name}**: each round's pairing is {held}.", ephemeral=True)

    @app_commands.command(name="fide", description="Record a player's FIDE profile for FIDE-rated events")
    @app_commands.rename(**FIDE_RENAMES)
    @app_commands.describe(player="A member: @mention or Lichess name", **FIDE_HELP)
    async def fide(
        self,
        interaction: Interaction,
        player: str,
        fide_id: str | None = None,
        federation: str | None = None,
        title: Title | None = None,
        birth_year: app_commands.Range[int, 1900, 2100] | None = None,
    ) -> None:
        """Record a member's FIDE profile for them."""
        actor = require_organiser(self.bot.config, interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        profile = normalised_profile(fide_id, federation, title, birth_year)
        row = await self.bot.director.set_fide_profile(actor, profile, player_key(player))
        await interaction.followup.send(f"{row.name}: {profile_text(row.fide)}.", ephemeral=True)

    @app_commands.command(name="header", description="The TRF header of a FIDE-rated event's report")
    @app_commands.rename(chief="chief-arbiter", deputies="deputy-arbiters", time_control="time-control")
    @app_commands.rename(rating_type="rating-type")
    @app_commands.describe(
        event=EVENT_HELP,
        rating_type="FIDE rating list the event is rated for (none: not FIDE-rated)",
        city="City",
        federation="Federation, three letters",
        chief="Chief arbiter (name and FIDE id)",
        deputies="Deputy arbiters, separated by ';'",
        time_control="Time control as text",
    )
    @app_commands.autocomplete(event=organiser_event_autocomplete)
    async def header(
        self,
        interaction: Interaction,
        rating_type: RatingType | None = None,
        city: str = "",
        federation: str = "",
        chief: str = "",
        deputies: str = "",
        time_control: str = "",
        event: str | None = None,
    ) -> None:
        """Record the event's TRF header (every field at once)."""
        actor, found = await self._begin(interaction, event)
        header = TrfHeader(
            city=city.strip(),
            federation=federation.strip().upper(),
            chief_arbiter=chief.strip(),
            deputy_arbiters=tuple(d.strip() for d in deputies.split(";") if d.strip()),
            time_control=time_control.strip(),
            rating_type=rating_type,
        )
        edited = await self.bot.director.set_trf_header(actor, found.id, header)
        self.bot.events.invalidate(interaction.guild_id)
        rated = f"FIDE-rated ({rating_type})" if rating_type else "not FIDE-rated"
        await interaction.followup.send(
            f"**{edited.name}**: {rated}; the TRF export's header is recorded.", ephemeral=True
        )
