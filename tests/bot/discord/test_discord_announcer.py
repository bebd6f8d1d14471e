"""The Discord announcer: one message per round edited in place, ids kept in SQLite across restarts."""

from __future__ import annotations

import io
import logging
import re
from dataclasses import replace
from datetime import timedelta
from fractions import Fraction
from pathlib import Path

import discord
import pytest
from PIL import Image

from bot.assembly import Services, build
from bot.config import ClubConfig, Config, DiscordConfig
from bot.director.announcer import AnnouncementFailed
from bot.director.models import Actor, BoardView, PlayerRef, RoundView, StandingRow
from bot.discord.announcer import DiscordAnnouncer
from bot.discord.components import JoinButton
from bot.lichess.memory import MemoryLichess
from bot.rendering.text import EMBED_DESCRIPTION_LIMIT, EMBED_TOTAL_LIMIT, MESSAGE_LIMIT
from domain.event import Event
from domain.result import Result
from domain.rounds import RoundStatus
from domain.settings import EventSettings
from storage.db import open_database
from storage.messages import get_message
from tests.bot.discord.discord_fakes import CHANNEL, GUILD, Env, FakeChannel, FakeClient, FakeUser
from tests.support.clock import ManualClock

ORGANISER = Actor(1, "org", True)


def _config(*, dm: bool = False) -> Config:
    return Config(
        database=Path("x"), clubs=(ClubConfig(GUILD, "Arbiter", CHANNEL),), discord=DiscordConfig(dm_players=dm)
    )


async def _event(env: Env) -> Event:
    return await env.director.create_event(ORGANISER, GUILD, CHANNEL, EventSettings(name="Announce Cup", rounds=5))


def _round(event: Event, boards: int, decided: int = 0) -> RoundView:
    views = []
    for index in range(boards):
        white = PlayerRef(2 * index + 1, f"white{index}", 800_000_000_000_000_000 + 2 * index, 1500)
        black = PlayerRef(2 * index + 2, f"black{index}", 800_000_000_000_000_001 + 2 * index, 1400)
        result = Result.WHITE_WINS if index < decided else None
        views.append(BoardView(index + 1, white, black, f"g{index:07d}", f"https://lichess.org/g{index:07d}", result))
    return RoundView(event.id, 1, RoundStatus.PLAYING, None, tuple(views))


def _size(posted_embeds: list[discord.Embed]) -> int:
    return sum(len(embed) for embed in posted_embeds)


async def test_a_round_is_one_message_edited_in_place(env: Env) -> None:
    channel = FakeChannel(CHANNEL)
    announcer = DiscordAnnouncer(FakeClient(channel), env.db, _config())  # type: ignore[arg-type]
    event = await _event(env)
    await announcer.round_paired(event, _round(event, 6))
    (message,) = channel.posted
    assert message.content is not None and message.content.startswith("Round 1 of **Announce Cup** is paired:")
    assert message.content.count("<@") == 12 and message.allowed_mentions is not None
    mentioned = [int(found) for found in re.findall(r"<@(\d+)>", message.content)]
    assert isinstance(message.allowed_mentions.users, list)  # named, never parsed from the text
    assert [user.id for user in message.allowed_mentions.users] == mentioned
    assert message.allowed_mentions.everyone is False and message.allowed_mentions.roles is False
    assert message.embeds[0].title == "Announce Cup — round 1 (0/6 results)"

    await announcer.results_updated(event, _round(event, 6, decided=2))
    await announcer.results_updated(event, _round(event, 6, decided=6))
    assert len(channel.posted) == 1  # edited, never re-posted
    assert len(message.edits) == 2
    assert message.embeds[0].title == "Announce Cup — round 1 (complete)"
    assert message.embeds[0].description is not None and message.embeds[0].description.count("**1-0**") == 6


async def test_after_a_restart_the_same_message_is_edited_and_nobody_is_pinged_twice(env: Env) -> None:
    channel = FakeChannel(CHANNEL)
    client = FakeClient(channel)
    event = await _event(env)
    first = DiscordAnnouncer(client, env.db, _config())  # type: ignore[arg-type]
    await first.round_paired(event, _round(event, 4))
    ref = await get_message(env.db, event.id, "round:0", round_number=1)
    assert ref is not None and ref.message_id == channel.posted[0].id

    restarted = DiscordAnnouncer(client, env.db, _config())  # type: ignore[arg-type]  # a new process, same database
    await restarted.round_paired(event, _round(event, 4))  # the director re-announces after a crash
    assert channel.posted[0].edits == []  # the message shows that already (its digest is in the record)
    await restarted.results_updated(event, _round(event, 4, decided=4))
    assert len(channel.posted) == 1
    assert len(channel.posted[0].edits) == 1


async def test_a_deleted_round_message_is_posted_again(env: Env) -> None:
    channel = FakeChannel(CHANNEL)
    announcer = DiscordAnnouncer(FakeClient(channel), env.db, _config())  # type: ignore[arg-type]
    event = await _event(env)
    await announcer.round_paired(event, _round(event, 3))
    channel.posted[0].deleted = True
    await announcer.results_updated(event, _round(event, 3, decided=1))
    assert len(channel.posted) == 2
    ref = await get_message(env.db, event.id, "round:0", round_number=1)
    assert ref is not None and ref.message_id == channel.posted[1].id


async def test_a_300_player_round_stays_within_every_limit(env: Env) -> None:
    channel = FakeChannel(CHANNEL)
    announcer = DiscordAnnouncer(FakeClient(channel), env.db, _config())  # type: ignore[arg-type]
    event = await _event(env)
    await announcer.round_paired(event, _round(event, 150))
    board_messages = [m for m in channel.posted if m.embeds]
    ping_messages = [m for m in channel.posted if not m.embeds]
    assert len(board_messages) >= 2 and ping_messages  # 150 boards and 300 pings need several messages
    for message in channel.posted:
        assert len(message.content or "") <= MESSAGE_LIMIT
        assert len(message.embeds) <= 10 and _size(message.embeds) <= EMBED_TOTAL_LIMIT
        assert all(len(e.description or "") <= EMBED_DESCRIPTION_LIMIT for e in message.embeds)
    pinged = sum((m.content or "").count("<@") for m in channel.posted)
    assert pinged == 300
    links = sum((e.description or "").count("[game](") for m in board_messages for e in m.embeds)
    assert links == 150

    await announcer.results_updated(event, _round(event, 150, decided=150))
    assert len(channel.posted) == len(board_messages) + len(ping_messages)  # every page edited in place
    assert all(m.edits for m in board_messages)


async def test_standings_come_with_a_png_and_are_edited_after_a_correction(env: Env) -> None:
    channel = FakeChannel(CHANNEL)
    announcer = DiscordAnnouncer(FakeClient(channel), env.db, _config())  # type: ignore[arg-type]
    event = replace(await _event(env), current_round=1)
    rows = [StandingRow(i + 1, PlayerRef(i + 1, f"p{i}", None, 1500), Fraction(1)) for i in range(4)]
    await announcer.standings(event, rows, False)
    (message,) = channel.posted
    assert message.embeds[0].title == "Announce Cup — standings after round 1"
    (png,) = message.files
    assert png.filename == "standings.png"
    Image.open(io.BytesIO(png.fp.read())).verify()
    await announcer.standings(event, rows, False)
    assert message.edits == []  # the same standings again: the message shows them already
    corrected = [replace(row, points=Fraction(2)) if row.rank == 1 else row for row in rows]
    await announcer.standings(event, corrected, False)
    assert len(channel.posted) == 1 and "attachments" in message.edits[0]


async def test_event_opened_carries_the_persistent_join_button(env: Env) -> None:
    channel = FakeChannel(CHANNEL)
    announcer = DiscordAnnouncer(FakeClient(channel), env.db, _config())  # type: ignore[arg-type]
    event = await _event(env)
    await announcer.event_opened(event)
    view = channel.posted[0].view
    assert view is not None and view.timeout is None
    (button,) = view.children
    assert isinstance(button, JoinButton) and button.custom_id == f"swiss:join:{event.id}"


async def test_dms_only_when_enabled_and_closed_dms_are_skipped() -> None:
    client = FakeClient()
    off = DiscordAnnouncer(client, None, _config(dm=False))  # type: ignore[arg-type]
    await off.dm(5, "hello")
    assert client.users == {}
    on = DiscordAnnouncer(client, None, _config(dm=True))  # type: ignore[arg-type]
    await on.dm(5, "your game")
    assert client.users[5].dms == ["your game"]
    client.users[6] = FakeUser(6, closed=True)
    await on.dm(6, "nope")  # Forbidden: logged and skipped
    assert client.users[6].dms == []


async def test_a_channel_the_bot_cannot_post_in_is_logged_and_the_pairings_reported_unposted(
    env: Env, caplog: pytest.LogCaptureFixture
) -> None:
    announcer = DiscordAnnouncer(FakeClient(FakeChannel(CHANNEL, fail=True)), env.db, _config())  # type: ignore[arg-type]
    event = await _event(env)
    with caplog.at_level(logging.ERROR, logger="bot.discord.announcer"):
        with pytest.raises(AnnouncementFailed):  # the director retries pairings, standings and the end
            await announcer.round_paired(event, _round(event, 2))
        await announcer.notice(event, "Lichess is slow")  # best-effort: logged only
    assert sum("announcement" in r.getMessage() for r in caplog.records) == 2
    record = await get_message(env.db, event.id, "round:0", round_number=1)
    assert record is not None and not record.posted  # written before the send, completed by none


async def test_standings_and_the_end_that_discord_refuses_raise_for_a_retry(env: Env) -> None:
    channel = FakeChannel(CHANNEL, fail=True)
    announcer = DiscordAnnouncer(FakeClient(channel), env.db, _config())  # type: ignore[arg-type]
    event = replace(await _event(env), current_round=1)
    rows = [StandingRow(1, PlayerRef(1, "a", 5, 1500), Fraction(1))]
    with pytest.raises(AnnouncementFailed):
        await announcer.standings(event, rows, False)
    with pytest.raises(AnnouncementFailed):
        await announcer.event_finished(event, rows, "all rounds played")
    with pytest.raises(AnnouncementFailed):
        await announcer.results_updated(event, _round(event, 2, decided=2))
    channel.fail = False
    await announcer.standings(event, rows, False)
    assert len(channel.posted) == 1 and await get_message(env.db, event.id, "standings:0", round_number=1)


async def test_a_whole_event_announced_by_the_real_director(tmp_path: Path) -> None:
    """The director drives the Discord announcer through an event played on the in-memory Lichess."""
    channel = FakeChannel(CHANNEL)
    client = FakeClient(channel)
    # A seed whose autoplayed games all count (no no-show), so both rounds have all four players.
    gateway = MemoryLichess(seed=1, autoplay=True)
    db = await open_database(tmp_path / "swiss.sqlite3")
    clock = ManualClock()
    announcer = DiscordAnnouncer(client, db, _config(dm=True))  # type: ignore[arg-type]
    app = await build(
        Config(database=tmp_path / "swiss.sqlite3"), clock, Services(db, gateway, announcer), scheduled=False
    )
    director, scheduler = app.director, app.scheduler
    announcer.director = director
    try:
        settings = EventSettings(
            name="Live Cup",
            rounds=2,
            start_at=clock.now() + timedelta(minutes=5),
            round_interval=60,
        )
        event = await director.create_event(ORGANISER, GUILD, CHANNEL, settings)
        await director.open_event(ORGANISER, event.id)
        for index in range(4):
            actor = Actor(7_000 + index, f"m{index}")
            gateway.state.add_user(f"live{index}", rating=1800 - 20 * index)
            challenge = await director.start_link(actor, f"live{index}")
            gateway.state.users[f"live{index}"].bio = challenge.code
            await director.complete_link(actor)
            await director.join(actor, event.id)
        for _ in range(400):
            await scheduler.run_due()
            if (await director.event(event.id)).status.value == "finished":
                break
            clock.advance(30)
        else:
            raise AssertionError("the event did not finish")
    finally:
        await gateway.close()
        await db.close()

    titles = [m.embeds[0].title or "" for m in channel.posted if m.embeds]
    assert titles[0] == "Live Cup — open for entries"
    rounds = [m for m in channel.posted if m.embeds and "— round" in (m.embeds[0].title or "")]
    assert len(rounds) == 2  # one message per round…
    for message in rounds:
        assert (message.embeds[0].title or "").endswith("(complete)")  # …edited until every result was in
        assert message.content and message.content.count("<@") == 4
    assert any("final standings" in t for t in titles)
    assert any(f.filename == "crosstable.png" for m in channel.posted for f in m.files)
    assert channel.posted[-1].content is not None and channel.posted[-1].content.startswith("**Live Cup** is over")
    assert all(len(user.dms) >= 2 for user in client.users.values())  # each player's pairing, twice


async def test_a_bulletin_goes_to_the_events_channel_and_final_standings_are_edited_in_place(env: Env) -> None:
    channel = FakeChannel(CHANNEL)
    announcer = DiscordAnnouncer(FakeClient(channel), env.db, _config())  # type: ignore[arg-type]
    event = replace(await _event(env), current_round=2)
    rows = [
        StandingRow(1, PlayerRef(1, "a", 5, 1500), Fraction(2)),
        StandingRow(2, PlayerRef(2, "b", 6, 1400), Fraction(0)),
    ]
    await announcer.standings(event, rows, True)
    await announcer.standings(event, rows[1:], True)  # after a disqualification
    (final,) = channel.posted
    assert len(final.edits) == 1
    await announcer.bulletin(event, "a is disqualified (fair play): the final standings are updated.")
    said = channel.posted[-1].content
    assert said is not None and "Announce Cup" in said and "a is disqualified" in said


async def test_the_crosstable_follows_a_correction_made_after_the_end(env: Env) -> None:
    channel = FakeChannel(CHANNEL)
    announcer = DiscordAnnouncer(FakeClient(channel), env.db, _config())  # type: ignore[arg-type]
    announcer.director = env.director
    event = await env.director.create_event(ORGANISER, GUILD, CHANNEL, EventSettings(name="Late Fix", rounds=1))
    await env.director.open_event(ORGANISER, event.id)
    for i in range(2):
        await env.director.join(Actor((await env.linked(f"x{i}", 1800 - 100 * i)).id, f"x{i}"), event.id)
    await env.director.start_event(ORGANISER, event.id)
    await env.director.set_result(ORGANISER, event.id, 1, 1, "1-0", "played over the board")
    event = await env.director.event(event.id)
    assert event.status.value == "finished"
    await announcer.standings(event, await env.director.standings(event.id), True)
    (final,) = channel.posted
    assert [f.filename for f in final.files][-2:] == ["crosstable.png", "crosstable.txt"]
    before = final.files[-1].fp.read().decode()
    await env.director.set_result(ORGANISER, event.id, 1, 1, "0-1", "scoresheet misread")
    await announcer.standings(event, await env.director.standings(event.id), True)  # as the correction does
    (edit,) = final.edits
    assert [f.filename for f in edit["attachments"]][-2:] == ["crosstable.png", "crosstable.txt"]
    after = edit["attachments"][-1].fp.read().decode()
    assert after != before  # the corrected result is in the crosstable the channel shows
