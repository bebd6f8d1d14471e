"""/swiss team through the local Discord and the real bot: a bad roster is refused in one sentence, a good one
forms the team, a role's joined members form one, and /swiss team list shows boards and reserves."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from discord.gateway import DiscordWebSocket
from discord.http import Route

from tests.bot.discord.test_real_bot import (
    ALICE,
    BOB,
    CAROL,
    CHANNEL,
    GUILD,
    HELPER_ROLE,
    OLGA,
    Club,
    link,
    running_club,
    text_of,
)

pytestmark = pytest.mark.slow  # the real bot against both local services


@pytest.fixture
async def team_club(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Club]:
    """The club with a team event of two boards open, alice and bob linked and joined (carol neither)."""
    monkeypatch.setattr(Route, "BASE", Route.BASE)
    monkeypatch.setattr(DiscordWebSocket, "DEFAULT_GATEWAY", DiscordWebSocket.DEFAULT_GATEWAY)
    async with running_club(tmp_path) as club:
        created = await club.command(OLGA, "swiss create", name="Club Teams", rounds=3, system="team", boards=2)
        assert "teams of 2 boards" in text_of(created)
        await club.command(OLGA, "swiss open")
        for user, name in ((ALICE, "alice"), (BOB, "bob")):
            await link(club, user, name)
            assert "Club Teams" in text_of(await club.command(user, "join"))
        yield club


def _one_sentence(responses: list[dict[str, object]]) -> str:
    """The bot's private answer, checked to be a single sentence."""
    assert responses and responses[-1]["ephemeral"]
    text = text_of(responses).strip()
    assert "\n" not in text and text.endswith(".") and text.count(". ") == 0, text
    return text


async def test_a_bad_roster_is_refused_in_one_sentence_and_a_good_one_forms_the_team(team_club: Club) -> None:
    club = team_club
    short = await club.command(OLGA, "swiss team add", name="Knights", members=f"<@{ALICE}>")
    assert _one_sentence(short) == "A team needs at least 2 players (the event's boards), got 1."
    stranger = await club.command(OLGA, "swiss team add", name="Knights", members=f"<@{ALICE}> <@{CAROL}>")
    assert "has not linked a Lichess account" in _one_sentence(stranger)
    neither = await club.command(OLGA, "swiss team add", name="Knights")
    assert _one_sentence(neither) == "Give the team's members or a role, not both and not neither."
    assert await club.bot.director.list_teams(1) == []  # nothing was stored by the refusals

    formed = await club.command(OLGA, "swiss team add", name="Knights", members=f"<@{BOB}>, <@{ALICE}>")
    assert "Knights: bob, alice" in text_of(formed)
    twice = await club.command(OLGA, "swiss team add", name="Rooks", members=f"<@{ALICE}> <@{BOB}>")
    assert _one_sentence(twice) == "Alice is already in team Knights."
    # carol has the Helper role but did not join: the role gives no joined member, which is one sentence too
    by_role = await club.command(OLGA, "swiss team add", name="Helpers", role=str(HELPER_ROLE))
    assert _one_sentence(by_role) == "A team needs at least 2 players (the event's boards), got 0."
    # once carol joins, the role's members are read from Discord: one joined member, still short of two boards
    club.lichess.add_user("carol", rating=1600)
    await link(club, CAROL, "carol")
    await club.command(CAROL, "join")
    by_role = await club.command(OLGA, "swiss team add", name="Helpers", role=str(HELPER_ROLE))
    assert _one_sentence(by_role) == "A team needs at least 2 players (the event's boards), got 1."
    listed = await club.command(OLGA, "swiss team list")
    assert text_of(listed).strip() == "1. Knights: bob, alice"


async def test_team_names_autocomplete_in_remove(team_club: Club) -> None:
    club = team_club
    await club.command(OLGA, "swiss team add", name="Knights", members=f"<@{ALICE}> <@{BOB}>")
    body = {"guild_id": str(GUILD), "channel_id": str(CHANNEL), "user_id": str(OLGA), "command": "swiss team remove"}
    answer = await club.control("/sandbox/autocomplete", {**body, "options": {"name": "kni"}, "focused": "name"})
    assert [c["value"] for c in answer["choices"]] == ["Knights"]
    nothing = await club.control("/sandbox/autocomplete", {**body, "options": {"name": "zz"}, "focused": "name"})
    assert nothing["choices"] == []
    removed = await club.command(OLGA, "swiss team remove", name="Knights")
    assert "Team Knights is removed from **Club Teams**" in text_of(removed)
    assert await club.bot.director.list_teams(1) == []


async def test_an_organiser_names_players_by_mention_and_a_role_mention_is_refused(team_club: Club) -> None:
    club = team_club
    forbidden = await club.command(OLGA, "swiss forbid", **{"player-a": f"<@{ALICE}>", "player-b": f"<@!{BOB}>"})
    assert "will not be paired together" in text_of(forbidden)
    role = await club.command(OLGA, "swiss remove", player=f"<@&{HELPER_ROLE}>")
    assert _one_sentence(role).startswith(f"<@&{HELPER_ROLE}> is a role, not a member")
    removed = await club.command(OLGA, "swiss remove", player=f"<@{ALICE}>")
    assert "Removed alice from **Club Teams**" in text_of(removed)
