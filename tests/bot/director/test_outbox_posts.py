"""Posts that must reach the channel are kept in the outbox until Discord took them: a correction or a removal
during an outage answers its success, and its posts go out once Discord is back, also after a restart."""

from __future__ import annotations

import pytest

from bot.director.models import JobKind, RoundView
from domain.entry import EntryStatus
from domain.event import Event
from storage.outbox import PostKind, pending_posts
from tests.bot.director.director_world import ORGANISER, World, another_process
from tests.bot.director.test_member_and_organiser_actions import DiscordDown
from tests.support.announcer import RecordingAnnouncer


async def test_a_correction_during_an_outage_is_posted_after_a_restart_once_discord_is_back(
    quiet_world: World,
) -> None:
    w = quiet_world
    down = DiscordDown()
    await w.with_announcer(down)
    event_id, _ = await w.event(players=4, rounds=2)
    await w.start(event_id)
    await w.play_all(event_id, "white")
    await w.scheduler.run_due()
    assert len(down.of("standings")) == 1 and await pending_posts(w.db) == []

    down.down = True
    correction = await w.director.set_result(ORGANISER, event_id, 1, 1, "0-1", "scoresheet")
    assert correction.new.value == "0-1"  # the change is stored and the command answers its success
    assert [(p.kind, p.round) for p in await pending_posts(w.db)] == [(PostKind.RESULTS, 1), (PostKind.STANDINGS, 1)]

    back = RecordingAnnouncer()  # the bot restarts, and Discord answers again
    app = await another_process(w, w.clock, back)
    w.clock.advance(60)
    ran = await app.scheduler.run_due()
    assert JobKind.POSTS in [j.kind for j in ran]
    (shown,) = back.of("results_updated")
    assert shown[1].number == 1 and shown[1].boards[0].result is not None and shown[1].boards[0].result.value == "0-1"
    (standings,) = back.of("standings")
    assert standings[0].current_round == 1 and not standings[2]
    assert await pending_posts(w.db) == []
    w.clock.advance(60)
    await app.scheduler.run_due()
    assert len(back.of("standings")) == 1 and len(back.of("results_updated")) == 1  # posted once


async def test_a_removal_during_an_outage_answers_its_success_and_its_forfeit_is_shown_later(
    quiet_world: World,
) -> None:
    w = quiet_world
    down = DiscordDown()
    await w.with_announcer(down)
    event_id, actors = await w.event(players=4, rounds=2)
    await w.start(event_id)
    down.down = True
    entry = await w.director.remove(ORGANISER, event_id, actors[0].name)
    assert entry.status is EntryStatus.BANNED and down.failed == ["results_updated"]
    assert [(p.kind, p.round) for p in await pending_posts(w.db)] == [(PostKind.RESULTS, 1)]
    down.down = False
    w.clock.advance(60)
    await w.scheduler.run_due()
    (shown,) = down.of("results_updated")
    assert any(b.result is not None for b in shown[1].boards)
    assert await pending_posts(w.db) == []


class Killed(Exception):
    """The process died here."""


class DiesBeforeTheEdit(RecordingAnnouncer):
    """Records like the real one, but the bot dies as it is about to edit a round's message with its results."""

    async def results_updated(self, event: Event, round: RoundView) -> None:
        raise Killed()


async def test_a_stop_between_a_result_and_its_edit_edits_the_round_after_the_restart(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=4, rounds=2)
    await w.start(event_id)
    await w.with_announcer(DiesBeforeTheEdit())
    await w.play(event_id, 1, "white")
    await w.scheduler.run_due()  # the result is stored; the bot dies before the round's message shows it
    assert [(p.kind, p.round) for p in await pending_posts(w.db)] == [(PostKind.RESULTS, 1)]

    back = RecordingAnnouncer()
    app = await another_process(w, w.clock, back)
    w.clock.advance(60)
    await app.scheduler.run_due()
    (shown,) = back.of("results_updated")
    assert shown[1].number == 1 and shown[1].boards[0].result is not None
    assert await pending_posts(w.db) == []


async def test_a_late_disqualification_during_an_outage_is_posted_once_discord_is_back(quiet_world: World) -> None:
    w = quiet_world
    down = DiscordDown()
    await w.with_announcer(down)
    event_id, actors = await w.event(players=4, rounds=1)
    await w.start(event_id)
    await w.play_all(event_id, "white")
    await w.scheduler.run_due()
    assert (await w.director.event(event_id)).status.value == "finished"

    down.down = True
    entry = await w.director.disqualify(ORGANISER, event_id, actors[0].name, "fair play")
    assert entry.status is EntryStatus.DISQUALIFIED  # stored, and the command answers
    assert [(p.kind, p.round) for p in await pending_posts(w.db)] == [(PostKind.FINAL, 0), (PostKind.BULLETIN, 0)]
    down.down = False
    for _ in range(2):
        w.clock.advance(60)
        await w.scheduler.run_due()
    (line,) = down.of("bulletin")
    assert line[1] == f"{actors[0].name} is disqualified (fair play): the final standings are updated."
    finals = [args for args in down.of("standings") if args[2]]
    assert finals[-1][1][-1].player.name == actors[0].name  # the final standings, the disqualified player last
    assert await pending_posts(w.db) == []


async def test_a_replayed_games_new_link_refused_by_discord_is_shown_later(quiet_world: World) -> None:
    w = quiet_world
    down = DiscordDown()
    await w.with_announcer(down)
    event_id, _ = await w.event(players=2, rounds=2)
    await w.start(event_id)
    first = (await w.director.pairings(event_id)).boards[0].game_id
    down.down = True
    await w.play(event_id, 1, None, status="aborted", plies=0)
    await w.scheduler.run_due()  # created again; the round's post cannot say so now
    replay = (await w.director.pairings(event_id)).boards[0].game_id
    assert replay not in (None, first)
    assert [(p.kind, p.round) for p in await pending_posts(w.db)] == [(PostKind.RESULTS, 1)]
    down.down = False
    w.clock.advance(60)
    await w.scheduler.run_due()
    shown = down.of("results_updated")[-1][1]
    assert shown.boards[0].game_id == replay and await pending_posts(w.db) == []


class DiesAtTheNotice(RecordingAnnouncer):
    """Records like the real one, but the bot dies as it tells the organisers of something."""

    async def notice(self, event: Event, text: str) -> None:
        raise Killed()


async def test_a_stop_between_a_removals_forfeit_and_its_edit_edits_the_round_after_the_restart(
    quiet_world: World,
) -> None:
    w = quiet_world
    event_id, actors = await w.event(players=4, rounds=2)
    await w.start(event_id)
    await w.with_announcer(DiesAtTheNotice())
    with pytest.raises(Killed):  # the forfeit is stored; the bot dies telling the organisers, before the edit
        await w.director.remove(ORGANISER, event_id, actors[0].name)
    assert [(p.kind, p.round) for p in await pending_posts(w.db)] == [(PostKind.RESULTS, 1)]

    back = RecordingAnnouncer()
    app = await another_process(w, w.clock, back)
    w.clock.advance(60)
    await app.scheduler.run_due()
    (shown,) = back.of("results_updated")
    assert sum(b.result is not None for b in shown[1].boards) == 1 and await pending_posts(w.db) == []
