"""Linking a Lichess account through the bio code, and joining events: every refusal is a typed domain error."""

from __future__ import annotations

import pytest

from bot.director.models import Actor
from bot.errors import (
    AlreadyJoined,
    AlreadyLinked,
    Banned,
    ByeLimitReached,
    JoiningClosed,
    LichessAccountRefused,
    LinkCodeMissing,
    NotLinked,
    NotOrganiser,
    NotTeamMember,
    RatingOutOfRange,
)
from domain.entry import EntryStatus
from pairing.model import RecordKind
from tests.bot.director.director_world import GUILD, ORGANISER, World


async def test_link_needs_the_code_in_the_bio(world: World) -> None:
    alice = Actor(501, "alice")
    world.sandbox.add_user("alice", rating=1700)
    challenge = await world.director.start_link(alice, "Alice")
    assert challenge.code.startswith("swissbot-") and challenge.lichess_username == "alice"
    with pytest.raises(LinkCodeMissing):
        await world.director.complete_link(alice)
    world.sandbox.state.users["alice"].bio = f"hello {challenge.code}"
    linked = await world.director.complete_link(alice)
    assert linked.lichess_id == "alice"
    assert (await world.director.linked_account(501)) == linked
    with pytest.raises(AlreadyLinked):
        await world.director.start_link(alice, "alice")


async def test_link_code_expires(world: World) -> None:
    bob = Actor(502, "bob")
    world.sandbox.add_user("bob")
    challenge = await world.director.start_link(bob, "bob")
    world.sandbox.state.users["bob"].bio = challenge.code
    world.clock.advance(world.director.settings.link_code_lifetime + 1)
    with pytest.raises(LinkCodeMissing, match="expired"):
        await world.director.complete_link(bob)


async def test_one_account_per_member_and_per_lichess_account(world: World) -> None:
    await world.member("carol")
    with pytest.raises(AlreadyLinked, match="another member"):
        await world.director.start_link(Actor(999, "mallory"), "carol")


@pytest.mark.parametrize(
    ("extra", "reason"),
    [({"disabled": True}, "closed"), ({"tos_violation": True}, "flagged"), ({"title": "BOT"}, "BOT")],
)
async def test_closed_flagged_and_bot_accounts_are_refused(world: World, extra: dict[str, object], reason: str) -> None:
    world.sandbox.add_user("dave", **extra)
    with pytest.raises(LichessAccountRefused, match=reason):
        await world.director.start_link(Actor(503, "dave"), "dave")


async def test_unknown_lichess_name_is_refused(world: World) -> None:
    with pytest.raises(LichessAccountRefused, match="No Lichess account"):
        await world.director.start_link(Actor(504, "eve"), "nobody-here")


async def test_join_checks_link_rating_team_and_duplicates(world: World) -> None:
    event_id, _ = await world.event(rating_min=1400, rating_max=1800, team="club-team")
    with pytest.raises(NotLinked):
        await world.director.join(Actor(600, "stranger"), event_id)
    strong = await world.member("strong", rating=2100)
    with pytest.raises(RatingOutOfRange, match="2100"):
        await world.director.join(strong, event_id)
    outsider = await world.member("outsider", rating=1500)
    with pytest.raises(NotTeamMember):
        await world.director.join(outsider, event_id)
    member = await world.member("insider", rating=1500, teams=("club-team",))
    entry = await world.director.join(member, event_id)
    assert entry.status is EntryStatus.ACTIVE and entry.rating == 1500
    with pytest.raises(AlreadyJoined):
        await world.director.join(member, event_id)


async def test_members_cannot_use_organiser_cases(world: World) -> None:
    event_id, players = await world.event(players=2)
    with pytest.raises(NotOrganiser):
        await world.director.pause(players[0], event_id)
    with pytest.raises(NotOrganiser):
        await world.director.set_result(players[0], event_id, 1, 1, "1-0", "because")


async def test_late_join_until_half_the_rounds_have_started(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=4, rounds=4)
    await w.start(event_id)
    late = await w.member("latecomer", rating=1900)
    entry = await w.director.join(late, event_id)
    assert entry.joined_round == 2
    await w.play_all(event_id)
    await w.scheduler.run_due()
    assert await w.next_round(event_id) == 2
    view = await w.director.pairings(event_id, 2)
    assert any("latecomer" in (b.white.name, b.black.name) for b in view.boards) or any(
        bye.player.name == "latecomer" for bye in view.byes
    )
    crosstable = await w.director.crosstable(event_id)
    row = next(r for r in crosstable.rows if r[0].name == "latecomer")
    assert row[1][0] == "H"  # one half-point bye for the round missed
    await w.play_all(event_id)
    await w.scheduler.run_due()
    assert await w.next_round(event_id) == 3  # more than half (2 of 4) have started now
    with pytest.raises(JoiningClosed, match="half"):
        await w.director.join(await w.member("toolate"), event_id)


async def test_late_joiner_gets_one_half_bye_whatever_was_missed(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=4, rounds=5)
    await w.start(event_id)
    await w.play_all(event_id)
    await w.scheduler.run_due()
    assert await w.next_round(event_id) == 2
    await w.play_all(event_id)
    await w.scheduler.run_due()  # round 2 finished, round 3 not yet paired
    late = await w.member("latecomer", rating=1900)
    assert (await w.director.join(late, event_id)).joined_round == 3
    rows = await w.director.standings(event_id)
    assert next(r for r in rows if r.player.name == "latecomer").points == 0.5  # not 1.0 for two rounds missed


async def test_withdraw_keeps_points_and_rejoin(quiet_world: World) -> None:
    w = quiet_world
    event_id, players = await w.event(players=4, rounds=4)
    await w.start(event_id)
    await w.play_all(event_id, "white")
    await w.scheduler.run_due()
    leaver = players[0]
    before = {r.player.discord_id: r.points for r in await w.director.standings(event_id)}
    entry = await w.director.withdraw(leaver, event_id)
    assert entry.status is EntryStatus.WITHDRAWN
    await w.next_round(event_id)
    view = await w.director.pairings(event_id, 2)
    placed = {b.white.discord_id for b in view.boards} | {b.black.discord_id for b in view.boards}
    placed |= {bye.player.discord_id for bye in view.byes}
    assert leaver.discord_id not in placed
    after = {r.player.discord_id: r.points for r in await w.director.standings(event_id)}
    assert after[leaver.discord_id] == before[leaver.discord_id]
    assert (await w.director.join(leaver, event_id)).status is EntryStatus.ACTIVE
    await w.play_all(event_id)
    await w.scheduler.run_due()
    await w.next_round(event_id)
    view = await w.director.pairings(event_id, 3)
    placed = {b.white.discord_id for b in view.boards} | {b.black.discord_id for b in view.boards}
    placed |= {bye.player.discord_id for bye in view.byes}
    assert leaver.discord_id in placed


async def test_requested_bye_within_the_limit(quiet_world: World) -> None:
    w = quiet_world
    event_id, players = await w.event(players=5, rounds=3, max_byes=1)
    assert await w.director.request_bye(players[1], event_id, 2) == 2
    with pytest.raises(ByeLimitReached, match="limit"):
        await w.director.request_bye(players[1], event_id, 3)
    await w.start(event_id)
    with pytest.raises(ByeLimitReached, match="already paired"):
        await w.director.request_bye(players[2], event_id, 1)
    await w.play_all(event_id)
    await w.scheduler.run_due()
    await w.next_round(event_id)
    view = await w.director.pairings(event_id, 2)
    halves = [b.player.discord_id for b in view.byes if b.kind is RecordKind.HALF_BYE]
    assert halves == [players[1].discord_id]


async def test_banned_member_cannot_join_until_unbanned(quiet_world: World) -> None:
    w = quiet_world
    event_id, players = await w.event(players=2, rounds=1)
    await w.start(event_id)
    await w.play(event_id, 1, None, status="started", plies=0)  # white never moves
    w.clock.advance(6 * 60)
    await w.scheduler.run_due()
    view = await w.director.pairings(event_id, 1)
    white = view.boards[0].white
    absent = next(p for p in players if p.discord_id == white.discord_id)
    other, _ = await w.event()
    with pytest.raises(Banned) as banned:
        await w.director.join(absent, other)
    assert 23.9 * 3600 < (banned.value.until - w.clock.now()).total_seconds() <= 24 * 3600
    await w.director.unban(ORGANISER, GUILD, white.name)
    assert (await w.director.join(absent, other)).status is EntryStatus.ACTIVE
