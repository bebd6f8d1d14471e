"""Members and organisers through the real cogs: /mygame picks the event of this server, the Join button refuses an
event of another server, and the member and organiser controls (/bye cancel, /swiss allow, reinstate, disqualify)."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import discord

from bot.director.models import Actor
from bot.discord.components import JOIN_TEMPLATE, JoinButton, join_custom_id
from domain.settings import EventSettings
from tests.bot.discord.discord_fakes import CHANNEL, GUILD, Env, FakeInteraction

OTHER_GUILD = GUILD + 1


async def _event(env: Env, name: str, guild: int, players: list[Any]) -> int:
    """An event of `guild` with these members joined, started (round 1 paired)."""
    organiser = Actor(env.organiser.id, "Org", True)
    settings = EventSettings(name=name, rounds=3, start_at=env.clock.now() + timedelta(hours=1))
    event = await env.director.create_event(organiser, guild, CHANNEL, settings)
    await env.director.open_event(organiser, event.id)
    for user in players:
        await env.director.join(Actor(user.id, user.display_name), event.id)
    await env.director.start_event(organiser, event.id)
    return event.id


async def _click(env: Env, user: Any, event_id: int) -> FakeInteraction:
    custom_id = join_custom_id(event_id)
    interaction = env.interaction(user)
    match = re.fullmatch(JOIN_TEMPLATE, custom_id)
    assert match is not None
    button = await JoinButton.from_custom_id(interaction, discord.ui.Button(custom_id=custom_id), match)  # type: ignore[arg-type]
    await button.callback(interaction)  # type: ignore[arg-type]
    return interaction


async def test_mygame_answers_for_this_servers_event_not_the_newest_of_any_server(env: Env) -> None:
    players = [await env.linked(f"m{i}", 1800 - 10 * i) for i in range(4)]
    here = await _event(env, "Home Swiss", GUILD, players)
    await _event(env, "Elsewhere Swiss", OTHER_GUILD, players)  # newer, in another server
    reply = await env.run("mygame", players[0])
    assert "**Home Swiss**" in reply.text and "Elsewhere" not in reply.text
    chosen = await env.run("mygame", players[0], event=str(here))
    assert "**Home Swiss**" in chosen.text


async def test_mygame_event_option_cannot_reach_another_servers_event(env: Env) -> None:
    players = [await env.linked(f"n{i}", 1800 - 10 * i) for i in range(4)]
    await _event(env, "Home Swiss", GUILD, players)
    there = await _event(env, "Elsewhere Swiss", OTHER_GUILD, players)
    reply = await env.run("mygame", players[0], event=str(there))
    assert "Elsewhere" not in reply.text and "you play" not in reply.text
    assert len(reply.answers) == 1 and reply.answers[0].ephemeral


async def test_mygame_without_an_event_here_has_no_game(env: Env) -> None:
    players = [await env.linked(f"o{i}", 1800 - 10 * i) for i in range(4)]
    await _event(env, "Elsewhere Swiss", OTHER_GUILD, players)
    reply = await env.run("mygame", players[0])
    assert reply.text == "You have no game right now."


async def test_join_button_refuses_an_event_of_another_server(env: Env) -> None:
    organiser = Actor(env.organiser.id, "Org", True)
    foreign = await env.director.create_event(organiser, OTHER_GUILD, CHANNEL, EventSettings(name="Far Cup", rounds=3))
    await env.director.open_event(organiser, foreign.id)
    frank = await env.linked("Frank", 1700)
    clicked = await _click(env, frank, foreign.id)
    assert "You are in" not in clicked.text
    assert await env.director.entries(foreign.id) == []


async def test_member_and_organiser_controls_through_the_commands(env: Env) -> None:
    """Through the cogs: /bye cancel, /swiss allow, /swiss reinstate, /unlink, and the new options."""
    start = (env.clock.now() + timedelta(hours=1)).strftime("%Y-%m-%d %H:%M")
    created = await env.run(
        "swiss create",
        env.organiser,
        name="Ctl Cup",
        rounds=3,
        start=start,
        min_games=10,
        late_join_bye=False,
        lichess_sb=True,
    )
    assert "at least 10 rated blitz games" in created.text and "SB as on Lichess" in created.text
    (cup,) = await env.director.list_events(GUILD)
    assert cup.settings.min_rated_games == 10 and not cup.settings.late_join_bye and cup.settings.lichess_sb
    await env.run("swiss open", env.organiser)
    players = [await env.linked(f"c{i}", 1800 - 10 * i) for i in range(4)]
    for user in players:
        await env.run("join", user)
    await env.run("bye", players[0], round=2)
    taken = await env.run("bye", players[0], cancel=True)
    assert "bye in round 2 of **Ctl Cup** is cancelled" in taken.text
    await env.run("swiss forbid", env.organiser, player_a="c0", player_b="c1")
    allowed = await env.run("swiss allow", env.organiser, player_a="c0", player_b="c1")
    assert "may be paired together" in allowed.text
    await env.run("withdraw", players[3])
    refused = await env.run("unlink", players[0])
    assert "withdraw from it first" in refused.text
    unlinked = await env.run("unlink", players[3])
    assert "Unlinked" in unlinked.text and await env.director.linked_account(players[3].id) is None
    await env.run("swiss remove", env.organiser, player="c2")
    back = await env.run("swiss reinstate", env.organiser, player="c2")
    assert "c2 is back in **Ctl Cup**" in back.text


async def test_disqualify_after_the_end_through_the_command(env: Env) -> None:
    """Through the cogs: a finished event can be named for /swiss disqualify."""
    players = [await env.linked(f"d{i}", 1800 - 10 * i) for i in range(2)]
    event_id = await _event(env, "Done Cup", GUILD, players)
    organiser = Actor(env.organiser.id, "Org", True)
    await env.director.finish(organiser, event_id)
    done = await env.run("swiss disqualify", env.organiser, player="d0", reason="fair play", event="Done Cup")
    assert "Disqualified d0" in done.text
    assert env.announcer.of("standings")[-1][2] is True  # the final standings again
    assert "d0 is disqualified (fair play)" in env.announcer.of("bulletin")[-1][1]
