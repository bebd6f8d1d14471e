"""The order the suite runs in: the longest tests first, spread over the pytest-xdist workers, so that no worker is
left with a long test when the others are done.

A test's expected time is what it took last time (setup, call and teardown, kept in pytest's cache under
`swissbot/durations` by the session that ran it); a test the cache does not know is expected to take `SLOW_GUESS`
seconds if it is marked `slow` and `FAST_GUESS` otherwise (a fresh clone, as CI has). The order changes no
test's outcome: every test still runs, in its own fixtures.

Under pytest-xdist the controller reads the cache once and hands the same numbers to every worker, since every
worker must collect the same order. `--dist worksteal` (what `dev.py test` uses) first gives each worker a
contiguous share of the collection, and a worker that runs out takes the end of another's queue; so the tests are
dealt into those shares longest first (each to the share with the least expected time), and each share runs its
longest tests first: the last tests anywhere are short ones, which stealing spreads.
"""

from __future__ import annotations

import heapq
from typing import Any

import pytest

CACHE_KEY = "swissbot/durations"
SLOW_GUESS = 5.0
FAST_GUESS = 0.1
_WORKERINPUT_KEY = "swissbot_durations"


def _known_durations(config: pytest.Config) -> dict[str, float]:
    """The durations the cache holds (the controller's, handed to a worker)."""
    workerinput: dict[str, Any] | None = getattr(config, "workerinput", None)
    if workerinput is not None:
        durations: dict[str, float] = workerinput.get(_WORKERINPUT_KEY, {})
        return durations
    cache = getattr(config, "cache", None)  # None with -p no:cacheprovider
    if cache is None:
        return {}
    cached = cache.get(CACHE_KEY, {})
    return cached if isinstance(cached, dict) else {}


def _worker_count(config: pytest.Config) -> int:
    workerinput: dict[str, Any] | None = getattr(config, "workerinput", None)
    return int(workerinput["workercount"]) if workerinput is not None else 1


def _worksteal_shares(total: int, workers: int) -> list[int]:
    """How many tests worksteal's first distribution gives each worker (`xdist.scheduler.worksteal`)."""
    shares, left = [], total
    for remaining in range(workers, 0, -1):
        shares.append(left // remaining)
        left -= shares[-1]
    return shares


def longest_first(items: list[pytest.Item], expected: dict[str, float], workers: int) -> list[pytest.Item]:
    """`items` dealt into `workers` contiguous shares (worksteal's sizes) longest first, each share the one with
    the least expected time that has room, each share in decreasing expected time. Ties keep the collection
    order, so the order is the same in every worker."""
    ranked = sorted(range(len(items)), key=lambda i: (-expected[items[i].nodeid], i))
    sizes = _worksteal_shares(len(items), workers)
    shares: list[list[int]] = [[] for _ in sizes]
    heap = [(0.0, share) for share in range(len(sizes)) if sizes[share]]
    heapq.heapify(heap)
    for index in ranked:
        load, share = heapq.heappop(heap)
        shares[share].append(index)
        if len(shares[share]) < sizes[share]:
            heapq.heappush(heap, (load + expected[items[index].nodeid], share))
    return [items[i] for share in shares for i in share]


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    known = _known_durations(config)
    expected = {
        item.nodeid: float(known.get(item.nodeid, SLOW_GUESS if item.get_closest_marker("slow") else FAST_GUESS))
        for item in items
    }
    items[:] = longest_first(items, expected, _worker_count(config))


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """(pytest-xdist, in the controller) every worker orders the tests by the same durations."""
    node.workerinput[_WORKERINPUT_KEY] = _known_durations(node.config)


_ran: dict[str, float] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Setup, call and teardown of each test (the controller gets every worker's reports)."""
    _ran[report.nodeid] = _ran.get(report.nodeid, 0.0) + report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The controller (or a run without workers) keeps the durations of the tests that ran, and those of tests
    of files still there that did not run this time."""
    config = session.config
    cache = getattr(config, "cache", None)
    if hasattr(config, "workerinput") or cache is None or not _ran:
        return
    root = config.rootpath
    kept = {
        nodeid: seconds
        for nodeid, seconds in _known_durations(config).items()
        if (root / nodeid.split("::")[0]).exists()
    }
    cache.set(CACHE_KEY, kept | {nodeid: round(seconds, 3) for nodeid, seconds in _ran.items()})
