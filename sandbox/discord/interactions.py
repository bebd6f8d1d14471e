"""Building INTERACTION_CREATE payloads as Discord's client would, and collecting the bot's answers."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

from sandbox.discord.state import (
    ALL_PERMISSIONS,
    Channel,
    Command,
    DiscordState,
    Guild,
    Interaction,
    Json,
    User,
)
from sandbox.discord.views import channel_json, member_json, role_json, user_json

RESPONSE_DEADLINE = 3.0  # Discord drops an interaction nobody answered within 3 seconds
NOT_RESPONDING = "The application did not respond"
SUBCOMMAND, GROUP = 1, 2
STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER, ATTACHMENT = 3, 4, 5, 6, 7, 8, 9, 10, 11
MAX_SAFE_INTEGER = 2**53
ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024


class Refused(Exception):
    """Discord's client would never send this interaction: a 400 (or 403, 404) for the control API."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Where:
    """Where an interaction happens: a guild channel (with the member) or a DM."""

    guild: Guild | None
    channel: Channel
    user: User


def locate(state: DiscordState, guild_id: Any, channel_id: Any, user_id: Any) -> Where:
    """Check the guild, channel and user exist and belong together."""
    user = state.users.get(_snowflake(user_id, "user_id"))
    if user is None:
        raise Refused(f"unknown user {user_id}", 404)
    if guild_id is None:
        return Where(None, state.dm_channel(user), user)
    guild = state.guilds.get(_snowflake(guild_id, "guild_id"))
    if guild is None:
        raise Refused(f"unknown guild {guild_id}", 404)
    channel = guild.channels.get(_snowflake(channel_id, "channel_id"))
    if channel is None:
        raise Refused(f"unknown channel {channel_id} in guild {guild.id}", 404)
    if user.id not in guild.members:
        raise Refused(f"user {user.id} is not a member of guild {guild.id}", 403)
    return Where(guild, channel, user)


def _snowflake(value: Any, name: str) -> int:
    if isinstance(value, bool) or not str(value).isdigit():
        raise Refused(f"{name}: a snowflake (digits)")
    return int(str(value))


def base_payload(state: DiscordState, interaction: Interaction, where: Where) -> Json:
    """The fields every INTERACTION_CREATE has: ids, token, who, where, permissions."""
    payload: Json = {
        "id": str(interaction.id),
        "application_id": str(state.application_id),
        "type": interaction.type,
        "token": interaction.token,
        "version": 1,
        "channel_id": str(where.channel.id),
        "channel": channel_json(where.channel, state),
        "locale": "en-US",
        "entitlements": [],
        "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
    }
    if where.guild is None:
        payload |= {
            "user": user_json(where.user),
            "context": 1,
            "authorizing_integration_owners": {"0": str(state.bot.id)},
            "app_permissions": str(ALL_PERMISSIONS),
        }
        return payload
    guild = where.guild
    member = member_json(guild.members[where.user.id], state)
    member["permissions"] = str(state.permissions(guild, where.user.id))
    payload |= {
        "guild_id": str(guild.id),
        "guild": {"id": str(guild.id), "locale": "en-US", "features": []},
        "guild_locale": "en-US",
        "member": member,
        "context": 0,
        "authorizing_integration_owners": {"0": str(guild.id)},
        "app_permissions": str(state.permissions(guild, state.bot.id)),
    }
    return payload


def command_payload(
    state: DiscordState, where: Where, path: str, options: Any, focused: str | None = None
) -> tuple[Command, Json]:
    """The `data` of an APPLICATION_COMMAND (or, with `focused`, AUTOCOMPLETE) interaction, checked."""
    names = path.split()
    if not names:
        raise Refused("command: the command's name, with its group and subcommand separated by spaces")
    if not isinstance(options, dict):
        raise Refused("options: an object of option names to values")
    command = state.find_command(where.guild.id if where.guild else None, names[0])
    if command is None:
        raise Refused(f"no command /{names[0]} is synced here", 404)
    _check_allowed(state, where, command)
    specs: list[Json] = command.data.get("options") or []
    chain: list[Json] = []
    for name in names[1:]:
        sub = next((o for o in specs if o.get("name") == name and o.get("type") in (SUBCOMMAND, GROUP)), None)
        if sub is None or (chain and chain[-1]["type"] == SUBCOMMAND):
            raise Refused(f"/{' '.join(names)}: no subcommand {name!r}")
        chain.append(sub)
        specs = sub.get("options") or []
    if any(o.get("type") in (SUBCOMMAND, GROUP) for o in specs):
        choices = ", ".join(o["name"] for o in specs)
        raise Refused(f"/{' '.join(names)} is not a command by itself: add one of {choices}")
    resolved: Json = {}
    leaf = _options(state, where, specs, options, focused, resolved)
    for sub in reversed(chain):
        leaf = [{"name": sub["name"], "type": sub["type"], "options": leaf}]
    data: Json = {"id": str(command.id), "name": command.data["name"], "type": 1, "options": leaf}
    if command.guild_id is not None:
        data["guild_id"] = str(command.guild_id)
    if resolved:
        data["resolved"] = resolved
    return command, data


def _check_allowed(state: DiscordState, where: Where, command: Command) -> None:
    """`default_member_permissions` and the DM contexts, as Discord's client applies them."""
    if where.guild is None:
        contexts = command.data.get("contexts")
        allowed = 1 in contexts if contexts is not None else command.data.get("dm_permission", True) is not False
        if command.guild_id is not None or not allowed:
            raise Refused(f"/{command.data['name']} cannot be used in DMs", 403)
        return
    contexts = command.data.get("contexts")
    if contexts is not None and 0 not in contexts:
        raise Refused(f"/{command.data['name']} cannot be used in a server", 403)
    required = command.data.get("default_member_permissions")
    if required is None:
        return
    have = state.permissions(where.guild, where.user.id)
    needed = int(required)
    # "0": nobody but administrators (and the owner) sees the command
    if (needed == 0 and have != ALL_PERMISSIONS) or have & needed != needed:
        raise Refused(f"user {where.user.id} lacks the permissions /{command.data['name']} requires ({required})", 403)


def _options(
    state: DiscordState, where: Where, specs: list[Json], given: Json, focused: str | None, resolved: Json
) -> list[Json]:
    """The option values in Discord's form, refusing what the client would not send."""
    by_name = {o["name"]: o for o in specs}
    unknown = sorted(set(given) - set(by_name))
    if unknown:
        raise Refused(f"unknown option(s): {', '.join(unknown)}")
    if focused is not None and focused not in given:
        raise Refused(f"focused: {focused!r} must be one of the options given")
    if focused is not None and not by_name[focused].get("autocomplete"):
        raise Refused(f"option {focused!r} has no autocomplete")
    out = []
    for spec in specs:
        name = spec["name"]
        if name not in given:
            if spec.get("required") and focused is None:
                raise Refused(f"missing required option {name!r}")
            continue
        if name == focused:
            # the partial text typed so far, not checked against choices or range
            out.append({"name": name, "type": spec["type"], "value": given[name], "focused": True})
            continue
        out.append({"name": name, "type": spec["type"], "value": _value(state, where, spec, given[name], resolved)})
    return out


def _value(state: DiscordState, where: Where, spec: Json, value: Any, resolved: Json) -> Any:
    """One option value, checked against its type, range, length and choices."""
    name, kind = spec["name"], spec["type"]
    if kind == STRING:
        if not isinstance(value, str):
            raise Refused(f"option {name!r}: a string")
        if len(value) < spec.get("min_length", 0) or len(value) > spec.get("max_length", 6000):
            raise Refused(f"option {name!r}: length out of range")
    elif kind == INTEGER:
        if isinstance(value, bool) or not isinstance(value, int) or abs(value) > MAX_SAFE_INTEGER:
            raise Refused(f"option {name!r}: an integer")
    elif kind == NUMBER:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise Refused(f"option {name!r}: a number")
    elif kind == BOOLEAN:
        if not isinstance(value, bool):
            raise Refused(f"option {name!r}: true or false")
    elif kind in (USER, CHANNEL, ROLE, MENTIONABLE):
        return _resolve(state, where, spec, value, resolved)
    else:
        raise Refused(f"option {name!r}: type {kind} is not supported by the sandbox")
    if kind in (INTEGER, NUMBER):
        low, high = spec.get("min_value"), spec.get("max_value")
        if (low is not None and value < low) or (high is not None and value > high):
            raise Refused(f"option {name!r}: {value} is out of range [{low}, {high}]")
    choices = spec.get("choices")
    if choices and not spec.get("autocomplete") and value not in [c["value"] for c in choices]:
        raise Refused(f"option {name!r}: {value!r} is not one of the choices")
    return value


def _resolve(state: DiscordState, where: Where, spec: Json, value: Any, resolved: Json) -> str:
    """A user, channel, role or mentionable option: its id, with the object under `resolved`."""
    name, kind = spec["name"], spec["type"]
    ident = _snowflake(value, f"option {name!r}")
    guild = where.guild
    if kind in (USER, MENTIONABLE) and ident in state.users:
        resolved.setdefault("users", {})[str(ident)] = user_json(state.users[ident])
        if guild is not None and ident in guild.members:
            member = member_json(guild.members[ident], state)
            del member["user"]
            member["permissions"] = str(state.permissions(guild, ident))
            resolved.setdefault("members", {})[str(ident)] = member
        return str(ident)
    if kind in (ROLE, MENTIONABLE) and guild is not None and ident in guild.roles:
        resolved.setdefault("roles", {})[str(ident)] = role_json(guild.roles[ident])
        return str(ident)
    if kind == CHANNEL and guild is not None and ident in guild.channels:
        channel = guild.channels[ident]
        types = spec.get("channel_types")
        if types and channel.type not in types:
            raise Refused(f"option {name!r}: channel {ident} is not of the types {types}")
        body = channel_json(channel, state)
        body["permissions"] = str(state.permissions(guild, where.user.id))
        resolved.setdefault("channels", {})[str(ident)] = body
        return str(ident)
    raise Refused(f"option {name!r}: no such {['user', 'channel', 'role', 'user or role'][kind - USER]} {ident}")


async def collect(interaction: Interaction, *, timeout: float, settle: float) -> Json:
    """Wait for the bot's answers: the initial one within 3 s, then a deferred one's followup or edit."""
    initial_deadline = interaction.created_at + RESPONSE_DEADLINE
    if not await _wait_until(interaction, lambda: interaction.initial_type is not None, initial_deadline):
        interaction.expired = True
        return {"responses": [], "error": NOT_RESPONDING}
    deadline = time.monotonic() + timeout
    if interaction.initial_type in (5, 6):  # deferred: the answer is the followup or the edit of @original
        await _wait_until(interaction, lambda: len(interaction.responses) > 1, deadline)
    while time.monotonic() < deadline:
        count = len(interaction.responses)
        quiet_until = min(deadline, time.monotonic() + settle)
        await _wait_until(interaction, lambda seen=count: len(interaction.responses) > seen, quiet_until)
        if len(interaction.responses) == count:
            break
    return {"responses": list(interaction.responses)}


async def _wait_until(interaction: Interaction, done: Any, deadline: float) -> bool:
    while not done():
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        interaction.changed.clear()
        try:
            await asyncio.wait_for(interaction.changed.wait(), remaining)
        except TimeoutError:
            return bool(done())
    return True
