"""The slash-command payloads the bot would sync: within Discord's limits, with the right permissions."""

from __future__ import annotations

import json
import re
from typing import Any

import discord
import pytest

from bot.cli import commands as cli_commands
from bot.discord.commands_payload import command_payloads

NAME = re.compile(r"^[-_\w]{1,32}$")
SUBCOMMAND, GROUP = 1, 2
MEMBER_COMMANDS = {"link", "unlink", "join", "withdraw", "bye", "standings", "pairings", "mygame", "fide"}
ORGANISER_SUBCOMMANDS = {
    "create", "edit", "open", "start", "pause", "resume", "next-round", "result",
    "forbid", "allow", "reinstate", "remove", "disqualify", "unban", "finish", "cancel", "export", "team",
}  # fmt: skip
TEAM_SUBCOMMANDS = {"add", "remove", "roster", "list"}
ARBITER_SUBCOMMANDS = {"swap", "pair", "bye", "repair", "confirm", "review", "fide", "header"}
ORGANISER_GROUPS = {"swiss", "arbiter"}


@pytest.fixture(scope="module")
def payloads() -> list[dict[str, Any]]:
    import asyncio

    return asyncio.run(command_payloads())


def _texts(item: dict[str, Any]) -> int:
    """The characters Discord counts towards a command's 8000 (names, descriptions, choices, recursively)."""
    total = len(item["name"]) + len(item.get("description", ""))
    for choice in item.get("choices", []):
        total += len(choice["name"]) + len(str(choice["value"]))
    return total + sum(_texts(option) for option in item.get("options", []))


def _check_item(item: dict[str, Any], where: str) -> None:
    assert NAME.match(item["name"]) and item["name"] == item["name"].lower(), where
    description = item["description"]
    assert 1 <= len(description) <= 100, where
    assert description != "…", f"{where} has no description"
    options = item.get("options", [])
    assert len(options) <= 25, where
    assert len(item.get("choices", [])) <= 25, where
    required_done = False
    for option in options:
        _check_item(option, f"{where} {option['name']}")
        if option.get("type") not in (SUBCOMMAND, GROUP):
            if not option.get("required", False):
                required_done = True
            else:
                assert not required_done, f"{where}: required option {option['name']} after an optional one"


def test_every_command_is_within_discords_limits(payloads: list[dict[str, Any]]) -> None:
    assert len(payloads) <= 100
    for command in payloads:
        _check_item(command, f"/{command['name']}")
        assert _texts(command) <= 8000
        assert len(json.dumps(command)) < 16_000


def test_the_expected_commands_exist(payloads: list[dict[str, Any]]) -> None:
    names = {c["name"] for c in payloads}
    assert names == MEMBER_COMMANDS | ORGANISER_GROUPS
    swiss = next(c for c in payloads if c["name"] == "swiss")
    assert {o["name"] for o in swiss["options"]} == ORGANISER_SUBCOMMANDS
    assert all(o["type"] == (GROUP if o["name"] == "team" else SUBCOMMAND) for o in swiss["options"])
    team = next(o for o in swiss["options"] if o["name"] == "team")
    assert {o["name"] for o in team["options"]} == TEAM_SUBCOMMANDS
    assert all(o["type"] == SUBCOMMAND for o in team["options"])
    arbiter = next(c for c in payloads if c["name"] == "arbiter")
    assert {o["name"] for o in arbiter["options"]} == ARBITER_SUBCOMMANDS
    assert all(o["type"] == SUBCOMMAND for o in arbiter["options"])


def test_commands_are_guild_only(payloads: list[dict[str, Any]]) -> None:
    for command in payloads:
        assert command["dm_permission"] is False, command["name"]
        assert command["contexts"] == [0], command["name"]  # 0: guild


def test_only_the_organiser_groups_carry_manage_events(payloads: list[dict[str, Any]]) -> None:
    by_name = {c["name"]: c for c in payloads}
    for name in ORGANISER_GROUPS:
        assert int(by_name[name]["default_member_permissions"]) == discord.Permissions(manage_events=True).value
    for name in MEMBER_COMMANDS:
        assert by_name[name]["default_member_permissions"] is None


def test_event_options_autocomplete(payloads: list[dict[str, Any]]) -> None:
    found = 0
    for command in payloads:
        for option in [command, *command.get("options", [])]:
            for sub in option.get("options", []):
                if sub["name"] == "event":
                    assert sub.get("autocomplete") is True, f"{command['name']} {option['name']}"
                    assert sub["required"] is False
                    found += 1
    assert found >= 18


def test_link_takes_an_optional_lichess_username(payloads: list[dict[str, Any]]) -> None:
    link = next(c for c in payloads if c["name"] == "link")
    assert [(o["name"], o["required"]) for o in link["options"]] == [("lichess-username", False)]


def test_result_choices_are_the_recorded_notation(payloads: list[dict[str, Any]]) -> None:
    swiss = next(c for c in payloads if c["name"] == "swiss")
    result = next(o for o in swiss["options"] if o["name"] == "result")
    choice_values = next(o for o in result["options"] if o["name"] == "result")["choices"]
    assert [c["value"] for c in choice_values] == ["1-0", "0-1", "1/2-1/2", "+-", "-+", "--"]


def test_cli_prints_the_same_payloads_as_json(
    capsys: pytest.CaptureFixture[str], payloads: list[dict[str, Any]]
) -> None:
    import argparse

    parser = argparse.ArgumentParser()
    cli_commands.register(parser.add_subparsers())
    args = parser.parse_args(["commands", "--json"])
    assert args.handler(args) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == payloads
    args = parser.parse_args(["commands"])
    assert args.handler(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "/swiss next-round  Pair and start the next round now" in lines
    assert "/swiss team add  Form a team from members in board order, or a role" in lines
    assert "/arbiter repair  Pair the round again from scratch (games not begun)" in lines
    groups = len(ORGANISER_SUBCOMMANDS) - 1 + len(TEAM_SUBCOMMANDS) + len(ARBITER_SUBCOMMANDS)
    assert len(lines) == len(MEMBER_COMMANDS) + len(ORGANISER_GROUPS) + groups
