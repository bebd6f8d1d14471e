"""What the event's channel shows during a scenario: every post kept (with its time) and printed; Discord can fail."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TextIO

from bot.demo.console import format_round, format_standings
from bot.director.announcer import AnnouncementFailed, Announcer
from bot.director.models import RoundView, StandingRow
from domain.event import Event


class DiscordDown(AnnouncementFailed):
    """Discord cannot be reached (a scenario's outage): a post the director retries did not reach the channel."""


@dataclass(frozen=True)
class Post:
    """One message: when, and its text (notices start with `[organiser]`, DMs with `[dm <name>]`)."""

    at: datetime
    text: str


@dataclass
class ScenarioChannel:
    """An `Announcer` that keeps what the channel, the organisers and the players were shown.

    While Discord is down, the posts the director retries (the opening post, pairings, results, standings, the end,
    bulletins) raise `DiscordDown` (as a post that never reached Discord) and the best-effort ones (notices and
    DMs) are lost; nothing of either is kept.
    """

    now: Callable[[], datetime]
    out: TextIO
    names: dict[int, str] = field(default_factory=dict)
    posts: list[Post] = field(default_factory=list)
    down: bool = False

    def _post(self, lines: Sequence[str], *, best_effort: bool = False) -> None:
        stamp = f"{self.now():%a %Y-%m-%d %H:%M:%S}"
        if self.down:
            print(f"[{stamp}] (Discord is down: lost) {lines[0]}", file=self.out)
            if best_effort:
                return
            raise DiscordDown("Discord is unavailable")
        text = "\n".join(lines)
        self.posts.append(Post(self.now(), text))
        print(f"[{stamp}] " + "\n    ".join(lines), file=self.out)

    async def event_opened(self, event: Event) -> None:
        """The opening post."""
        self._post([f"{event.name}: open for entries ({event.settings.rounds} rounds)"])

    async def round_paired(self, event: Event, round: RoundView) -> None:
        """The pairings."""
        self._post([f"{event.name} — {event.round_name(round.number)} pairings", *format_round(round)])

    async def results_updated(self, event: Event, round: RoundView) -> None:
        """The round's results (the channel edits the round's post; shown again here)."""
        self._post([f"{event.name} — round {round.number} results", *format_round(round, with_urls=False)])

    async def standings(self, event: Event, rows: Sequence[StandingRow], final: bool) -> None:
        """A standings table."""
        title = "final standings" if final else f"standings after round {event.current_round}"
        self._post([f"{event.name} — {title}", *format_standings(rows, event.settings.tiebreaks)])

    async def event_finished(self, event: Event, rows: Sequence[StandingRow], reason: str) -> None:
        """The end."""
        self._post([f"{event.name} finished: {reason}", *format_standings(rows, event.settings.tiebreaks)])

    async def bulletin(self, event: Event, text: str) -> None:
        """A line for everyone in the channel."""
        self._post([f"{event.name}: {text}"])

    async def notice(self, event: Event, text: str) -> None:
        """An organiser notice."""
        self._post([f"[organiser] {event.name}: {text}"], best_effort=True)

    async def dm(self, discord_id: int, text: str) -> None:
        """A direct message."""
        self._post([f"[dm {self.names.get(discord_id, discord_id)}] {text}"], best_effort=True)

    def count(self, text: str) -> int:
        """How many posts so far contain `text` (case-insensitive)."""
        wanted = text.lower()
        return sum(1 for post in self.posts if wanted in post.text.lower())


@dataclass
class BothChannels:
    """The announcer of a scenario: every announcement is made by the bot's `DiscordAnnouncer` on the local Discord
    (what `in_channel`, `edited` and `dm` check; skipped while the scenario's Discord is down), then kept and
    printed by the `ScenarioChannel` (what `posted` checks) unless Discord refused it (the director retries it)."""

    channel: ScenarioChannel
    discord: Announcer | None = None

    def _reaches_discord(self) -> Announcer | None:
        return None if self.channel.down else self.discord

    async def event_opened(self, event: Event) -> None:
        """The opening post (with the Join button on Discord)."""
        if (discord := self._reaches_discord()) is not None:
            await discord.event_opened(event)
        await self.channel.event_opened(event)

    async def round_paired(self, event: Event, round: RoundView) -> None:
        """The pairings."""
        if (discord := self._reaches_discord()) is not None:
            await discord.round_paired(event, round)
        await self.channel.round_paired(event, round)

    async def results_updated(self, event: Event, round: RoundView) -> None:
        """The round's results (an edit of the round's message on Discord)."""
        if (discord := self._reaches_discord()) is not None:
            await discord.results_updated(event, round)
        await self.channel.results_updated(event, round)

    async def standings(self, event: Event, rows: Sequence[StandingRow], final: bool) -> None:
        """A standings table."""
        if (discord := self._reaches_discord()) is not None:
            await discord.standings(event, rows, final)
        await self.channel.standings(event, rows, final)

    async def event_finished(self, event: Event, rows: Sequence[StandingRow], reason: str) -> None:
        """The end."""
        if (discord := self._reaches_discord()) is not None:
            await discord.event_finished(event, rows, reason)
        await self.channel.event_finished(event, rows, reason)

    async def bulletin(self, event: Event, text: str) -> None:
        """A line for everyone in the channel."""
        if (discord := self._reaches_discord()) is not None:
            await discord.bulletin(event, text)
        await self.channel.bulletin(event, text)

    async def notice(self, event: Event, text: str) -> None:
        """An organiser notice."""
        if (discord := self._reaches_discord()) is not None:
            await discord.notice(event, text)
        await self.channel.notice(event, text)

    async def dm(self, discord_id: int, text: str) -> None:
        """A direct message."""
        if (discord := self._reaches_discord()) is not None:
            await discord.dm(discord_id, text)
        await self.channel.dm(discord_id, text)
