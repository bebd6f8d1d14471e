"""Discord's REST API under `/api/v10`: what a bot uses (users, application, gateway, commands, messages)."""

from __future__ import annotations

import re
import time
from typing import Any

from aiohttp import web

from sandbox.discord.gateway import GATEWAY, gateway_url
from sandbox.discord.http import (
    DiscordError,
    base_url,
    check_message,
    field_error,
    invalid_form,
    json_body,
    message_body,
    not_found,
    reply,
    snowflake_arg,
    state_of,
)
from sandbox.discord.interactions import RESPONSE_DEADLINE
from sandbox.discord.state import (
    EPHEMERAL,
    Attachment,
    Channel,
    DiscordState,
    Guild,
    Interaction,
    Json,
    Message,
    snapshot,
)
from sandbox.discord.views import (
    application_json,
    channel_json,
    command_json,
    guild_json,
    me_json,
    member_json,
    message_json,
    role_json,
    user_json,
)

API = "/api/v10"
routes = web.RouteTableDef()
COMMAND_NAME = re.compile(r"^[-_'\w]{1,32}$")
LOADING = 1 << 7


# the bot, its application, the gateway


@routes.get(API + "/users/@me")
async def get_me(request: web.Request) -> web.Response:
    """The bot user."""
    return reply(me_json(state_of(request).bot))


@routes.get(API + "/users/{user_id}")
async def get_user(request: web.Request) -> web.Response:
    """Any user the sandbox knows."""
    user = state_of(request).users.get(snowflake_arg(request, "user_id"))
    if user is None:
        raise not_found("User", 10013)
    return reply(user_json(user))


@routes.get(API + "/oauth2/applications/@me")
@routes.get(API + "/applications/@me")
async def get_application(request: web.Request) -> web.Response:
    """The bot's application."""
    return reply(application_json(state_of(request)))


@routes.get(API + "/gateway")
async def get_gateway(request: web.Request) -> web.Response:
    """Where the gateway websocket is."""
    return reply({"url": gateway_url(request)})


@routes.get(API + "/gateway/bot")
async def get_gateway_bot(request: web.Request) -> web.Response:
    """The gateway, with the shard count and the session start limit."""
    limit = {"total": 1000, "remaining": 1000 - len(request.app[GATEWAY].sessions), "reset_after": 86400000}
    body = {"url": gateway_url(request), "shards": 1, "session_start_limit": limit | {"max_concurrency": 1}}
    return reply(body)


# application commands


def _application(request: web.Request) -> DiscordState:
    state = state_of(request)
    if snowflake_arg(request, "application_id") != state.application_id:
        raise DiscordError(403, 50001, "Missing Access")
    return state


def _scope(request: web.Request, state: DiscordState) -> int | None:
    if "guild_id" not in request.match_info:
        return None
    guild_id = snowflake_arg(request, "guild_id")
    if guild_id not in state.guilds:
        raise DiscordError(403, 50001, "Missing Access")
    return guild_id


@routes.get(API + "/applications/{application_id}/commands")
@routes.get(API + "/applications/{application_id}/guilds/{guild_id}/commands")
async def list_commands(request: web.Request) -> web.Response:
    """The synced commands (global or of one guild)."""
    state = _application(request)
    commands = state.commands_for(_scope(request, state))
    return reply([command_json(c, state) for c in commands])


@routes.put(API + "/applications/{application_id}/commands")
@routes.put(API + "/applications/{application_id}/guilds/{guild_id}/commands")
async def overwrite_commands(request: web.Request) -> web.Response:
    """Bulk overwrite: what `CommandTree.sync()` sends."""
    state = _application(request)
    scope = _scope(request, state)
    try:
        body: Any = await request.json()
    except ValueError as exc:
        raise DiscordError(400, 50109, "The request body contains invalid JSON.") from exc
    if not isinstance(body, list):
        raise invalid_form(field_error("LIST_TYPE_CONVERT", "Must be an array."))
    if len(body) > 100:
        raise invalid_form(field_error("BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length."))
    errors: Json = {}
    seen: set[tuple[Any, Any]] = set()
    for index, payload in enumerate(body):
        problem = _check_command(payload)
        key = (payload.get("name"), payload.get("type", 1)) if isinstance(payload, dict) else ("", 0)
        if problem is None and key in seen:
            problem = field_error("APPLICATION_COMMANDS_DUPLICATE_NAME", "Application command names must be unique")
        seen.add(key)
        if problem is not None:
            errors[str(index)] = problem
    if errors:
        raise invalid_form(errors)
    synced = state.replace_commands(scope, body)
    return reply([command_json(c, state) for c in synced])


@routes.post(API + "/applications/{application_id}/commands")
@routes.post(API + "/applications/{application_id}/guilds/{guild_id}/commands")
async def upsert_command(request: web.Request) -> web.Response:
    """Create one command, or replace the one of the same name."""
    state = _application(request)
    scope = _scope(request, state)
    payload = await json_body(request)
    problem = _check_command(payload)
    if problem is not None:
        raise invalid_form(problem)
    others = [
        c.data
        for c in state.commands_for(scope)
        if (c.data["name"], c.data.get("type", 1)) != (payload["name"], payload.get("type", 1))
    ]
    existed = len(others) < len(state.commands_for(scope))
    synced = state.replace_commands(scope, [*others, payload])
    return reply(command_json(synced[-1], state), status=200 if existed else 201)


@routes.get(API + "/applications/{application_id}/commands/{command_id}")
@routes.get(API + "/applications/{application_id}/guilds/{guild_id}/commands/{command_id}")
async def get_command(request: web.Request) -> web.Response:
    """One synced command."""
    state = _application(request)
    scope = _scope(request, state)
    command = state.commands.get(snowflake_arg(request, "command_id"))
    if command is None or command.guild_id != scope:
        raise not_found("application command", 10063)
    return reply(command_json(command, state))


@routes.delete(API + "/applications/{application_id}/commands/{command_id}")
@routes.delete(API + "/applications/{application_id}/guilds/{guild_id}/commands/{command_id}")
async def delete_command(request: web.Request) -> web.Response:
    """Remove one synced command."""
    state = _application(request)
    scope = _scope(request, state)
    command = state.commands.get(snowflake_arg(request, "command_id"))
    if command is None or command.guild_id != scope:
        raise not_found("application command", 10063)
    del state.commands[command.id]
    return web.Response(status=204)


def _check_command(payload: Any) -> Json | None:
    """Discord's checks on a command: name, description, its options (recursively)."""
    if not isinstance(payload, dict):
        return field_error("DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
    errors: Json = {}
    kind = payload.get("type", 1)
    if kind not in (1, 2, 3, 4):
        errors["type"] = field_error("BASE_TYPE_CHOICES", "Value must be one of (1, 2, 3, 4).")
    _check_name_and_description(payload, errors, slash=kind == 1)
    if kind == 1:
        _check_options(payload.get("options"), errors)
    return errors or None


def _check_name_and_description(payload: Json, errors: Json, *, slash: bool) -> None:
    name = payload.get("name")
    if not isinstance(name, str) or not COMMAND_NAME.match(name) or (slash and name != name.lower()):
        errors["name"] = field_error("APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
    description = payload.get("description", "")
    if slash and not (isinstance(description, str) and 1 <= len(description) <= 100):
        errors["description"] = field_error("BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")


def _check_options(options: Any, errors: Json) -> None:
    """At most 25 options with unique names, valid types, required ones first, at most 25 choices."""
    if options is None:
        return
    if not isinstance(options, list) or len(options) > 25:
        errors["options"] = field_error("BASE_TYPE_MAX_LENGTH", "Must be a list of 25 or fewer options.")
        return
    names: set[str] = set()
    optional_seen = False
    for index, option in enumerate(options):
        problem: Json = {}
        if not isinstance(option, dict):
            errors.setdefault("options", {})[str(index)] = field_error("DICT_TYPE_CONVERT", "Must be an object.")
            continue
        _check_name_and_description(option, problem, slash=True)
        kind = option.get("type")
        if kind not in range(1, 12):
            problem["type"] = field_error("BASE_TYPE_CHOICES", "Value must be an option type (1 to 11).")
        elif kind in (1, 2):
            _check_options(option.get("options"), problem)
        elif option.get("required"):
            if optional_seen:
                problem["required"] = field_error(
                    "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                    "Required options must be placed before optional ones.",
                )
        else:
            optional_seen = True
        if option.get("name") in names:
            problem["name"] = field_error(
                "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS", "Option names must be unique."
            )
        choices = option.get("choices")
        if choices is not None and (not isinstance(choices, list) or len(choices) > 25 or kind not in (3, 4, 10)):
            problem["choices"] = field_error("BASE_TYPE_MAX_LENGTH", "At most 25 choices, on string or number options.")
        if problem:
            errors.setdefault("options", {})[str(index)] = problem
        names.add(str(option.get("name")))


# interaction callbacks and webhooks (the interaction token authenticates; no bot token needed)


def _interaction(request: web.Request) -> Interaction:
    state = state_of(request)
    interaction = state.live_interaction(request.match_info["token"])
    if interaction is None or str(interaction.id) != request.match_info["interaction_id"]:
        raise not_found("interaction", 10062)
    if interaction.initial_type is None and time.monotonic() - interaction.created_at > RESPONSE_DEADLINE:
        interaction.expired = True  # nobody answered within 3 seconds: Discord dropped it
    if interaction.expired:
        raise not_found("interaction", 10062)
    return interaction


@routes.post(API + "/interactions/{interaction_id}/{token}/callback")
async def callback(request: web.Request) -> web.Response:
    """The initial answer to an interaction: types 4 to 9."""
    state = state_of(request)
    interaction = _interaction(request)
    body, files = await message_body(request, state)
    if interaction.initial_type is not None:
        raise DiscordError(400, 40060, "Interaction has already been acknowledged.")
    kind = body.get("type")
    data = body.get("data") or {}
    allowed = {2: (4, 5, 9), 3: (4, 5, 6, 7, 9), 4: (8,)}.get(interaction.type, ())
    if kind not in allowed:
        raise invalid_form(
            {"type": field_error("INTERACTION_CALLBACK_TYPE_INVALID", "Invalid interaction response type")}
        )
    resource: Json | None = None
    response: Json = {"type": kind, "content": None, "embeds": [], "ephemeral": False}
    response |= {"components": [], "attachments": [], "message_id": None}
    if kind == 4:
        check_message(data, files)
        message = _interaction_message(state, interaction, data, files)
        interaction.original_message_id = message.id
        interaction.ephemeral = message.ephemeral
        response |= _seen(message)
        resource = {"type": 4, "message": message_json(message, state, base_url(request))}
    elif kind == 5:
        interaction.ephemeral = bool(int(data.get("flags") or 0) & EPHEMERAL)
        message = _interaction_message(state, interaction, {"flags": LOADING | (EPHEMERAL * interaction.ephemeral)}, [])
        interaction.original_message_id = message.id
        response |= {"ephemeral": interaction.ephemeral, "message_id": str(message.id)}  # the spec gives no `resource`
    elif kind == 6:
        interaction.original_message_id = interaction.message_id  # @original: the component's message
        response["message_id"] = str(interaction.message_id)
    elif kind == 7:
        target = state.messages.get(interaction.message_id or 0)
        if target is None:
            raise not_found("Message", 10008)
        interaction.original_message_id = target.id
        check_message(data, files, edit=True)
        state.edit_message(target, data, files)
        response |= _seen(target)
        resource = {"type": 7, "message": message_json(target, state, base_url(request))}
    elif kind == 8:
        choices = data.get("choices")
        if not isinstance(choices, list) or len(choices) > 25:
            raise invalid_form(
                {"data": {"choices": field_error("BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")}}
            )
        interaction.choices = choices
        response |= {"choices": choices}
    elif kind == 9:
        response |= {"custom_id": data.get("custom_id"), "title": data.get("title")}
        response |= {"components": data.get("components") or []}
    interaction.initial_type = kind
    interaction.record(response)
    if request.query.get("with_response", "").lower() not in ("1", "true"):
        return web.Response(status=204)
    summary: Json = {"id": str(interaction.id), "type": interaction.type}
    if interaction.original_message_id is not None and kind in (4, 5):
        summary |= {
            "response_message_id": str(interaction.original_message_id),
            "response_message_loading": kind == 5,
            "response_message_ephemeral": interaction.ephemeral,
        }
    answer: Json = {"interaction": summary}
    if resource is not None:
        answer["resource"] = resource
    return reply(answer)


def _interaction_message(state: DiscordState, interaction: Interaction, data: Json, files: list[Attachment]) -> Message:
    message = state.add_message(state.channels[interaction.channel_id], state.bot.id, data, files)
    message.interaction_id = interaction.id
    message.webhook_id = state.application_id
    return message


def _seen(message: Message) -> Json:
    """A message as the control API reports an answer."""
    return snapshot(message) | {"ephemeral": message.ephemeral, "message_id": str(message.id)}


def _webhook(request: web.Request) -> tuple[DiscordState, Interaction]:
    state = state_of(request)
    if snowflake_arg(request, "application_id") != state.application_id:
        raise not_found("Webhook", 10015)
    interaction = state.live_interaction(request.match_info["token"])
    if interaction is None:
        raise DiscordError(401, 50027, "Invalid Webhook Token")
    return state, interaction


@routes.post(API + "/webhooks/{application_id}/{token}")
async def followup(request: web.Request) -> web.Response:
    """A followup message (after a deferral, the first one fills in the deferred message)."""
    state, interaction = _webhook(request)
    if interaction.initial_type is None:
        raise not_found("Webhook", 10015)
    body, files = await message_body(request, state)
    check_message(body, files)
    original = state.messages.get(interaction.original_message_id or 0)
    if interaction.initial_type == 5 and original is not None and original.flags & LOADING:
        state.edit_message(original, body, files)
        original.flags &= ~LOADING
        original.edits.clear()  # the "thinking" placeholder is not an edit anyone saw
        original.edited_at = None
        message = original
    else:
        message = _interaction_message(state, interaction, body, files)
    interaction.record({"type": "followup"} | _seen(message))
    if request.query.get("wait", "").lower() not in ("1", "true"):
        return web.Response(status=204)
    return reply(message_json(message, state, base_url(request)))


def _webhook_message(request: web.Request, state: DiscordState, interaction: Interaction) -> Message:
    raw = request.match_info["message_id"]
    message_id = interaction.original_message_id if raw == "@original" else (int(raw) if raw.isdigit() else None)
    message = state.messages.get(message_id or 0)
    ours = message is not None and (
        message.interaction_id == interaction.id or message.id == interaction.original_message_id
    )
    if message is None or not ours or message.deleted:
        raise not_found("Message", 10008)
    return message


@routes.get(API + "/webhooks/{application_id}/{token}/messages/{message_id}")
async def get_webhook_message(request: web.Request) -> web.Response:
    """The original response or a followup."""
    state, interaction = _webhook(request)
    return reply(message_json(_webhook_message(request, state, interaction), state, base_url(request)))


@routes.patch(API + "/webhooks/{application_id}/{token}/messages/{message_id}")
async def edit_webhook_message(request: web.Request) -> web.Response:
    """Edit the original response (what a deferred command usually does) or a followup."""
    state, interaction = _webhook(request)
    message = _webhook_message(request, state, interaction)
    body, files = await message_body(request, state)
    check_message(body, files, edit=True)
    loading = bool(message.flags & LOADING)
    state.edit_message(message, body, files)
    if loading:
        message.flags &= ~LOADING
        message.edits.clear()
        message.edited_at = None
    interaction.record({"type": "edit"} | _seen(message))
    return reply(message_json(message, state, base_url(request)))


@routes.delete(API + "/webhooks/{application_id}/{token}/messages/{message_id}")
async def delete_webhook_message(request: web.Request) -> web.Response:
    """Delete the original response or a followup."""
    state, interaction = _webhook(request)
    message = _webhook_message(request, state, interaction)
    message.deleted = True
    interaction.record({"type": "delete"} | _seen(message))
    return web.Response(status=204)


# channels and messages


def _channel(request: web.Request) -> tuple[DiscordState, Channel]:
    state = state_of(request)
    channel = state.channels.get(snowflake_arg(request, "channel_id"))
    if channel is None:
        raise not_found("Channel", 10003)
    return state, channel


def _channel_message(request: web.Request, state: DiscordState, channel: Channel) -> Message:
    message = state.messages.get(snowflake_arg(request, "message_id"))
    if message is None or message.channel_id != channel.id or message.deleted or message.ephemeral:
        raise not_found("Message", 10008)
    return message


@routes.get(API + "/channels/{channel_id}")
async def get_channel(request: web.Request) -> web.Response:
    """A guild text channel or a DM channel."""
    state, channel = _channel(request)
    return reply(channel_json(channel, state))


@routes.post(API + "/channels/{channel_id}/messages")
async def create_message(request: web.Request) -> web.Response:
    """Post a message: content, embeds, components, files (multipart)."""
    state, channel = _channel(request)
    body, files = await message_body(request, state)
    check_message(body, files)
    nonce = body.get("nonce")
    if body.get("enforce_nonce") and nonce is not None:
        earlier = state.message_with_nonce(channel, state.bot.id, str(nonce))
        if earlier is not None:  # a resend of a post Discord already took: that message, nothing new
            return reply(message_json(earlier, state, base_url(request)))
    body = {k: v for k, v in body.items() if k != "flags"} | {"flags": int(body.get("flags") or 0) & ~EPHEMERAL}
    message = state.add_message(channel, state.bot.id, body, files)
    data = message_json(message, state, base_url(request))
    await request.app[GATEWAY].dispatch("MESSAGE_CREATE", data, intent=_message_intent(channel))
    return reply(data)


@routes.get(API + "/channels/{channel_id}/messages")
async def list_messages(request: web.Request) -> web.Response:
    """The channel's messages, newest first (`limit`, `before`, `after`)."""
    state, channel = _channel(request)
    try:
        limit = int(request.query.get("limit", "50"))
        before = int(request.query.get("before", "0")) or None
        after = int(request.query.get("after", "0"))
    except ValueError as exc:
        raise invalid_form({"limit": field_error("NUMBER_TYPE_COERCE", "Value is not int.")}) from exc
    if not 1 <= limit <= 100:
        raise invalid_form({"limit": field_error("NUMBER_TYPE_MAX", "int value should be between 1 and 100.")})
    found = [
        m
        for m in state.messages.values()
        if m.channel_id == channel.id
        and not m.deleted
        and not m.ephemeral
        and m.id > after
        and (before is None or m.id < before)
    ]
    found.sort(key=lambda m: m.id, reverse=True)
    return reply([message_json(m, state, base_url(request)) for m in found[:limit]])


@routes.get(API + "/channels/{channel_id}/messages/{message_id}")
async def get_message(request: web.Request) -> web.Response:
    """One message."""
    state, channel = _channel(request)
    return reply(message_json(_channel_message(request, state, channel), state, base_url(request)))


@routes.patch(API + "/channels/{channel_id}/messages/{message_id}")
async def edit_message(request: web.Request) -> web.Response:
    """Edit a message the bot posted."""
    state, channel = _channel(request)
    message = _channel_message(request, state, channel)
    if message.author_id != state.bot.id:
        raise DiscordError(403, 50005, "Cannot edit a message authored by another user")
    body, files = await message_body(request, state)
    check_message(body, files, edit=True)
    state.edit_message(message, body, files)
    data = message_json(message, state, base_url(request))
    await request.app[GATEWAY].dispatch("MESSAGE_UPDATE", data, intent=_message_intent(channel))
    return reply(data)


@routes.delete(API + "/channels/{channel_id}/messages/{message_id}")
async def delete_message(request: web.Request) -> web.Response:
    """Delete a message."""
    state, channel = _channel(request)
    message = _channel_message(request, state, channel)
    message.deleted = True
    return web.Response(status=204)


def _message_intent(channel: Channel) -> int:
    """GUILD_MESSAGES (1 << 9) or DIRECT_MESSAGES (1 << 12)."""
    return 1 << 12 if channel.type == 1 else 1 << 9


@routes.post(API + "/users/@me/channels")
async def open_dm(request: web.Request) -> web.Response:
    """The DM channel with a user (who must share a guild with the bot)."""
    state = state_of(request)
    body = await json_body(request)
    raw = str(body.get("recipient_id", ""))
    user = state.users.get(int(raw)) if raw.isdigit() else None
    if user is None or user.bot:
        raise invalid_form({"recipient_id": field_error("INVALID_RECIPIENT", "Invalid Recipient(s)")})
    return reply(channel_json(state.dm_channel(user), state))


# guilds


def _guild(request: web.Request) -> tuple[DiscordState, Guild]:
    state = state_of(request)
    guild = state.guilds.get(snowflake_arg(request, "guild_id"))
    if guild is None:
        raise not_found("Guild", 10004)
    return state, guild


@routes.get(API + "/guilds/{guild_id}")
async def get_guild(request: web.Request) -> web.Response:
    """A guild."""
    state, guild = _guild(request)
    return reply(guild_json(guild, state, full=False))


@routes.get(API + "/guilds/{guild_id}/channels")
async def get_guild_channels(request: web.Request) -> web.Response:
    """A guild's channels."""
    state, guild = _guild(request)
    return reply([channel_json(c, state) for c in guild.channels.values()])


@routes.get(API + "/guilds/{guild_id}/roles")
async def get_roles(request: web.Request) -> web.Response:
    """A guild's roles."""
    _, guild = _guild(request)
    return reply([role_json(r) for r in guild.roles.values()])


@routes.get(API + "/guilds/{guild_id}/members")
async def list_members(request: web.Request) -> web.Response:
    """A guild's members by id (`limit` 1 to 1000, `after`)."""
    state, guild = _guild(request)
    try:
        limit = int(request.query.get("limit", "1"))
        after = int(request.query.get("after", "0"))
    except ValueError as exc:
        raise invalid_form({"limit": field_error("NUMBER_TYPE_COERCE", "Value is not int.")}) from exc
    if not 1 <= limit <= 1000:
        raise invalid_form({"limit": field_error("NUMBER_TYPE_MAX", "int value should be between 1 and 1000.")})
    members = sorted((m for m in guild.members.values() if m.user_id > after), key=lambda m: m.user_id)
    return reply([member_json(m, state) for m in members[:limit]])


@routes.get(API + "/guilds/{guild_id}/members/{user_id}")
async def get_member(request: web.Request) -> web.Response:
    """One member."""
    state, guild = _guild(request)
    member = guild.members.get(snowflake_arg(request, "user_id"))
    if member is None:
        raise not_found("Member", 10007)
    return reply(member_json(member, state))


@routes.get("/attachments/{channel_id}/{attachment_id}/{filename}")
async def get_attachment(request: web.Request) -> web.Response:
    """An attachment's bytes (its `url`)."""
    state = state_of(request)
    wanted = request.match_info["attachment_id"]
    for message in state.messages.values():
        for attachment in message.attachments:
            if str(attachment.id) == wanted and attachment.filename == request.match_info["filename"]:
                return web.Response(
                    body=attachment.data, content_type=attachment.content_type or "application/octet-stream"
                )
    raise web.HTTPNotFound()
