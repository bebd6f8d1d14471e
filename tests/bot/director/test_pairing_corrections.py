"""Issue #27: an organiser corrects a round's pairing before it is played (a hold, a swap, a refused rematch, a
re-pair after a late withdrawal), through the real director against the local Lichess; the TRF carries the
played pairing and `swissbot check` names the corrected round manual."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from bot.director.models import Actor
from bot.errors import InvalidSetting, InvalidState, NotOrganiser
from domain.corrections import CorrectionKind
from domain.rounds import RoundStatus
from pairing import checker, trf
from pairing.model import RecordKind
from storage.audit import audit_log
from storage.rounds import get_round
from tests.bot.director.director_world import ORGANISER, World


def _pairs(view_boards: tuple[tuple[str, str], ...]) -> set[frozenset[str]]:
    return {frozenset(b) for b in view_boards}


async def _board_names(w: World, event_id: int) -> tuple[tuple[str, str], ...]:
    view = await w.director.pairings(event_id)
    return tuple((b.white.name, b.black.name) for b in view.boards)


async def test_a_held_round_is_corrected_re_paired_and_checked(quiet_world: World) -> None:
    w = quiet_world
    event_id, actors = await w.event(players=7, rounds=3, pairing_review=10)
    await w.start(event_id)

    # Round 1 is paired and held: no game on Lichess, the organisers told; the scheduler waits for the hold's end.
    view = await w.director.pairings(event_id)
    assert view.number == 1 and all(b.game_id is None for b in view.boards)
    assert any("held for review" in args[1] for args in w.announcer.of("notice"))
    held_until = (await get_round(w.db, event_id, 1)).round.review_until
    assert held_until == w.clock.now() + timedelta(minutes=10)
    polls = [j for j in await w.director.due_jobs() if j.event_id == event_id]
    assert [(j.kind.value, j.due_at) for j in polls] == [("poll", held_until)]
    await w.scheduler.run_due()
    assert all(b.game_id is None for b in (await w.director.pairings(event_id)).boards)

    # A swap that breaks nothing is applied at once and audited; only organisers may.
    before = await _board_names(w, event_id)
    assert ("player01", "player04") in before and ("player05", "player02") in before
    with pytest.raises(NotOrganiser):
        await w.director.correct_pairing(actors[0], event_id, CorrectionKind.SWAP, ("#4", "#5"))
    swapped = await w.director.correct_pairing(ORGANISER, event_id, CorrectionKind.SWAP, ("#4", "#5"))
    assert swapped.applied and swapped.problems == () and swapped.held_until is not None
    after = await _board_names(w, event_id)
    assert ("player01", "player05") in after and ("player04", "player02") in after
    assert (await get_round(w.db, event_id, 1)).round.manual
    lines = await audit_log(w.db, event_id=event_id, action="round.correct")
    assert len(lines) == 1 and lines[0].reason == "swap player04 and player05"
    assert json.loads(lines[0].before or "")["boards"][0] == [1, 4]
    assert json.loads(lines[0].after or "")["boards"][0] == [1, 5]

    # Confirming ends the hold: the games are created now, with the corrected boards.
    assert await w.director.confirm_pairing(ORGANISER, event_id) == 1
    view = await w.director.pairings(event_id)
    assert all(b.game_id is not None for b in view.boards)
    assert {(b.white.name, b.black.name) for b in view.boards} == set(after)
    for board in view.boards:
        assert board.game_id is not None
        assert w.sandbox.state.games[board.game_id].white.lower() == board.white.name
    await w.play_all(event_id, "white")
    await w.run_until(lambda: _paired(w, event_id, 2))

    # Round 2, held: pairing two players who met in round 1 is a rematch; the organiser goes back.
    stored = await _board_names(w, event_id)
    rematch = await w.director.correct_pairing(ORGANISER, event_id, CorrectionKind.PAIR, ("#1", "#5"))
    assert not rematch.applied
    assert sorted(rematch.problems) == [  # their former opponents, paired together, met in round 1 too
        "player02 and player04 have already played each other: a rematch (FIDE C.04.1 a, [C1]).",
        "player05 and player01 have already played each other: a rematch (FIDE C.04.1 a, [C1]).",
    ]
    assert await _board_names(w, event_id) == stored
    round_1 = await w.director.pairings(event_id, 1)
    assert [(b.player.name, b.kind.value) for b in round_1.byes] == [("player07", "pab")]
    second_bye = await w.director.correct_pairing(ORGANISER, event_id, CorrectionKind.BYE, ("#7",))
    assert not second_bye.applied
    assert "player07 has had the pairing-allocated bye already: a second bye ([C2])." in second_bye.problems

    # A late withdrawal: the round is paired again from scratch without the player (the engine's pairing).
    assert any("player03" in board for board in stored)
    await w.director.withdraw(actors[2], event_id)
    repaired = await w.director.correct_pairing(ORGANISER, event_id, CorrectionKind.REPAIR, ())
    assert repaired.applied and repaired.problems == ()
    assert all("player03" not in board for board in repaired.boards)
    assert len(repaired.boards) == 3 and repaired.bye is None
    assert not (await get_round(w.db, event_id, 2)).round.manual  # the engine's own pairing
    with pytest.raises(InvalidSetting):  # an even number plays: there is no bye to give
        await w.director.correct_pairing(ORGANISER, event_id, CorrectionKind.BYE, ("#1",))

    # The hold ends by itself: the scheduler creates the games at its end.
    w.clock.advance(10 * 60)
    await w.scheduler.run_due()
    view = await w.director.pairings(event_id)
    assert view.status is RoundStatus.PLAYING and all(b.game_id for b in view.boards)
    assert _pairs(tuple((b.white.name, b.black.name) for b in view.boards)) == _pairs(repaired.boards)
    await w.play(event_id, 1, "white")
    with pytest.raises(InvalidState, match="games in play on Lichess"):  # corrections go through results now
        await w.director.correct_pairing(ORGANISER, event_id, CorrectionKind.SWAP, ("#1", "#2"))
    assert [b.game_id for b in (await w.director.pairings(event_id)).boards] == [b.game_id for b in view.boards]
    await w.play_all(event_id, "black")
    await w.run_until(lambda: _paired(w, event_id, 3))
    await w.director.confirm_pairing(ORGANISER, event_id)
    await w.play_all(event_id, "white")
    await w.run_until(lambda: w.finished(event_id))

    # The TRF carries the played (corrected) pairing and names round 1 manual; the checker passes it.
    text = (await w.director.export(event_id, "trf")).decode()
    assert "XXM 1" in text.splitlines()
    tournament = trf.parse(text)
    assert tournament.player(1).record(1).opponent == 5 and tournament.player(4).record(1).opponent == 2
    assert trf.manual_rounds(tournament) == frozenset({1})
    assert checker.check_tournament(tournament, "dutch", manual=trf.manual_rounds(tournament)) == []
    unmarked = checker.check_tournament(tournament, "dutch")
    assert [(d.round, d.kind) for d in unmarked] == [(1, checker.DiscrepancyKind.ENGINE_MISMATCH)]
    assert tournament.player(3).record(2).kind.value == "zero_bye"  # withdrawn before round 2 was played


async def _paired(w: World, event_id: int, number: int) -> bool:
    return (await w.director.event(event_id)).current_round == number


async def test_a_round_without_a_hold_is_re_paired_and_its_games_cancelled(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=6, rounds=2)
    await w.start(event_id)
    first = await w.director.pairings(event_id)
    games = [b.game_id for b in first.boards]
    assert all(games)
    # A withdrawal decides its board at once, so the organisers re-pair for a pair they forbid after the fact.
    pair = (first.boards[0].white.name, first.boards[0].black.name)
    await w.director.forbid(ORGANISER, event_id, *pair)
    repaired = await w.director.correct_pairing(ORGANISER, event_id, CorrectionKind.REPAIR, ())
    assert repaired.applied and repaired.problems == () and repaired.held_until is None
    assert len(repaired.boards) == 3 and repaired.bye is None
    assert pair not in repaired.boards and pair[::-1] not in repaired.boards
    assert all(b.game_id is None for b in (await w.director.pairings(event_id)).boards)
    await w.scheduler.run_due()  # the round's poll job creates the new games
    view = await w.director.pairings(event_id)
    assert all(b.game_id is not None and b.game_id not in games for b in view.boards)
    for game in games:  # the old challenges are gone from Lichess (nobody had accepted them)
        assert game not in w.sandbox.state.games
    lines = await audit_log(w.db, event_id=event_id, action="round.correct")
    assert len(lines) == 1 and sorted(json.loads(lines[0].before or "")["games"]) == sorted(g for g in games if g)


async def test_the_organisers_are_told_when_a_held_pairing_names_a_player_who_left(quiet_world: World) -> None:
    w = quiet_world
    event_id, actors = await w.event(players=5, rounds=2, pairing_review=10)
    await w.start(event_id)
    view = await w.director.pairings(event_id)
    (bye,) = view.byes
    on_board = view.boards[0].black

    def leaver(discord_id: int | None) -> Actor:
        return next(a for a in actors if a.discord_id == discord_id)

    def told() -> list[str]:
        return [text for _, text in w.announcer.of("notice") if "held for review until" in text]

    held_until = (await get_round(w.db, event_id, 1)).round.review_until
    await w.director.withdraw(leaver(bye.player.discord_id), event_id)
    await w.director.withdraw(leaver(on_board.discord_id), event_id)
    until = f"{held_until:%H:%M} UTC"
    assert told() == [
        f"Round 1's pairing, held for review until {until}, names {name}, who withdrew: /arbiter repair pairs the"
        f" round again without them; left as it is, {name} {fate} when the games are created."
        for name, fate in (
            (bye.player.name, "loses the pairing-allocated bye (a zero-point bye)"),
            (on_board.name, "loses the board by forfeit"),
        )
    ]
    assert all(b.result is None and b.game_id is None for b in (await w.director.pairings(event_id)).boards)
    repaired = await w.director.correct_pairing(ORGANISER, event_id, CorrectionKind.REPAIR, ())
    gone = {bye.player.name, on_board.name}
    assert repaired.applied and len(repaired.boards) == 1 and repaired.bye is not None  # three players left
    assert gone.isdisjoint({*repaired.boards[0], repaired.bye})


async def test_a_player_who_left_during_the_hold_loses_the_bye_when_the_games_are_created(quiet_world: World) -> None:
    w = quiet_world
    event_id, actors = await w.event(players=5, rounds=2, pairing_review=10)
    await w.start(event_id)
    (bye,) = (await w.director.pairings(event_id)).byes
    assert bye.kind.value == "pab"
    leaver = next(a for a in actors if a.discord_id == bye.player.discord_id)
    await w.director.withdraw(leaver, event_id)
    assert [b.kind.value for b in (await w.director.pairings(event_id)).byes] == ["pab"]  # held: nothing yet

    await w.director.confirm_pairing(ORGANISER, event_id)  # left as it is: the games are created now
    view = await w.director.pairings(event_id)
    assert view.byes == ()  # a zero-point bye is not shown as a bye of the round
    assert list((await get_round(w.db, event_id, 1)).byes.values()) == [RecordKind.ZERO_BYE]
    assert all(b.game_id is not None for b in view.boards)
    assert (
        f"Round 1: {bye.player.name} left before the round's games were created, so their pairing-allocated bye is"
        " void: a zero-point bye."
    ) in [text for _, text in w.announcer.of("notice")]
    (line,) = await audit_log(w.db, event_id=event_id, action="bye.void")
    assert json.loads(line.before or "") == {"round": 1, "kind": "pab"}
    await w.scheduler.run_due()  # the next poll voids nothing again
    assert len(await audit_log(w.db, event_id=event_id, action="bye.void")) == 1


@pytest.mark.parametrize("polled", [False, True])
async def test_a_round_with_an_aborted_game_can_be_corrected(quiet_world: World, polled: bool) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=6, rounds=2)
    await w.start(event_id)
    first = await w.director.pairings(event_id)
    await w.play(event_id, 1, None, status="aborted", plies=1)  # aborted after white's first move: never began
    if polled:  # the poll saw it: the board's game is created again, and that replacement is cancelled too
        await w.scheduler.run_due()
    view = await w.director.pairings(event_id)
    assert (view.boards[0].game_id != first.boards[0].game_id) is polled
    games = [b.game_id for b in view.boards]
    repaired = await w.director.correct_pairing(ORGANISER, event_id, CorrectionKind.SWAP, ("#1", "#2"))
    assert repaired.applied
    assert all(b.game_id is None for b in (await w.director.pairings(event_id)).boards)
    for game in games:
        assert game is not None and (game not in w.sandbox.state.games or w.sandbox.state.games[game].finished)
    await w.scheduler.run_due()
    assert all(b.game_id not in (None, *games) for b in (await w.director.pairings(event_id)).boards)


@pytest.mark.lichess_http  # the local Lichess refuses one cancel (its faults API)
async def test_a_cancel_refused_after_others_keeps_the_pairing_and_says_which_boards_are_created_again(
    quiet_world: World,
) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=6, rounds=2)
    await w.start(event_id)
    first = await w.director.pairings(event_id)
    games = [b.game_id for b in first.boards]
    before = await _board_names(w, event_id)
    await w.control("/sandbox/faults", {"path": f"/api/challenge/{games[1]}/cancel", "status": 400, "count": 1})
    told = (
        "Lichess did not cancel round 1's game on board(s) 2, so its pairing is unchanged; the games of board(s) 1, 3"
        " were cancelled and are created again under this pairing at the bot's next poll. Giving the correction"
        " again is safe: it cancels what is left, then corrects."
    )
    with pytest.raises(InvalidState) as refused:
        await w.director.correct_pairing(ORGANISER, event_id, CorrectionKind.SWAP, ("#1", "#2"))
    assert str(refused.value) == told
    assert told in [text for _, text in w.announcer.of("notice")]
    assert await _board_names(w, event_id) == before  # the old pairing, board 2's game still on Lichess
    assert [b.game_id for b in (await w.director.pairings(event_id)).boards][1] == games[1]
    await w.scheduler.run_due()  # boards 1 and 3 get new games under the old pairing
    view = await w.director.pairings(event_id)
    assert view.boards[1].game_id == games[1] and all(b.game_id not in (None, *games) for b in view.boards[::2])

    # The retry is safe: it cancels what is left (board 2's old game, the new games) and corrects.
    swapped = await w.director.correct_pairing(ORGANISER, event_id, CorrectionKind.SWAP, ("#1", "#2"))
    assert swapped.applied and await _board_names(w, event_id) != before
    assert all(b.game_id is None for b in (await w.director.pairings(event_id)).boards)
    assert len(await audit_log(w.db, event_id=event_id, action="round.correct")) == 1


async def test_a_requested_half_point_bye_of_a_player_who_left_during_the_hold_is_void(quiet_world: World) -> None:
    w = quiet_world
    event_id, actors = await w.event(players=6, rounds=2, pairing_review=10)
    assert await w.director.request_bye(actors[0], event_id, 1) == 1
    await w.start(event_id)
    summary = await get_round(w.db, event_id, 1)
    player = next(b for b in (await w.director.pairings(event_id)).byes if b.kind is RecordKind.HALF_BYE).player
    assert player.discord_id == actors[0].discord_id
    await w.director.withdraw(actors[0], event_id)
    assert any(
        f"{player.name} loses the half-point bye (a zero-point bye) when" in t for _, t in w.announcer.of("notice")
    )
    await w.director.confirm_pairing(ORGANISER, event_id)
    byes = (await get_round(w.db, event_id, 1)).byes
    assert {k: v for k, v in byes.items() if v is not RecordKind.PAB} == {
        pid: RecordKind.ZERO_BYE for pid, kind in summary.byes.items() if kind is RecordKind.HALF_BYE
    }
    assert any(f"{player.name} left before" in t and "half-point bye is void" in t for _, t in w.announcer.of("notice"))
