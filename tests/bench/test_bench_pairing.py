"""The pairing benchmark's events: built by the Dutch engine, cached as TRF, measured on the engine's own rounds."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

import bench.pairing as bench
from pairing import trf
from pairing.checker import round_input
from pairing.generator import generate
from pairing.model import Colour, RecordKind
from pairing.systems.dutch import pair
from tests.support.paths import ROOT


def test_cached_event_is_paired_round_by_round_by_the_engine(tmp_path: Path) -> None:
    log: list[str] = []
    path = bench.cached_event(3, 17, 5, cache=tmp_path, log=log.append)
    assert path == bench.cache_path(3, 17, 5, tmp_path) and path.exists()
    assert bench.build_seconds(path) is not None
    event = trf.read(str(path))
    assert event.rounds_completed == 5
    direct = generate(3, 17, 5, pair=pair)
    assert [p.rounds for p in event.players] == [p.rounds for p in direct.players]
    assert event.initial_colour is direct.initial_colour
    for r in range(1, 6):
        state = round_input(event, r)
        paired = {
            p.number for p in event.players if p.record(r).opponent is not None or p.record(r).kind is RecordKind.PAB
        }
        assert set(state.views(r).to_pair()) == paired
        got = pair(state)
        assert (frozenset(got.boards), got.bye) == bench.event_pairing(event, r)


def test_cache_is_reused_until_rebuilt(tmp_path: Path) -> None:
    log: list[str] = []
    path = bench.cached_event(5, 10, 3, cache=tmp_path, log=log.append)
    assert any("building" in line for line in log)
    log.clear()
    assert bench.cached_event(5, 10, 3, cache=tmp_path, log=log.append) == path
    assert log == []
    bench.cached_event(5, 10, 3, cache=tmp_path, rebuild=True, log=log.append)
    assert any("building" in line for line in log)


def test_measure_runs_fresh_interpreters_and_checks_the_pairing(tmp_path: Path) -> None:
    path = bench.cached_event(3, 12, 4, cache=tmp_path, log=lambda _: None)
    got = bench.measure(path, 2, 2, 1)
    event = trf.read(str(path))
    boards, bye = bench.event_pairing(event, 2)
    assert got["runs"] == 2 and got["boards"] == len(boards)
    assert got["paired"] == 2 * len(boards) + (bye is not None)
    assert got["min"] <= got["seconds"] <= got["max"] and got["peak"] >= got["before"] > 0


def test_measure_rejects_an_event_the_engine_would_pair_otherwise(tmp_path: Path) -> None:
    path = bench.cached_event(3, 12, 4, cache=tmp_path, log=lambda _: None)
    event = trf.read(str(path))
    board = min(bench.event_pairing(event, 2)[0], key=lambda b: b.white)
    swapped = {}
    for number in (board.white, board.black):
        rec = event.player(number).record(2)
        assert rec.colour is not None
        swapped[number] = replace(rec, colour=rec.colour.opposite)
    assert swapped[board.white].colour is Colour.BLACK
    path.write_text(trf.dumps(event.with_round(2, swapped)))
    with pytest.raises(RuntimeError, match="pairs differently"):
        bench.measure_once(path, 2)


def test_targets_line_says_whether_each_target_is_met() -> None:
    rows: list[bench.Row] = [
        (50, 1, "1", {"seconds": 0.5}, None),
        (100, 1, "1", {"seconds": 0.05}, None),
        (200, 6, "6", {"seconds": 0.4}, None),
        (400, 1, "1", {"seconds": 1.0}, None),
        (800, 1, "1", {"seconds": 20.0}, None),
    ]
    line = bench.targets_line(rows)
    assert "50 players" not in line
    assert "100 players round 1: 0.05 s against 0.10 s, met" in line
    assert "200 players round 6: 0.40 s against 0.15 s, **not met**" in line
    # Round 1 is held to the lower of the two reference figures that apply.
    assert "400 players round 1: 1.00 s against 1.20 s, met" in line
    assert "800 players round 1: 20.00 s against 13.00 s, **not met**" in line
    assert "figures given to us" in line


def test_targets_line_holds_a_round_to_the_reference_measured_on_the_same_file() -> None:
    rows: list[bench.Row] = [
        (200, 6, "6", {"seconds": 0.21}, {"seconds": 0.2, "cpu": 0.2}),
        (400, 6, "6", {"seconds": 1.5}, {"seconds": 2.3, "cpu": 2.3}),
    ]
    line = bench.targets_line(rows)
    assert "200 players round 6: 0.21 s against 0.20 s, **not met**" in line
    assert "400 players round 6: 1.50 s against 2.30 s, met" in line
    assert "measured here on the same file" in line


def test_engine_output_is_read_with_its_bye() -> None:
    got = bench.parse_engine_output("3\n4 1\n2 3\n5 0\n")
    assert [(b.white, b.black) for b in got.boards] == [(4, 1), (2, 3)] and got.bye == 5


def _stand_in_reference(tmp_path: Path) -> str:
    """An executable with bbpPairings' command line that pairs with our Dutch engine (CI has no C++ build)."""
    script = tmp_path / "bbp-stand-in"
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from pairing import trf\n"
        "from pairing.systems.dutch import pair\n"
        "assert sys.argv[1] == '--dutch' and sys.argv[3] == '-p'\n"
        "open(sys.argv[4], 'w').write('\\n'.join(pair(trf.read(sys.argv[2])).lines()) + '\\n')\n"
    )
    script.chmod(0o755)
    return str(script)


@pytest.mark.slow
def test_events_built_with_the_reference_and_measured_beside_it(tmp_path: Path) -> None:
    binary = _stand_in_reference(tmp_path)
    path = bench.cached_event(3, 12, 4, cache=tmp_path, log=lambda _: None, reference=binary)
    event = trf.read(str(path))
    assert [p.rounds for p in event.players] == [p.rounds for p in generate(3, 12, 4, pair=pair).players]
    assert "pair=bbpPairings --dutch" in path.read_text()
    got = bench.measure_reference(binary, path, 3, "dutch", runs=2)
    assert got["runs"] == 2 and got["seconds"] > 0 and got["cpu"] >= 0


def test_a_reference_that_pairs_otherwise_is_reported(tmp_path: Path) -> None:
    binary = _stand_in_reference(tmp_path)
    path = bench.cached_event(3, 12, 4, cache=tmp_path, log=lambda _: None)
    event = trf.read(str(path))
    board = min(bench.event_pairing(event, 2)[0], key=lambda b: b.white)
    swapped = {}
    for number in (board.white, board.black):
        rec = event.player(number).record(2)
        assert rec.colour is not None
        swapped[number] = replace(rec, colour=rec.colour.opposite)
    path.write_text(trf.dumps(event.with_round(2, swapped)))
    with pytest.raises(RuntimeError, match="the reference pairs round 2"):
        bench.measure_reference(binary, path, 2, "dutch", runs=1)


def test_write_section_replaces_only_the_pairing_section(tmp_path: Path) -> None:
    doc = tmp_path / "benchmarks.md"
    doc.write_text("# Benchmarks\n\n## Pairing\n\nold numbers\n\n## A round end to end\n\nkept\n")
    bench.write_section("## Pairing\n\nnew numbers\n", doc)
    assert doc.read_text() == "# Benchmarks\n\n## Pairing\n\nnew numbers\n\n## A round end to end\n\nkept\n"
    fresh = tmp_path / "other.md"
    bench.write_section("## Pairing\n\nnew numbers\n", fresh)
    assert fresh.read_text() == "# Benchmarks\n\n## Pairing\n\nnew numbers\n"


def test_burstein_events_are_built_and_measured_with_the_burstein_engine(tmp_path: Path) -> None:
    from pairing.systems.burstein import pair as burstein_pair

    path = bench.cached_event(4, 12, 4, cache=tmp_path, log=lambda _: None, system="burstein")
    assert path == bench.cache_path(4, 12, 4, tmp_path, "burstein") and path.name.startswith("burstein-")
    event = trf.read(str(path))
    direct = generate(4, 12, 4, pair=burstein_pair)
    assert [p.rounds for p in event.players] == [p.rounds for p in direct.players]
    assert [p.rounds for p in event.players] != [p.rounds for p in generate(4, 12, 4, pair=pair).players]
    got = bench.measure(path, 3, 1, 1, "burstein")
    assert got["boards"] == len(bench.event_pairing(event, 3)[0])
    assert bench.heading("burstein") == "## Pairing (Burstein)"


def test_swissbot_pair_is_timed_as_a_whole_process(tmp_path: Path) -> None:
    path = bench.cached_event(3, 12, 4, cache=tmp_path, log=lambda _: None)
    assert bench.measure_process(path, 3, "dutch", runs=1) > 0
    rows: list[bench.Row] = [(400, 6, "6", {"seconds": 0.9, "process": 1.1}, {"seconds": 2.3, "cpu": 2.3})]
    assert "400 players round 6: 0.90 s against 2.30 s, met; as a whole process 1.10 s against 2.30 s, met" in (
        bench.targets_line(rows)
    )
