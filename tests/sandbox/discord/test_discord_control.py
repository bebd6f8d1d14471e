"""The control API on its own (no bot connected): setting up guilds, and who may run which command."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from sandbox.discord import DiscordSandbox, run_discord_sandbox
from tests.sandbox.discord.conftest import (
    ALICE,
    GENERAL,
    GUILD,
    HTTP_TIMEOUT,
    ORGANISER,
    PLAYER_ROLE,
    control,
    populate,
    run_command,
)

ADMIN_ROLE = 700000000000000023
OWNER = 800000000000000009
ADMINISTRATOR = 1 << 3


async def sync(sandbox: DiscordSandbox, commands: list[dict[str, Any]], guild: int | None = GUILD) -> None:
    """Sync commands as a bot would (REST, with the bot token)."""
    scope = f"/guilds/{guild}" if guild is not None else ""
    url = f"{sandbox.url}/api/v10/applications/{sandbox.application_id}{scope}/commands"
    async with (
        aiohttp.ClientSession(headers={"Authorization": f"Bot {sandbox.token}"}, timeout=HTTP_TIMEOUT) as http,
        http.put(url, json=commands) as resp,
    ):
        assert resp.status == 200, await resp.text()


def command(name: str, permissions: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"name": name, "description": name, "type": 1, "default_member_permissions": permissions} | extra


@pytest.fixture
async def restricted(discord_sandbox: DiscordSandbox) -> DiscordSandbox:
    """Commands open to all, to Manage Server, to administrators only; an admin role and an owner."""
    await sync(discord_sandbox, [command("open"), command("manage", "32"), command("admins", "0")])
    guild: dict[str, Any] = {"id": str(GUILD), "name": "Chess Club", "owner_id": str(OWNER)}
    guild["roles"] = [{"id": str(ADMIN_ROLE), "name": "Admin", "permissions": ADMINISTRATOR}]
    status, _ = await control(discord_sandbox, "POST", "/sandbox/guilds", guild)
    assert status == 201
    member = {"guild_id": str(GUILD), "user": {"id": "800000000000000010", "name": "ada"}, "roles": [str(ADMIN_ROLE)]}
    status, _ = await control(discord_sandbox, "POST", "/sandbox/members", member)
    assert status == 201
    return discord_sandbox


@pytest.mark.parametrize(
    ("name", "user", "allowed"),
    [
        ("open", ALICE, True),
        ("manage", ALICE, False),
        ("manage", ORGANISER, True),
        ("manage", OWNER, True),
        ("admins", ORGANISER, False),
        ("admins", 800000000000000010, True),
        ("admins", OWNER, True),
    ],
)
async def test_default_member_permissions(restricted: DiscordSandbox, name: str, user: int, allowed: bool) -> None:
    status, body = await run_command(restricted, name, user=user)
    if allowed:  # the interaction gets as far as the gateway, where no bot is connected
        assert (status, body["error"]) == (409, "no bot is connected to the gateway")
    else:
        assert status == 403 and "lacks the permissions" in body["error"]


async def test_commands_and_dms(discord_sandbox: DiscordSandbox) -> None:
    await sync(discord_sandbox, [command("guildonly")])
    await sync(discord_sandbox, [command("anywhere"), command("serveronly", contexts=[0])], guild=None)
    dm = {"user_id": str(ALICE), "options": {}}
    status, body = await control(discord_sandbox, "POST", "/sandbox/interactions", dm | {"command": "guildonly"})
    assert status == 404 and "no command /guildonly" in body["error"]
    status, body = await control(discord_sandbox, "POST", "/sandbox/interactions", dm | {"command": "serveronly"})
    assert status == 403
    status, body = await control(discord_sandbox, "POST", "/sandbox/interactions", dm | {"command": "anywhere"})
    assert status == 409
    status, body = await run_command(discord_sandbox, "anywhere")  # a global command in the guild too
    assert status == 409
    status, commands = await control(discord_sandbox, "GET", f"/sandbox/commands/{GUILD}")
    assert [c["name"] for c in commands] == ["guildonly", "anywhere", "serveronly"]
    status, commands = await control(discord_sandbox, "GET", "/sandbox/commands/global")
    assert [c["name"] for c in commands] == ["anywhere", "serveronly"]


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("/sandbox/guilds", {"id": "x", "name": "Club"}, 400),
        ("/sandbox/guilds", {"id": "1", "name": ""}, 400),
        ("/sandbox/guilds", {"id": "1", "name": "Club", "roles": [{"id": "2", "name": "r", "permissions": "-1"}]}, 400),
        ("/sandbox/members", {"guild_id": "1", "user": {"id": "2", "name": "x"}}, 404),
        ("/sandbox/members", {"guild_id": str(GUILD), "user": {"id": "2", "name": "x"}, "roles": ["5"]}, 400),
        ("/sandbox/members", {"guild_id": str(GUILD), "user": {"id": "2", "name": "x"}, "roles": [str(GUILD)]}, 400),
        ("/sandbox/interactions", {"guild_id": str(GUILD), "channel_id": "1", "user_id": str(ALICE)}, 404),
        ("/sandbox/interactions", {"guild_id": str(GUILD), "channel_id": str(GENERAL), "user_id": "1"}, 404),
        ("/sandbox/interactions", {"guild_id": str(GUILD), "channel_id": str(GENERAL), "user_id": str(ALICE)}, 400),
        ("/sandbox/components", {"message_id": "1", "custom_id": "x", "user_id": str(ALICE)}, 404),
        ("/sandbox/faults", {"path": "/sandbox/guilds", "status": 500}, 400),
        ("/sandbox/faults", {"path": "/api/v10/users", "status": 200}, 400),
        ("/sandbox/faults", {"path": "/api/v10/users"}, 400),
        ("/sandbox/gateway/disconnect", {"op": "explode"}, 400),
    ],
)
async def test_bad_control_requests(discord_sandbox: DiscordSandbox, path: str, body: Any, status: int) -> None:
    got, reply = await control(discord_sandbox, "POST", path, body)
    assert got == status and reply["error"]


async def test_a_member_outside_the_guild_cannot_run_commands(discord_sandbox: DiscordSandbox) -> None:
    other = {"id": "700000000000000050", "name": "Other", "channels": [{"id": "700000000000000051", "name": "x"}]}
    await control(discord_sandbox, "POST", "/sandbox/guilds", other)
    body = {"guild_id": other["id"], "channel_id": "700000000000000051", "user_id": str(ALICE), "command": "x"}
    status, reply = await control(discord_sandbox, "POST", "/sandbox/interactions", body)
    assert status == 403 and "not a member" in reply["error"]


async def test_members_and_roles_update(discord_sandbox: DiscordSandbox) -> None:
    body = {"guild_id": str(GUILD), "user": {"id": str(ALICE), "name": "alice"}, "roles": [], "nick": "Al"}
    status, member = await control(discord_sandbox, "POST", "/sandbox/members", body)
    assert status == 201 and member["roles"] == [] and member["nick"] == "Al"
    guild = {
        "id": str(GUILD),
        "name": "Renamed",
        "roles": [{"id": str(PLAYER_ROLE), "name": "Players", "permissions": 8}],
    }
    status, shown = await control(discord_sandbox, "POST", "/sandbox/guilds", guild)
    assert status == 201 and shown["name"] == "Renamed"
    assert {r["name"]: r["permissions"] for r in shown["roles"]}["Players"] == "8"
    assert len(shown["channels"]) == 2  # the earlier channels stay


async def test_a_seed_repeats_every_id_and_token() -> None:
    runs = []
    for seed in (5, 5, None):
        async with run_discord_sandbox(seed=seed) as sandbox:
            await populate(sandbox)
            interaction = sandbox.state.new_interaction(2, GUILD, GENERAL, ALICE)
            runs.append((interaction.id, interaction.token))
    assert runs[0] == runs[1]
    assert runs[2][1] != runs[0][1]
