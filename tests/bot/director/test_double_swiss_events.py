"""Double-Swiss events (C.04.5) in the director: a match is two game rounds, the second the first reversed; a
player gone after the first game loses the second by forfeit, two gone get zero-point byes; settings the system
cannot take (here and for team events) are one sentence. The whole evening against the local Lichess is
`tests/scenarios/double-swiss-night.toml`."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from bot.errors import InvalidSetting
from domain.entry import Entry, EntryStatus, PlayerRow
from domain.result import Result
from domain.rounds import BoardRow, RoundRow, RoundStatus, RoundSummary, second_game_records
from pairing.model import RecordKind
from tests.bot.director.director_world import GUILD, World


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"system": "double", "rounds": 5}, r"must be even \(not 5\)"),
        ({"system": "double", "rounds": 4, "acceleration": True}, "acceleration is not available for Double-Swiss"),
        ({"system": "team", "rounds": 3, "acceleration": True}, "acceleration is not available for Team events"),
    ],
)
async def test_settings_the_system_cannot_take_are_one_sentence(
    quiet_world: World, settings: dict[str, Any], message: str
) -> None:
    with pytest.raises(InvalidSetting, match=message):
        await quiet_world.event(**settings)


async def test_the_director_names_every_problem_of_the_settings_in_one_sentence(quiet_world: World) -> None:
    with pytest.raises(InvalidSetting) as refused:
        await quiet_world.event(system="double", rounds=5, rating_min=2000, rating_max=1000)
    assert str(refused.value) == (
        "Invalid event settings: the minimum rating is above the maximum; a Double-Swiss event plays two games a "
        "match, so its rounds count games and must be even (not 5)."
    )
    assert await quiet_world.director.list_events(GUILD) == []


async def test_a_no_show_in_the_first_game_loses_the_second_by_forfeit(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=4, rounds=4, system="double")
    await w.start(event_id)
    first = await w.director.pairings(event_id, 1)
    await w.play(event_id, 1, None, status="started", plies=0)  # board 1's White never moves
    await w.play(event_id, 2, "white")
    w.clock.advance(6 * 60)
    await w.scheduler.run_due()
    absent = first.boards[0].white
    assert (await w.director.pairings(event_id, 1)).boards[0].result is Result.BLACK_WINS_FORFEIT
    assert await w.next_round(event_id) == 2
    second = await w.director.pairings(event_id, 2)
    pairs = [(b.white.name, b.black.name) for b in second.boards]
    assert sorted(pairs) == sorted((b.black.name, b.white.name) for b in first.boards)  # reversed, same matches
    gone = next(b for b in second.boards if absent.name in (b.white.name, b.black.name))
    assert gone.game_id is None  # no Lichess game for a player who is gone
    assert gone.result is (Result.WHITE_WINS_FORFEIT if gone.black.name == absent.name else Result.BLACK_WINS_FORFEIT)
    other = next(b for b in second.boards if b is not gone)
    assert other.game_id is not None and other.result is None
    assert "match 1, game 2" in (await w.director.event(event_id)).round_name(2)
    await w.play(event_id, other.number, "white")  # game 2: game 1's Black wins with White
    w.clock.advance(60)
    await w.scheduler.run_due()
    document = json.loads(await w.director.export(event_id, "json"))
    (match,) = document["matches"]
    assert match["match"] == 1 and match["byes"] == {}
    by_white = {b["white"]: b for b in match["boards"]}
    forfeited = by_white[absent.number]
    assert forfeited["games"] == ["-/+", "+/-"] and forfeited["score"] == ["0.0", "2.0"] and forfeited["forfeited"]
    played = by_white[first.boards[1].white.number]
    assert played["games"] == ["1-0", "1-0"] and played["score"] == ["1.0", "1.0"] and not played["forfeited"]


def _entry(number: int, status: EntryStatus = EntryStatus.ACTIVE, joined: int = 1) -> Entry:
    at = datetime(2026, 3, 5, tzinfo=UTC)
    player = PlayerRow(number, number, f"p{number}", f"p{number}", f"p{number}", at, at)
    return Entry(1, player, number, 1500, status, joined, None, False, at)


def _first_game(boards: list[tuple[int, int]], byes: dict[int, RecordKind]) -> RoundSummary:
    at = datetime(2026, 3, 5, tzinfo=UTC)
    row = RoundRow(1, 1, RoundStatus.FINISHED, at, at, at, system="double")
    return RoundSummary(
        row,
        tuple(
            BoardRow(i, 1, 1, i, w, b, w, b, Result.DRAW, None, None, at) for i, (w, b) in enumerate(boards, start=1)
        ),
        byes,
    )


def test_the_second_games_fixed_records() -> None:
    gone, left = EntryStatus.WITHDRAWN, EntryStatus.ABSENT
    numbered = {
        1: _entry(1),
        2: _entry(2, gone),  # left after game 1: paired again (the director forfeits the game)
        3: _entry(3, gone),
        4: _entry(4, left),  # both of this match left: zero-point byes
        5: _entry(5),  # the first game's PAB: the match's half-point bye
        6: _entry(6),  # a requested bye for the match
        7: _entry(7),  # active, but had no board in the first game (rejoined): waits for the next match
        8: _entry(8, joined=3),  # a late joiner for the next match: its rows are stored at the join
    }
    first = _first_game([(1, 2), (3, 4)], {5: RecordKind.PAB, 6: RecordKind.HALF_BYE, 7: RecordKind.ZERO_BYE})
    records = second_game_records(numbered, first, 2)
    assert records == {
        3: RecordKind.ZERO_BYE,
        4: RecordKind.ZERO_BYE,
        5: RecordKind.HALF_BYE,
        6: RecordKind.HALF_BYE,
        7: RecordKind.NOT_PAIRED,
    }
