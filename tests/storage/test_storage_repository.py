"""Events, players, links, entries, byes, forbidden pairs, bans, messages and the audit log."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from domain.entry import EntryStatus
from domain.event import EventStatus
from domain.settings import EarlyDrawPolicy, Schedule
from pairing.model import Colour
from storage.audit import audit_log, record_action
from storage.db import Database
from storage.entries import (
    add_forbidden_pair,
    bye_requests,
    cancel_bye,
    entry_by_number,
    find_entry,
    forbidden_pairs,
    get_entry,
    join_event,
    list_entries,
    remove_forbidden_pair,
    request_bye,
    set_entry_status,
    start_event,
)
from storage.errors import (
    AccountTaken,
    AlreadyJoined,
    ByeNotAllowed,
    EntryBarred,
    InvalidInput,
    NotFound,
    WrongStatus,
)
from storage.events import (
    create_event,
    edit_event,
    get_event,
    latest_event,
    list_events,
    set_event_status,
    set_next_round_at,
)
from storage.messages import event_messages, get_message, renew_message, reserve_message, set_digest, set_message
from storage.outbox import PostKind, pending_posts, post_sent, queue_post
from storage.players import (
    clear_ban,
    create_link_code,
    ensure_player,
    get_ban,
    get_player,
    link_account,
    pending_link_code,
    player_by_discord,
    player_by_lichess,
    purge_link_codes,
    set_ban,
    unlink_account,
)
from tests.storage.storage_helpers import ACTOR, ORGANISER, T0, add_players, at, open_db, open_event, settings


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = await open_db(tmp_path)
    yield database
    await database.close()


async def test_event_settings_round_trip_every_field(db: Database) -> None:
    wanted = settings(
        rated=False,
        start_at=at(60),
        round_times=tuple(at(60 + 30 * r) for r in range(5)),
        rating_min=1200,
        rating_max=2000,
        team="club-team",
        tiebreaks=("BH", "SB"),
        rules=("noEarlyDraw",),
        early_draw_policy=EarlyDrawPolicy.REVIEW,
        early_draw_moves=20,
        no_show_seconds=600,
        reminder_seconds=900,
        max_byes=2,
        late_join_bye=False,
        acceleration=True,
        initial_colour=Colour.BLACK,
    )
    event = await create_event(db, wanted, created_by=ORGANISER, at=T0)
    loaded = await get_event(db, event.id)
    assert loaded.settings == wanted
    assert loaded.settings.schedule is Schedule.FIXED
    assert loaded.status is EventStatus.DRAFT and loaded.created_by == ORGANISER and loaded.created_at == T0


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"rounds": 0}, "rounds must be between 1 and 50"),
        ({"rounds": 51}, "rounds must be between 1 and 50"),
        ({"round_interval": 600, "round_times": (T0,) * 5}, "not both"),
        ({"round_times": (T0,)}, "1 fixed round times for 5 rounds"),
        ({"rating_min": 2000, "rating_max": 1000}, "minimum rating"),
        ({"clock_limit": 0, "clock_increment": 0}, "limit or an increment"),
        ({"name": "  "}, "name is empty"),
        ({"start_at": T0.replace(tzinfo=None)}, "no timezone"),
        ({"reminder_seconds": -60}, "reminder cannot come after"),
    ],
)
async def test_bad_settings_are_refused(db: Database, changes: dict[str, object], problem: str) -> None:
    with pytest.raises(InvalidInput, match=problem):
        await create_event(db, settings(**changes), created_by=ORGANISER, at=T0)
    assert await list_events(db) == []


async def test_edit_is_audited_and_closed_once_started(db: Database) -> None:
    event, _, _ = await open_event(db, [1500, 1400])
    edited = await edit_event(db, event.id, settings(rounds=7, round_interval=900), at=at(2), actor=ACTOR, reason="x")
    assert edited.settings.rounds == 7 and edited.settings.schedule is Schedule.INTERVAL
    line = (await audit_log(db, event_id=event.id, action="event.edit"))[-1]
    assert json.loads(line.before or "")["rounds"] == 5 and json.loads(line.after or "")["rounds"] == 7
    assert line.actor == ACTOR and line.at == at(2) and line.reason == "x"
    await start_event(db, event.id, at=at(3), actor=ACTOR)
    with pytest.raises(WrongStatus, match="only before the start"):
        await edit_event(db, event.id, settings(rounds=9), at=at(4), actor=ACTOR)
    assert (await get_event(db, event.id)).settings.rounds == 7


async def test_status_transitions(db: Database) -> None:
    event = await create_event(db, settings(), created_by=ORGANISER, at=T0)
    with pytest.raises(WrongStatus, match="draft and cannot become paused"):
        await set_event_status(db, event.id, EventStatus.PAUSED, at=at(1), actor=ACTOR)
    assert (await set_event_status(db, event.id, EventStatus.OPEN, at=at(1), actor=ACTOR)).status is EventStatus.OPEN
    with pytest.raises(WrongStatus):
        await set_event_status(db, event.id, EventStatus.RUNNING, at=at(1), actor=ACTOR)  # start_event does that
    cancelled = await set_event_status(db, event.id, EventStatus.CANCELLED, at=at(2), actor=ACTOR, reason="rain")
    assert cancelled.status is EventStatus.CANCELLED and cancelled.finished_at == at(2)
    with pytest.raises(WrongStatus):
        await set_event_status(db, event.id, EventStatus.OPEN, at=at(3), actor=ACTOR)
    actions = [(a.action, a.before, a.after) for a in await audit_log(db, event_id=event.id)]
    assert actions[-2:] == [("event.status", '"draft"', '"open"'), ("event.status", '"open"', '"cancelled"')]


async def test_list_latest_and_missing_events(db: Database) -> None:
    first = await create_event(db, settings(guild_id=5), created_by=ORGANISER, at=T0)
    second = await create_event(db, settings(guild_id=6), created_by=ORGANISER, at=T0, status=EventStatus.OPEN)
    assert [e.id for e in await list_events(db)] == [first.id, second.id]
    assert [e.id for e in await list_events(db, guild_id=5)] == [first.id]
    assert [e.id for e in await list_events(db, statuses=frozenset({EventStatus.OPEN}))] == [second.id]
    latest = await latest_event(db)
    assert latest is not None and latest.id == second.id
    assert await latest_event(db, guild_id=99) is None
    with pytest.raises(NotFound, match="no event 999"):
        await get_event(db, 999)
    later = await set_next_round_at(db, first.id, at(30))
    assert later.next_round_at == at(30)
    assert (await set_next_round_at(db, first.id, None)).next_round_at is None


async def test_start_numbers_by_rating_then_name_and_never_renumbers(db: Database) -> None:
    event, players, _ = await open_event(db, [1500, 1800, 1500, 2000])
    # P4 (2000), P2 (1800), then P1 and P3 at 1500 by name.
    numbered = await start_event(db, event.id, at=at(5), actor=ACTOR)
    assert [(e.number, e.player.display_name) for e in numbered] == [(1, "P4"), (2, "P2"), (3, "P1"), (4, "P3")]
    assert (await get_event(db, event.id)).status is EventStatus.RUNNING
    late = (await add_players(db, [2500], first_discord_id=500))[0]
    entry = await join_event(db, event.id, late.id, 2500, at=at(6), actor=ACTOR)
    assert entry.number == 5 and entry.joined_round == 1  # joined before round 1 was paired
    assert (await entry_by_number(db, event.id, 1)).player.id == players[3].id
    assert (await get_entry(db, event.id, players[3].id)).number == 1
    with pytest.raises(NotFound, match="no player number 99"):
        await entry_by_number(db, event.id, 99)
    with pytest.raises(NotFound, match="not entered"):
        await get_entry(db, event.id, 424242)
    with pytest.raises(WrongStatus):
        await start_event(db, event.id, at=at(7), actor=ACTOR)


async def test_start_needs_two_players(db: Database) -> None:
    event, _, _ = await open_event(db, [1500])
    with pytest.raises(WrongStatus, match="two are needed"):
        await start_event(db, event.id, at=at(2), actor=ACTOR)


async def test_join_twice_rejoin_and_barred(db: Database) -> None:
    event, players, _ = await open_event(db, [1500, 1600, 1700])
    p1, p2, _ = players
    with pytest.raises(AlreadyJoined, match="already in 'Club Swiss'"):
        await join_event(db, event.id, p1.id, 1500, at=at(2), actor=ACTOR)
    withdrawn = await set_entry_status(db, event.id, p1.id, EntryStatus.WITHDRAWN, at=at(3), actor=ACTOR)
    assert withdrawn.status is EntryStatus.WITHDRAWN
    back = await join_event(db, event.id, p1.id, 1500, at=at(4), actor=ACTOR)
    assert back.status is EntryStatus.ACTIVE
    await set_entry_status(db, event.id, p2.id, EntryStatus.BANNED, at=at(5), actor=ACTOR, reason="abuse")
    with pytest.raises(EntryBarred, match="banned"):
        await join_event(db, event.id, p2.id, 1600, at=at(6), actor=ACTOR)
    actions = [a.action for a in await audit_log(db, event_id=event.id)]
    assert actions.count("entry.join") == 3 and "entry.rejoin" in actions and actions.count("entry.status") == 2
    assert len(await list_entries(db, event.id)) == 3


async def test_withdrawal_before_start_leaves_no_number(db: Database) -> None:
    event, players, _ = await open_event(db, [1500, 1600, 1700])
    await set_entry_status(db, event.id, players[0].id, EntryStatus.WITHDRAWN, at=at(2), actor=ACTOR)
    numbered = await start_event(db, event.id, at=at(3), actor=ACTOR)
    assert [e.player.id for e in numbered] == [players[2].id, players[1].id]
    left = await find_entry(db, event.id, players[0].id)
    assert left is not None and left.number is None
    with pytest.raises(WrongStatus, match="joining again"):
        await set_entry_status(db, event.id, players[0].id, EntryStatus.ACTIVE, at=at(4), actor=ACTOR)
    again = await join_event(db, event.id, players[0].id, 1500, at=at(5), actor=ACTOR)
    assert again.number == 3 and again.status is EntryStatus.ACTIVE


async def test_joining_a_draft_or_finished_event_is_refused(db: Database) -> None:
    event = await create_event(db, settings(), created_by=ORGANISER, at=T0)
    (player,) = await add_players(db, [1500])
    with pytest.raises(WrongStatus, match="joining is closed"):
        await join_event(db, event.id, player.id, 1500, at=at(1), actor=ACTOR)
    with pytest.raises(NotFound):
        await join_event(db, 12345, player.id, 1500, at=at(1), actor=ACTOR)


async def test_requested_byes_limits(db: Database) -> None:
    event, players, _ = await open_event(db, [1500, 1600], max_byes=1)
    p1 = players[0]
    bye = await request_bye(db, event.id, p1.id, 3, at=at(2), actor=ACTOR)
    assert (bye.round, bye.requested_at) == (3, at(2))
    assert await request_bye(db, event.id, p1.id, 3, at=at(3), actor=ACTOR) == bye  # idempotent
    with pytest.raises(ByeNotAllowed, match="limit is 1"):
        await request_bye(db, event.id, p1.id, 4, at=at(3), actor=ACTOR)
    with pytest.raises(ByeNotAllowed, match="rounds 1 to 5"):
        await request_bye(db, event.id, players[1].id, 6, at=at(3), actor=ACTOR)
    assert await cancel_bye(db, event.id, p1.id, 3, at=at(4), actor=ACTOR)
    assert not await cancel_bye(db, event.id, p1.id, 3, at=at(4), actor=ACTOR)
    (cancelled,) = await audit_log(db, event_id=event.id, action="bye.cancel")  # only what was removed is logged
    assert (cancelled.subject, json.loads(cancelled.before or "null")) == (f"player:{p1.id}", {"round": 3})
    await request_bye(db, event.id, p1.id, 4, at=at(5), actor=ACTOR)
    assert [(b.player_id, b.round) for b in await bye_requests(db, event.id)] == [(p1.id, 4)]
    await set_entry_status(db, event.id, p1.id, EntryStatus.WITHDRAWN, at=at(6), actor=ACTOR)
    with pytest.raises(ByeNotAllowed, match="withdrawn"):
        await request_bye(db, event.id, p1.id, 5, at=at(7), actor=ACTOR)


async def test_forbidden_pairs(db: Database) -> None:
    event, players, _ = await open_event(db, [1500, 1600, 1700])
    a, b, c = (p.id for p in players)
    assert await add_forbidden_pair(db, event.id, b, a, at=at(2), actor=ACTOR)
    assert not await add_forbidden_pair(db, event.id, a, b, at=at(2), actor=ACTOR)
    assert await add_forbidden_pair(db, event.id, c, a, at=at(2), actor=ACTOR)
    assert await forbidden_pairs(db, event.id) == [(a, b), (a, c)]
    assert await remove_forbidden_pair(db, event.id, b, a, at=at(3), actor=ACTOR, reason="they may meet")
    assert not await remove_forbidden_pair(db, event.id, b, a, at=at(3), actor=ACTOR)
    (removed,) = await audit_log(db, event_id=event.id, action="forbidden.remove")
    assert (removed.subject, json.loads(removed.before or "null"), removed.reason) == (
        f"players:{a},{b}",
        [a, b],
        "they may meet",
    )
    assert await forbidden_pairs(db, event.id) == [(a, c)]
    with pytest.raises(InvalidInput):
        await add_forbidden_pair(db, event.id, a, a, at=at(4), actor=ACTOR)


async def test_players_and_account_links(db: Database) -> None:
    alice = await ensure_player(db, 11, "Alice", at=T0)
    assert (await ensure_player(db, 11, "Alice B.", at=at(1))).display_name == "Alice B."
    bob = await ensure_player(db, 12, "Bob", at=T0)
    code = await create_link_code(db, 11, "AliceChess", "swiss-1234", at=at(1), expires_at=at(11))
    assert code.lichess_id == "alicechess"
    assert await pending_link_code(db, 11, at=at(10)) == code
    assert await pending_link_code(db, 11, at=at(11)) is None  # expired
    linked = await link_account(db, 11, "AliceChess", at=at(5), actor="discord:11")
    assert (linked.lichess_id, linked.name, linked.linked_at) == ("alicechess", "AliceChess", at(5))
    assert await pending_link_code(db, 11, at=at(6)) is None  # consumed
    assert await link_account(db, 11, "alicechess", at=at(6), actor="discord:11") == linked  # same account
    with pytest.raises(AccountTaken, match="another Discord user"):
        await link_account(db, 12, "ALICECHESS", at=at(6), actor="discord:12")
    with pytest.raises(AccountTaken, match="already linked"):
        await link_account(db, 11, "Other", at=at(6), actor="discord:11")
    found = await player_by_lichess(db, "ALICEchess")
    assert found is not None and found.id == alice.id
    assert await player_by_discord(db, 12) == bob
    assert await get_player(db, alice.id) == await ensure_player(db, 11, "Alice B.", at=at(9))
    with pytest.raises(NotFound, match="no player 999"):
        await get_player(db, 999)
    await unlink_account(db, 11, at=at(7), actor=ACTOR, reason="wrong account")
    assert (await link_account(db, 12, "AliceChess", at=at(8), actor="discord:12")).id == bob.id
    with pytest.raises(NotFound):
        await link_account(db, 99, "Nobody", at=at(8), actor="discord:99")
    await create_link_code(db, 12, "x", "c", at=at(1), expires_at=at(2))
    assert await purge_link_codes(db, at=at(3)) == 1
    actions = [a.action for a in await audit_log(db)]
    assert actions == ["player.link", "player.unlink", "player.link"]


async def test_bans_per_club(db: Database) -> None:
    (player,) = await add_players(db, [1500])
    assert await get_ban(db, 1, player.id) is None
    ban = await set_ban(db, 1, player.id, until=at(60 * 24), count=1, reason="no-show", at=at(0), actor="bot")
    assert ban.active(at(60)) and not ban.active(at(60 * 24))
    assert await get_ban(db, 1, player.id) == ban
    assert await get_ban(db, 2, player.id) is None  # another club
    again = await set_ban(db, 1, player.id, until=at(60 * 72), count=2, reason="no-show", at=at(60 * 30), actor="bot")
    assert (await get_ban(db, 1, player.id)) == again and again.count == 2
    assert await clear_ban(db, 1, player.id, at=at(60 * 31), actor=ACTOR, reason="appeal") == again
    assert await get_ban(db, 1, player.id) is None
    assert await clear_ban(db, 1, player.id, at=at(60 * 31), actor=ACTOR) is None
    lines = await audit_log(db)
    assert [a.action for a in lines] == ["ban.set", "ban.set", "ban.clear"]
    assert json.loads(lines[1].before or "")["count"] == 1


async def test_messages_are_remembered_and_replaced(db: Database) -> None:
    event = await create_event(db, settings(), created_by=ORGANISER, at=T0)
    await set_message(db, event.id, "join", channel_id=2, message_id=10)
    await set_message(db, event.id, "pairings", channel_id=2, message_id=11, round_number=1)
    await set_message(db, event.id, "pairings", channel_id=2, message_id=12, round_number=1)
    ref = await get_message(db, event.id, "pairings", round_number=1)
    assert ref is not None and ref.message_id == 12
    assert await get_message(db, event.id, "pairings", round_number=2) is None
    assert [(m.kind, m.round, m.message_id) for m in await event_messages(db, event.id)] == [
        ("join", 0, 10),
        ("pairings", 1, 12),
    ]


async def test_a_post_record_is_written_before_it_is_sent_and_a_deleted_message_gets_a_fresh_nonce(
    db: Database,
) -> None:
    event = await create_event(db, settings(), created_by=ORGANISER, at=T0)
    pending = await reserve_message(db, event.id, "round:0", channel_id=2, nonce="first", round_number=1)
    assert (pending.message_id, pending.nonce, pending.posted) == (None, "first", False)
    again = await reserve_message(db, event.id, "round:0", channel_id=2, nonce="second", round_number=1)
    assert again == pending  # one record per post: a resend carries the first nonce
    posted = await set_message(db, event.id, "round:0", channel_id=2, message_id=30, round_number=1, digest="d1")
    assert (posted.message_id, posted.nonce, posted.digest) == (30, "first", "d1")
    await set_digest(db, event.id, "round:0", "d2", round_number=1)
    renewed = await renew_message(db, event.id, "round:0", channel_id=3, nonce="third", round_number=1)
    assert (renewed.channel_id, renewed.message_id, renewed.nonce, renewed.digest) == (3, None, "third", None)


async def test_a_bulletin_keeps_its_text_and_the_same_bulletin_is_pending_once(db: Database) -> None:
    event = await create_event(db, settings(), created_by=ORGANISER, at=T0)
    cancelled = await queue_post(db, event.id, PostKind.BULLETIN, 0, at=at(1), text="the event is cancelled")
    assert await queue_post(db, event.id, PostKind.BULLETIN, 0, at=at(2), text="the event is cancelled") == cancelled
    other = await queue_post(db, event.id, PostKind.BULLETIN, 0, at=at(2), text="bob is disqualified")
    assert [p.text for p in await pending_posts(db, event.id)] == ["the event is cancelled", "bob is disqualified"]
    assert other.id != cancelled.id
    with pytest.raises(InvalidInput):
        await queue_post(db, event.id, PostKind.BULLETIN, 0, at=at(3))
    with pytest.raises(InvalidInput):
        await queue_post(db, event.id, PostKind.RESULTS, 1, at=at(3), text="no")


async def test_a_post_is_pending_once_until_sent_and_a_later_change_queues_it_again(db: Database) -> None:
    event = await create_event(db, settings(), created_by=ORGANISER, at=T0)
    first = await queue_post(db, event.id, PostKind.RESULTS, 1, at=at(1))
    assert await queue_post(db, event.id, PostKind.RESULTS, 1, at=at(2)) == first  # one pending row per post
    standings = await queue_post(db, event.id, PostKind.STANDINGS, 1, at=at(2))
    assert await pending_posts(db, event.id) == [first, standings] == await pending_posts(db)
    await post_sent(db, first.id, at=at(3))
    assert await pending_posts(db, event.id) == [standings]
    again = await queue_post(db, event.id, PostKind.RESULTS, 1, at=at(4))
    assert again.id != first.id and await pending_posts(db) == [standings, again]


async def test_record_action_and_audit_filters(db: Database) -> None:
    event = await create_event(db, settings(), created_by=ORGANISER, at=T0)
    await record_action(
        db, at=at(1), actor=ACTOR, action="announce.repost", subject="round:1", event_id=event.id, reason="lost"
    )
    lines = await audit_log(db, event_id=event.id)
    assert [a.action for a in lines] == ["event.create", "announce.repost"]
    assert (await audit_log(db, limit=1))[0].action == "announce.repost"
    assert await audit_log(db, event_id=event.id + 1) == []


async def test_naive_times_are_refused(db: Database) -> None:
    with pytest.raises(InvalidInput, match="no timezone"):
        await ensure_player(db, 1, "x", at=T0.replace(tzinfo=None))
    with pytest.raises(InvalidInput):
        await create_link_code(db, 1, "x", "c", at=T0, expires_at=T0 - timedelta(seconds=1))
