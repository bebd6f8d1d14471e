"""The control API under `/sandbox/`: guilds, members, playing a user's interactions, faults, inspection."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from sandbox.discord.gateway import GATEWAY, GUILD_MEMBERS_INTENT, INVALID_SESSION, RECONNECT
from sandbox.discord.http import base_url, reply, state_of
from sandbox.discord.interactions import Refused, base_payload, collect, command_payload, locate
from sandbox.discord.state import DiscordState, Fault, Json, Message, User, snapshot
from sandbox.discord.views import channel_json, command_json, guild_json, member_json, message_json, role_json

routes = web.RouteTableDef()
DEFAULT_TIMEOUT = 10.0  # how long a deferred answer's followup is awaited
DEFAULT_SETTLE = 0.3  # quiet time after the last answer before the reply is sent


def error(status: int, message: str) -> web.Response:
    """The control API's error shape."""
    return reply({"error": message}, status=status)


async def _object(request: web.Request) -> Json:
    try:
        body = await request.json()
    except ValueError as exc:
        raise Refused("the body must be a JSON object") from exc
    if not isinstance(body, dict):
        raise Refused("the body must be a JSON object")
    return body


def _id(value: Any, name: str) -> int:
    if isinstance(value, bool) or not str(value).isdigit():
        raise Refused(f"{name}: a snowflake (digits)")
    return int(str(value))


def _name(value: Any, name: str) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= 100:
        raise Refused(f"{name}: 1 to 100 characters")
    return value


@web.middleware
async def refusals(request: web.Request, handler: Any) -> web.StreamResponse:
    """Turn a `Refused` into the control API's `{"error"}` answer."""
    try:
        response: web.StreamResponse = await handler(request)
    except Refused as exc:
        return error(exc.status, str(exc))
    return response


@routes.post("/sandbox/guilds")
async def create_guild(request: web.Request) -> web.Response:
    """`{"id", "name", "owner_id"?, "channels": [{"id", "name"}], "roles": [{"id", "name", "permissions"?}]}`."""
    state = state_of(request)
    body = await _object(request)
    guild_id = _id(body.get("id"), "id")
    name = _name(body.get("name"), "name")
    owner = body.get("owner_id")
    channels, roles = body.get("channels", []), body.get("roles", [])
    if not isinstance(channels, list) or not isinstance(roles, list):
        raise Refused("channels and roles: lists of {id, name}")
    known = guild_id in state.guilds
    guild = state.add_guild(guild_id, name, _id(owner, "owner_id") if owner is not None else None)
    if owner is not None and guild.owner_id not in guild.members:
        known_user = state.users.get(guild.owner_id)
        state.add_member(guild, known_user or User(guild.owner_id, f"owner-{guild.owner_id}"), [])
    gateway = request.app[GATEWAY]
    for item in channels:
        if not isinstance(item, dict):
            raise Refused("channels: a list of {id, name}")
        fresh = _id(item.get("id"), "channel id") not in guild.channels
        channel = state.add_channel(guild, _id(item.get("id"), "channel id"), _name(item.get("name"), "channel name"))
        if known:
            await gateway.dispatch("CHANNEL_CREATE" if fresh else "CHANNEL_UPDATE", channel_json(channel, state))
    for item in roles:
        if not isinstance(item, dict):
            raise Refused("roles: a list of {id, name, permissions}")
        permissions = item.get("permissions", 0)
        if isinstance(permissions, bool) or not str(permissions).isdigit():
            raise Refused("role permissions: a bitfield (an integer or its decimal string)")
        fresh = _id(item.get("id"), "role id") not in guild.roles
        role = state.add_role(
            guild, _id(item.get("id"), "role id"), _name(item.get("name"), "role name"), int(permissions)
        )
        if known:
            event = "GUILD_ROLE_CREATE" if fresh else "GUILD_ROLE_UPDATE"
            await gateway.dispatch(event, {"guild_id": str(guild.id), "role": role_json(role)})
    if not known:
        await gateway.dispatch("GUILD_CREATE", guild_json(guild, state, full=True))
    return reply(guild_json(guild, state, full=True), status=201)


@routes.post("/sandbox/members")
async def create_member(request: web.Request) -> web.Response:
    """`{"guild_id", "user": {"id", "name", "global_name"?}, "roles": [role ids], "nick"?}`."""
    state = state_of(request)
    body = await _object(request)
    guild = state.guilds.get(_id(body.get("guild_id"), "guild_id"))
    if guild is None:
        raise Refused(f"unknown guild {body.get('guild_id')}", 404)
    user_body = body.get("user")
    if not isinstance(user_body, dict):
        raise Refused("user: {id, name}")
    user_id = _id(user_body.get("id"), "user id")
    if user_id == state.bot.id:
        raise Refused("the bot is already a member of every guild")
    roles = body.get("roles", [])
    if not isinstance(roles, list):
        raise Refused("roles: a list of role ids")
    role_ids = [_id(r, "role id") for r in roles]
    missing = [r for r in role_ids if r not in guild.roles or r == guild.id]
    if missing:
        raise Refused(f"unknown role(s) {missing} in guild {guild.id}")
    fresh = user_id not in guild.members
    global_name = user_body.get("global_name")
    user = User(user_id, _name(user_body.get("name"), "user name"), global_name=global_name)
    nick = body.get("nick")
    member = state.add_member(guild, user, role_ids, nick if isinstance(nick, str) else None)
    data = member_json(member, state) | {"guild_id": str(guild.id)}
    await request.app[GATEWAY].dispatch(
        "GUILD_MEMBER_ADD" if fresh else "GUILD_MEMBER_UPDATE", data, intent=GUILD_MEMBERS_INTENT
    )
    return reply(member_json(member, state), status=201)


def _wait_settings(body: Json) -> tuple[float, float]:
    timeout, settle = body.get("timeout", DEFAULT_TIMEOUT), body.get("settle", DEFAULT_SETTLE)
    if not all(isinstance(v, int | float) and not isinstance(v, bool) and 0 <= v <= 900 for v in (timeout, settle)):
        raise Refused("timeout and settle: seconds (0 to 900)")
    return float(timeout), float(settle)


def _need_bot(request: web.Request) -> None:
    if not request.app[GATEWAY].has_session():
        raise Refused("no bot is connected to the gateway", 409)


async def _dispatch(request: web.Request, payload: Json) -> None:
    await request.app[GATEWAY].dispatch("INTERACTION_CREATE", payload)


@routes.post("/sandbox/interactions")
async def play_command(request: web.Request) -> web.Response:
    """A user runs a slash command; replies with the bot's answers."""
    state = state_of(request)
    body = await _object(request)
    where = locate(state, body.get("guild_id"), body.get("channel_id"), body.get("user_id"))
    timeout, settle = _wait_settings(body)
    _, data = command_payload(state, where, str(body.get("command", "")), body.get("options", {}))
    _need_bot(request)
    interaction = state.new_interaction(2, where.guild.id if where.guild else None, where.channel.id, where.user.id)
    await _dispatch(request, base_payload(state, interaction, where) | {"data": data})
    return reply(await collect(interaction, timeout=timeout, settle=settle))


@routes.post("/sandbox/autocomplete")
async def play_autocomplete(request: web.Request) -> web.Response:
    """A user types in an autocomplete option; replies with the choices the bot offered."""
    state = state_of(request)
    body = await _object(request)
    where = locate(state, body.get("guild_id"), body.get("channel_id"), body.get("user_id"))
    focused = body.get("focused")
    if not isinstance(focused, str):
        raise Refused("focused: the name of the option being typed")
    _, data = command_payload(state, where, str(body.get("command", "")), body.get("options", {}), focused)
    _need_bot(request)
    interaction = state.new_interaction(4, where.guild.id if where.guild else None, where.channel.id, where.user.id)
    await _dispatch(request, base_payload(state, interaction, where) | {"data": data})
    result = await collect(interaction, timeout=0.0, settle=0.0)
    if "error" in result:
        return reply(result)
    return reply({"choices": interaction.choices or []})


@routes.post("/sandbox/components")
async def play_component(request: web.Request) -> web.Response:
    """`{"message_id", "custom_id", "user_id", "values"?}`: a user clicks a button (or picks in a select)."""
    state = state_of(request)
    body = await _object(request)
    message = state.messages.get(_id(body.get("message_id"), "message_id"))
    if message is None or message.deleted:
        raise Refused(f"unknown message {body.get('message_id')}", 404)
    channel = state.channels[message.channel_id]
    where = locate(state, channel.guild_id, channel.id, body.get("user_id"))
    if channel.guild_id is None and channel.recipient_id != where.user.id:
        raise Refused("only the DM's recipient sees this message", 403)
    if message.ephemeral and state.interactions[message.interaction_id or 0].user_id != where.user.id:
        raise Refused("only the user of the interaction sees this ephemeral message", 403)
    component = _find_component(message, body.get("custom_id"))
    timeout, settle = _wait_settings(body)
    data: Json = {"custom_id": component["custom_id"], "component_type": component["type"]}
    if component["type"] != 2:
        values = body.get("values", [])
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise Refused("values: the selected values (strings)")
        data["values"] = values
    _need_bot(request)
    interaction = state.new_interaction(3, channel.guild_id, channel.id, where.user.id, message.id)
    payload = base_payload(state, interaction, where) | {
        "data": data,
        "message": message_json(message, state, base_url(request)),
    }
    await _dispatch(request, payload)
    return reply(await collect(interaction, timeout=timeout, settle=settle))


def _find_component(message: Message, custom_id: Any) -> Json:
    for row in message.components:
        for component in row.get("components") or []:
            if component.get("custom_id") == custom_id:
                if component.get("disabled"):
                    raise Refused(f"the component {custom_id!r} is disabled")
                found: Json = component
                return found
    raise Refused(f"message {message.id} has no component {custom_id!r}", 404)


def _posted(state: DiscordState, channel_id: int) -> list[Json]:
    """What a channel shows: every message the bot posted there (not ephemeral ones), oldest first."""
    found = []
    for message in sorted(state.messages.values(), key=lambda m: m.id):
        if message.channel_id != channel_id or message.ephemeral:
            continue
        found.append(
            {"id": str(message.id)}
            | snapshot(message)
            | {
                "edits": list(message.edits),
                "deleted": message.deleted,
                "interaction": message.interaction_id is not None,
                "mentions": [str(u) for u in message.mentions],
            }
        )
    return found


@routes.get("/sandbox/channels/{channel_id}/messages")
async def channel_messages(request: web.Request) -> web.Response:
    """Every message the bot posted in a channel, with its earlier versions and attachments' names."""
    state = state_of(request)
    channel_id = _id(request.match_info["channel_id"], "channel_id")
    if channel_id not in state.channels:
        raise Refused(f"unknown channel {channel_id}", 404)
    return reply(_posted(state, channel_id))


@routes.get("/sandbox/dms/{user_id}")
async def direct_messages(request: web.Request) -> web.Response:
    """The messages the bot sent a user in DMs."""
    state = state_of(request)
    user = state.users.get(_id(request.match_info["user_id"], "user_id"))
    if user is None:
        raise Refused(f"unknown user {request.match_info['user_id']}", 404)
    return reply(_posted(state, state.dm_channel(user).id))


@routes.get("/sandbox/commands/{guild_id}")
async def synced_commands(request: web.Request) -> web.Response:
    """The commands usable in a guild: its own, then the global ones (`global`: only those)."""
    state = state_of(request)
    raw = request.match_info["guild_id"]
    scopes: list[int | None] = [None] if raw == "global" else [_id(raw, "guild_id"), None]
    found = [command_json(c, state) for scope in scopes for c in state.commands_for(scope)]
    return reply(found)


@routes.post("/sandbox/faults")
async def add_fault(request: web.Request) -> web.Response:
    """`{"path", "status", "count", "delay", "retry_after", "global"}`: the next requests under a path fail."""
    body = await _object(request)
    path = body.get("path")
    if not isinstance(path, str) or not path.startswith("/") or path.startswith("/sandbox"):
        raise Refused("path: a path prefix such as /api/v10/channels (control paths cannot be faulted)")
    status, count, delay = body.get("status"), body.get("count", 1), body.get("delay", 0)
    retry_after = body.get("retry_after", 0.25)
    if status is not None and (not isinstance(status, int) or isinstance(status, bool) or not 400 <= status <= 599):
        raise Refused("status: an HTTP error status (400 to 599) or null")
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise Refused("count: a positive integer")
    for value, name in ((delay, "delay"), (retry_after, "retry_after")):
        if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value <= 600:
            raise Refused(f"{name}: seconds (0 to 600)")
    if status is None and not delay:
        raise Refused("a fault needs a status, a delay, or both")
    fault = Fault(path, status, count, float(delay), float(retry_after), bool(body.get("global", False)))
    state_of(request).faults.append(fault)
    return reply(
        {"path": path, "status": status, "count": count, "delay": delay, "retry_after": retry_after}, status=201
    )


@routes.delete("/sandbox/faults")
async def clear_faults(request: web.Request) -> web.Response:
    """Remove the pending faults."""
    state_of(request).faults.clear()
    return web.Response(status=204)


@routes.get("/sandbox/requests")
async def logged_requests(request: web.Request) -> web.Response:
    """The REST requests answered so far: `[{"started", "at", "method", "path", "status"}]`."""
    return reply(
        [
            {"started": r.started, "at": r.at, "method": r.method, "path": r.path, "status": r.status}
            for r in state_of(request).requests
        ]
    )


@routes.get("/sandbox/gateway")
async def gateway_sessions(request: web.Request) -> web.Response:
    """The gateway sessions: `[{"session_id", "connected", "sequence", "resumes", "intents"}]`."""
    sessions = request.app[GATEWAY].sessions.values()
    return reply(
        [
            {
                "session_id": s.id,
                "connected": s.connection is not None,
                "sequence": s.sequence,
                "resumes": s.resumes,
                "intents": s.intents,
            }
            for s in sessions
        ]
    )


@routes.post("/sandbox/gateway/disconnect")
async def disconnect(request: web.Request) -> web.Response:
    """`{"code": 4000}` drops the bot's sockets (it resumes); `{"op": "reconnect"}` or `"invalidate"` asks it."""
    body = await _object(request)
    gateway = request.app[GATEWAY]
    op = body.get("op")
    if op == "reconnect":
        return reply({"sockets": await gateway.send_op(RECONNECT, None)})
    if op == "invalidate":
        return reply({"sockets": await gateway.send_op(INVALID_SESSION, False)})
    code = body.get("code", 4000)
    if op is not None or not isinstance(code, int) or isinstance(code, bool) or not 1000 <= code <= 4999:
        raise Refused('{"code": close code 1000 to 4999} or {"op": "reconnect" | "invalidate"}')
    return reply({"sockets": await gateway.drop(code)})
