"""The rules of rounds and entries: round names, two-game matches' byes, late joiners, records fixed before a
pairing."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from domain.entry import Entry, EntryStatus, PlayerRow, first_round_open, late_join_records, numbered_entries
from domain.event import Event, EventStatus, match_of
from domain.rounds import ByeRefused, is_second_game, match_bye_round, planned_byes
from domain.settings import EventSettings
from pairing.model import RecordKind

T0 = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)


def _event(system: str = "dutch", current_round: int = 0, status: EventStatus = EventStatus.RUNNING) -> Event:
    settings = EventSettings(name="Club Swiss", rounds=6, system=system)
    return Event(1, settings, status, created_by=1, created_at=T0, current_round=current_round)


def _entry(
    pid: int,
    *,
    rating: int = 1500,
    number: int | None = None,
    status: EntryStatus = EntryStatus.ACTIVE,
    joined: int = 1,
) -> Entry:
    player = PlayerRow(pid, 100 + pid, f"p{pid}", f"p{pid}", f"P{pid}", T0, T0)
    return Entry(1, player, number, rating, status, joined, None, False, T0)


def test_round_and_bye_names_read_matches_only_with_two_game_matches() -> None:
    assert _event().round_name(3) == "round 3" and _event().bye_name(3) == "round 3"
    double = _event("double")
    assert double.round_name(3) == "round 3 (match 2, game 1)"
    assert double.round_name(4) == "round 4 (match 2, game 2)"
    assert double.bye_name(4) == "match 2 (rounds 3 and 4)"
    assert [match_of(r) for r in range(1, 7)] == [1, 1, 2, 2, 3, 3]


def test_a_late_joiner_waits_for_the_next_match() -> None:
    assert first_round_open(_event(current_round=1)) == 2
    assert first_round_open(_event("double", current_round=1)) == 3
    assert first_round_open(_event("double", current_round=2)) == 3


def test_a_late_join_bye_covers_its_whole_match() -> None:
    assert late_join_records(_event(current_round=2), 3, 1) == {1: RecordKind.HALF_BYE, 2: RecordKind.NOT_PAIRED}
    assert late_join_records(_event("double", current_round=2), 3, 2) == {
        1: RecordKind.HALF_BYE,
        2: RecordKind.HALF_BYE,
    }
    assert late_join_records(_event("double", current_round=4), 5, None) == dict.fromkeys(
        range(1, 5), RecordKind.NOT_PAIRED
    )


def test_a_match_s_bye_is_kept_under_its_first_game() -> None:
    assert match_bye_round(_event(), 4) == 4
    assert match_bye_round(_event("double", current_round=2), 4) == 3
    assert match_bye_round(_event("double", current_round=2), 5) == 5
    with pytest.raises(ByeRefused, match=r"round 4 is the second game of a match already paired.*round 5"):
        match_bye_round(_event("double", current_round=3), 4)
    assert is_second_game(_event("double"), 2) and not is_second_game(_event("double"), 3)
    assert not is_second_game(_event(), 2)


def test_before_the_start_numbers_are_provisional_in_starting_order() -> None:
    entries = [_entry(1, rating=1400), _entry(2, rating=1600), _entry(3, status=EntryStatus.WITHDRAWN)]
    numbered = numbered_entries(_event(status=EventStatus.OPEN), entries)
    assert {n: e.player_id for n, e in numbered.items()} == {1: 2, 2: 1}
    started = [replace(e, number=i) for i, e in enumerate(entries, start=1)]
    assert {n: e.player_id for n, e in numbered_entries(_event(), started).items()} == {1: 1, 2: 2, 3: 3}


def test_planned_byes_are_zero_for_the_inactive_and_half_for_a_request() -> None:
    numbered = {
        1: _entry(1, number=1),
        2: _entry(2, number=2, status=EntryStatus.ABSENT),
        3: _entry(3, number=3),
        4: _entry(4, number=4, joined=3),
    }
    assert planned_byes(numbered, {3: frozenset({2})}, 2) == {2: RecordKind.ZERO_BYE, 3: RecordKind.HALF_BYE}
