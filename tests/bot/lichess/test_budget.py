"""The bulk pairing budget of a token: the pure planner and the ledger that reserves its plans."""

from __future__ import annotations

from bot.lichess.budget import BulkLedger, BulkLimits, BulkPlan, SpentBulk, plan
from bot.lichess.payloads import parse_bulk

T0 = 1_800_000_000.0


def test_a_round_within_the_budget_goes_out_in_one_bulk() -> None:
    assert plan([], 250, T0) == BulkPlan((250,), 0, None)


def test_what_the_window_has_no_room_for_falls_back_and_says_when_room_comes_back() -> None:
    spent = [SpentBulk(T0 - 300, 300, T0 - 300), SpentBulk(T0 - 100, 100, T0 - 100)]
    decided = plan(spent, 403, T0)
    assert (decided.bulks, decided.fallback) == ((100,), 303)
    # the 100 sent now count too: the 300-game bulk aging out frees 300, the next one makes it 400 >= 303
    assert decided.room_again_at == T0 - 100 + 600


def test_games_the_window_has_room_for_within_the_patience_wait_instead_of_falling_back() -> None:
    spent = [SpentBulk(T0 - 570, 450, T0 - 570), SpentBulk(T0 - 100, 40, T0 - 100)]
    assert plan(spent, 100, T0, patience=40) == BulkPlan((10,), 0, T0 + 30, waiting=90)
    assert plan(spent, 100, T0, patience=20) == BulkPlan((10,), 90, T0 + 30)


def test_ten_minutes_later_the_window_is_free_again() -> None:
    spent = [SpentBulk(T0, 500, T0)]
    assert plan(spent, 500, T0 + 599).bulked == 0
    assert plan(spent, 500, T0 + 600.5) == BulkPlan((500,), 0, None)


def test_a_window_larger_than_a_bulk_is_split_in_bulks_of_500() -> None:
    limits = BulkLimits(games_per_window=1200, scheduled_games=5000)
    assert plan([], 1100, T0, limits).bulks == (500, 500, 100)


def test_scheduled_bulks_and_games_are_limits_too() -> None:
    later = [SpentBulk(T0 - 700, 10, T0 + 3600) for _ in range(20)]  # 20 bulks still waiting for their pairAt
    assert plan(later, 5, T0) == BulkPlan((), 5, None)
    queued = [SpentBulk(T0 - 700, 400, T0 + 3600), SpentBulk(T0 - 700, 500, T0 + 3600)]
    assert plan(queued, 300, T0).bulks == (100,)  # 1000 scheduled games at most


def test_the_ledger_reserves_so_two_events_never_count_the_same_room() -> None:
    now = [T0]
    ledger = BulkLedger(clock=lambda: now[0])
    first, reserved = ledger.take(400)
    second, _ = ledger.take(400)
    assert (first.bulked, second.bulked, second.fallback) == (400, 100, 300)
    ledger.release(reserved[0])  # Lichess refused that bulk: a failed bulk is free
    assert ledger.take(400)[0].bulked == 400
    now[0] += 601
    assert ledger.take(500)[0].bulked == 500


def test_a_429_the_ledger_did_not_foresee_fills_the_window() -> None:
    now = [T0]
    ledger = BulkLedger(clock=lambda: now[0])
    ledger.exhausted()
    assert ledger.take(1)[0].fallback == 1
    now[0] += 601
    assert ledger.take(1)[0].fallback == 0


def test_the_ledger_starts_from_the_bulks_lichess_lists() -> None:
    now = [T0]
    ledger = BulkLedger(clock=lambda: now[0])
    listed = [
        parse_bulk({"id": "a", "games": [{"id": f"g{i}", "white": "x", "black": "y"} for i in range(450)],
                    "scheduledAt": int((T0 - 60) * 1000), "pairAt": int((T0 - 60) * 1000),
                    "pairedAt": int((T0 - 59) * 1000)}),
        parse_bulk({"id": "old", "games": [{"id": "h", "white": "x", "black": "y"}] * 400,
                    "scheduledAt": int((T0 - 3600) * 1000), "pairedAt": int((T0 - 3599) * 1000)}),
    ]  # fmt: skip
    ledger.seed(listed)
    ledger.seed(listed)  # once only
    assert ledger.take(100)[0].bulks == (50,)
