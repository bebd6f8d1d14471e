"""The local Discord's world: the bot, guilds, members, messages, synced commands, interactions, faults."""

from __future__ import annotations

import asyncio
import random
import re
import string
import time
from dataclasses import dataclass, field
from typing import Any

BOT_TOKEN = "discord_sandbox_swissbot"
BOT_USER_ID = 1100000000000000001
APPLICATION_ID = 1100000000000000002
BOT_NAME = "SwissBot"
DISCORD_EPOCH_MS = 1420070400000
SEEDED_START_MS = 1767225600000  # 2026-01-01: a seeded sandbox's ids do not depend on the wall clock
INTERACTION_TOKEN_LIFETIME = 15 * 60.0
NONCE_WINDOW = 5 * 60.0  # Discord checks an enforced nonce for uniqueness "in the past few minutes"
EPHEMERAL = 1 << 6
ALL_PERMISSIONS = (1 << 53) - 1
ADMINISTRATOR = 1 << 3
# what @everyone gets in a new server: invite, react, view, send, embed, attach, history, external emojis,
# voice connect and speak, change nickname, use commands, threads
DEFAULT_EVERYONE_PERMISSIONS = sum(1 << bit for bit in (0, 6, 10, 11, 14, 15, 16, 18, 20, 21, 26, 31, 35, 36, 38))

Json = dict[str, Any]


@dataclass
class User:
    """A Discord user (the bot is one, with `bot=True`)."""

    id: int
    name: str
    bot: bool = False
    global_name: str | None = None


@dataclass
class Role:
    """A guild role; the @everyone role's id is the guild's."""

    id: int
    name: str
    permissions: int
    position: int
    color: int = 0


@dataclass
class Channel:
    """A guild text channel (type 0) or a DM channel (type 1, with `recipient_id`)."""

    id: int
    name: str
    guild_id: int | None
    type: int = 0
    position: int = 0
    recipient_id: int | None = None
    last_message_id: int | None = None


@dataclass
class Member:
    """A user's membership of a guild."""

    user_id: int
    guild_id: int
    roles: list[int]
    joined_at: float
    nick: str | None = None


@dataclass
class Guild:
    """A server: its channels, roles and members (the bot is always a member)."""

    id: int
    name: str
    owner_id: int
    channels: dict[int, Channel] = field(default_factory=dict)
    roles: dict[int, Role] = field(default_factory=dict)
    members: dict[int, Member] = field(default_factory=dict)


@dataclass
class Attachment:
    """A file sent with a message."""

    id: int
    filename: str
    data: bytes
    content_type: str | None = None
    description: str | None = None


USER_MENTION = re.compile(r"<@!?(\d{1,20})>")


def pinged_users(content: str, allowed_mentions: Any) -> list[int]:
    """The users a message's content pings, as Discord decides: every `<@id>` when `allowed_mentions` is absent, with
    `parse: ["users"]` too; with a `users` list only those named there; otherwise nobody."""
    mentioned = list(dict.fromkeys(int(found) for found in USER_MENTION.findall(content)))
    if not isinstance(allowed_mentions, dict):
        return mentioned
    if "users" in (allowed_mentions.get("parse") or []):
        return mentioned
    allowed = {int(u) for u in allowed_mentions.get("users") or []}
    return [u for u in mentioned if u in allowed]


@dataclass
class Message:
    """A message the bot posted: in a channel, in a DM, or as an interaction response or followup."""

    id: int
    channel_id: int
    author_id: int
    content: str
    embeds: list[Json]
    components: list[Json]
    attachments: list[Attachment]
    flags: int
    created_at: float
    edited_at: float | None = None
    edits: list[Json] = field(default_factory=list)
    interaction_id: int | None = None
    webhook_id: int | None = None
    deleted: bool = False
    mentions: list[int] = field(default_factory=list)  # the users the message pinged when it was posted
    nonce: str | None = None  # as the poster sent it: with `enforce_nonce`, a repeat returns this message

    @property
    def ephemeral(self) -> bool:
        """Only the user of the interaction sees it."""
        return bool(self.flags & EPHEMERAL)


@dataclass
class Command:
    """An application command the bot synced (global when `guild_id` is None)."""

    id: int
    guild_id: int | None
    version: int
    data: Json


@dataclass
class Interaction:
    """An interaction the sandbox dispatched, and what the bot answered to it."""

    id: int
    token: str
    type: int
    guild_id: int | None
    channel_id: int
    user_id: int
    created_at: float
    message_id: int | None = None  # the component's message, for type 3
    initial_type: int | None = None
    ephemeral: bool = False
    original_message_id: int | None = None
    responses: list[Json] = field(default_factory=list)
    choices: list[Json] | None = None
    expired: bool = False
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def record(self, response: Json) -> None:
        """Add an answer and wake whoever waits for it."""
        self.responses.append(response)
        self.changed.set()


@dataclass
class Fault:
    """The next `count` requests whose path starts with `path` answer `status` (after `delay` s)."""

    path: str
    status: int | None
    count: int
    delay: float = 0.0
    retry_after: float = 0.25
    is_global: bool = False


@dataclass(frozen=True)
class LoggedRequest:
    """One REST request as answered: for tests that check retries and pauses."""

    started: float
    at: float
    method: str
    path: str
    status: int


@dataclass
class Bucket:
    """A rate-limit bucket: `limit` requests per `window` seconds."""

    key: str
    remaining: int
    reset_at: float


class DiscordState:
    """Everything the local Discord knows."""

    def __init__(self, *, seed: int | None = None, token: str | None = None) -> None:
        self.rng = random.Random(seed)
        self.seeded = seed is not None
        self.token = token or BOT_TOKEN
        self.bot = User(BOT_USER_ID, BOT_NAME, bot=True)
        self.application_id = APPLICATION_ID
        self.users: dict[int, User] = {self.bot.id: self.bot}
        self.guilds: dict[int, Guild] = {}
        self.channels: dict[int, Channel] = {}
        self.messages: dict[int, Message] = {}
        self.commands: dict[int, Command] = {}
        self.interactions: dict[int, Interaction] = {}
        self.interactions_by_token: dict[str, Interaction] = {}
        self.faults: list[Fault] = []
        self.requests: list[LoggedRequest] = []
        self.buckets: dict[str, Bucket] = {}
        self.rate_limit = 50
        self.rate_window = 1.0
        self.oauth_codes: dict[str, Any] = {}  # OAuth2 (sandbox.discord.oauth2): codes and Bearer tokens to grants
        self.oauth_tokens: dict[str, Any] = {}
        self._counter = 0

    # ids, tokens, time

    def now(self) -> float:
        """Epoch seconds (a seeded sandbox still stamps messages with the real time)."""
        return time.time()

    def snowflake(self) -> int:
        """A new Discord id: milliseconds since Discord's epoch, shifted, plus an increment."""
        self._counter += 1
        ms = SEEDED_START_MS + self._counter if self.seeded else int(self.now() * 1000)
        return ((ms - DISCORD_EPOCH_MS) << 22) | (self._counter & 0xFFF)

    def secret(self, length: int = 64) -> str:
        """A random token (an interaction's, a session id)."""
        return "".join(self.rng.choice(string.ascii_letters + string.digits) for _ in range(length))

    # guilds and members

    def add_guild(self, guild_id: int, name: str, owner_id: int | None = None) -> Guild:
        """Create (or rename) a guild; it gets an @everyone role and the bot as a member."""
        guild = self.guilds.get(guild_id)
        if guild is None:
            guild = Guild(guild_id, name, owner_id if owner_id is not None else self.bot.id)
            guild.roles[guild_id] = Role(guild_id, "@everyone", DEFAULT_EVERYONE_PERMISSIONS, 0)
            self.guilds[guild_id] = guild
            guild.members[self.bot.id] = Member(self.bot.id, guild_id, [], self.now())
        else:
            guild.name = name
            if owner_id is not None:
                guild.owner_id = owner_id
        return guild

    def add_channel(self, guild: Guild, channel_id: int, name: str) -> Channel:
        """Add (or rename) a text channel."""
        channel = guild.channels.get(channel_id)
        if channel is None:
            channel = Channel(channel_id, name, guild.id, position=len(guild.channels))
            guild.channels[channel_id] = channel
            self.channels[channel_id] = channel
        channel.name = name
        return channel

    def add_role(self, guild: Guild, role_id: int, name: str, permissions: int = 0) -> Role:
        """Add (or update) a role."""
        role = Role(role_id, name, permissions, position=len(guild.roles))
        old = guild.roles.get(role_id)
        if old is not None:
            role.position = old.position
        guild.roles[role_id] = role
        return role

    def add_member(self, guild: Guild, user: User, roles: list[int], nick: str | None = None) -> Member:
        """Put a user in a guild with those roles (replacing earlier roles)."""
        self.users[user.id] = user
        member = guild.members.get(user.id)
        if member is None:
            member = Member(user.id, guild.id, list(roles), self.now(), nick)
            guild.members[user.id] = member
        else:
            member.roles = list(roles)
            member.nick = nick
        return member

    def permissions(self, guild: Guild, user_id: int) -> int:
        """A member's guild permissions, as Discord computes them (owner and administrators: all)."""
        if user_id == guild.owner_id:
            return ALL_PERMISSIONS
        member = guild.members.get(user_id)
        value = guild.roles[guild.id].permissions
        for role_id in member.roles if member else []:
            role = guild.roles.get(role_id)
            if role is not None:
                value |= role.permissions
        return ALL_PERMISSIONS if value & ADMINISTRATOR else value

    def dm_channel(self, user: User) -> Channel:
        """The bot's DM channel with a user (made on first use)."""
        for channel in self.channels.values():
            if channel.type == 1 and channel.recipient_id == user.id:
                return channel
        channel = Channel(self.snowflake(), "", None, type=1, recipient_id=user.id)
        self.channels[channel.id] = channel
        return channel

    # commands

    def commands_for(self, guild_id: int | None) -> list[Command]:
        """The commands synced for that guild (None: the global ones), in sync order."""
        return [c for c in self.commands.values() if c.guild_id == guild_id]

    def replace_commands(self, guild_id: int | None, payloads: list[Json]) -> list[Command]:
        """A bulk overwrite: commands keep their id when their name and type stay."""
        old = {(c.data["name"], c.data.get("type", 1)): c for c in self.commands_for(guild_id)}
        for command in old.values():
            del self.commands[command.id]
        synced = []
        for payload in payloads:
            previous = old.get((payload["name"], payload.get("type", 1)))
            command = Command(previous.id if previous else self.snowflake(), guild_id, self.snowflake(), dict(payload))
            self.commands[command.id] = command
            synced.append(command)
        return synced

    def find_command(self, guild_id: int | None, name: str) -> Command | None:
        """A chat-input command by its top-level name: the guild's first, then the global one."""
        for scope in (guild_id, None) if guild_id is not None else (None,):
            for command in self.commands_for(scope):
                if command.data["name"] == name and command.data.get("type", 1) == 1:
                    return command
        return None

    # interactions

    def new_interaction(
        self, kind: int, guild_id: int | None, channel_id: int, user_id: int, message_id: int | None = None
    ) -> Interaction:
        """Record an interaction about to be dispatched."""
        interaction = Interaction(
            self.snowflake(), "aW50ZXJhY3Rpb24" + self.secret(), kind, guild_id, channel_id, user_id, time.monotonic()
        )
        interaction.message_id = message_id
        self.interactions[interaction.id] = interaction
        self.interactions_by_token[interaction.token] = interaction
        return interaction

    def live_interaction(self, token: str) -> Interaction | None:
        """The interaction of a webhook token, while the token is valid (15 minutes)."""
        interaction = self.interactions_by_token.get(token)
        if interaction is None or time.monotonic() - interaction.created_at > INTERACTION_TOKEN_LIFETIME:
            return None
        return interaction

    # messages

    def add_message(self, channel: Channel, author_id: int, body: Json, files: list[Attachment]) -> Message:
        """Store a message the bot posted."""
        message = Message(
            id=self.snowflake(),
            channel_id=channel.id,
            author_id=author_id,
            content=str(body.get("content") or ""),
            embeds=list(body.get("embeds") or []),
            components=list(body.get("components") or []),
            attachments=files,
            flags=int(body.get("flags") or 0),
            created_at=self.now(),
            nonce=None if body.get("nonce") is None else str(body["nonce"]),
        )
        message.mentions = [u for u in pinged_users(message.content, body.get("allowed_mentions")) if u in self.users]
        self.messages[message.id] = message
        channel.last_message_id = message.id
        return message

    def message_with_nonce(self, channel: Channel, author_id: int, nonce: str) -> Message | None:
        """The author's message in `channel` posted with `nonce` in the last few minutes (Discord's `enforce_nonce`)."""
        since = self.now() - NONCE_WINDOW
        for message in reversed(list(self.messages.values())):
            if message.created_at < since:
                break
            if message.channel_id == channel.id and message.author_id == author_id and message.nonce == nonce:
                return message
        return None

    def edit_message(self, message: Message, body: Json, files: list[Attachment]) -> None:
        """Apply an edit: only the fields sent change; `attachments` lists the files kept."""
        message.edits.append(snapshot(message))
        if "content" in body:
            message.content = str(body["content"] or "")
        if "embeds" in body:
            message.embeds = list(body["embeds"] or [])
        if "components" in body:
            message.components = list(body["components"] or [])
        if "attachments" in body:
            # existing files are kept by their snowflake; new uploads (listed by index) never match one
            listed = [str(a.get("id")) for a in body["attachments"] or [] if isinstance(a, dict)]
            kept = {int(i) for i in listed if i.isdigit()}
            message.attachments = [a for a in message.attachments if a.id in kept]
        message.attachments.extend(files)
        if "flags" in body and body["flags"] is not None:
            # only SUPPRESS_EMBEDS (and IS_COMPONENTS_V2) can change on edit; ephemerality stays
            message.flags = (message.flags & EPHEMERAL) | (int(body["flags"]) & ~EPHEMERAL)
        message.edited_at = self.now()

    # faults and rate limits

    def take_fault(self, path: str) -> Fault | None:
        """Consume one pending fault matching this path."""
        for fault in self.faults:
            if path.startswith(fault.path):
                fault.count -= 1
                if fault.count <= 0:
                    self.faults.remove(fault)
                return fault
        return None

    def spend(self, key: str) -> Bucket:
        """Count one request against its bucket (remaining may go below zero: a 429)."""
        now = time.monotonic()
        bucket = self.buckets.get(key)
        if bucket is None or now >= bucket.reset_at:
            bucket = Bucket(key, self.rate_limit, now + self.rate_window)
            self.buckets[key] = bucket
        bucket.remaining -= 1
        return bucket


def snapshot(message: Message) -> Json:
    """A message's visible state, as the control API shows one version of it."""
    return {
        "content": message.content,
        "embeds": message.embeds,
        "components": message.components,
        "attachments": [a.filename for a in message.attachments],
    }
