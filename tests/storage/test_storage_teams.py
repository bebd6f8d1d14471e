"""Teams of a Team Swiss event: formed with their rosters, refused in one sentence with nothing stored, numbered."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from domain.entry import EntryStatus
from domain.event import EventStatus
from pairing.model import Board, Pairing, RecordKind
from storage.audit import audit_log
from storage.db import Database, fetchall
from storage.entries import set_entry_status, start_event
from storage.errors import InvalidInput, InvalidPairing, NotFound, TeamRefused
from storage.events import create_event, get_event
from storage.history import get_history
from storage.rounds import store_pairing
from storage.teams import (
    add_team,
    list_teams,
    number_teams,
    remove_team,
    reorder_team,
    seeded_order,
    store_team_round,
)
from tests.storage.storage_helpers import ACTOR, T0, add_players, at, open_db, open_event, settings


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = await open_db(tmp_path)
    yield database
    await database.close()


RATINGS = [2000, 1900, 1800, 1700, 1600, 1500, 1400]


async def _team_event(db: Database, boards: int = 2) -> tuple[int, list[int]]:
    """An open team event of `boards` boards with seven entries; their player ids."""
    event, players, _ = await open_event(db, RATINGS, system="team", team_boards=boards)
    return event.id, [p.id for p in players]


async def _stored(db: Database, event_id: int) -> tuple[int, int, int]:
    """Rows of teams and of rosters, and audit lines about teams."""
    conn = db.connection
    teams = len(await fetchall(conn, "SELECT id FROM teams WHERE event_id = ?", (event_id,)))
    members = len(await fetchall(conn, "SELECT player_id FROM team_players WHERE event_id = ?", (event_id,)))
    audited = len([a for a in await audit_log(db, event_id=event_id) if a.action.startswith("team.")])
    return teams, members, audited


async def test_a_team_is_stored_with_its_roster_in_board_order_and_an_audit_line(db: Database) -> None:
    event_id, ids = await _team_event(db)
    team = await add_team(db, event_id, "  Knights  ", [ids[2], ids[0], ids[4]], at=at(2), actor=ACTOR, role_id=77)
    assert (team.number, team.name, team.players, team.role_id) == (1, "Knights", (ids[2], ids[0], ids[4]), 77)
    assert await list_teams(db, event_id) == [team]
    assert await _stored(db, event_id) == (1, 3, 1)
    second = await add_team(db, event_id, "Rooks", [ids[1], ids[3]], at=at(2), actor=ACTOR)
    assert second.number == 2 and second.role_id is None


@pytest.mark.parametrize(
    ("roster", "name", "message"),
    [
        ([0, 5], "Bishops", "P1 is already in team Knights"),  # a player in two teams
        ([5], "Bishops", "a team needs at least 2 players (the event's boards), got 1"),
        ([5, 6], "knights", "there is already a team Knights in this event"),  # names differ only in case
        ([5, 5], "Bishops", "P6 is listed twice"),
    ],
)
async def test_a_refused_team_stores_nothing(db: Database, roster: list[int], name: str, message: str) -> None:
    event_id, ids = await _team_event(db)
    await add_team(db, event_id, "Knights", [ids[0], ids[1]], at=at(2), actor=ACTOR)
    before = await _stored(db, event_id)
    with pytest.raises(TeamRefused) as refused:
        await add_team(db, event_id, name, [ids[i] for i in roster], at=at(3), actor=ACTOR)
    assert str(refused.value) == message
    assert await _stored(db, event_id) == before == (1, 2, 1)


async def test_a_member_who_did_not_join_or_withdrew_cannot_be_in_a_team(db: Database) -> None:
    event_id, ids = await _team_event(db)
    outsider = (await add_players(db, [1500], first_discord_id=500))[0]
    with pytest.raises(TeamRefused, match="has not joined"):
        await add_team(db, event_id, "Knights", [ids[0], outsider.id], at=at(2), actor=ACTOR)
    await set_entry_status(db, event_id, ids[1], EntryStatus.WITHDRAWN, at=at(2), actor=ACTOR)
    with pytest.raises(TeamRefused, match="has not joined"):
        await add_team(db, event_id, "Knights", [ids[0], ids[1]], at=at(2), actor=ACTOR)
    assert await _stored(db, event_id) == (0, 0, 0)


async def test_only_a_team_event_before_its_start_takes_teams(db: Database) -> None:
    event, players, _ = await open_event(db, RATINGS)  # an individual event
    with pytest.raises(TeamRefused, match="is not a team event"):
        await add_team(db, event.id, "Knights", [players[0].id, players[1].id], at=at(2), actor=ACTOR)
    event_id, ids = await _team_event(db)
    await add_team(db, event_id, "Knights", [ids[0], ids[1]], at=at(2), actor=ACTOR)
    await start_event(db, event_id, at=at(5), actor=ACTOR)
    with pytest.raises(TeamRefused, match="has started"):
        await add_team(db, event_id, "Rooks", [ids[2], ids[3]], at=at(6), actor=ACTOR)
    with pytest.raises(TeamRefused, match="has started"):
        await remove_team(db, event_id, "Knights", at=at(6), actor=ACTOR)
    assert [t.name for t in await list_teams(db, event_id)] == ["Knights"]


async def test_remove_reorder_and_number_by_strength(db: Database) -> None:
    event_id, ids = await _team_event(db)
    low = await add_team(db, event_id, "Pawns", [ids[5], ids[6]], at=at(2), actor=ACTOR)
    high = await add_team(db, event_id, "Knights", [ids[1], ids[0], ids[2]], at=at(2), actor=ACTOR)
    gone = await add_team(db, event_id, "Rooks", [ids[3], ids[4]], at=at(2), actor=ACTOR)
    assert (await remove_team(db, event_id, "rooks", at=at(3), actor=ACTOR)) == gone
    with pytest.raises(NotFound):
        await remove_team(db, event_id, "Rooks", at=at(3), actor=ACTOR)
    moved = await reorder_team(db, event_id, "Knights", [ids[0], ids[1], ids[3]], at=at(3), actor=ACTOR)
    assert moved.players == (ids[0], ids[1], ids[3])  # ids[3] is free again since Rooks are gone
    with pytest.raises(TeamRefused, match="already in team Knights"):
        await reorder_team(db, event_id, "Pawns", [ids[5], ids[0]], at=at(3), actor=ACTOR)
    history = await get_history(db, event_id)
    order = seeded_order(history, await list_teams(db, event_id))
    assert order == [high.id, low.id]
    await number_teams(db, event_id, order, at=at(4), actor=ACTOR)
    assert [(t.number, t.name) for t in await list_teams(db, event_id)] == [(1, "Knights"), (2, "Pawns")]
    actions = [a.action for a in await audit_log(db, event_id=event_id) if a.action.startswith("team.")]
    assert actions == ["team.add", "team.add", "team.add", "team.remove", "team.roster", "team.number"]


async def test_the_board_count_is_a_setting_checked_and_kept(db: Database) -> None:
    with pytest.raises(InvalidInput, match="1 to 20 boards"):
        await create_event(db, settings(system="team", team_boards=0), created_by=1, at=T0, status=EventStatus.OPEN)
    event = await create_event(db, settings(system="team", team_boards=6), created_by=1, at=T0)
    assert (await get_event(db, event.id)).settings.team_boards == 6


async def test_a_team_round_stores_every_board_and_a_pab_for_each_board_player(db: Database) -> None:
    event_id, ids = await _team_event(db)
    await start_event(db, event_id, at=at(5), actor=ACTOR)  # numbers 1..7 by rating
    boards = ((1, 4), (3, 2))
    byes = {5: RecordKind.PAB, 6: RecordKind.PAB}
    with pytest.raises(InvalidPairing):  # a player on a board and with the PAB
        await store_team_round(db, event_id, 1, boards, {**byes, 4: RecordKind.PAB}, at=at(6), actor=ACTOR)
    summary = await store_team_round(db, event_id, 1, boards, byes, at=at(6), actor=ACTOR)
    assert [(b.white_number, b.black_number) for b in summary.boards] == list(boards)
    assert summary.byes == {ids[4]: RecordKind.PAB, ids[5]: RecordKind.PAB}  # player 7, a reserve: no record
    assert summary.round.system == "team"
    assert await store_team_round(db, event_id, 1, boards, byes, at=at(7), actor=ACTOR) == summary  # a restart


async def test_other_systems_still_allow_one_pab_only(db: Database) -> None:
    event, _, _ = await open_event(db, RATINGS[:5])
    await start_event(db, event.id, at=at(5), actor=ACTOR)
    summary = await store_pairing(db, event.id, 1, Pairing((Board(1, 4), Board(5, 2)), bye=3), at=at(6), actor="bot")
    assert list(summary.byes.values()) == [RecordKind.PAB]
