"""Discord's JSON shapes for the sandbox's objects (as the official OpenAPI spec gives them)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sandbox.discord.state import (
    Attachment,
    Channel,
    Command,
    DiscordState,
    Guild,
    Json,
    Member,
    Message,
    Role,
    User,
)


def iso(epoch: float) -> str:
    """Discord's timestamps: ISO 8601 with microseconds and an offset."""
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="microseconds")


def user_json(user: User) -> Json:
    """A `UserResponse`."""
    body: Json = {
        "id": str(user.id),
        "username": user.name,
        "avatar": None,
        "discriminator": "0",
        "public_flags": 0,
        "flags": 0,
        "global_name": user.global_name,
        "primary_guild": None,
        "banner": None,
        "accent_color": None,
        "avatar_decoration_data": None,
        "collectibles": None,
    }
    if user.bot:
        body["bot"] = True
    return body


def me_json(user: User) -> Json:
    """`GET /users/@me` for the bot (a `UserPIIResponse`)."""
    return user_json(user) | {"mfa_enabled": False, "locale": "en-US", "verified": True, "email": None}


def application_json(state: DiscordState) -> Json:
    """The bot's application (a `PrivateApplicationResponse`)."""
    owner = User(state.bot.id + 1000, "sandbox-owner")
    return {
        "id": str(state.application_id),
        "name": state.bot.name,
        "icon": None,
        "description": "The local Discord's application.",
        "type": None,
        "bot": user_json(state.bot),
        "bot_public": False,
        "bot_require_code_grant": False,
        "verify_key": "0" * 64,
        "flags": 0,
        "flags_new": "0",
        "redirect_uris": [],
        "interactions_endpoint_url": None,
        "role_connections_verification_url": None,
        "owner": user_json(owner),
        "approximate_guild_count": len(state.guilds),
        "approximate_user_install_count": 0,
        "approximate_user_authorization_count": 0,
        "explicit_content_filter": 0,
        "team": None,
        "eligible_oauth2_scopes": ["bot", "applications.commands"],
        "rpc_origins": [],
        "tags": [],
        "integration_types_config": {"0": {}},
    }


def role_json(role: Role) -> Json:
    """A `GuildRoleResponse`."""
    return {
        "id": str(role.id),
        "name": role.name,
        "permissions": str(role.permissions),
        "position": role.position,
        "color": role.color,
        "colors": {"primary_color": role.color, "secondary_color": None, "tertiary_color": None},
        "hoist": False,
        "managed": False,
        "mentionable": False,
        "icon": None,
        "unicode_emoji": None,
        "flags": 0,
    }


def channel_json(channel: Channel, state: DiscordState) -> Json:
    """A `GuildChannelResponse`, or a `PrivateChannelResponse` for a DM."""
    last = str(channel.last_message_id) if channel.last_message_id else None
    if channel.type == 1:
        recipient = state.users[channel.recipient_id or 0]
        return {
            "id": str(channel.id),
            "type": 1,
            "flags": 0,
            "last_message_id": last,
            "recipients": [user_json(recipient)],
        }
    return {
        "id": str(channel.id),
        "type": channel.type,
        "flags": 0,
        "guild_id": str(channel.guild_id),
        "name": channel.name,
        "position": channel.position,
        "parent_id": None,
        "topic": None,
        "nsfw": False,
        "rate_limit_per_user": 0,
        "last_message_id": last,
        "permission_overwrites": [],
    }


def member_json(member: Member, state: DiscordState) -> Json:
    """A `GuildMemberResponse`."""
    return {
        "user": user_json(state.users[member.user_id]),
        "avatar": None,
        "banner": None,
        "communication_disabled_until": None,
        "flags": 0,
        "joined_at": iso(member.joined_at),
        "nick": member.nick,
        "pending": False,
        "premium_since": None,
        "roles": [str(r) for r in member.roles],
        "mute": False,
        "deaf": False,
    }


def guild_json(guild: Guild, state: DiscordState, *, full: bool) -> Json:
    """A guild as the gateway's GUILD_CREATE sends it (`full`), or the REST `GET /guilds/{id}`."""
    body: Json = {
        "id": str(guild.id),
        "name": guild.name,
        "icon": None,
        "splash": None,
        "home_header": None,
        "discovery_splash": None,
        "banner": None,
        "description": None,
        "owner_id": str(guild.owner_id),
        "region": "deprecated",
        "afk_channel_id": None,
        "afk_timeout": 300,
        "verification_level": 0,
        "default_message_notifications": 0,
        "explicit_content_filter": 0,
        "roles": [role_json(r) for r in guild.roles.values()],
        "emojis": [],
        "stickers": [],
        "features": [],
        "mfa_level": 0,
        "application_id": None,
        "system_channel_id": None,
        "system_channel_flags": 0,
        "rules_channel_id": None,
        "public_updates_channel_id": None,
        "safety_alerts_channel_id": None,
        "vanity_url_code": None,
        "premium_tier": 0,
        "premium_subscription_count": 0,
        "premium_progress_bar_enabled": False,
        "preferred_locale": "en-US",
        "nsfw": False,
        "nsfw_level": 0,
        "max_members": 500000,
        "max_presences": None,
        "max_video_channel_users": 25,
        "max_stage_video_channel_users": 50,
        "widget_enabled": False,
        "widget_channel_id": None,
        "incidents_data": None,
        "approximate_member_count": len(guild.members),
        "approximate_presence_count": 0,
    }
    if full:
        body |= {
            "unavailable": False,
            "large": False,
            "member_count": len(guild.members),
            "joined_at": iso(guild.members[state.bot.id].joined_at),
            "channels": [channel_json(c, state) for c in guild.channels.values()],
            "members": [member_json(m, state) for m in guild.members.values()],
            "threads": [],
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }
    return body


def attachment_json(attachment: Attachment, channel_id: int, base_url: str) -> Json:
    """A `MessageAttachmentResponse` (its url serves the bytes)."""
    url = f"{base_url}/attachments/{channel_id}/{attachment.id}/{attachment.filename}"
    body: Json = {
        "id": str(attachment.id),
        "filename": attachment.filename,
        "size": len(attachment.data),
        "url": url,
        "proxy_url": url,
    }
    if attachment.content_type:
        body["content_type"] = attachment.content_type
    if attachment.description:
        body["description"] = attachment.description
    return body


def message_json(message: Message, state: DiscordState, base_url: str) -> Json:
    """A `MessageResponse`."""
    channel = state.channels.get(message.channel_id)
    body: Json = {
        "id": str(message.id),
        "channel_id": str(message.channel_id),
        "type": 0 if message.interaction_id is None else 20,
        "content": message.content,
        "author": user_json(state.users[message.author_id]),
        "mentions": [user_json(state.users[u]) for u in message.mentions],
        "mention_roles": [],
        "mention_everyone": False,
        "attachments": [attachment_json(a, message.channel_id, base_url) for a in message.attachments],
        "embeds": [embed_json(e) for e in message.embeds],
        "components": components_json(message.components),
        "timestamp": iso(message.created_at),
        "edited_timestamp": iso(message.edited_at) if message.edited_at is not None else None,
        "flags": message.flags,
        "pinned": False,
        "tts": False,
    }
    if message.nonce is not None:
        body["nonce"] = message.nonce
    if channel is not None and channel.guild_id is not None:
        body["guild_id"] = str(channel.guild_id)
    if message.webhook_id is not None:
        body["webhook_id"] = str(message.webhook_id)
        body["application_id"] = str(state.application_id)
    if message.interaction_id is not None:
        interaction = state.interactions[message.interaction_id]
        metadata: Json = {
            "id": str(interaction.id),
            "type": interaction.type,
            "user": user_json(state.users[interaction.user_id]),
            "authorizing_integration_owners": {"0": str(interaction.guild_id)} if interaction.guild_id else {},
        }
        if interaction.type == 3 and interaction.message_id is not None:
            metadata["interacted_message_id"] = str(interaction.message_id)
        body["interaction_metadata"] = metadata
    return body


def embed_json(embed: Json) -> Json:
    """An embed as Discord returns it: typed `rich`, fields with `inline`."""
    body = {"type": "rich"} | {k: v for k, v in embed.items() if v is not None}
    if "fields" in body:
        body["fields"] = [{"inline": False} | dict(f) for f in body["fields"]]
    return body


def components_json(rows: list[Json]) -> list[Json]:
    """Components with the numeric `id`s Discord assigns (1, 2, ... in reading order) where the bot gave none."""
    counter = 0

    def number(component: Json) -> Json:
        nonlocal counter
        counter += 1
        body = dict(component)
        body.setdefault("id", counter)
        if "components" in body:
            body["components"] = [number(c) for c in body["components"]]
        return body

    return [number(row) for row in rows]


def command_json(command: Command, state: DiscordState) -> Json:
    """An `ApplicationCommandResponse`: the synced payload with ids, version and defaults."""
    data = command.data
    body: Json = {
        "id": str(command.id),
        "application_id": str(state.application_id),
        "version": str(command.version),
        "type": data.get("type", 1),
        "name": data["name"],
        "description": data.get("description", ""),
        "default_member_permissions": _optional_str(data.get("default_member_permissions")),
        "dm_permission": data.get("dm_permission", True) is not False,
        "nsfw": bool(data.get("nsfw", False)),
        "name_localizations": data.get("name_localizations"),
        "description_localizations": data.get("description_localizations"),
        "contexts": data.get("contexts"),
        "integration_types": data.get("integration_types") or [0],
    }
    if command.guild_id is not None:
        body["guild_id"] = str(command.guild_id)
    if data.get("options"):
        body["options"] = [option_json(o) for o in data["options"]]
    return body


def _optional_str(value: Any) -> str | None:
    return None if value is None else str(value)


def option_json(option: Json) -> Json:
    """An option as Discord returns it: the keys it keeps, `required` only when true."""
    body = {k: v for k, v in option.items() if v is not None and k not in ("required", "autocomplete")}
    if option.get("required"):
        body["required"] = True
    if option.get("autocomplete"):
        body["autocomplete"] = True
    if "options" in body:
        body["options"] = [option_json(o) for o in body["options"]]
    return body


def error_body(code: int, message: str, errors: Any = None) -> Json:
    """Discord's error shape `{"code", "message", "errors"?}`."""
    body: Json = {"code": code, "message": message}
    if errors is not None:
        body["errors"] = errors
    return body
