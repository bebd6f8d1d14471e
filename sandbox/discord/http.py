"""Shared helpers for the handlers: app keys, Discord's error bodies, message bodies (JSON or multipart)."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import BodyPartReader, web

from sandbox.discord.state import Attachment, DiscordState, Json
from sandbox.discord.views import error_body

STATE = web.AppKey("discord_state", DiscordState)

MAX_CONTENT = 2000
MAX_EMBEDS = 10
MAX_EMBED_TOTAL = 6000
MAX_FILES = 10
MAX_NONCE = 25
MAX_ALLOWED_USERS = 100
MAX_FILE_SIZE = 10 * 1024 * 1024
EMBED_LIMITS = {"title": 256, "description": 4096}


class DiscordError(Exception):
    """A Discord error answer: status, JSON code, message and the optional `errors` tree."""

    def __init__(self, status: int, code: int, message: str, errors: Any = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def response(self) -> web.Response:
        """The error as Discord sends it."""
        return reply(error_body(self.code, self.message, self.errors), self.status)


def reply(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    """A JSON answer typed exactly `application/json`, as Discord sends it (discord.py decodes only that)."""
    return web.Response(body=json.dumps(body).encode(), status=status, headers=headers, content_type="application/json")


def not_found(what: str, code: int) -> DiscordError:
    """Discord's 404s: `Unknown Channel` (10003), `Unknown Message` (10008), ..."""
    return DiscordError(404, code, f"Unknown {what}")


def invalid_form(errors: Json) -> DiscordError:
    """Discord's 400 for a body that fails validation (code 50035, the `errors` tree)."""
    return DiscordError(400, 50035, "Invalid Form Body", errors)


def field_error(kind: str, message: str) -> Json:
    """One leaf of the `errors` tree: the spec types its `code` as an integer, so the kind goes in the message."""
    return {"_errors": [{"code": 50035, "message": f"{message} ({kind})"}]}


def state_of(request: web.Request) -> DiscordState:
    """The sandbox's state."""
    return request.app[STATE]


def base_url(request: web.Request) -> str:
    """The origin this request was sent to (used in urls the sandbox hands out)."""
    return f"{request.scheme}://{request.host}"


def snowflake_arg(request: web.Request, name: str) -> int:
    """A snowflake path parameter (anything else is a 404, as Discord's router answers)."""
    raw = request.match_info[name]
    if not raw.isdigit():
        raise DiscordError(404, 0, "404: Not Found")
    return int(raw)


async def json_body(request: web.Request) -> Json:
    """A JSON object body (Discord's 50109 when it is not one)."""
    try:
        body = await request.json()
    except ValueError as exc:
        raise DiscordError(400, 50109, "The request body contains invalid JSON.") from exc
    if not isinstance(body, dict):
        raise DiscordError(400, 50109, "The request body contains invalid JSON.")
    return body


async def message_body(request: web.Request, state: DiscordState) -> tuple[Json, list[Attachment]]:
    """A message body: JSON, or multipart with `payload_json` and `files[n]` (their metadata in `attachments`)."""
    if not request.content_type.startswith("multipart/"):
        return await json_body(request), []
    payload: Json = {}
    uploads: dict[int, tuple[str, bytes, str | None]] = {}
    reader = await request.multipart()
    while True:
        part = await reader.next()
        if part is None:
            break
        if not isinstance(part, BodyPartReader):
            continue
        name = part.name or ""
        data = await part.read()
        if name == "payload_json":
            try:
                loaded = json.loads(data)
            except ValueError as exc:
                raise DiscordError(400, 50109, "The request body contains invalid JSON.") from exc
            if not isinstance(loaded, dict):
                raise DiscordError(400, 50109, "The request body contains invalid JSON.")
            payload = loaded
        elif name.startswith("files[") and name.endswith("]") and name[6:-1].isdigit():
            if len(data) > MAX_FILE_SIZE:
                raise DiscordError(413, 40005, "Request entity too large")
            filename = part.filename or f"file{name[6:-1]}"
            content_type = part.headers.get("Content-Type")
            uploads[int(name[6:-1])] = (filename, bytes(data), content_type)
    # the files' metadata: top-level for messages, under `data` for an interaction callback
    inner: Json = payload["data"] if isinstance(payload.get("data"), dict) else payload
    described = {_index(a): a for a in inner.get("attachments") or [] if isinstance(a, dict)}
    files = []
    for index, (filename, content, content_type) in sorted(uploads.items()):
        meta = described.get(index, {})
        name, description = str(meta.get("filename") or filename), meta.get("description")
        files.append(Attachment(state.snowflake(), name, content, content_type, description))
    return payload, files


def _index(attachment: Json) -> int | None:
    """An attachment's `id`: the index of a new upload, or the snowflake of one an edit keeps."""
    raw = str(attachment.get("id", ""))
    return int(raw) if raw.isdigit() else None


def check_message(body: Json, files: list[Attachment], *, edit: bool = False) -> None:
    """Discord's limits on a message: content, embeds, files, components; and no empty message."""
    errors: Json = {}
    content = body.get("content")
    if content is not None and not isinstance(content, str):
        errors["content"] = field_error("STRING_TYPE_CONVERT", "Could not interpret value as string.")
    elif content is not None and len(content) > MAX_CONTENT:
        errors["content"] = field_error("BASE_TYPE_MAX_LENGTH", f"Must be {MAX_CONTENT} or fewer in length.")
    embeds = body.get("embeds") or []
    if len(embeds) > MAX_EMBEDS:
        errors["embeds"] = field_error("BASE_TYPE_MAX_LENGTH", f"Must be {MAX_EMBEDS} or fewer in length.")
    else:
        embed_errors = _check_embeds(embeds)
        if embed_errors:
            errors["embeds"] = embed_errors
    rows = body.get("components") or []
    component_errors = _check_components(rows)
    if component_errors:
        errors["components"] = component_errors
    mention_errors = _check_allowed_mentions(body.get("allowed_mentions"))
    if mention_errors:
        errors["allowed_mentions"] = mention_errors
    nonce = body.get("nonce")
    if isinstance(nonce, str) and len(nonce) > MAX_NONCE:
        errors["nonce"] = field_error("BASE_TYPE_MAX_LENGTH", f"Must be {MAX_NONCE} or fewer in length.")
    if len(files) > MAX_FILES:
        errors["files"] = field_error("BASE_TYPE_MAX_LENGTH", f"Must be {MAX_FILES} or fewer in length.")
    if errors:
        raise invalid_form(errors)
    if not edit and not content and not embeds and not files and not rows and not body.get("poll"):
        raise DiscordError(400, 50006, "Cannot send an empty message")


def _check_allowed_mentions(allowed: Any) -> Json:
    """Discord's rules on `allowed_mentions`: at most 100 users, and `users` not both parsed and listed."""
    if not isinstance(allowed, dict):
        return {}
    users = allowed.get("users") or []
    if len(users) > MAX_ALLOWED_USERS:
        return {"users": field_error("BASE_TYPE_MAX_LENGTH", f"Must be {MAX_ALLOWED_USERS} or fewer in length.")}
    if users and "users" in (allowed.get("parse") or []):
        return {
            "_errors": [
                {
                    "code": "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
                    "message": 'parse:["users"] and users: [ids] are mutually exclusive.',
                }
            ]
        }
    return {}


def _check_embeds(embeds: list[Any]) -> Json:
    errors: Json = {}
    total = 0
    for index, embed in enumerate(embeds):
        if not isinstance(embed, dict):
            errors[str(index)] = field_error("DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            continue
        here: Json = {}
        for key, limit in EMBED_LIMITS.items():
            text = embed.get(key) or ""
            total += len(text)
            if len(text) > limit:
                here[key] = field_error("BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")
        fields = embed.get("fields") or []
        if len(fields) > 25:
            here["fields"] = field_error("BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
        for f_index, item in enumerate(fields):
            name, value = str(item.get("name", "")), str(item.get("value", ""))
            total += len(name) + len(value)
            if not name or not value or len(name) > 256 or len(value) > 1024:
                here.setdefault("fields", {})[str(f_index)] = field_error(
                    "BASE_TYPE_BAD_LENGTH", "A field needs a name (1 to 256) and a value (1 to 1024)."
                )
        footer = (embed.get("footer") or {}).get("text") or ""
        author = (embed.get("author") or {}).get("name") or ""
        total += len(footer) + len(author)
        if len(footer) > 2048:
            here["footer"] = {"text": field_error("BASE_TYPE_MAX_LENGTH", "Must be 2048 or fewer in length.")}
        if len(author) > 256:
            here["author"] = {"name": field_error("BASE_TYPE_MAX_LENGTH", "Must be 256 or fewer in length.")}
        if here:
            errors[str(index)] = here
    if total > MAX_EMBED_TOTAL and not errors:
        return field_error("MAX_EMBED_SIZE_EXCEEDED", f"Embed size exceeds maximum size of {MAX_EMBED_TOTAL}")
    return errors


def _check_components(rows: list[Any]) -> Json:
    errors: Json = {}
    if len(rows) > 5:
        return field_error("BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.")
    seen: set[str] = set()
    for r_index, row in enumerate(rows):
        if not isinstance(row, dict) or row.get("type") != 1:
            continue  # layouts other than action rows are passed through as sent
        children = row.get("components") or []
        if not children or len(children) > 5:
            errors[str(r_index)] = {
                "components": field_error("BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5 in length.")
            }
            continue
        for c_index, child in enumerate(children):
            custom_id = child.get("custom_id")
            if custom_id is None:
                continue
            if not 1 <= len(custom_id) <= 100 or custom_id in seen:
                errors.setdefault(str(r_index), {}).setdefault("components", {})[str(c_index)] = {
                    "custom_id": field_error("COMPONENT_CUSTOM_ID_DUPLICATED", "custom_id: 1 to 100 characters, unique")
                }
            seen.add(custom_id)
    return errors
