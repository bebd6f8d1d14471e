"""What the director reads and marks as an event goes on: the current round, why it finished, edits once
started, lifted bans, announcement markers, the results so far, and the upgrade from schema version 1."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from fractions import Fraction
from pathlib import Path

import pytest

from domain.event import EventStatus
from domain.result import Result
from domain.settings import Schedule
from pairing.model import Board, Pairing, RecordKind
from storage.audit import audit_log, logged, record_action
from storage.db import Database, load_migrations, open_database
from storage.entries import request_bye, start_event
from storage.errors import WrongStatus
from storage.events import (
    edit_started_event,
    finishes_to_announce,
    get_event,
    list_events,
    mark_finish_announced,
    set_event_status,
)
from storage.history import get_history, results_tournament
from storage.players import create_link_code, get_ban, get_link_code, lift_ban, pending_link_code, set_ban
from storage.results import record_result
from storage.rounds import (
    finish_round,
    get_round,
    mark_pairings_announced,
    mark_results_announced,
    rounds_to_announce,
    store_pairing,
)
from tests.storage.storage_helpers import ACTOR, T0, at, open_db, open_event, settings, started

# An event row as schema versions 1 to 3 hold it: (id, rounds, status, created_at, finished_at).
OLD_EVENT_SQL = (
    "INSERT INTO events (id, name, guild_id, channel_id, system, rounds, clock_limit, clock_increment, rated,"
    " early_draw_policy, early_draw_moves, no_show_seconds, max_byes, late_join_bye, acceleration,"
    " initial_colour, status, created_by, created_at, finished_at)"
    " VALUES (?, 'Old', 1, 2, 'dutch', ?, 180, 2, 1, 'replay', 30, 600, 1, 1, 0, 'w', ?, 9, ?, ?)"
)


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = await open_db(tmp_path)
    yield database
    await database.close()


async def test_an_event_knows_its_current_round_and_why_it_finished(db: Database) -> None:
    event_id = await started(db, 4)
    assert (await get_event(db, event_id)).current_round == 0
    await store_pairing(db, event_id, 1, Pairing((Board(1, 3), Board(4, 2))), at=at(6), actor="bot")
    event = await get_event(db, event_id)
    assert event.current_round == 1 and event.finish_reason is None
    assert (event.name, event.guild_id, event.channel_id) == ("Club Swiss", 1, 2)
    await set_event_status(db, event_id, EventStatus.PAUSED, at=at(7), actor=ACTOR, reason="a break")
    assert (await get_event(db, event_id)).finish_reason is None
    await set_event_status(db, event_id, EventStatus.FINISHED, at=at(8), actor=ACTOR, reason="all rounds played")
    (listed,) = await list_events(db, statuses=frozenset({EventStatus.FINISHED}))
    assert listed.current_round == 1 and listed.finish_reason == "all rounds played"


async def test_an_open_event_may_pause_resume_and_finish(db: Database) -> None:
    event, _, _ = await open_event(db, [1500, 1400])
    for status in (EventStatus.PAUSED, EventStatus.OPEN, EventStatus.FINISHED):
        assert (await set_event_status(db, event.id, status, at=at(2), actor=ACTOR)).status is status


async def test_a_started_event_may_change_all_but_its_pairing_settings(db: Database) -> None:
    event, _, _ = await open_event(db, [1500, 1400, 1300, 1200])
    with pytest.raises(WrongStatus, match="not running"):
        await edit_started_event(db, event.id, settings(round_interval=600), at=at(2), actor=ACTOR)
    await start_event(db, event.id, at=at(3), actor=ACTOR)
    await store_pairing(db, event.id, 1, Pairing((Board(1, 3), Board(4, 2))), at=at(4), actor="bot")
    edited = await edit_started_event(db, event.id, settings(round_interval=600, rounds=3), at=at(5), actor=ACTOR)
    assert edited.settings.schedule is Schedule.INTERVAL and edited.settings.round_interval == 600
    assert edited.settings.rounds == 3
    assert len(await audit_log(db, event_id=event.id, action="event.edit")) == 1
    with pytest.raises(WrongStatus, match="acceleration cannot change"):
        await edit_started_event(db, event.id, settings(acceleration=True), at=at(6), actor=ACTOR)
    await store_pairing_after(db, event.id)
    with pytest.raises(WrongStatus, match="already paired 2 rounds"):
        await edit_started_event(db, event.id, settings(rounds=1), at=at(7), actor=ACTOR)
    assert (await get_event(db, event.id)).settings.rounds == 3


async def store_pairing_after(db: Database, event_id: int) -> None:
    """Decide round 1 and pair round 2."""
    for board in (await get_round(db, event_id, 1)).boards:
        await record_result(db, board.id, Result.WHITE_WINS, at=at(6), actor="bot")
    await store_pairing(db, event_id, 2, Pairing((Board(2, 1), Board(3, 4))), at=at(6), actor="bot")


async def test_lifting_a_ban_keeps_its_count_and_an_expired_code_can_be_read(db: Database) -> None:
    _, players, _ = await open_event(db, [1500, 1400])
    player = players[0].id
    assert await lift_ban(db, 1, player, at=at(1), actor=ACTOR) is None
    assert await get_link_code(db, players[1].discord_id) is None
    await create_link_code(db, players[1].discord_id, "p2", "code-1", at=at(0), expires_at=at(5))
    code = await get_link_code(db, players[1].discord_id)
    assert code is not None and code.code == "code-1" and code.expires_at == at(5)
    assert await pending_link_code(db, players[1].discord_id, at=at(6)) is None  # expired, but still there
    assert await get_link_code(db, players[1].discord_id) == code
    await set_ban(db, 1, player, until=at(60), count=2, reason="no-show", at=at(0), actor="bot")
    lifted = await lift_ban(db, 1, player, at=at(10), actor=ACTOR, reason="forgiven")
    assert lifted is not None and lifted.until == at(60)
    ban = await get_ban(db, 1, player)
    assert ban is not None and ban.count == 2 and ban.until == at(10) and not ban.active(at(10))
    assert await lift_ban(db, 1, player, at=at(11), actor=ACTOR) is None  # not running any more
    (line,) = await audit_log(db, action="ban.lift")
    assert line.reason == "forgiven" and line.actor == ACTOR


async def test_announcement_markers_keep_the_first_time(db: Database) -> None:
    event_id = await started(db, 4)
    await store_pairing(db, event_id, 1, Pairing((Board(1, 3), Board(4, 2))), at=at(6), actor="bot")
    first = await mark_pairings_announced(db, event_id, 1, at=at(7))
    assert first.pairings_announced_at == at(7) and first.results_announced_at is None
    assert (await mark_pairings_announced(db, event_id, 1, at=at(8))).pairings_announced_at == at(7)
    with pytest.raises(WrongStatus, match="not finished"):
        await mark_results_announced(db, event_id, 1, at=at(8))
    for board in (await get_round(db, event_id, 1)).boards:
        await record_result(db, board.id, Result.DRAW, at=at(9), actor="bot")
    await finish_round(db, event_id, 1, at=at(9), actor="bot")
    assert (await get_round(db, event_id, 1)).round.results_announced_at is None
    assert [(r.event_id, r.number) for r in await rounds_to_announce(db)] == [(event_id, 1)]
    await mark_results_announced(db, event_id, 1, at=at(10))
    assert (await mark_results_announced(db, event_id, 1, at=at(11))).results_announced_at == at(10)
    assert await rounds_to_announce(db) == []
    assert (await get_round(db, event_id, 1)).round.results_announced_at == at(10)


async def test_the_end_of_an_event_is_to_announce_until_marked_once(db: Database) -> None:
    event_id = await started(db, 4)
    with pytest.raises(WrongStatus, match="not finished"):
        await mark_finish_announced(db, event_id, at=at(7))
    cancelled, _, _ = await open_event(db, [1500, 1400])
    await set_event_status(db, cancelled.id, EventStatus.CANCELLED, at=at(7), actor=ACTOR)
    assert await finishes_to_announce(db) == []
    await set_event_status(db, event_id, EventStatus.FINISHED, at=at(8), actor=ACTOR, reason="finished early")
    (waiting,) = await finishes_to_announce(db)
    assert (waiting.id, waiting.finish_reason, waiting.finish_announced_at) == (event_id, "finished early", None)
    assert (await mark_finish_announced(db, event_id, at=at(9))).finish_announced_at == at(9)
    assert (await mark_finish_announced(db, event_id, at=at(10))).finish_announced_at == at(9)
    assert await finishes_to_announce(db) == []


async def test_version_3_databases_do_not_announce_old_ends_again(tmp_path: Path) -> None:
    """An event finished before version 4 is taken as announced, unless its last round's announcement (which
    carried the end in version 3) is still to come."""
    path = tmp_path / "v3.db"
    await (await open_database(path, migrations=load_migrations()[:3])).close()
    with sqlite3.connect(path) as conn:
        conn.executemany(
            OLD_EVENT_SQL,
            [
                (1, 1, "finished", T0.isoformat(), at(8).isoformat()),  # its end was announced (or lost for good)
                (2, 1, "finished", T0.isoformat(), at(8).isoformat()),  # stopped before its last round's announcement
                (3, 1, "running", T0.isoformat(), None),
            ],
        )
        conn.executemany(
            "INSERT INTO rounds (event_id, number, status, paired_at, finished_at, results_announced_at)"
            " VALUES (?, 1, 'finished', ?, ?, ?)",
            [
                (1, at(6).isoformat(), at(7).isoformat(), at(7).isoformat()),
                (2, at(6).isoformat(), at(7).isoformat(), None),
                (3, at(6).isoformat(), at(7).isoformat(), None),
            ],
        )
    db = await open_database(path)
    try:
        assert (await get_event(db, 1)).finish_announced_at == at(8)
        assert [e.id for e in await finishes_to_announce(db)] == [2]
        assert (await get_event(db, 3)).finish_announced_at is None
    finally:
        await db.close()


async def test_results_so_far_count_decided_boards_only(db: Database) -> None:
    event_id = await started(db, 5)
    await store_pairing(db, event_id, 1, Pairing((Board(1, 4), Board(5, 2)), bye=3), at=at(6), actor="bot")
    first, second = (await get_round(db, event_id, 1)).boards
    await record_result(db, first.id, Result.WHITE_WINS, at=at(7), actor="bot")
    history = await get_history(db, event_id)
    bye_player = history.numbered[2].player.id
    await request_bye(db, event_id, bye_player, 2, at=at(7), actor="bot")
    tournament = results_tournament(await get_history(db, event_id))
    scores = {p.number: tournament.scoring.points(p.rounds[0]) for p in tournament.players}
    assert scores == {1: 1, 2: 0, 3: 1, 4: 0, 5: 0}  # board 2 undecided: not paired yet
    assert tournament.player(5).rounds[0].kind is RecordKind.NOT_PAIRED
    assert all(len(p.rounds) == 1 for p in tournament.players)  # the requested bye of round 2 is not a result
    assert tournament.acceleration == {} and sum(scores.values(), Fraction(0)) == 2
    assert second.result is None


async def test_logged_finds_an_action_on_a_subject(db: Database) -> None:
    event_id = await started(db, 4)
    assert not await logged(db, event_id=event_id, action="round.remind", subject="round:1")
    await record_action(db, at=at(1), actor="bot", action="round.remind", subject="round:1", event_id=event_id)
    assert await logged(db, event_id=event_id, action="round.remind", subject="round:1")
    assert not await logged(db, event_id=event_id, action="round.remind", subject="round:2")


async def test_version_1_databases_keep_their_finish_reasons_and_announcements(tmp_path: Path) -> None:
    path = tmp_path / "v1.db"
    await (await open_database(path, migrations=load_migrations()[:1])).close()
    with sqlite3.connect(path) as conn:
        conn.execute(OLD_EVENT_SQL, (1, 2, "finished", T0.isoformat(), None))
        conn.executemany(
            "INSERT INTO rounds (event_id, number, status, paired_at, finished_at) VALUES (1, ?, ?, ?, ?)",
            [(1, "finished", at(1).isoformat(), at(2).isoformat()), (2, "playing", at(3).isoformat(), None)],
        )
        conn.executemany(
            "INSERT INTO audit_log (at, actor, action, event_id, subject, reason) VALUES (?, 'bot', ?, 1, ?, ?)",
            [
                (at(1).isoformat(), "round.announce", "round:1", None),
                (at(4).isoformat(), "finish", "event:1", "no valid pairing exists for round 3"),
            ],
        )
    db = await open_database(path)
    try:
        event = await get_event(db, 1)
        assert event.finish_reason == "no valid pairing exists for round 3" and event.current_round == 2
        one, two = (await get_round(db, 1, 1)).round, (await get_round(db, 1, 2)).round
        assert (one.pairings_announced_at, one.results_announced_at) == (at(1), at(2))
        assert (two.pairings_announced_at, two.results_announced_at) == (None, None)
        assert await finishes_to_announce(db) == []  # an end long past is not announced again
    finally:
        await db.close()
