"""The demo's club on the local Discord: its server, members and organiser, who type their commands there.

Everything goes through the two control APIs, as a member's Discord client and browser would: a slash
command is `POST /sandbox/interactions` on the local Discord (which builds the `INTERACTION_CREATE` from the
commands the bot synced and waits for the bot's answer), a sign-in on Lichess is the OAuth page of the local
Lichess, a bio code is `POST /sandbox/users` there.
"""

from __future__ import annotations

import html
import random
import re
from dataclasses import dataclass
from typing import Any, TextIO

import aiohttp

from bot.errors import SwissbotError

DEMO_GUILD = 424242
DEMO_CHANNEL = 434343
ORGANISER_ROLE = 454545
ORGANISER_ID = 1
ORGANISER_NAME = "demo-organiser"
MANAGE_EVENTS = 1 << 33
NAMES = (
    "Anand",
    "Botvinnik",
    "Capablanca",
    "Dvoretsky",
    "Euwe",
    "Fischer",
    "Gelfand",
    "Hou",
    "Ivanchuk",
    "Judit",
    "Karpov",
    "Lasker",
    "Morphy",
    "Najdorf",
    "Oparin",
    "Petrosian",
    "Quinteros",
    "Reshevsky",
    "Smyslov",
    "Tal",
    "Unzicker",
    "Vachier",
    "Wei",
    "Xie",
    "Yusupov",
    "Zukertort",
    "Alekhine",
    "Bronstein",
    "Carlsen",
    "Ding",
    "Eljanov",
    "Firouzja",
    "Giri",
    "Harikrishna",
    "Ivanisevic",
    "Jobava",
    "Kasparov",
    "Leko",
    "Mamedyarov",
    "Nakamura",
)


@dataclass(frozen=True)
class Member:
    """A simulated club member: a Discord user and a Lichess account."""

    discord_id: int
    username: str
    rating: int


def members(players: int, seed: int) -> list[Member]:
    """The simulated members, the same for a given seed."""
    rng = random.Random(seed)
    out = []
    for i in range(players):
        base = NAMES[i % len(NAMES)]
        username = f"{base}{i // len(NAMES) + 1}" if i >= len(NAMES) else base
        out.append(Member(100 + i, username, rng.randint(1200, 2400)))
    return out


class CommandRefused(SwissbotError):
    """The local Discord would not send a command (an option Discord's client refuses), or the bot did not answer."""


@dataclass
class DemoClub:
    """The club's server on the local Discord and the accounts on the local Lichess, driven over HTTP."""

    http: aiohttp.ClientSession
    discord_url: str
    lichess_url: str
    out: TextIO

    async def _post(self, url: str, body: Any) -> tuple[int, Any]:
        async with self.http.post(url, json=body) as reply:
            return reply.status, await reply.json(content_type=None)

    async def server(self, people: list[Member]) -> None:
        """The club's Discord server: its channel, the organisers' role, the organiser and the members."""
        guild = {
            "id": str(DEMO_GUILD),
            "name": "swissbot demo club",
            "channels": [{"id": str(DEMO_CHANNEL), "name": "tournaments"}],
            "roles": [{"id": str(ORGANISER_ROLE), "name": "organisers", "permissions": str(MANAGE_EVENTS)}],
        }
        status, answer = await self._post(f"{self.discord_url}/sandbox/guilds", guild)
        if status >= 300:
            raise SwissbotError(f"the local Discord refused the demo's server: {answer}")
        users = [(ORGANISER_ID, ORGANISER_NAME, [str(ORGANISER_ROLE)])]
        users += [(m.discord_id, m.username, []) for m in people]
        for user_id, name, roles in users:
            body = {"guild_id": str(DEMO_GUILD), "user": {"id": str(user_id), "name": name}, "roles": roles}
            status, answer = await self._post(f"{self.discord_url}/sandbox/members", body)
            if status >= 300:
                raise SwissbotError(f"the local Discord refused the member {name}: {answer}")

    async def command(self, user_id: int, command: str, **options: Any) -> tuple[str, list[dict[str, Any]]]:
        """The user types `/command options` in the club's channel: the text of the bot's answer, and the answers."""
        body: dict[str, Any] = {
            "guild_id": str(DEMO_GUILD),
            "channel_id": str(DEMO_CHANNEL),
            "user_id": str(user_id),
            "command": command,
            "options": options,
            "settle": 0.05,
        }
        status, answer = await self._post(f"{self.discord_url}/sandbox/interactions", body)
        if status != 200 or "error" in answer:
            raise CommandRefused(f"/{command} was not answered: {answer.get('error', answer)}")
        responses: list[dict[str, Any]] = answer["responses"]
        return "\n".join(r.get("content") or "" for r in responses if r.get("content")), responses

    async def account(self, member: Member, bio: str = "") -> None:
        """The member's account on the local Lichess (created, or its bio changed)."""
        body = {"username": member.username, "rating": member.rating, "bio": bio}
        status, answer = await self._post(f"{self.lichess_url}/sandbox/users", body)
        if status >= 400:
            raise SwissbotError(f"the local Lichess refused the account {member.username}: {answer}")

    async def link_with_oauth(self, member: Member) -> str:
        """`/link`, then the member's browser: the bot's page naming them, its link to Lichess's page, approve, back
        to the bot's callback."""
        text, responses = await self.command(member.discord_id, "link")
        await sign_in_on_lichess(self.http, responses, member.username)
        return text

    async def link_with_bio_code(self, member: Member) -> str:
        """`/link USERNAME`, the code into the Lichess bio, `/link` again."""
        text, _ = await self.command(member.discord_id, "link", **{"lichess-username": member.username})
        code = re.search(r"`([^`]+)`", text)
        if code is None:
            raise SwissbotError(f"/link gave {member.username} no code: {text}")
        await self.account(member, bio=f"Club member. {code.group(1)}")
        done, _ = await self.command(member.discord_id, "link")
        return done


async def sign_in_on_lichess(http: aiohttp.ClientSession, responses: list[dict[str, Any]], username: str) -> None:
    """The member's browser after `/link`: the link button's page on the bot naming them, its link to the local
    Lichess's OAuth page, approve as `username`, back to the bot's callback (the demo and the scenario runner)."""
    button = link_button(responses)
    if button is None:
        raise SwissbotError(f"/link gave {username} no sign-in button: {responses}")
    async with http.get(button) as reply:
        onward = re.search(r'id="next" href="([^"]+)"', await reply.text())
        if reply.status != 200 or onward is None:
            raise SwissbotError(f"the bot's /link page refused {username}: {await reply.text()}")
    url = html.unescape(onward.group(1))
    async with http.get(f"{url}&sandbox_user={username}", allow_redirects=False) as reply:
        callback = reply.headers.get("Location", "")
        if reply.status != 302 or not callback:
            raise SwissbotError(f"the local Lichess did not send {username} back: {await reply.text()}")
    async with http.get(callback) as page:
        if page.status != 200:
            raise SwissbotError(f"the bot's callback refused {username}: {await page.text()}")


def link_button(responses: list[dict[str, Any]]) -> str | None:
    """The URL of the first link button among the answers."""
    for response in responses:
        for row in response.get("components") or []:
            for component in row.get("components") or []:
                if component.get("style") == 5 and component.get("url"):
                    return str(component["url"])
    return None
