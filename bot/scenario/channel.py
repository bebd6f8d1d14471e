"""What the channel shows during a scenario, read from the local Discord: each post and each edit of it in the words
the console prints (what `posted` counts); and Discord's outages, which the bot's announcer meets."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import pairwise
from typing import Any

from bot.director.announcer import AnnouncementFailed, Announcer
from bot.director.models import RoundView, StandingRow
from bot.rendering.text import RESULT_LABELS
from domain.event import Event

NOTICE = re.compile(r"^🛠️ \*\*(?P<event>.*?)\*\* \(organisers\): (?P<text>.*)$", re.DOTALL)
BULLETIN = re.compile(r"^📢 \*\*(?P<event>.*?)\*\*: (?P<text>.*)$", re.DOTALL)
OVER = re.compile(r"^\*\*(?P<event>.*?)\*\* is over: (?P<text>.*)$", re.DOTALL)
OPENED = re.compile(r"^(?P<event>.*) — open for entries$")
ROUND = re.compile(r"^(?P<event>.*) — (?P<round>.+?) \((?:\d+/\d+ results|complete)\)$")
BOARD = re.compile(r"^`\s*(?P<number>\d+)` (?P<white>.*?) \*\*(?P<result>.*?)\*\* (?P<black>.*)$")
BYE = re.compile(r"^`\s*-` (?P<player>.*) (?P<label>bye \(.*\))$")
GAME_LINK = re.compile(r"^\[game\]\((?P<url>[^)]*)\)$")
FORMS = ((NOTICE, "[organiser] {event}: {text}"), (BULLETIN, "{event}: {text}"), (OVER, "{event} finished: {text}"))
RESULT_VALUES = {label: result.value for result, label in RESULT_LABELS.items()}


class DiscordDown(AnnouncementFailed):
    """Discord cannot be reached (a scenario's outage): a post the director retries did not reach the channel."""


@dataclass(frozen=True)
class Shown:
    """One announcement as the local Discord holds it: a message posted (`version` 0) or an edit of it (1, 2, ...),
    in the console's words; `at` is the scenario's time the runner first read it, `channel` where it is."""

    message_id: str
    version: int
    channel: int
    text: str
    at: datetime


def plain(text: str) -> str:
    """Discord's markdown taken off (bold, code, escapes), as the text reads on screen."""
    return re.sub(r"\\([*_`~|>\\\[\]])", r"\1", text.replace("**", "").replace("`", ""))


def mentions(text: str, names: Mapping[int, str]) -> str:
    """`<@id>` as `@name`."""
    return re.sub(r"<@!?(\d+)>", lambda m: "@" + names.get(int(m.group(1)), m.group(1)), text)


def _player(label: str) -> str:
    """A player's name out of an embed line's `name (rating)`."""
    return plain(re.sub(r" \(\d+\)$", "", label.strip()))


def console_board(line: str, *, with_url: bool) -> str:
    """A round embed's line as the console prints a board (number, white, result, black, link, detail) or a bye."""
    bye = BYE.match(line)
    if bye is not None:
        return f"       {_player(bye['player']):<20} {bye['label']}"
    first, *rest = line.split(" · ")
    board = BOARD.match(first)
    if board is None:
        return plain(line)
    url, details = "", []
    for part in rest:
        link = GAME_LINK.match(part)
        if link is not None:
            url = f"  {link['url']}" if with_url else ""
        else:
            details.append(plain(part))
    detail = f"  ({' · '.join(details)})" if details else ""
    result = RESULT_VALUES.get(board["result"], board["result"])
    white, black = _player(board["white"]), _player(board["black"])
    return f"  {int(board['number']):>3}. {white:<20} {result:^9} {black:<20}{url}{detail}"


def _embed_lines(embed: Mapping[str, Any], version: int, names: Mapping[int, str]) -> list[str]:
    title = str(embed.get("title") or "")
    description = [ln for ln in str(embed.get("description") or "").splitlines() if not ln.startswith("```")]
    opened, paired = OPENED.match(title), ROUND.match(title)
    if opened is not None:
        settings = plain(description[0]) if description else ""
        return [f"{opened['event']}: open for entries ({settings})"]
    if paired is not None:  # the round's message: its post is the pairings, each edit the results so far
        what = "pairings" if version == 0 else "results"
        head = f"{plain(paired['event'])} — {paired['round']} {what}"
        return [head, *(console_board(ln, with_url=version == 0) for ln in description if ln.strip())]
    lines = [plain(title)] if title else []
    lines += [plain(mentions(ln, names)) for ln in description]
    for item in embed.get("fields") or []:
        lines.append(f"{plain(str(item.get('name', '')))}: {plain(str(item.get('value', '')))}")
    return lines


def console_text(message: Mapping[str, Any], version: int, names: Mapping[int, str], dm_to: str | None = None) -> str:
    """A version of a message (its post or an edit) as the console prints it: `[dm <name>] ...` for a DM,
    `[organiser] <event>: ...` for a notice, `<event>: ...` for a bulletin, `<event> finished: ...` for the end,
    `<event> — round N pairings` (the post) or `results` (an edit) over the boards' columns for a round."""
    content = str(message.get("content") or "")
    embeds: Sequence[Mapping[str, Any]] = message.get("embeds") or []
    if dm_to is not None:
        return f"[dm {dm_to}] {plain(content)}"
    lines: list[str] = []
    for pattern, form in FORMS:
        found = pattern.match(content)
        if found is not None:
            lines.append(form.format(event=found["event"], text=plain(mentions(found["text"], names))))
            break
    else:
        is_round = any(ROUND.match(str(e.get("title") or "")) for e in embeds)
        if content and not (is_round and version > 0):  # a round's pings are sent once, with its post
            lines.append(plain(mentions(content, names)))
    for embed in embeds:
        lines += _embed_lines(embed, version, names)
    lines += [f"[file: {name}]" for name in message.get("attachments") or []]
    return "\n".join(lines)


def posted_with_the_end(channel: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """The final standings an event's end brought along (the bot's `event_finished` posts them, unless they were
    posted already, just before its `is over` line): their message's id → the end's message id. The console shows
    the two as one announcement, the end, as the bot makes them in one."""
    found: dict[str, str] = {}
    for before, after in pairwise(channel):
        first = versions(before)[0]
        titles = [str(e.get("title") or "") for e in first.get("embeds") or []]
        end = OVER.match(str(after.get("content") or ""))
        if end is not None and any(t == f"{end['event']} — final standings" for t in titles):
            found[str(before["id"])] = str(after["id"])
    return found


def versions(message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A message's post and each edit, oldest first (the control API keeps the earlier versions under `edits`)."""
    return [*(message.get("edits") or []), message]


@dataclass
class Outage:
    """The bot's announcer, as the club's Discord lets it through: while Discord is down (a scenario's `discord down
    = true`) the posts the director retries (the opening card, pairings, results, standings, the end, bulletins) raise
    `DiscordDown` (a post that never reached Discord) and the best-effort ones (notices, DMs) are lost; nothing of
    them reaches the local Discord.
    `lost` keeps the first line of each, for the console."""

    discord: Announcer | None = None
    down: bool = False
    lost: list[str] = field(default_factory=list)

    def _through(self, what: str, *, best_effort: bool) -> Announcer | None:
        if not self.down:
            return self.discord
        self.lost.append(what)
        if best_effort:
            return None
        raise DiscordDown("Discord is unavailable")

    async def event_opened(self, event: Event) -> None:
        """The opening card with its Join button."""
        if (discord := self._through(f"{event.name}: open for entries", best_effort=False)) is not None:
            await discord.event_opened(event)

    async def round_paired(self, event: Event, round: RoundView) -> None:
        """The pairings."""
        if (discord := self._through(f"{event.name} — round {round.number} pairings", best_effort=False)) is not None:
            await discord.round_paired(event, round)

    async def results_updated(self, event: Event, round: RoundView) -> None:
        """The round's results (an edit of the round's message)."""
        if (discord := self._through(f"{event.name} — round {round.number} results", best_effort=False)) is not None:
            await discord.results_updated(event, round)

    async def standings(self, event: Event, rows: Sequence[StandingRow], final: bool) -> None:
        """A standings table."""
        if (discord := self._through(f"{event.name} — standings", best_effort=False)) is not None:
            await discord.standings(event, rows, final)

    async def event_finished(self, event: Event, rows: Sequence[StandingRow], reason: str) -> None:
        """The end."""
        if (discord := self._through(f"{event.name} finished: {reason}", best_effort=False)) is not None:
            await discord.event_finished(event, rows, reason)

    async def bulletin(self, event: Event, text: str) -> None:
        """A line for everyone in the channel."""
        if (discord := self._through(f"{event.name}: {text}", best_effort=False)) is not None:
            await discord.bulletin(event, text)

    async def notice(self, event: Event, text: str) -> None:
        """An organiser notice."""
        if (discord := self._through(f"[organiser] {event.name}: {text}", best_effort=True)) is not None:
            await discord.notice(event, text)

    async def dm(self, discord_id: int, text: str) -> None:
        """A direct message."""
        if (discord := self._through(f"[dm {discord_id}] {text}", best_effort=True)) is not None:
            await discord.dm(discord_id, text)
