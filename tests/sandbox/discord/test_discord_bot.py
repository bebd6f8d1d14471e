"""The toy discord.py bot, unchanged, against the local Discord: commands, answers, buttons, faults, RESUME."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import discord
import pytest

from sandbox.discord import DiscordSandbox
from sandbox.discord.state import BOT_TOKEN
from tests.sandbox.discord.conftest import (
    ALICE,
    BOB,
    GENERAL,
    GUILD,
    HTTP_TIMEOUT,
    ORGANISER,
    PLAYER_ROLE,
    control,
    run_command,
    running_bot,
)
from tests.sandbox.discord.toy_bot import OUT_BUTTON, READY_BUTTON, REFRESH_BUTTON, ToyBot

WAIT = 5.0


async def eventually(check: Any, timeout: float = WAIT) -> None:
    """Poll until `check()` holds (bounded)."""
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.02)


def one(body: Any) -> dict[str, Any]:
    responses = body["responses"]
    assert len(responses) == 1, responses
    found: dict[str, Any] = responses[0]
    return found


async def announce(sandbox: DiscordSandbox) -> dict[str, Any]:
    """Run /swiss announce and return the channel message it posted."""
    status, body = await run_command(sandbox, "swiss announce")
    assert status == 200, body
    deferred, followup = body["responses"]
    assert (deferred["type"], deferred["ephemeral"], deferred["content"]) == (5, True, None)
    assert followup["type"] == "followup" and followup["ephemeral"] is True
    _, messages = await control(sandbox, "GET", f"/sandbox/channels/{GENERAL}/messages")
    posted = [m for m in messages if not m["interaction"]]
    assert len(posted) == 1
    assert followup["content"] == f"posted {posted[0]['id']}"
    found: dict[str, Any] = posted[0]
    return found


async def test_the_bot_syncs_its_commands(discord_sandbox: DiscordSandbox, bot: ToyBot) -> None:
    status, commands = await control(discord_sandbox, "GET", f"/sandbox/commands/{GUILD}")
    assert status == 200
    by_name = {c["name"]: c for c in commands}
    assert sorted(by_name) == ["reset", "swiss", "whois"]
    assert [c.id for c in bot.synced] == [int(c["id"]) for c in commands]
    assert by_name["reset"]["default_member_permissions"] == str(1 << 5)
    swiss = {o["name"]: o for o in by_name["swiss"]["options"]}
    create = {o["name"]: o for o in swiss["create"]["options"]}
    assert (create["rounds"]["min_value"], create["rounds"]["max_value"]) == (1, 11)
    assert [c["value"] for c in create["speed"]["choices"]] == ["blitz", "rapid"]
    assert swiss["round"]["type"] == 2 and swiss["round"]["options"][0]["name"] == "start"


async def test_a_public_reply_is_posted_in_the_channel(discord_sandbox: DiscordSandbox, bot: ToyBot) -> None:
    status, body = await run_command(
        discord_sandbox, "swiss create", {"name": "Blitz", "rounds": 5, "speed": "rapid", "ratio": 1.5}
    )
    assert status == 200
    answer = one(body)
    assert answer["type"] == 4 and answer["ephemeral"] is False
    assert answer["content"] == "Created Blitz: 5 rounds, rapid, rated=True, ratio=1.5"
    _, messages = await control(discord_sandbox, "GET", f"/sandbox/channels/{GENERAL}/messages")
    assert [(m["content"], m["interaction"]) for m in messages] == [(answer["content"], True)]


async def test_an_ephemeral_reply_stays_out_of_the_channel(discord_sandbox: DiscordSandbox, bot: ToyBot) -> None:
    status, body = await run_command(discord_sandbox, "swiss join", {"event": "Blitz Monday"})
    assert status == 200
    assert one(body) | {"message_id": None} == {
        "type": 4,
        "content": "Joined Blitz Monday",
        "embeds": [],
        "components": [],
        "attachments": [],
        "ephemeral": True,
        "message_id": None,
    }
    _, messages = await control(discord_sandbox, "GET", f"/sandbox/channels/{GENERAL}/messages")
    assert messages == []


async def test_a_subcommand_in_a_group(discord_sandbox: DiscordSandbox, bot: ToyBot) -> None:
    status, body = await run_command(discord_sandbox, "swiss round start", {"number": 3})
    assert status == 200
    assert one(body)["content"] == "Round 3 started"


async def test_deferred_then_followup_with_an_embed_and_a_file(discord_sandbox: DiscordSandbox, bot: ToyBot) -> None:
    status, body = await run_command(discord_sandbox, "swiss pair")
    assert status == 200
    deferred, followup = body["responses"]
    assert (deferred["type"], deferred["ephemeral"], deferred["content"]) == (5, False, None)
    assert followup["type"] == "followup" and followup["ephemeral"] is False
    assert followup["message_id"] == deferred["message_id"]  # the followup filled in the "thinking" message
    assert followup["attachments"] == ["round1.txt"]
    (embed,) = followup["embeds"]
    assert embed["title"] == "Round 1" and embed["fields"][0]["value"] == "2"
    # the followup filled in the "thinking" message: one message in the channel, with the file's bytes
    _, messages = await control(discord_sandbox, "GET", f"/sandbox/channels/{GENERAL}/messages")
    assert [m["id"] for m in messages] == [followup["message_id"]]
    headers = {"Authorization": f"Bot {discord_sandbox.token}"}
    async with aiohttp.ClientSession(headers=headers, timeout=HTTP_TIMEOUT) as http:
        url = f"{discord_sandbox.url}/api/v10/channels/{GENERAL}/messages/{followup['message_id']}"
        async with http.get(url) as resp:
            message = await resp.json()
        async with http.get(message["attachments"][0]["url"]) as resp:
            assert await resp.read() == b"1 Alice Bob\n2 Carol Dave\n"


async def test_a_modal(discord_sandbox: DiscordSandbox, bot: ToyBot) -> None:
    status, body = await run_command(discord_sandbox, "swiss feedback")
    assert status == 200
    modal = one(body)
    assert (modal["type"], modal["custom_id"], modal["title"]) == (9, "toy:feedback", "Event feedback")
    assert modal["components"][0]["components"][0]["custom_id"] == "toy:comment"


async def test_deferred_ephemeral_then_edited(discord_sandbox: DiscordSandbox, bot: ToyBot) -> None:
    status, body = await run_command(discord_sandbox, "swiss standings")
    assert status == 200
    deferred, edit = body["responses"]
    assert (deferred["type"], deferred["ephemeral"]) == (5, True)
    assert edit["type"] == "edit" and edit["ephemeral"] is True
    assert edit["content"] == "1. Alice 1.0\n2. Carol 1.0"


@pytest.mark.parametrize(
    ("command", "options", "complaint"),
    [
        ("swiss create", {"name": "Blitz", "rounds": 5, "colour": "red"}, "unknown option"),
        ("swiss create", {"name": "Blitz"}, "missing required option 'rounds'"),
        ("swiss create", {"name": "Blitz", "rounds": 12}, "out of range"),
        ("swiss create", {"name": "Blitz", "rounds": 0}, "out of range"),
        ("swiss create", {"name": "x" * 31, "rounds": 5}, "length"),
        ("swiss create", {"name": "Blitz", "rounds": 5, "speed": "bullet"}, "not one of the choices"),
        ("swiss create", {"name": "Blitz", "rounds": "5"}, "an integer"),
        ("swiss create", {"name": "Blitz", "rounds": 5.0}, "an integer"),
        ("swiss create", {"name": "Blitz", "rounds": True}, "an integer"),
        ("swiss create", {"name": "Blitz", "rounds": 5, "rated": "yes"}, "true or false"),
        ("swiss create", {"name": "Blitz", "rounds": 5, "ratio": "1.5"}, "a number"),
        ("swiss create", {"name": 7, "rounds": 5}, "a string"),
        ("swiss nope", {}, "no subcommand"),
        ("swiss round", {}, "not a command by itself"),
        ("swiss", {}, "not a command by itself"),
        ("chess", {}, "no command /chess"),
        ("whois", {"player": "123"}, "no such user"),
        ("whois", {"player": str(BOB), "team": str(BOB)}, "no such role"),
    ],
)
async def test_options_discord_would_never_send_are_refused(
    discord_sandbox: DiscordSandbox, bot: ToyBot, command: str, options: dict[str, Any], complaint: str
) -> None:
    status, body = await run_command(discord_sandbox, command, options)
    assert status in (400, 404), body
    assert complaint in body["error"]
    assert discord_sandbox.state.interactions == {}  # nothing was dispatched


async def test_user_and_role_options_arrive_resolved(discord_sandbox: DiscordSandbox, bot: ToyBot) -> None:
    status, body = await run_command(discord_sandbox, "whois", {"player": str(BOB), "team": str(PLAYER_ROLE)})
    assert status == 200
    assert one(body)["content"] == "bob in Player"


async def test_autocomplete_returns_the_bots_choices(discord_sandbox: DiscordSandbox, bot: ToyBot) -> None:
    body = {
        "guild_id": str(GUILD),
        "channel_id": str(GENERAL),
        "user_id": str(ALICE),
        "command": "swiss join",
        "options": {"event": "blitz"},
        "focused": "event",
    }
    status, reply = await control(discord_sandbox, "POST", "/sandbox/autocomplete", body)
    assert status == 200
    assert reply == {
        "choices": [
            {"name": "Blitz Monday", "value": "Blitz Monday"},
            {"name": "Blitz Thursday", "value": "Blitz Thursday"},
        ]
    }
    not_autocompleted = body | {"options": {"event": "Blitz Monday", "note": "late"}, "focused": "note"}
    status, reply = await control(discord_sandbox, "POST", "/sandbox/autocomplete", not_autocompleted)
    assert status == 400 and "no autocomplete" in reply["error"]


async def test_default_member_permissions_are_respected(discord_sandbox: DiscordSandbox, bot: ToyBot) -> None:
    status, body = await run_command(discord_sandbox, "reset", user=ALICE)
    assert status == 403 and "lacks the permissions" in body["error"]
    status, body = await run_command(discord_sandbox, "reset", user=ORGANISER)
    assert status == 200
    assert one(body)["content"] == "Reset done" and one(body)["ephemeral"] is True


async def test_member_permissions_and_roles_in_the_payload(discord_sandbox: DiscordSandbox, bot: ToyBot) -> None:
    await run_command(discord_sandbox, "swiss round start", {"number": 1}, user=ORGANISER)
    (interaction,) = bot.interactions
    assert isinstance(interaction.user, discord.Member)
    assert interaction.permissions.manage_guild and not interaction.permissions.administrator
    assert [r.name for r in interaction.user.roles] == ["@everyone", "Organiser"]


async def test_an_announcement_with_embed_file_button_edit_and_dm(discord_sandbox: DiscordSandbox, bot: ToyBot) -> None:
    posted = await announce(discord_sandbox)
    assert posted["content"] == "Round 1 is paired (edited)"
    assert [e["content"] for e in posted["edits"]] == ["Round 1 is paired"]
    assert posted["attachments"] == ["round1.pgn"]
    assert posted["embeds"][0]["title"] == "Blitz Monday"
    assert posted["components"][0]["components"][0]["custom_id"] == READY_BUTTON
    status, dms = await control(discord_sandbox, "GET", f"/sandbox/dms/{ALICE}")
    assert status == 200
    assert [m["content"] for m in dms] == ["You play Bob on board 1"]

    click = {"message_id": posted["id"], "custom_id": READY_BUTTON, "user_id": str(BOB)}
    status, body = await control(discord_sandbox, "POST", "/sandbox/components", click)
    assert status == 200
    answer = one(body)
    assert answer["content"] == f"<@{BOB}> is ready" and answer["ephemeral"] is True
    status, body = await control(discord_sandbox, "POST", "/sandbox/components", click | {"custom_id": "nope"})
    assert status == 404


async def test_a_post_resent_with_its_enforced_nonce_lands_once(discord_sandbox: DiscordSandbox, bot: ToyBot) -> None:
    channel = bot.get_channel(GENERAL)
    assert isinstance(channel, discord.TextChannel)
    first = await channel.send("Round 1 results", nonce="post-7")  # discord.py sends enforce_nonce with a nonce
    again = await channel.send("Round 1 results", nonce="post-7")
    other = await channel.send("Round 2 results", nonce="post-8")
    assert again.id == first.id != other.id and first.nonce == "post-7"
    _, messages = await control(discord_sandbox, "GET", f"/sandbox/channels/{GENERAL}/messages")
    assert [m["content"] for m in messages] == ["Round 1 results", "Round 2 results"]
    url = f"{discord_sandbox.url}/api/v10/channels/{GENERAL}/messages"
    headers = {"Authorization": f"Bot {BOT_TOKEN}"}
    async with aiohttp.ClientSession() as http:
        async with http.post(url, json={"content": "again", "nonce": "post-7"}, headers=headers) as unenforced:
            assert unenforced.status == 200  # a nonce without enforce_nonce is not checked
        async with http.post(url, json={"content": "x", "nonce": "n" * 26}, headers=headers) as too_long:
            assert too_long.status == 400


async def test_buttons_that_update_their_message(discord_sandbox: DiscordSandbox, bot: ToyBot) -> None:
    posted = await announce(discord_sandbox)
    click = {"message_id": posted["id"], "custom_id": OUT_BUTTON, "user_id": str(BOB)}
    status, body = await control(discord_sandbox, "POST", "/sandbox/components", click)
    assert status == 200
    update = one(body)
    assert update["type"] == 7 and update["message_id"] == posted["id"]
    assert update["content"] == f"Round 1 is paired (edited) (without <@{BOB}>)"

    click = {"message_id": posted["id"], "custom_id": REFRESH_BUTTON, "user_id": str(ALICE)}
    status, body = await control(discord_sandbox, "POST", "/sandbox/components", click)
    assert status == 200
    deferred, edit = body["responses"]
    assert (deferred["type"], deferred["message_id"], deferred["content"]) == (6, posted["id"], None)
    assert edit["type"] == "edit" and edit["message_id"] == posted["id"] and edit["components"] == []
    _, messages = await control(discord_sandbox, "GET", f"/sandbox/channels/{GENERAL}/messages")
    (message,) = [m for m in messages if m["id"] == posted["id"]]
    assert message["content"] == "Round 1 is paired (refreshed)"
    assert [e["content"] for e in message["edits"]] == [
        "Round 1 is paired",
        "Round 1 is paired (edited)",
        f"Round 1 is paired (edited) (without <@{BOB}>)",
    ]
    status, body = await control(discord_sandbox, "POST", "/sandbox/components", click)
    assert status == 404  # the buttons are gone


async def test_a_guild_created_while_connected_reaches_the_bot(discord_sandbox: DiscordSandbox, bot: ToyBot) -> None:
    guild = {"id": "700000000000000099", "name": "Second Club", "channels": [{"id": "700000000000000098", "name": "x"}]}
    status, _ = await control(discord_sandbox, "POST", "/sandbox/guilds", guild)
    assert status == 201
    await eventually(lambda: bot.get_guild(700000000000000099) is not None)
    joined = bot.get_guild(700000000000000099)
    assert joined is not None and [c.name for c in joined.text_channels] == ["x"]


@pytest.mark.slow
async def test_an_answer_later_than_3_seconds_is_not_a_response(discord_sandbox: DiscordSandbox, bot: ToyBot) -> None:
    status, body = await run_command(discord_sandbox, "swiss slow")
    assert status == 200
    assert body == {"responses": [], "error": "The application did not respond"}
    # the late answer is refused with Discord's 404 Unknown interaction
    await eventually(lambda: bot.late_answers_refused == 1)


async def test_a_429_is_waited_out(discord_sandbox: DiscordSandbox, bot: ToyBot) -> None:
    path = f"/api/v10/channels/{GENERAL}/messages"
    status, _ = await control(
        discord_sandbox, "POST", "/sandbox/faults", {"path": path, "status": 429, "retry_after": 0.3}
    )
    assert status == 201
    await announce(discord_sandbox)
    _, log = await control(discord_sandbox, "GET", "/sandbox/requests")
    assert [r["status"] for r in log if r["method"] == "POST" and r["path"] == path] == [429, 200]


async def test_a_500_is_retried(discord_sandbox: DiscordSandbox, bot: ToyBot) -> None:
    path = f"/api/v10/channels/{GENERAL}/messages"
    status, _ = await control(discord_sandbox, "POST", "/sandbox/faults", {"path": path, "status": 500})
    assert status == 201
    await announce(discord_sandbox)
    _, log = await control(discord_sandbox, "GET", "/sandbox/requests")
    assert [r["status"] for r in log if r["method"] == "POST" and r["path"] == path] == [500, 200]


async def test_the_bot_resumes_after_the_socket_drops(discord_sandbox: DiscordSandbox, bot: ToyBot) -> None:
    status, body = await control(discord_sandbox, "POST", "/sandbox/gateway/disconnect", {"code": 4000})
    assert status == 200 and body == {"sockets": 1}
    # dispatched right after the drop: it reaches the bot live or replayed on RESUME (see test_discord_gateway)
    status, body = await run_command(discord_sandbox, "swiss round start", {"number": 2})
    assert status == 200
    assert one(body)["content"] == "Round 2 started"
    await asyncio.wait_for(bot.resumed.wait(), WAIT)
    _, sessions = await control(discord_sandbox, "GET", "/sandbox/gateway")
    assert [(s["connected"], s["resumes"]) for s in sessions] == [(True, 1)]


async def test_a_persistent_button_works_after_a_restart(discord_sandbox: DiscordSandbox) -> None:
    async with running_bot(discord_sandbox):
        posted = await announce(discord_sandbox)
    async with running_bot(discord_sandbox):
        click = {"message_id": posted["id"], "custom_id": READY_BUTTON, "user_id": str(ALICE)}
        status, body = await control(discord_sandbox, "POST", "/sandbox/components", click)
        assert status == 200
        assert one(body)["content"] == f"<@{ALICE}> is ready"


async def test_no_bot_no_interaction(discord_sandbox: DiscordSandbox) -> None:
    status, body = await run_command(discord_sandbox, "swiss create", {"name": "Blitz", "rounds": 5})
    assert status == 404  # nothing synced yet
    assert "no command /swiss" in body["error"]


async def test_a_wrong_token_cannot_log_in(discord_sandbox: DiscordSandbox) -> None:
    client = discord.Client(intents=discord.Intents.default())
    with pytest.raises(discord.LoginFailure):
        await client.login("not-the-token")
    await client.close()
