"""The tree's error handler and the persistent Join button."""

from __future__ import annotations

import logging
import re
from types import SimpleNamespace
from typing import Any

import discord
import pytest
from discord import app_commands

from bot.discord.actors import NotAnOrganiser
from bot.discord.components import JOIN_TEMPLATE, JoinButton, join_custom_id, join_view
from bot.discord.errors import APOLOGY, on_app_command_error
from bot.errors import InvalidSetting, JoiningClosed
from tests.bot.discord.discord_fakes import GUILD, Env, FakeInteraction, find_command, member


def _invoke_error(env: Env, error: Exception) -> app_commands.CommandInvokeError:
    return app_commands.CommandInvokeError(find_command(env.bot, "join"), error)


async def _handle(interaction: FakeInteraction, error: app_commands.AppCommandError) -> None:
    await on_app_command_error(interaction, error)  # type: ignore[arg-type]


async def test_domain_error_becomes_its_one_line_message_privately(env: Env) -> None:
    interaction = env.interaction(member("m"))
    await _handle(interaction, _invoke_error(env, JoiningClosed("Spring Swiss no longer takes entries.")))
    (answer,) = interaction.calls
    assert (answer.via, answer.method, answer.ephemeral) == ("response", "send_message", True)
    assert answer.content == "Spring Swiss no longer takes entries."


async def test_after_a_deferral_the_message_goes_to_the_followup(env: Env) -> None:
    interaction = env.interaction(member("m"))
    await interaction.response.defer(ephemeral=True, thinking=True)
    await _handle(interaction, _invoke_error(env, InvalidSetting("Bad clock.\nSecond line is dropped.")))
    answer = interaction.calls[-1]
    assert (answer.via, answer.ephemeral, answer.content) == ("followup", True, "Bad clock.")


async def test_unexpected_error_is_logged_with_context_and_the_user_gets_an_apology(
    env: Env, caplog: pytest.LogCaptureFixture
) -> None:
    user = member("m")
    interaction = env.interaction(user)
    interaction.command = find_command(env.bot, "join")
    interaction.namespace = SimpleNamespace(event="Spring")
    with caplog.at_level(logging.ERROR, logger="bot.discord.errors"):
        await _handle(interaction, _invoke_error(env, KeyError("secret internals")))
    assert interaction.answers[0].content == APOLOGY
    assert "secret" not in APOLOGY
    (record,) = [r for r in caplog.records if r.name == "bot.discord.errors"]
    assert f"command=/join user={user.id} guild=1000" in record.getMessage()
    assert "'event': 'Spring'" in record.getMessage()
    assert record.exc_info is not None and isinstance(record.exc_info[1], KeyError)


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (app_commands.NoPrivateMessage(), "This command works in a server only."),
        (NotAnOrganiser("Arbiter"), "Only members with the organiser role (Arbiter) can do that."),
        (app_commands.MissingPermissions(["manage_events"]), "You are not allowed to use this command."),
        (app_commands.CheckFailure(), "You are not allowed to use this command."),
    ],
)
async def test_check_failures_are_explained(env: Env, error: app_commands.AppCommandError, message: str) -> None:
    interaction = env.interaction(member("m"))
    await _handle(interaction, error)
    assert interaction.answers[0].content == message and interaction.answers[0].ephemeral


async def test_an_expired_interaction_is_logged_not_raised(env: Env, caplog: pytest.LogCaptureFixture) -> None:
    interaction = env.interaction(member("m"))

    async def expired(*args: Any, **kwargs: Any) -> None:
        response: Any = SimpleNamespace(status=404, reason="Not Found")
        raise discord.NotFound(response, {"code": 10062, "message": "Unknown interaction"})

    interaction.response.send_message = expired  # type: ignore[method-assign]
    with caplog.at_level(logging.WARNING, logger="bot.discord.errors"):
        await _handle(interaction, _invoke_error(env, JoiningClosed("closed")))
    assert any("could not answer" in r.getMessage() for r in caplog.records)


# --- the persistent Join button ----------------------------------------------------------------


def test_join_button_id_round_trips_through_its_template() -> None:
    custom_id = join_custom_id(123456789)
    assert len(custom_id) <= 100
    match = re.fullmatch(JOIN_TEMPLATE, custom_id)
    assert match is not None and match["event"] == "123456789"
    assert re.fullmatch(JOIN_TEMPLATE, "swiss:join:abc") is None
    view = join_view(7)
    assert view.timeout is None and view.is_persistent()
    (item,) = view.children
    assert isinstance(item, JoinButton) and item.custom_id == "swiss:join:7" and item.event_id == 7
    assert item.item.label == "Join"


async def test_setup_hook_registers_the_button_for_every_event(env: Env) -> None:
    # discord.py keeps dynamic items by their compiled template; a click on any old message finds it there.
    store = env.bot._connection._view_store
    assert JoinButton in store._dynamic_items.values()


async def _click(env: Env, user: Any, event_id: int) -> FakeInteraction:
    """A click on a message posted before a restart: rebuild the button from its id, then run it."""
    custom_id = join_custom_id(event_id)
    interaction = env.interaction(user)
    match = re.fullmatch(JOIN_TEMPLATE, custom_id)
    assert match is not None
    button = await JoinButton.from_custom_id(interaction, discord.ui.Button(custom_id=custom_id), match)  # type: ignore[arg-type]
    assert button.event_id == event_id
    await button.callback(interaction)  # type: ignore[arg-type]
    return interaction


async def test_clicking_join_enters_the_event(env: Env) -> None:
    await env.run("swiss create", env.organiser, name="Button Cup", rounds=3)
    await env.run("swiss open", env.organiser)
    (cup,) = await env.director.list_events(GUILD)
    frank = await env.linked("Frank", 1700)
    clicked = await _click(env, frank, cup.id)
    assert clicked.calls[0].method == "defer" and clicked.calls[0].ephemeral
    assert clicked.answers[-1].content == "You are in **Button Cup** as Frank (1700)."
    assert [e.name for e in await env.director.entries(cup.id)] == ["Frank"]

    refused = await _click(env, member("unlinked"), cup.id)
    assert refused.answers[-1].content == "Link your Lichess account first (/link)."
    assert refused.answers[-1].ephemeral
