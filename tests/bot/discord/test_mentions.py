"""Mentions typed into an option become the Discord ids and names the director takes."""

from __future__ import annotations

import pytest

from bot.discord.mentions import player_key, player_keys
from bot.errors import InvalidSetting


@pytest.mark.parametrize(
    ("typed", "key"),
    [("<@123>", "123"), (" <@!456> ", "456"), ("@Alice", "Alice"), ("alice", "alice"), ("#3", "#3"), ("789", "789")],
)
def test_a_member_mention_is_their_id_and_anything_else_the_name_as_typed(typed: str, key: str) -> None:
    assert player_key(typed) == key


def test_a_role_mention_is_refused_in_one_sentence() -> None:
    with pytest.raises(InvalidSetting, match=r"^<@&77> is a role, not a member"):
        player_key("<@&77>")


def test_players_are_separated_by_spaces_or_commas() -> None:
    assert player_keys("<@1>, <@!2> @carol,dave") == ["1", "2", "carol", "dave"]
