"""Every REST answer of the local Discord validates against the official Discord OpenAPI spec."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

from sandbox.discord import DiscordSandbox
from tests.sandbox.discord.conftest import ALICE, GENERAL, GUILD, HTTP_TIMEOUT, PLAYER_ROLE
from tests.sandbox.discord.toy_bot import ReadyView, Swiss, reset, whois
from tests.support.data import discord_spec as spec

API = "/api/v10"


def schema(path: str, method: str, status: int) -> dict[str, Any] | None:
    """The response schema of one operation (a `4XX` range and `$ref`ed responses resolved; None if undocumented)."""
    responses = spec()["paths"][path][method]["responses"]
    response = responses.get(str(status)) or responses.get(f"{str(status)[0]}XX")
    if response is None:
        return None
    if "$ref" in response:
        response = spec()["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
    found: dict[str, Any] = response["content"]["application/json"]["schema"]
    return found


def check(instance: Any, path: str, method: str, status: int) -> None:
    """Validate against the operation's schema, `$ref`s resolved in the whole spec."""
    documented = schema(path, method, status)
    if documented is None:  # the spec documents no 5xx body: Discord's error shape at least
        assert set(instance) == {"code", "message"}
        return
    root = {"components": spec()["components"]} | documented
    errors = sorted(Draft202012Validator(root).iter_errors(instance), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message[:300]}" for e in errors[:5])


class Api:
    """Raw REST calls as the bot makes them, each answer checked against the spec."""

    def __init__(self, sandbox: DiscordSandbox, http: aiohttp.ClientSession) -> None:
        self.sandbox = sandbox
        self.http = http

    async def call(
        self, method: str, template: str, status: int = 200, *, token: bool = True, **kwargs: Any
    ) -> tuple[Any, dict[str, str]]:
        """Call `template` (formatted with `path=`), check the status and the body's schema."""
        path = template.format(**kwargs.pop("path", {}))
        headers = {"Authorization": f"Bot {self.sandbox.token}"} if token else {}
        async with self.http.request(method, self.sandbox.url + API + path, headers=headers, **kwargs) as resp:
            text = await resp.text()
            assert resp.status == status, text
            assert status == 204 or resp.headers["Content-Type"] == "application/json"
            body = json.loads(text) if text else None
            if status != 204:
                check(body, template, method.lower(), status)
            return body, dict(resp.headers)


def command_payloads() -> list[dict[str, Any]]:
    """What `CommandTree.sync()` sends for the toy bot's commands (built offline)."""
    tree = app_commands.CommandTree(discord.Client(intents=discord.Intents.default()))
    commands: list[app_commands.Group | app_commands.Command[Any, Any, Any]] = [Swiss(), reset, whois]
    return [c.to_dict(tree) for c in commands]


def attachment_form(payload: dict[str, Any], name: str, data: bytes) -> aiohttp.FormData:
    """A multipart body as discord.py builds it: `payload_json` and `files[0]`."""
    form = aiohttp.FormData(quote_fields=False)
    form.add_field("payload_json", json.dumps(payload), content_type="application/json")
    form.add_field("files[0]", data, filename=name, content_type="text/plain")
    return form


@pytest.fixture
async def api(discord_sandbox: DiscordSandbox) -> Any:
    async with aiohttp.ClientSession(timeout=HTTP_TIMEOUT) as http:
        yield Api(discord_sandbox, http)


async def test_the_bot_and_its_application(api: Api) -> None:
    await api.call("GET", "/users/@me")
    await api.call("GET", "/users/{user_id}", path={"user_id": ALICE})
    app, _ = await api.call("GET", "/oauth2/applications/@me")
    assert app["id"] == str(api.sandbox.application_id)
    await api.call("GET", "/applications/@me")
    gateway, _ = await api.call("GET", "/gateway")
    bot_gateway, _ = await api.call("GET", "/gateway/bot")
    assert gateway["url"] == bot_gateway["url"] == api.sandbox.url.replace("http", "ws", 1) + "/gateway"


async def test_command_sync(api: Api) -> None:
    ids = {"application_id": api.sandbox.application_id, "guild_id": GUILD}
    guild_path = "/applications/{application_id}/guilds/{guild_id}/commands"
    synced, _ = await api.call("PUT", guild_path, path=ids, json=command_payloads())
    assert [c["name"] for c in synced] == ["swiss", "reset", "whois"]
    listed, _ = await api.call("GET", guild_path, path=ids)
    assert listed == synced
    again, _ = await api.call("PUT", guild_path, path=ids, json=command_payloads())
    assert [c["id"] for c in again] == [c["id"] for c in synced]  # a bulk overwrite keeps the ids
    one, _ = await api.call("GET", guild_path + "/{command_id}", path=ids | {"command_id": synced[0]["id"]})
    assert one == again[0]
    single = {"name": "ping", "description": "Ping", "type": 1}
    await api.call("POST", guild_path, 201, path=ids, json=single)
    await api.call("POST", guild_path, 200, path=ids, json=single | {"description": "Pong"})
    glob = "/applications/{application_id}/commands"
    empty, _ = await api.call("GET", glob, path=ids)
    assert empty == []
    await api.call("PUT", glob, path=ids, json=[single])
    bad = [single | {"name": "Not A Name"}]
    error, _ = await api.call("PUT", guild_path, 400, path=ids, json=bad)
    assert error["code"] == 50035 and "name" in error["errors"]["0"]


async def test_channel_messages(api: Api) -> None:
    channel = {"channel_id": GENERAL}
    view = ReadyView()
    body = {
        "content": "Round 1",
        "embeds": [discord.Embed(title="Pairings", description="Alice - Bob").add_field(name="a", value="b").to_dict()],
        "components": view.to_components(),
    }
    posted, headers = await api.call("POST", "/channels/{channel_id}/messages", path=channel, json=body)
    assert {"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset-After", "X-RateLimit-Bucket"} <= set(
        headers
    )
    form = attachment_form({"content": "TRF", "attachments": [{"id": 0, "filename": "event.trf"}]}, "event.trf", b"012")
    with_file, _ = await api.call("POST", "/channels/{channel_id}/messages", path=channel, data=form)
    assert [a["filename"] for a in with_file["attachments"]] == ["event.trf"]
    message_path = "/channels/{channel_id}/messages/{message_id}"
    ids = channel | {"message_id": posted["id"]}
    edited, _ = await api.call("PATCH", message_path, path=ids, json={"content": "Round 1 (edited)"})
    assert edited["edited_timestamp"] is not None and edited["embeds"] == posted["embeds"]
    await api.call("GET", message_path, path=ids)
    file_ids = channel | {"message_id": with_file["id"]}
    kept = with_file["attachments"][0]["id"]
    form = attachment_form({"attachments": [{"id": kept}, {"id": 0, "filename": "more.txt"}]}, "more.txt", b"4")
    both, _ = await api.call("PATCH", message_path, path=file_ids, data=form)
    assert [a["filename"] for a in both["attachments"]] == ["event.trf", "more.txt"]
    only_new, _ = await api.call("PATCH", message_path, path=file_ids, json={"attachments": [both["attachments"][1]]})
    assert [a["filename"] for a in only_new["attachments"]] == ["more.txt"]
    listed, _ = await api.call("GET", "/channels/{channel_id}/messages", path=channel)
    assert [m["id"] for m in listed] == [with_file["id"], posted["id"]]
    await api.call("GET", "/channels/{channel_id}", path=channel)
    await api.call("DELETE", message_path, 204, path=ids)
    await api.call("GET", message_path, 404, path=ids)


async def test_message_limits_give_discords_errors(api: Api) -> None:
    channel = {"channel_id": GENERAL}
    too_long, _ = await api.call(
        "POST", "/channels/{channel_id}/messages", 400, path=channel, json={"content": "x" * 2001}
    )
    assert too_long["code"] == 50035 and "content" in too_long["errors"]
    empty, _ = await api.call("POST", "/channels/{channel_id}/messages", 400, path=channel, json={"content": ""})
    assert empty["code"] == 50006
    huge = {"embeds": [{"description": "x" * 4000}, {"description": "x" * 2001}]}
    error, _ = await api.call("POST", "/channels/{channel_id}/messages", 400, path=channel, json=huge)
    assert "MAX_EMBED_SIZE_EXCEEDED" in error["errors"]["embeds"]["_errors"][0]["message"]
    unknown, _ = await api.call(
        "POST", "/channels/{channel_id}/messages", 404, path={"channel_id": 1}, json={"content": "x"}
    )
    assert unknown["code"] == 10003
    unauthorised, _ = await api.call("GET", "/users/@me", 401, token=False)
    assert unauthorised["message"] == "401: Unauthorized"


async def test_direct_messages(api: Api) -> None:
    dm, _ = await api.call("POST", "/users/@me/channels", json={"recipient_id": str(ALICE)})
    assert dm["type"] == 1 and dm["recipients"][0]["id"] == str(ALICE)
    again, _ = await api.call("POST", "/users/@me/channels", json={"recipient_id": str(ALICE)})
    assert again["id"] == dm["id"]
    await api.call("POST", "/channels/{channel_id}/messages", path={"channel_id": dm["id"]}, json={"content": "hi"})
    await api.call("GET", "/channels/{channel_id}", path={"channel_id": dm["id"]})
    await api.call("POST", "/users/@me/channels", 400, json={"recipient_id": "1"})


async def test_guild_reads(api: Api) -> None:
    guild = {"guild_id": GUILD}
    await api.call("GET", "/guilds/{guild_id}", path=guild)
    channels, _ = await api.call("GET", "/guilds/{guild_id}/channels", path=guild)
    assert [c["name"] for c in channels] == ["general", "rounds"]
    roles, _ = await api.call("GET", "/guilds/{guild_id}/roles", path=guild)
    assert [r["name"] for r in roles] == ["@everyone", "Organiser", "Player"]
    members, _ = await api.call("GET", "/guilds/{guild_id}/members", path=guild, params={"limit": "10"})
    assert len(members) == 4  # the bot and three users
    alice, _ = await api.call("GET", "/guilds/{guild_id}/members/{user_id}", path=guild | {"user_id": ALICE})
    assert alice["roles"] == [str(PLAYER_ROLE)]
    missing, _ = await api.call("GET", "/guilds/{guild_id}/members/{user_id}", 404, path=guild | {"user_id": 1})
    assert missing["code"] == 10007


async def test_interaction_callbacks_and_webhooks(api: Api) -> None:
    state = api.sandbox.state
    callback = "/interactions/{interaction_id}/{interaction_token}/callback"
    original = "/webhooks/{webhook_id}/{webhook_token}/messages/@original"
    hook = "/webhooks/{webhook_id}/{webhook_token}"

    command = state.new_interaction(2, GUILD, GENERAL, ALICE)
    ids = {"interaction_id": command.id, "interaction_token": command.token}
    body = {"type": 4, "data": {"content": "Created", "flags": 64}}
    answer, _ = await api.call("POST", callback, path=ids, params={"with_response": "1"}, json=body, token=False)
    assert answer["interaction"]["response_message_ephemeral"] is True
    again, _ = await api.call("POST", callback, 400, path=ids, json=body, token=False)
    assert again["code"] == 40060
    webhook = {"webhook_id": state.application_id, "webhook_token": command.token}
    await api.call("GET", original, path=webhook, token=False)
    edited, _ = await api.call("PATCH", original, path=webhook, json={"content": "Created (edited)"}, token=False)
    assert edited["content"] == "Created (edited)" and edited["flags"] == 64

    deferred = state.new_interaction(2, GUILD, GENERAL, ALICE)
    ids = {"interaction_id": deferred.id, "interaction_token": deferred.token}
    answer, _ = await api.call("POST", callback, path=ids, params={"with_response": "1"}, json={"type": 5}, token=False)
    assert answer["interaction"]["response_message_loading"] is True
    webhook = {"webhook_id": state.application_id, "webhook_token": deferred.token}
    form = attachment_form({"content": "Pairings", "attachments": [{"id": 0, "filename": "r1.txt"}]}, "r1.txt", b"1")
    first, _ = await api.call("POST", hook, path=webhook, params={"wait": "true"}, data=form, token=False)
    assert first["id"] == answer["interaction"]["response_message_id"]  # it filled in the deferred message
    second, _ = await api.call(
        "POST", hook, path=webhook, params={"wait": "true"}, json={"content": "more"}, token=False
    )
    assert second["id"] != first["id"]
    message = "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}"
    await api.call("GET", message, path=webhook | {"message_id": second["id"]}, token=False)
    await api.call("DELETE", message, 204, path=webhook | {"message_id": second["id"]}, token=False)

    click = state.new_interaction(3, GUILD, GENERAL, ALICE, message_id=int(first["id"]))
    ids = {"interaction_id": click.id, "interaction_token": click.token}
    update = {"type": 7, "data": {"content": "Pairings (updated)", "components": []}}
    answer, _ = await api.call("POST", callback, path=ids, params={"with_response": "1"}, json=update, token=False)
    assert answer["resource"]["type"] == 7 and answer["resource"]["message"]["content"] == "Pairings (updated)"

    typing = state.new_interaction(4, GUILD, GENERAL, ALICE)
    ids = {"interaction_id": typing.id, "interaction_token": typing.token}
    choices = {"type": 8, "data": {"choices": [{"name": "Blitz", "value": "blitz"}]}}
    await api.call("POST", callback, path=ids, params={"with_response": "1"}, json=choices, token=False)
    wrong = state.new_interaction(4, GUILD, GENERAL, ALICE)
    ids = {"interaction_id": wrong.id, "interaction_token": wrong.token}
    error, _ = await api.call("POST", callback, 400, path=ids, json={"type": 4, "data": {"content": "x"}}, token=False)
    assert error["code"] == 50035
    gone, _ = await api.call("POST", callback, 404, path=ids | {"interaction_token": "nope"}, json=choices, token=False)
    assert gone["code"] == 10062


async def test_faults_and_rate_limits(api: Api, discord_sandbox: DiscordSandbox) -> None:
    async with api.http.post(
        discord_sandbox.url + "/sandbox/faults", json={"path": API + "/users/@me", "status": 429, "retry_after": 1.5}
    ) as resp:
        assert resp.status == 201
    limited, headers = await api.call("GET", "/users/@me", 429)
    assert limited["retry_after"] == 1.5 and limited["global"] is False
    assert headers["Retry-After"] == "2" and headers["Via"] and headers["X-RateLimit-Remaining"] == "0"
    await api.call("GET", "/users/@me")

    async with api.http.post(
        discord_sandbox.url + "/sandbox/faults", json={"path": API + "/guilds", "status": 500}
    ) as resp:
        assert resp.status == 201
    failed, _ = await api.call("GET", "/guilds/{guild_id}", 500, path={"guild_id": GUILD})
    assert failed["message"] == "500: Internal Server Error"

    discord_sandbox.state.rate_limit = 2
    discord_sandbox.state.buckets.clear()
    for remaining in ("1", "0"):
        _, headers = await api.call("GET", "/guilds/{guild_id}/roles", path={"guild_id": GUILD})
        assert headers["X-RateLimit-Remaining"] == remaining
    limited, headers = await api.call("GET", "/guilds/{guild_id}/roles", 429, path={"guild_id": GUILD})
    assert limited["retry_after"] > 0 and headers["X-RateLimit-Scope"] == "user"
    await api.call("GET", "/guilds/{guild_id}/channels", path={"guild_id": GUILD})  # another route, another bucket


def test_the_schema_check_can_fail() -> None:
    with pytest.raises(AssertionError, match="username"):
        check({"id": "1", "avatar": None}, "/users/@me", "get", 200)
    with pytest.raises(AssertionError, match="max_concurrency"):  # through a $ref
        check({"url": "ws://x", "shards": 1, "session_start_limit": {}}, "/gateway/bot", "get", 200)
    with pytest.raises(AssertionError, match="not valid under any"):  # a snowflake is digits
        check({"id": "x1", "type": 1, "flags": 0, "recipients": []}, "/channels/{channel_id}", "get", 200)


def _option(name: str, kind: int = 3, **extra: Any) -> dict[str, Any]:
    return {"name": name, "description": name, "type": kind} | extra


@pytest.mark.parametrize(
    ("commands", "where"),
    [
        ([{"name": "Swiss", "description": "x", "type": 1}], ["0", "name"]),
        ([{"name": "swiss", "description": "", "type": 1}], ["0", "description"]),
        ([{"name": "swiss", "description": "x" * 101, "type": 1}], ["0", "description"]),
        ([{"name": "swiss", "description": "x"}, {"name": "swiss", "description": "y"}], ["1"]),
        ([{"name": "swiss", "description": "x", "options": [_option(f"o{i}") for i in range(26)]}], ["0", "options"]),
        ([{"name": "swiss", "description": "x", "options": [_option("a", 12)]}], ["0", "options", "0", "type"]),
        (
            [{"name": "swiss", "description": "x", "options": [_option("a"), _option("a")]}],
            ["0", "options", "1", "name"],
        ),
        (
            [{"name": "swiss", "description": "x", "options": [_option("a"), _option("b", required=True)]}],
            ["0", "options", "1", "required"],
        ),
        (
            [{"name": "swiss", "description": "x", "options": [_option("a", 5, choices=[{"name": "y", "value": 1}])]}],
            ["0", "options", "0", "choices"],
        ),
        (
            [{"name": "swiss", "description": "x", "options": [_option("sub", 1, options=[_option("Bad")])]}],
            ["0", "options", "0", "options", "0", "name"],
        ),
    ],
)
async def test_invalid_commands_are_refused_as_discord_does(api: Api, commands: Any, where: list[str]) -> None:
    ids = {"application_id": api.sandbox.application_id, "guild_id": GUILD}
    error, _ = await api.call(
        "PUT", "/applications/{application_id}/guilds/{guild_id}/commands", 400, path=ids, json=commands
    )
    assert error["code"] == 50035
    node = error["errors"]
    for key in where:
        node = node[key]
    assert node["_errors"]
    assert api.sandbox.state.commands == {}  # nothing was synced
