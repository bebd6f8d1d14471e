"""`swissbot member NAME /command option:value ...`: a member of the local club types a slash command (through the
local Discord's control API, as their Discord client would send it) and the bot's answers are printed."""

from __future__ import annotations

import argparse
import json
import re
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from bot.cli import COMMANDS
from bot.cli.exit_codes import ExitCode, describe

EXITS = {
    ExitCode.OK: "the bot answered",
    ExitCode.FAILED: "the local Discord refused the command or the bot did not answer (the reason is printed)",
    ExitCode.USAGE: "no command, or an option not written name:value",
    ExitCode.BAD_INPUT: "no such member of the local club",
    ExitCode.UNREADABLE: "the folder has no club.json (start `swissbot local-club` first)",
    ExitCode.UNREACHABLE: "the local Discord does not answer",
}

TIMEOUT = 60.0
INTEGER = re.compile(r"-?[0-9]+")
NUMBER = re.compile(r"-?[0-9]*\.[0-9]+")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `member` subcommand."""
    parser = sub.add_parser(
        "member",
        help=COMMANDS["member"],
        description="Type a slash command as a member of the local club: `swissbot member olga /swiss create "
        'name:"Club Night" rounds:3`, `swissbot member alice /join`. Options are name:value (a whole number, a '
        "decimal, true/false, @member for a member, or text); the bot's answers are printed, a private one marked "
        "so. " + describe(EXITS),
    )
    parser.add_argument("--dir", type=Path, default=Path("local-club"), help="the club's folder (default local-club)")
    parser.add_argument("name", help="the member who types it (olga is the organiser)")
    parser.add_argument("words", nargs=argparse.REMAINDER, help="the command and its options, as typed in Discord")
    parser.set_defaults(handler=run)


def option_value(text: str, members: dict[str, str]) -> Any:
    """What Discord's client sends for a typed value: a number, a boolean, a member's id, or the text."""
    if INTEGER.fullmatch(text):
        return int(text)
    if NUMBER.fullmatch(text):
        return float(text)
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    if text.startswith("@") and text[1:] in members:
        return members[text[1:]]
    return text


def parse_words(words: list[str], members: dict[str, str]) -> tuple[str, dict[str, Any]]:
    """The command's name (its group and subcommand too) and its options; ValueError when it reads wrong."""
    names: list[str] = []
    options: dict[str, Any] = {}
    for word in words:
        if ":" in word:
            key, value = word.split(":", 1)
            if not key:
                raise ValueError(f"{word!r}: an option is name:value")
            options[key] = option_value(value, members)
        elif options:
            raise ValueError(f"{word!r} comes after the options: write it as name:value")
        else:
            names.append(word.lstrip("/"))
    if not names or not names[0]:
        raise ValueError("no command: e.g. swissbot member alice /join")
    return " ".join(names), options


def answer_text(response: dict[str, Any]) -> str:
    """One answer of the bot as text: its content, its embeds, its buttons, and whether only the member sees it."""
    parts = [response.get("content") or ""]
    for embed in response.get("embeds") or []:
        parts += [embed.get("title") or "", embed.get("description") or ""]
        parts += [f"{field.get('name')}: {field.get('value')}" for field in embed.get("fields") or []]
    for row in response.get("components") or []:
        for button in row.get("components") or []:
            if button.get("label"):
                parts.append(f"[{button['label']}]" + (f" {button['url']}" if button.get("url") else ""))
    parts += [f"(file {name})" for name in response.get("attachments") or []]
    text = "\n".join(part for part in parts if part)
    return f"(only you see this) {text}" if response.get("ephemeral") and text else text


def run(args: argparse.Namespace) -> ExitCode:
    """Send the interaction and print what the bot answered."""
    club_file = args.dir / "club.json"
    try:
        club = json.loads(club_file.read_text())
    except (OSError, ValueError) as error:
        print(f"swissbot member: cannot read {club_file} ({error}): start `swissbot local-club` first", file=sys.stderr)
        return ExitCode.UNREADABLE
    members: dict[str, str] = club["members"]
    if args.name not in members:
        print(f"swissbot member: no member {args.name!r}; the club's: {', '.join(members)}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    try:
        command, options = parse_words(args.words, members)
    except ValueError as error:
        print(f"swissbot member: {error}", file=sys.stderr)
        return ExitCode.USAGE
    body = {
        "guild_id": club["guild_id"],
        "channel_id": club["channel_id"],
        "user_id": members[args.name],
        "command": command,
        "options": options,
        "timeout": TIMEOUT,
    }
    request = urllib.request.Request(
        club["discord_url"] + "/sandbox/interactions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT + 10) as reply:
            answer = json.loads(reply.read())
    except urllib.error.HTTPError as error:
        try:
            reason = json.loads(error.read() or b"{}").get("error", error.reason)
        except ValueError:
            reason = error.reason
        if error.code == 409:  # the control API's "no bot is connected to the gateway"
            reason = f"{reason} (start `swissbot run`, or wait until it logs 'ready')"
        elif "is synced here" in str(reason):  # the commands were never pushed to the local Discord
            reason = f"{reason} (run `swissbot sync --config {args.dir / 'config.toml'} --guild {club['guild_id']}`)"
        print(f"swissbot member: the local Discord refused /{command}: {reason}", file=sys.stderr)
        return ExitCode.FAILED
    except (urllib.error.URLError, OSError) as error:
        print(f"swissbot member: the local Discord at {club['discord_url']} does not answer ({error})", file=sys.stderr)
        return ExitCode.UNREACHABLE
    for response in answer.get("responses", []):
        text = answer_text(response)
        if text:
            print(text)
    if answer.get("error"):
        print(f"swissbot member: {answer['error']} (is `swissbot run` running?)", file=sys.stderr)
        return ExitCode.FAILED
    return ExitCode.OK
