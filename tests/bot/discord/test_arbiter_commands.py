"""The /arbiter group's callbacks over the real director, SQLite and the Lichess sandbox: a held round's pairing
corrected (a forbidden pair shown in a sentence, then accepted), confirmed, and the export naming it manual."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.discord.actors import NotAnOrganiser
from bot.discord.cogs.arbiter import ArbiterCog
from domain.event import EventStatus
from pairing import trf
from storage.rounds import get_round
from tests.bot.discord.discord_fakes import GUILD, Env, FakeInteraction, find_command, member
from tests.bot.discord.test_discord_commands import _choice


def _answer(interaction: FakeInteraction) -> str:
    assert interaction.calls[0].method == "defer" and len(interaction.answers) == 1, interaction.calls
    answer = interaction.answers[0]
    assert answer.ephemeral
    return answer.content or ""


async def test_an_organiser_corrects_a_held_round_through_the_commands(env: Env) -> None:
    start = (env.clock.now() + timedelta(hours=1)).strftime("%Y-%m-%d %H:%M")
    await env.run("swiss create", env.organiser, name="Club Swiss", rounds=1, start=start)
    await env.run("swiss open", env.organiser, event="Club Swiss")
    (event,) = await env.director.list_events(GUILD)
    players = [await env.linked(f"p{i}", 1900 - 50 * i) for i in range(5)]
    for user in players:
        await env.run("join", user)
    await env.run("swiss forbid", env.organiser, player_a="p0", player_b="p1")
    held = await env.run("arbiter review", env.organiser, minutes=15)
    assert _answer(held) == "**Club Swiss**: each round's pairing is held 15 minutes for review."

    await env.run("swiss start", env.organiser)
    view = await env.director.pairings(event.id)
    assert all(b.game_id is None for b in view.boards)  # held: no game yet

    # Pairing the forbidden pair is shown with its sentence and not applied; accepted, it is.
    shown = _answer(await env.run("arbiter pair", env.organiser, player_a="p0", player_b="p1"))
    assert "- p0 and p1 are a forbidden pair and may not meet." in shown.splitlines()
    assert "Not applied" in shown
    assert (await env.director.pairings(event.id)).boards == view.boards
    applied = _answer(await env.run("arbiter pair", env.organiser, player_a="p0", player_b="p1", accept=True))
    assert "1. p0 - p1" in applied.splitlines() and "Applied. The games are created at" in applied
    assert (await get_round(env.db, event.id, 1)).round.manual

    # A member cannot; the group's check refuses them before any subcommand.
    plain = member("plain")
    cog = find_command(env.bot, "arbiter swap").binding
    assert isinstance(cog, ArbiterCog)
    with pytest.raises(NotAnOrganiser):
        await cog.interaction_check(env.interaction(plain))  # type: ignore[arg-type]

    confirmed = _answer(await env.run("arbiter confirm", env.organiser))
    assert confirmed == "**Club Swiss** round 1: pairing confirmed, the games are created."
    view = await env.director.pairings(event.id)
    assert all(b.game_id for b in view.boards) and (view.boards[0].white.name, view.boards[0].black.name) == (
        "p0",
        "p1",
    )
    for board in view.boards:
        await env.run("swiss result", env.organiser, round=1, board=board.number, result=_choice("1-0"), reason="x")
    await env.run("swiss finish", env.organiser)
    assert (await env.director.event(event.id)).status is EventStatus.FINISHED
    text = (await env.director.export(event.id, "trf")).decode()
    assert trf.manual_rounds(trf.parse(text)) == frozenset({1})
