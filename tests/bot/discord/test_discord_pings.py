"""Posts ping only whom they mean to: the real bot against the local Discord, which decides whom a message pings
from its content and `allowed_mentions` as Discord does."""

from __future__ import annotations

import logging

import pytest

from tests.bot.discord.test_real_bot import ALICE, BOB, CAROL, OLGA, Club, club, link, wait_for

__all__ = ["club"]  # the fixture, imported for pytest


async def test_an_event_named_with_a_mention_pings_only_the_rounds_players(club: Club) -> None:
    name = f"Blitz <@{CAROL}> @everyone"
    created = await club.command(OLGA, "swiss create", name=name, rounds=1, schedule="manual")
    assert created and "error" not in created[-1]
    await club.command(OLGA, "swiss open")
    await link(club, ALICE, "alice")
    await link(club, BOB, "bob")
    await club.command(ALICE, "join")
    await club.command(BOB, "join")
    await club.command(OLGA, "swiss start")

    async def paired() -> bool:
        return any(f"<@{CAROL}>" in m["content"] and f"<@{ALICE}>" in m["content"] for m in await club.channel())

    await wait_for(paired)
    messages = await club.channel()
    ping = next(m for m in messages if f"<@{ALICE}>" in m["content"])
    assert f"<@{CAROL}>" in ping["content"]  # the event's name is in the text ...
    assert sorted(ping["mentions"]) == sorted([str(ALICE), str(BOB)])  # ... but only the round's players are pinged
    assert all(str(CAROL) not in m["mentions"] for m in messages)


@pytest.fixture
def debug_log(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """Every logger at DEBUG from before the bot starts (request it before `club`)."""
    caplog.set_level(logging.DEBUG)
    return caplog


async def test_a_debug_level_run_of_the_real_bot_logs_no_token(debug_log: pytest.LogCaptureFixture, club: Club) -> None:
    await club.command(OLGA, "swiss create", name="Quiet", rounds=1, schedule="manual")
    await link(club, ALICE, "alice")
    records = [*debug_log.get_records("setup"), *debug_log.records]
    logged = "\n".join(f"{r.getMessage()} {r.args}" for r in records)
    assert any(r.levelno == logging.DEBUG for r in records)
    interactions = list(club.discord.state.interactions_by_token)
    assert interactions
    for secret in (club.discord.token, club.lichess.bot_token, *interactions):
        assert secret not in logged, secret[:6]
