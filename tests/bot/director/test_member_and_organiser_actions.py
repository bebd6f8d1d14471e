"""Members and organisers through the real director, SQLite and the local Lichess: standings after a correction,
posts lost to Discord, cancelling and late disqualification, rating limits, byes, forbidden pairs, reinstating,
unlinking."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import pytest

from bot.director.announcer import AnnouncementFailed
from bot.director.models import RoundView, StandingRow
from bot.errors import InvalidState, NotEntered, RatingOutOfRange
from domain.entry import EntryStatus
from domain.event import Event
from domain.result import Result
from storage import entries as storage_entries
from storage import rounds as storage_rounds
from tests.bot.director.director_world import ORGANISER, World
from tests.support.announcer import RecordingAnnouncer


async def test_a_correction_during_a_round_updates_the_last_finished_rounds_standings(quiet_world: World) -> None:
    """Standings are labelled by the last finished round, each finished round gets its own post."""
    w = quiet_world
    event_id, _ = await w.event(players=4, rounds=3)
    await w.start(event_id)
    await w.play_all(event_id, "white")
    await w.scheduler.run_due()
    assert await w.next_round(event_id) == 2
    await w.play(event_id, 1, "black")  # round 2 board 1 decided, board 2 still being played
    await w.scheduler.run_due()
    before = len(w.announcer.of("standings"))
    assert [a[0].current_round for a in w.announcer.of("standings")] == [1]

    r1 = await w.director.pairings(event_id, 1)
    await w.director.set_result(ORGANISER, event_id, 1, r1.boards[0].number, "0-1", "scoresheet")
    posted = w.announcer.of("standings")[before:]
    assert len(posted) == 1
    event, rows, final = posted[0]
    assert event.current_round == 1 and not final  # "after round 1", not "after round 2"
    # Round 2's partial result is not in the standings after round 1: 2 points were played out in all.
    assert sum((row.points for row in rows), Fraction(0)) == 2

    await w.play(event_id, 2, "white")
    await w.scheduler.run_due()
    rounds = [a[0].current_round for a in w.announcer.of("standings")]
    assert rounds == [1, 1, 2]  # round 2's end has a post of its own
    assert sum((row.points for row in w.announcer.of("standings")[-1][1]), Fraction(0)) == 4


class DiscordDown(RecordingAnnouncer):
    """Records like the real one, but while `down` the posts the director must retry fail like Discord's 5xx."""

    def __init__(self) -> None:
        super().__init__()
        self.down = False
        self.failed: list[str] = []

    async def _refuse(self, name: str) -> None:
        if self.down:
            self.failed.append(name)
            raise AnnouncementFailed(f"{name}: 503 Service Unavailable")

    async def round_paired(self, event: Event, round: RoundView) -> None:
        await self._refuse("round_paired")
        await super().round_paired(event, round)

    async def results_updated(self, event: Event, round: RoundView) -> None:
        await self._refuse("results_updated")
        await super().results_updated(event, round)

    async def standings(self, event: Event, rows: Sequence[StandingRow], final: bool) -> None:
        await self._refuse("standings")
        await super().standings(event, rows, final)

    async def event_finished(self, event: Event, rows: Sequence[StandingRow], reason: str) -> None:
        await self._refuse("event_finished")
        await super().event_finished(event, rows, reason)

    async def bulletin(self, event: Event, text: str) -> None:
        await self._refuse("bulletin")
        await super().bulletin(event, text)


async def test_pairings_standings_and_the_end_lost_to_discord_are_posted_once_it_is_back(quiet_world: World) -> None:
    """Only a post that reached Discord is marked announced; the rest is retried."""
    w = quiet_world
    down = DiscordDown()
    await w.with_announcer(down)
    event_id, _ = await w.event(players=4, rounds=2)

    down.down = True
    await w.start(event_id)
    assert down.failed == ["round_paired"]
    r1 = (await storage_rounds.list_rounds(w.db, event_id))[0].round
    assert r1.pairings_announced_at is None  # not marked: Discord never got it
    down.down = False
    w.clock.advance(30)
    await w.scheduler.run_due()
    assert len(down.of("round_paired")) == 1

    down.down = True
    await w.play_all(event_id, "white")
    await w.scheduler.run_due()
    # The round's last result did not get through: neither do its standings, until it does.
    assert down.failed[-1] == "results_updated" and down.of("standings") == down.of("results_updated") == []
    assert (await storage_rounds.list_rounds(w.db, event_id))[0].round.results_announced_at is None
    w.clock.advance(5)
    tries = len(down.failed)
    await w.scheduler.run_due()  # Discord still down, and the retry waits a little: not tried again at once
    assert len(down.failed) == tries
    down.down = False
    w.clock.advance(60)
    await w.scheduler.run_due()
    assert [a[0].current_round for a in down.of("standings")] == [1]
    (shown,) = down.of("results_updated")  # the round's results, lost with Discord, go out with its standings
    assert shown[1].number == 1 and shown[1].decided

    await w.next_round(event_id)
    await w.scheduler.run_due()
    down.down = True
    await w.play_all(event_id, "black")
    await w.scheduler.run_due()
    assert await w.finished(event_id) and down.of("event_finished") == []
    assert (await w.director.event(event_id)).finish_announced_at is None
    down.down = False
    w.clock.advance(60)
    await w.scheduler.run_due()
    await w.scheduler.run_due()
    assert len(down.of("event_finished")) == 1
    assert (await w.director.event(event_id)).finish_announced_at is not None
    assert len(down.of("round_paired")) == 2


async def test_cancelling_an_event_is_announced_in_its_channel(quiet_world: World) -> None:
    """/swiss cancel tells the channel."""
    w = quiet_world
    event_id, _ = await w.event(players=4, rounds=3)
    await w.start(event_id)
    await w.director.cancel(ORGANISER, event_id)
    (said,) = w.announcer.of("bulletin")
    assert said[0].status.value == "cancelled"
    assert said[1] == "the event is cancelled by the organisers during round 1, before any round was completed."


async def test_a_disqualification_after_the_end_updates_the_final_standings(quiet_world: World) -> None:
    """A disqualification after the end is announced and the final standings follow it."""
    w = quiet_world
    event_id, _ = await w.event(players=4, rounds=1)
    await w.start(event_id)
    await w.play_all(event_id, "white")
    await w.run_until(lambda: w.finished(event_id))
    winner = next(row for row in w.announcer.of("event_finished")[0][1] if row.rank == 1)
    await w.director.disqualify(ORGANISER, event_id, winner.player.name, "fair play")
    event, rows, final = w.announcer.of("standings")[-1]
    assert final and event.status.value == "finished"
    assert rows[-1].player.name == winner.player.name and rows[-1].rank is None
    assert all(row.player.name != winner.player.name for row in rows if row.rank == 1)
    (said,) = w.announcer.of("bulletin")
    assert winner.player.name in said[1] and "disqualified" in said[1] and "fair play" in said[1]


async def test_rating_limits_need_an_established_rating_at_the_events_speed(quiet_world: World) -> None:
    """No rating at the speed is refused (not 1500), so is a provisional one, and too few rated games."""
    w = quiet_world
    event_id, _ = await w.event(players=0, rating_max=1899)  # 3+2: blitz
    unrated = await w.member("unrated", rating=2500)
    w.sandbox.state.users["unrated"].ratings = {"rapid": 2500}  # never played blitz
    with pytest.raises(RatingOutOfRange, match="no blitz rating"):
        await w.director.join(unrated, event_id)
    newcomer = await w.member("newcomer", rating=1400, provisional=True)
    with pytest.raises(RatingOutOfRange, match="provisional"):
        await w.director.join(newcomer, event_id)
    regular = await w.member("regular", rating=1800)
    assert (await w.director.join(regular, event_id)).rating == 1800

    games_event, _ = await w.event(players=0, min_rated_games=60)
    with pytest.raises(RatingOutOfRange, match="50 rated blitz game"):  # the local Lichess gives everyone 50
        await w.director.join(regular, games_event)


async def test_entry_conditions_are_checked_again_at_the_start_and_seed_by_todays_ratings(quiet_world: World) -> None:
    """A player over the limit by the start is withdrawn; seeding uses the ratings at the start."""
    w = quiet_world
    event_id, _ = await w.event(players=0, rating_max=1899)
    names = ["climber", "steady1", "steady2", "riser", "steady3"]
    actors = [await w.member(name, rating=1800 - 10 * i) for i, name in enumerate(names)]
    for actor in actors:
        await w.director.join(actor, event_id)
    w.sandbox.state.users["climber"].ratings["blitz"] = 1950
    w.sandbox.state.users["riser"].ratings["blitz"] = 1890
    await w.start(event_id)
    entries = {e.name: e for e in await w.director.entries(event_id)}
    assert entries["climber"].status is EntryStatus.WITHDRAWN and entries["climber"].number is None
    assert entries["riser"].rating == 1890 and entries["riser"].number == 1  # seeded by the rating at the start
    assert any("climber is withdrawn at the start" in args[1] for args in w.announcer.of("notice"))
    assert (await w.director.event(event_id)).current_round == 1


@pytest.mark.parametrize(("late_join_bye", "points"), [(True, Fraction(1, 2)), (False, Fraction(0))])
async def test_late_join_bye_is_honoured(quiet_world: World, late_join_bye: bool, points: Fraction) -> None:
    """The event's late_join_bye decides whether a late entrant gets a half point for round 1."""
    w = quiet_world
    event_id, _ = await w.event(players=4, rounds=3, late_join_bye=late_join_bye)
    await w.start(event_id)
    late = await w.member("latecomer", rating=1600)
    await w.director.join(late, event_id)
    await w.play_all(event_id, "white")
    await w.scheduler.run_due()
    row = next(r for r in await w.director.standings(event_id) if r.player.name == "latecomer")
    assert row.points == points


async def test_a_member_can_take_back_a_requested_bye(quiet_world: World) -> None:
    """/bye cancel."""
    w = quiet_world
    event_id, actors = await w.event(players=4, rounds=3)
    assert await w.director.request_bye(actors[0], event_id, 2) == 2
    assert await w.director.cancel_bye(actors[0], event_id) == 2
    assert await storage_entries.bye_requests(w.db, event_id) == []
    with pytest.raises(NotEntered, match="no bye requested for round 1"):
        await w.director.cancel_bye(actors[0], event_id)


async def test_an_organiser_can_lift_a_forbidden_pair(quiet_world: World) -> None:
    """/swiss allow undoes /swiss forbid (two players: they can then be paired)."""
    w = quiet_world
    event_id, _ = await w.event(players=2, rounds=1)
    await w.director.forbid(ORGANISER, event_id, "player01", "player02")
    await w.director.allow(ORGANISER, event_id, "player01", "player02")
    with pytest.raises(InvalidState, match="not a forbidden pair"):
        await w.director.allow(ORGANISER, event_id, "player01", "player02")
    await w.start(event_id)
    assert len((await w.director.pairings(event_id, 1)).boards) == 1


async def test_an_organiser_can_reinstate_a_withdrawn_player_after_half_the_rounds(quiet_world: World) -> None:
    """/swiss reinstate brings a withdrawn (or removed, or no-show) player back, even late."""
    w = quiet_world
    event_id, actors = await w.event(players=8, rounds=4)
    await w.start(event_id)
    await w.director.withdraw(actors[3], event_id)
    await w.director.remove(ORGANISER, event_id, "player03")
    for _ in range(2):
        await w.play_all(event_id, "white")
        await w.scheduler.run_due()
        await w.next_round(event_id)
    assert (await w.director.event(event_id)).current_round == 3  # past half of 4 rounds: joining is closed
    for name in ("player04", "player03"):
        back = await w.director.reinstate(ORGANISER, event_id, name)
        assert back.status is EntryStatus.ACTIVE
    with pytest.raises(InvalidState, match="already"):
        await w.director.reinstate(ORGANISER, event_id, "player04")
    await w.play_all(event_id, "white")
    await w.scheduler.run_due()
    await w.next_round(event_id)
    paired = {p.name for b in (await w.director.pairings(event_id, 4)).boards for p in (b.white, b.black)}
    assert {"player03", "player04"} <= paired


async def test_a_member_can_unlink_when_not_playing(quiet_world: World) -> None:
    """/unlink, refused while the member plays in an event."""
    w = quiet_world
    event_id, actors = await w.event(players=2, rounds=1)
    with pytest.raises(InvalidState, match="withdraw from it first"):
        await w.director.unlink(actors[0])
    await w.director.withdraw(actors[0], event_id)
    assert await w.director.unlink(actors[0]) == "player01"
    assert await w.director.linked_account(actors[0].discord_id) is None


async def test_a_finished_event_refuses_withdraw_in_one_clear_sentence(quiet_world: World) -> None:
    """Withdrawing from a finished event changes nothing and says why."""
    w = quiet_world
    event_id, actors = await w.event(players=2, rounds=1)
    await w.start(event_id)
    await w.play_all(event_id, "white")
    await w.run_until(lambda: w.finished(event_id))
    with pytest.raises(InvalidState) as refused:
        await w.director.withdraw(actors[0], event_id)
    text = str(refused.value)
    assert text.count(".") == 1 and "finished" in text and "results stay" in text
    assert all(e.status is EntryStatus.ACTIVE for e in await w.director.entries(event_id))


async def test_lichess_sb_is_selectable_for_an_event(quiet_world: World) -> None:
    """An event can rank by SB as Lichess computes it; FIDE's and Lichess's differ on an unplayed round."""
    w = quiet_world
    fide, actors = await w.event(players=5, rounds=2, tiebreaks=("SB",))
    lichess, _ = await w.event(players=0, rounds=2, tiebreaks=("SB",), lichess_sb=True)
    for actor in actors:
        await w.director.join(actor, lichess)
    await w.start(fide)
    for _ in range(2):
        for event_id in (fide, lichess):
            await w.play_all(event_id, "white")
        await w.scheduler.run_due()
        await w.next_round(fide)
    await w.run_until(lambda: w.finished(lichess))
    assert await w.finished(fide)
    values = [{r.player.name: r.tiebreaks["SB"] for r in await w.director.standings(e)} for e in (fide, lichess)]
    assert values[0] != values[1]


@pytest.mark.lichess_http  # faults and the control API need the local Lichess over HTTP
async def test_lichess_down_at_the_start_does_not_hold_the_event(quiet_world: World) -> None:
    """An account Lichess cannot read at the start keeps its rating at entry; the organisers are told."""
    w = quiet_world
    event_id, _ = await w.event(players=4, rating_max=2100)
    await w.control("/sandbox/faults", {"path": "/api/users", "status": 503, "count": 20})
    await w.start(event_id)
    assert (await w.director.event(event_id)).current_round == 1
    assert all(e.status is EntryStatus.ACTIVE for e in await w.director.entries(event_id))
    notices = [args[1] for args in w.announcer.of("notice") if "did not answer for" in args[1]]
    assert len(notices) == 1 and "player02" in notices[0]


@pytest.mark.parametrize("how", ["withdraw", "remove", "disqualify"])
async def test_a_player_who_leaves_during_a_round_loses_the_board_by_forfeit_at_once(
    quiet_world: World, how: str
) -> None:
    """The opponent wins at once, the challenge is cancelled on Lichess, and the round ends without waiting."""
    w = quiet_world
    event_id, actors = await w.event(players=4, rounds=2)
    await w.start(event_id)
    view = await w.director.pairings(event_id)
    await w.play(event_id, view.boards[0].number, "white")
    await w.scheduler.run_due()
    board = view.boards[1]
    leaver = next(a for a in actors if a.discord_id == board.white.discord_id)
    if how == "withdraw":
        await w.director.withdraw(leaver, event_id)
        left = "withdrew"
    elif how == "remove":
        await w.director.remove(ORGANISER, event_id, board.white.name)
        left = "was removed"
    else:
        await w.director.disqualify(ORGANISER, event_id, board.white.name, "fair play")
        left = "was disqualified"
    decided = (await w.director.pairings(event_id, 1)).boards[1]
    assert decided.result is Result.BLACK_WINS_FORFEIT
    assert board.game_id not in w.sandbox.state.games  # the challenge is cancelled on Lichess
    sentence = f"Round 1 board {board.number}: {board.white.name} {left}, so {board.black.name} wins by forfeit."
    assert sentence in [n[1] for n in w.announcer.of("notice")]
    assert any("you win your board by forfeit" in d[1] for d in w.announcer.of("dm") if d[0] == board.black.discord_id)
    assert await w.next_round(event_id) == 2  # the round was not held up


async def test_a_game_the_gone_player_plays_afterwards_counts_for_nothing(quiet_world: World) -> None:
    w = quiet_world
    event_id, actors = await w.event(players=2, rounds=2)
    await w.start(event_id)
    board = (await w.director.pairings(event_id)).boards[0]
    await w.play(event_id, board.number, None, status="started", plies=10)  # in play: Lichess cannot cancel it
    leaver = next(a for a in actors if a.discord_id == board.black.discord_id)
    await w.director.withdraw(leaver, event_id)
    await w.play(event_id, board.number, "black")  # the gone player wins the game on Lichess anyway
    await w.scheduler.run_due()
    assert (await w.director.pairings(event_id, 1)).boards[0].result is Result.WHITE_WINS_FORFEIT


async def test_a_player_who_leaves_a_held_round_forfeits_when_the_hold_ends(quiet_world: World) -> None:
    """The organisers may still re-pair a held round; when they do not, the board is forfeited, never a no-show."""
    w = quiet_world
    event_id, actors = await w.event(players=4, rounds=2, pairing_review=10)
    await w.start(event_id)
    board = (await w.director.pairings(event_id)).boards[0]
    leaver = next(a for a in actors if a.discord_id == board.black.discord_id)
    await w.director.withdraw(leaver, event_id)
    assert (await w.director.pairings(event_id)).boards[0].result is None  # still the organisers' to correct
    w.clock.advance(10 * 60)
    await w.scheduler.run_due()
    view = await w.director.pairings(event_id)
    assert view.boards[0].result is Result.WHITE_WINS_FORFEIT and view.boards[0].game_id is None
    assert all(b.game_id for b in view.boards[1:])
    assert not any("banned" in n[1] for n in w.announcer.of("notice"))


async def test_finishing_an_event_that_never_started_is_refused_pointing_at_cancel(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=2, rounds=2)
    with pytest.raises(InvalidState) as refused:
        await w.director.finish(ORGANISER, event_id)
    assert str(refused.value) == "Club Swiss has not started, so there is nothing to finish: cancel it (/swiss cancel)."
    assert (await w.director.event(event_id)).status.value == "open"


async def test_a_cancellation_mid_round_says_the_rounds_completed_and_updates_the_rounds_post(
    quiet_world: World,
) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=4, rounds=3)
    await w.start(event_id)
    await w.play_all(event_id)
    await w.scheduler.run_due()
    assert await w.next_round(event_id) == 2
    before = len(w.announcer.of("results_updated"))
    await w.director.cancel(ORGANISER, event_id)
    bulletins = [b[1] for b in w.announcer.of("bulletin")]
    assert bulletins[-1] == "the event is cancelled by the organisers after 1 completed round, during round 2."
    updated = w.announcer.of("results_updated")[before:]
    assert [(view.number, event.status.value) for event, view in updated] == [(2, "cancelled")]


async def test_the_pairing_allocated_bye_is_dmed_like_a_pairing(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=3, rounds=2)
    await w.start(event_id)
    (bye,) = (await w.director.pairings(event_id)).byes
    dms = [d[1] for d in w.announcer.of("dm") if d[0] == bye.player.discord_id]
    assert dms == [
        "Club Swiss round 1: you have the pairing-allocated bye: no game to play, and the bye's points are yours."
    ]
