"""Discord's mention syntax in a typed option, turned into what the director takes: Discord ids and names."""

from __future__ import annotations

import re

from bot.errors import InvalidSetting

MEMBER_MENTION = re.compile(r"<@!?(\d+)>")
ROLE_MENTION = re.compile(r"<@&(\d+)>")


def player_key(text: str) -> str:
    """A player named in an option, as the director finds them: a member's mention as their Discord id, a typed
    `@name` as the name; anything else as typed (a Lichess name, a Discord id, `#number`)."""
    typed = text.strip()
    member = MEMBER_MENTION.fullmatch(typed)
    if member is not None:
        return member.group(1)
    if ROLE_MENTION.fullmatch(typed) is not None:
        raise InvalidSetting(f"{typed} is a role, not a member: name the players (a team takes a role as its role).")
    return typed.lstrip("@")


def player_keys(text: str) -> list[str]:
    """Players named in one option, separated by spaces or commas, each as `player_key` gives it."""
    return [player_key(word) for word in text.replace(",", " ").split()]
