"""The round cycle against the sandbox with a manual clock: a whole event, no-shows, early draws, corrections."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from bot.errors import BoardNotFound, InvalidSetting, InvalidState, JoiningClosed
from domain.entry import EntryStatus
from domain.result import Result
from domain.rounds import RoundStatus
from domain.settings import EarlyDrawPolicy, Schedule
from pairing import checker, trf
from pairing.standings.crosstable import crosstable
from storage.audit import audit_log
from storage.players import get_ban, player_by_discord
from tests.bot.director.director_world import GUILD, ORGANISER, World


async def test_full_event_runs_to_final_standings(world: World) -> None:
    event_id, _ = await world.event(players=8, rounds=3)
    await world.run_until(lambda: world.finished(event_id))
    event = await world.director.event(event_id)
    assert event.current_round == 3
    for number in (1, 2, 3):
        view = await world.director.pairings(event_id, number)
        assert view.decided
    finished = world.announcer.of("event_finished")
    assert len(finished) == 1 and "3 rounds" in finished[0][2]


async def test_the_pgn_export_links_to_the_lichess_the_games_were_played_on(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=2, rounds=1)
    await w.start(event_id)
    await w.play(event_id, 1, "white")
    await w.run_until(lambda: w.finished(event_id))
    game_id = (await w.director.pairings(event_id, 1)).boards[0].game_id
    pgn = (await w.director.export(event_id, "pgn")).decode()
    assert f'[Site "{w.sandbox.url}/{game_id}"]' in pgn and "lichess.org" not in pgn


async def test_standings_are_announced_after_every_round(world: World) -> None:
    event_id, _ = await world.event(players=6, rounds=3)
    await world.run_until(lambda: world.finished(event_id))
    after_rounds = [args[0].current_round for args in world.announcer.of("standings") if not args[2]]
    assert after_rounds == [1, 2]
    assert len(world.announcer.of("round_paired")) == 3


@pytest.mark.parametrize(
    ("status", "plies", "result", "absent"),
    [
        ("started", 0, Result.BLACK_WINS_FORFEIT, "white"),
        ("started", 1, Result.WHITE_WINS_FORFEIT, "black"),
    ],
)
async def test_noshows_forfeit_withdraw_and_ban(
    quiet_world: World, status: str | None, plies: int, result: Result, absent: str
) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=6, rounds=2)
    await w.start(event_id)
    if status is not None:
        await w.play(event_id, 1, None, status=status, plies=plies)
    await w.play(event_id, 2, "white")
    await w.play(event_id, 3, "black")
    await w.scheduler.run_due()
    assert (await w.director.pairings(event_id)).boards[0].result is None  # before the deadline: waiting
    w.clock.advance(5 * 60)
    await w.scheduler.run_due()
    board = (await w.director.pairings(event_id, 1)).boards[0]
    assert board.result is result
    who = {"white": [board.white], "black": [board.black], "both": [board.white, board.black]}[absent]
    entries = {e.discord_id: e for e in await w.director.entries(event_id)}
    for player in (board.white, board.black):
        expected = EntryStatus.ABSENT if player in who else EntryStatus.ACTIVE
        assert entries[player.discord_id or 0].status is expected
    assert len([d for d in w.announcer.of("dm") if "did not play" in d[1]]) == len(who)
    told = [n[1] for n in w.announcer.of("notice") if "did not play" in n[1]]
    assert len(told) == len(who) and all("/swiss unban" in t for t in told)
    assert all(any(p.name in t for t in told) for p in who)
    assert await w.next_round(event_id) == 2
    view = await w.director.pairings(event_id, 2)
    placed = {b.white.discord_id for b in view.boards} | {b.black.discord_id for b in view.boards}
    assert not placed & {p.discord_id for p in who}


async def test_repeated_noshow_doubles_the_ban(quiet_world: World) -> None:
    w = quiet_world
    bans = []
    players = [await w.member("first"), await w.member("second")]
    for _ in range(2):
        event_id, _ = await w.event()
        for p in players:
            await w.director.join(p, event_id)
        await w.start(event_id)
        await w.play(event_id, 1, None, status="started", plies=0)
        w.clock.advance(6 * 60)
        await w.scheduler.run_due()
        white = (await w.director.pairings(event_id, 1)).boards[0].white
        player = await player_by_discord(w.db, white.discord_id or 0)
        assert player is not None
        ban = await get_ban(w.db, GUILD, player.id)
        assert ban is not None
        bans.append(((ban.until - w.clock.now()).total_seconds() / 3600, ban.count))
        await w.director.unban(ORGANISER, GUILD, white.name)
    assert bans == [(24.0, 1), (48.0, 2)]


@pytest.mark.parametrize("policy", list(EarlyDrawPolicy))
async def test_early_draws_under_each_policy(quiet_world: World, policy: EarlyDrawPolicy) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=2, rounds=1, early_draw_policy=policy)
    await w.start(event_id)
    first = (await w.director.pairings(event_id)).boards[0].game_id
    await w.play(event_id, 1, None, status="draw", plies=20)
    await w.scheduler.run_due()
    board = (await w.director.pairings(event_id)).boards[0]
    if policy is EarlyDrawPolicy.REPLAY:
        assert board.result is None and board.game_id not in (None, first)
        names = sorted(str(g.name) for g in w.sandbox.state.games.values())
        assert names == ["Club Swiss #1 R1 B1", "Club Swiss #1 R1 B1 G2"]
        await w.play(event_id, 1, None, status="draw", plies=80)  # a long draw stands
        await w.scheduler.run_due()
        assert (await w.director.pairings(event_id)).boards[0].result is Result.DRAW
    elif policy is EarlyDrawPolicy.FORFEIT:
        assert board.result is Result.DOUBLE_FORFEIT
        assert {e.status for e in await w.director.entries(event_id)} == {EntryStatus.ACTIVE}  # not no-shows
    else:
        assert board.result is None
        assert any("organiser" in n[1] for n in w.announcer.of("notice"))
        await w.scheduler.run_due()
        assert len([n for n in w.announcer.of("notice") if "organiser" in n[1]]) == 1  # told once
        await w.director.set_result(ORGANISER, event_id, 1, 1, "1/2-1/2", "reviewed: a real repetition")
        assert (await w.director.pairings(event_id)).boards[0].result is Result.DRAW
    assert len(w.sandbox.state.games) == (2 if policy is EarlyDrawPolicy.REPLAY else 1)


async def test_correction_is_audited_and_the_later_round_is_not_repaired(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=4, rounds=3)
    await w.start(event_id)
    await w.play_all(event_id, "white")
    await w.scheduler.run_due()
    await w.next_round(event_id)
    round2 = await w.director.pairings(event_id, 2)
    board = (await w.director.pairings(event_id, 1)).boards[0]
    before = {r.player.name: r.points for r in await w.director.standings(event_id)}
    correction = await w.director.set_result(ORGANISER, event_id, 1, 1, "0-1", "wrong result reported")
    assert correction.old is Result.WHITE_WINS and correction.new is Result.BLACK_WINS
    assert correction.later_round_paired == 2
    assert any("not re-paired" in n[1] for n in w.announcer.of("notice"))
    after = {r.player.name: r.points for r in await w.director.standings(event_id)}
    assert after[board.white.name] == before[board.white.name] - 1
    assert after[board.black.name] == before[board.black.name] + 1
    assert await w.director.pairings(event_id, 2) == round2
    log = await audit_log(w.db, event_id=event_id, action="result.correct")
    assert len(log) == 1 and '"1-0"' in (log[0].before or "") and log[0].reason == "wrong result reported"
    with pytest.raises(InvalidSetting):
        await w.director.set_result(ORGANISER, event_id, 1, 1, "2-0", "typo")
    with pytest.raises(BoardNotFound):
        await w.director.set_result(ORGANISER, event_id, 1, 9, "1-0", "no such board")


async def test_event_ends_when_no_pairing_is_possible(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=4, rounds=5)  # after 3 rounds everyone has met everyone
    await w.start(event_id)
    for _ in range(3):
        await w.play_all(event_id, "white")
        await w.scheduler.run_due()
        await w.next_round(event_id)
    event = await w.director.event(event_id)
    assert event.status.value == "finished" and event.current_round == 3
    assert "no valid pairing" in (event.finish_reason or "")
    assert "no valid pairing" in w.announcer.of("event_finished")[0][2]


async def test_event_ends_when_fewer_than_two_players_are_left(quiet_world: World) -> None:
    w = quiet_world
    event_id, players = await w.event(players=3, rounds=3)
    await w.start(event_id)
    await w.play_all(event_id, "white")
    await w.scheduler.run_due()
    for p in players[:2]:
        await w.director.withdraw(p, event_id)
    await w.next_round(event_id)
    event = await w.director.event(event_id)
    assert event.status.value == "finished" and event.finish_reason == "not enough players left"


async def test_pause_and_resume(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=4, rounds=2)
    await w.start(event_id)
    await w.director.pause(ORGANISER, event_id)
    await w.play_all(event_id)
    await w.scheduler.run_due()  # the round being played goes on
    assert (await w.director.pairings(event_id, 1)).status is RoundStatus.FINISHED
    assert await w.next_round(event_id) == 1
    w.clock.advance(3600)
    await w.scheduler.run_due()
    assert (await w.director.event(event_id)).current_round == 1
    await w.director.resume(ORGANISER, event_id)
    await w.scheduler.run_due()  # the start time has passed: round 2 starts at once
    assert (await w.director.event(event_id)).current_round == 2


async def test_manual_rounds_start_when_the_organiser_says(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=4, rounds=2, schedule=Schedule.MANUAL)
    await w.start(event_id)
    await w.play_all(event_id)
    await w.scheduler.run_due()
    assert await w.next_round(event_id) == 1
    view = await w.director.next_round(ORGANISER, event_id)
    assert view.number == 2 and all(b.game_id for b in view.boards)


@pytest.mark.lichess_http  # the gateway's retries against the local Lichess's faults
@pytest.mark.parametrize(("status", "after"), [(429, False), (500, False), (500, True)])
async def test_lichess_errors_mid_round_lose_nothing(quiet_world: World, status: int, after: bool) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=8, rounds=1)
    # Enough failures that the gateway gives up on a create: the director must retry on a later poll.
    await w.control("/sandbox/faults", {"path": "/api/challenge/open", "status": status, "count": 6, "after": after})
    await w.start(event_id)
    await w.control("/sandbox/faults", {"path": "/api/games/export", "status": status, "count": 2})
    for _ in range(10):
        view = await w.director.pairings(event_id)
        if view.status is RoundStatus.PLAYING:
            break
        w.clock.advance(20)
        await w.scheduler.run_due()
    assert view.status is RoundStatus.PLAYING and all(b.game_id for b in view.boards)
    # A create whose fate was unknown (500 after the work) is found by the gateway; others are retried later.
    told = [n for n in w.announcer.of("notice") if "did not create every game" in n[1]]
    assert len(told) == (0 if after else 1)  # told once, not on every poll
    names = [g.name for g in w.sandbox.state.games.values()]
    assert len(names) == len(set(names)) == 4  # every board has exactly one game
    await w.play_all(event_id)
    await w.run_until(lambda: w.finished(event_id), step=20)
    assert all(b.result is Result.WHITE_WINS for b in (await w.director.pairings(event_id, 1)).boards)


async def test_disqualification_leaves_the_ranking_and_no_score_changes(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=4, rounds=2)
    await w.start(event_id)
    await w.run_until(lambda: _play_and_check(w, event_id), step=180)
    before = await w.director.standings(event_id)
    winner = before[0]
    entry = await w.director.disqualify(ORGANISER, event_id, winner.player.name, "fair-play report")
    assert entry.status is EntryStatus.DISQUALIFIED
    after = await w.director.standings(event_id)
    assert after[-1].player == winner.player and after[-1].rank is None and after[-1].points == winner.points
    assert [r.player for r in after[:-1]] == [r.player for r in before[1:]]
    assert {r.player.name: r.points for r in after} == {r.player.name: r.points for r in before}
    assert after[0].rank == 1


async def _play_and_check(w: World, event_id: int) -> bool:
    await w.play_all(event_id, "white")
    return await w.finished(event_id)


async def test_removed_player_is_not_paired_and_cannot_rejoin(quiet_world: World) -> None:
    w = quiet_world
    event_id, players = await w.event(players=5, rounds=2)
    await w.start(event_id)
    await w.play_all(event_id)
    await w.scheduler.run_due()
    gone = players[0]
    assert (await w.director.remove(ORGANISER, event_id, "player01")).status is EntryStatus.BANNED
    await w.next_round(event_id)
    view = await w.director.pairings(event_id, 2)
    placed = {b.white.discord_id for b in view.boards} | {b.black.discord_id for b in view.boards}
    assert gone.discord_id not in placed | {b.player.discord_id for b in view.byes}
    with pytest.raises(JoiningClosed):
        await w.director.join(gone, event_id)


async def test_forbidden_pair_is_never_paired(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=4, rounds=1)
    await w.director.forbid(ORGANISER, event_id, "player01", "player03")  # the pair round 1 would make
    await w.start(event_id)
    pairs = {frozenset((b.white.name, b.black.name)) for b in (await w.director.pairings(event_id)).boards}
    assert frozenset(("player01", "player03")) not in pairs and len(pairs) == 2


async def test_a_running_event_may_change_its_schedule_but_not_how_it_is_paired(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=4, rounds=3)
    await w.start(event_id)
    settings = (await w.director.event(event_id)).settings
    edited = await w.director.edit_event(ORGANISER, event_id, replace(settings, round_interval=600, rounds=4))
    assert edited.settings.round_interval == 600 and edited.settings.rounds == 4 and edited.current_round == 1
    with pytest.raises(InvalidState, match="Acceleration cannot change once the event has started"):
        await w.director.edit_event(ORGANISER, event_id, replace(settings, acceleration=True))
    assert not (await w.director.event(event_id)).settings.acceleration


async def test_the_crosstable_is_pairings_own_with_forfeits_and_byes_as_the_trf_writes_them(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=5, rounds=2)
    await w.start(event_id)
    await w.play(event_id, 1, None, status="started", plies=0)  # white never moves: black wins by forfeit
    await w.play(event_id, 2, "white")
    w.clock.advance(5 * 60)
    await w.scheduler.run_due()
    assert (await w.director.pairings(event_id, 1)).decided
    table = await w.director.crosstable(event_id)
    exported = trf.parse((await w.director.export(event_id, "trf")).decode(), require_rounds=False)
    expected = {row.number: tuple(c.text for c in row.cells) for row in crosstable(exported)}
    shown = {player.number: cells for player, cells, _ in table.rows}
    assert shown == expected
    firsts = sorted(cells[0] for cells in shown.values())
    assert "U" in firsts  # five players: the pairing-allocated bye
    assert any(c.endswith("+") and c[:-1].isdigit() for c in firsts)  # a forfeit win: '12+', no colour
    assert any(c.endswith("-") and c[:-1].isdigit() for c in firsts)


async def test_each_round_records_the_system_that_paired_it_and_the_exports_say_so(world: World) -> None:
    event_id, _ = await world.event(players=6, rounds=2)
    assert (await world.director.event(event_id)).settings.system == "auto"  # the default for new events
    await world.run_until(lambda: world.finished(event_id))
    document = json.loads(await world.director.export(event_id, "json"))
    assert [r["system"] for r in document["rounds"]] == ["dutch", "dutch"]  # auto: six players pair by Dutch
    assert "192 FIDE_DUTCH" in (await world.director.export(event_id, "trf")).decode().splitlines()


async def test_an_unknown_system_is_refused_naming_the_known_ones(world: World) -> None:
    with pytest.raises(InvalidSetting, match=r"unknown pairing system 'monrad' .*auto"):
        await world.event(players=0, system="monrad")


async def test_a_us_chess_28r2_event_pairs_round_two_in_its_three_batches(world: World) -> None:
    event_id, _ = await world.event(players=8, rounds=3, acceleration=True, acceleration_method="us-28r2")
    await world.run_until(lambda: world.finished(event_id))
    played = trf.parse((await world.director.export(event_id, "trf")).decode())
    a = {1, 2, 3, 4}  # the top half of the starting order

    def batch(number: int) -> int:
        won = played.scoring.points(played.player(number).record(1)) >= played.scoring.win
        return (3 if won else 2) if number in a else (2 if won else 1)

    def pairs(rnd: int) -> set[frozenset[int]]:
        return {frozenset((p.number, o)) for p in played.players if (o := p.record(rnd).opponent) is not None}

    assert all(pair <= a or not pair & a for pair in pairs(1))  # round 1: each half among itself
    round_two = pairs(2)
    crossing = [pair for pair in round_two if len({batch(n) for n in pair}) > 1]
    batches = {batch(p.number) for p in played.players}
    assert len(round_two) == 4 and len(crossing) <= len(batches) - 1
    assert all(max(batch(n) for n in pair) - min(batch(n) for n in pair) == 1 for pair in crossing)


@pytest.mark.parametrize(("system", "code"), [("dubov", "FIDE_DUBOV"), ("lim", None), ("burstein", "FIDE_BURSTEIN")])
async def test_every_event_system_runs_an_event_whose_export_its_checker_accepts(
    world: World, system: str, code: str | None
) -> None:
    event_id, _ = await world.event(players=9, rounds=4, system=system)
    await world.run_until(lambda: world.finished(event_id))
    event = await world.director.event(event_id)
    assert event.current_round == 4
    exported = (await world.director.export(event_id, "trf")).decode()
    assert (f"192 {code}" in exported) if code else "192 " not in exported  # Lim has no ETT26 code
    tournament = trf.parse(exported, require_rounds=False)
    assert tournament.rounds_completed == 4
    assert checker.check_tournament(tournament, system) == []  # and the engine pairs each round the same again
