"""What `swissbot run` checks before it starts: each club's server, organiser role and channel on Discord's REST API,
and the Lichess tokens' scopes (`POST /api/token/test`); one sentence per problem."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

import aiohttp
import discord

from bot.config import ClubConfig, Config, Secrets
from bot.discord.bot import REQUIRED_PERMISSIONS
from bot.lichess import TOKEN_ENV as LICHESS_TOKEN_ENV
from bot.lichess.scopes import make_a_new_token, missing_required

log = logging.getLogger(__name__)

TIMEOUT = aiohttp.ClientTimeout(total=20)
TEXT_CHANNELS = (0, 5)  # a guild text channel, an announcement channel
ADMINISTRATOR = 1 << 3
EVERY_PERMISSION = discord.Permissions.all().value  # the owner's and an administrator's, whatever the overwrites


class _Unchecked(Exception):
    """Discord answered something else than the resource or its absence (a 429, a 5xx): the check is skipped."""


class _Discord:
    """GETs on Discord's REST API with the bot's token; None for a 403 or 404."""

    def __init__(self, http: aiohttp.ClientSession, api_url: str, token: str) -> None:
        self.http = http
        self.base = f"{api_url.rstrip('/')}/api/v10"
        self.headers = {"Authorization": f"Bot {token}", "User-Agent": "DiscordBot (swissbot, 1)"}

    async def get(self, path: str) -> Any:
        async with self.http.get(self.base + path, headers=self.headers) as reply:
            if reply.status in (403, 404):
                return None
            if reply.status == 401:
                raise discord.LoginFailure("Discord refused the token")
            if reply.status >= 400:
                raise _Unchecked(f"Discord answered {reply.status} to GET {path}")
            return await reply.json()


def channel_permissions(guild: Mapping[str, Any], member: Mapping[str, Any], channel: Mapping[str, Any]) -> int:
    """The member's permissions in the channel, as Discord computes them (roles, then the channel's overwrites)."""
    roles = {str(role["id"]): int(role["permissions"]) for role in guild.get("roles", [])}
    everyone = str(guild["id"])
    member_roles = [str(r) for r in member.get("roles", [])]
    if str(member.get("user", {}).get("id")) == str(guild.get("owner_id")):
        return EVERY_PERMISSION
    allowed = roles.get(everyone, 0)
    for role in member_roles:
        allowed |= roles.get(role, 0)
    if allowed & ADMINISTRATOR:
        return EVERY_PERMISSION
    overwrites = {str(o["id"]): (int(o["allow"]), int(o["deny"])) for o in channel.get("permission_overwrites", [])}
    allow, deny = overwrites.get(everyone, (0, 0))
    allowed = (allowed & ~deny) | allow
    role_allow = role_deny = 0
    for role in member_roles:
        allow, deny = overwrites.get(role, (0, 0))
        role_allow, role_deny = role_allow | allow, role_deny | deny
    allowed = (allowed & ~role_deny) | role_allow
    allow, deny = overwrites.get(str(member.get("user", {}).get("id")), (0, 0))
    return (allowed & ~deny) | allow


def _missing(permissions: int) -> list[str]:
    granted = discord.Permissions(permissions)
    return [name.replace("_", " ") for name in REQUIRED_PERMISSIONS if not getattr(granted, name)]


async def club_problems(api: _Discord, club: ClubConfig, bot_id: str) -> list[str]:
    """Why the bot cannot serve a club: not in the server, no such organiser role, a channel it cannot post in."""
    guild = await api.get(f"/guilds/{club.guild_id}")
    if guild is None:
        return [f"the bot is not in the server {club.guild_id} ([[clubs]] guild_id): invite it first"]
    problems = []
    name = guild.get("name", str(club.guild_id))
    roles = [role for role in guild.get("roles", []) if str(role["id"]) != str(guild["id"])]
    if not any(club.is_organiser_role(int(role["id"]), str(role["name"])) for role in roles):
        found = ", ".join(repr(str(role["name"])) for role in roles) or "none but @everyone"
        problems.append(
            f"the server {name} has no role {club.organiser_role!r} ([[clubs]] organiser_role); its roles: {found}"
        )
    channel = await api.get(f"/channels/{club.channel_id}")
    if channel is None or str(channel.get("guild_id")) != str(club.guild_id):
        problems.append(f"the server {name} has no channel {club.channel_id} the bot can see ([[clubs]] channel_id)")
    elif channel.get("type") not in TEXT_CHANNELS:
        problems.append(f"#{channel.get('name')} of {name} is not a text channel ([[clubs]] channel_id)")
    else:
        member = await api.get(f"/guilds/{club.guild_id}/members/{bot_id}") or {"roles": [], "user": {"id": bot_id}}
        missing = _missing(channel_permissions(guild, member, channel))
        if missing:
            problems.append(
                f"the bot cannot post in #{channel.get('name')} of {name} ([[clubs]] channel_id): "
                f"it lacks {', '.join(missing)}"
            )
    return problems


async def discord_problems(config: Config, token: str) -> list[str]:
    """Every club's problems on Discord (raises `discord.LoginFailure` for a refused token)."""
    async with aiohttp.ClientSession(timeout=TIMEOUT) as http:
        api = _Discord(http, config.discord.api_url, token)
        try:
            me = await api.get("/users/@me")
        except _Unchecked as error:
            log.warning("could not check the clubs on Discord (%s); starting anyway", error)
            return []
        if me is None:
            raise discord.LoginFailure("Discord refused the token")
        problems: list[str] = []
        try:
            for club in config.clubs:
                problems.extend(await club_problems(api, club, str(me["id"])))
        except _Unchecked as error:  # the channels are checked again once connected (`SwissBot.on_ready`)
            log.warning("could not check the clubs on Discord (%s); starting anyway", error)
        return problems


async def lichess_problems(config: Config, tokens: Iterable[tuple[str, str]]) -> list[str]:
    """Each (environment variable, token) that Lichess refuses or that lacks a scope the bot needs
    (`bot.lichess.scopes`; an optional one missing is said at start by the assembly); a Lichess that does not answer
    is only logged (the bot waits for it anyway)."""
    base = config.lichess.base_url
    pairs = list(dict(tokens).items())
    try:
        async with (
            aiohttp.ClientSession(timeout=TIMEOUT) as http,
            http.post(base + "/api/token/test", data=",".join(t for _, t in pairs)) as reply,
        ):
            reply.raise_for_status()
            answers: dict[str, Any] = await reply.json(content_type=None)
    except (aiohttp.ClientError, TimeoutError, ValueError) as error:
        reason = str(error) or type(error).__name__
        log.warning("could not check the Lichess tokens at %s (%s); starting anyway", base, reason)
        return []
    problems = []
    for env, token in pairs:
        info = answers.get(token)
        if not isinstance(info, dict):
            problems.append(
                f"Lichess ({base}) refuses the token in {env} (unknown, revoked or expired): {make_a_new_token()}"
            )
            continue
        for scope in missing_required(str(info.get("scopes") or "").split(",")):
            problems.append(
                f"the token in {env} lacks the scope {scope.name}, with which the bot {scope.purpose}: "
                f"{make_a_new_token()}"
            )
    return problems


def lichess_tokens(config: Config, secrets: Secrets) -> list[tuple[str, str]]:
    """The Lichess tokens the bot will use, each with the environment variable it came from."""
    tokens = [(LICHESS_TOKEN_ENV, secrets.lichess_token)]
    for club in config.clubs:
        token = secrets.club_tokens.get(club.guild_id)
        if token and club.lichess_token_env:
            tokens.append((club.lichess_token_env, token))
    return tokens


async def problems(config: Config, secrets: Secrets) -> list[str]:
    """Everything that would leave the bot half-configured, one sentence each (empty: start)."""
    found = await discord_problems(config, secrets.discord_token)
    return found + await lichess_problems(config, lichess_tokens(config, secrets))
