"""The Fast Swiss benchmark's reference timing: the same round of the same event, and the same answer."""

from __future__ import annotations

import pickle
import resource
import sys
from pathlib import Path

import pytest

import bench.fast as bench
from tests.support.paths import ROOT


def _stand_in(tmp_path: Path, swap: bool) -> str:
    """An executable with bbpPairings' command line that pairs with our Fast engine (CI has no C++ build);
    `swap` gives every board the other way round, as a reference that disagrees would."""
    script = tmp_path / ("swapped" if swap else "same")
    flip = "lines = [lines[0]] + [' '.join(reversed(l.split())) if not l.endswith(' 0') else l for l in lines[1:]]\n"
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from pairing import trf\n"
        "from pairing.systems import fast\n"
        "assert sys.argv[1] == '--fast' and sys.argv[3] == '-p'\n"
        "lines = fast.pair(trf.read(sys.argv[2])).lines()\n"
        + (flip if swap else "")
        + "open(sys.argv[4], 'w').write('\\n'.join(lines) + '\\n')\n"
    )
    script.chmod(0o755)
    return str(script)


def _event(tmp_path: Path) -> Path:
    path = tmp_path / "event.pickle"
    path.write_bytes(pickle.dumps(bench.simulate(3, 60, 4, log=False)))
    return path


@pytest.mark.slow
def test_the_reference_is_timed_on_the_same_round_and_must_agree(tmp_path: Path) -> None:
    path = _event(tmp_path)
    assert bench.measure_reference(_stand_in(tmp_path, swap=False), path, 3, runs=2) > 0
    with pytest.raises(RuntimeError, match=r"pairs round 4 of event\.pickle differently"):
        bench.measure_reference(_stand_in(tmp_path, swap=True), path, 3, runs=1)


def test_the_section_shows_the_reference_measured_here_beside_the_readme_figure() -> None:
    got = {"seconds": 1.5, "min": 1.4, "max": 1.6, "peak": 100.0, "before": 30.0, "placed": 100000.0}
    text = bench.section([(100000, 10, "event", got, 10.0)], {100000: None}, {100000: 0.1}, {(100000, 10): 2.0})
    assert "| 100,000 | 10 | `pair_event` | 100000 | **1.50** (1.40 to 1.60) | 2.00 | 2.36 |" in text
    assert "100,000 players after 10 rounds 1.50 s against 2.00 s (measured here)" in text


def test_the_whole_command_table_compares_cpu_and_peak_memory_with_the_reference() -> None:
    got = {
        "command": {"seconds": 2.0, "cpu": 1.5, "peak": 150.0},
        "model": {"seconds": 40.0, "cpu": 38.0, "peak": 700.0},
        "before": {"seconds": 3.1, "cpu": 3.0, "peak": 130.0},
        "reference": {"seconds": 1.4, "cpu": 1.2, "peak": 180.0},
        "load": {"average": 3.5, "megabytes": 46.0},
    }
    text = bench.section([], {}, {}, {}, [(100000, 30, got)])
    assert (
        "| 100,000 | 30 | 46 | 3.5 | 2.00 / **1.50** | 1.40 / 1.20 | **1.25** | 150 | 180 | **0.83** | 38.00 / 700 "
        "| 3.00 / 130 |" in text
    )
    assert "**not met** (100,000 x 30: CPU 1.25x, peak RSS 0.83x)" in text
    assert (
        "Against the earlier tree's command: 100,000 x 30: CPU 3.00 s then, 1.50 s now (2.0x less), "
        "peak RSS 130 MiB then, 150 MiB now." in text
    )


def test_a_row_within_the_reference_is_marked_met() -> None:
    got = {
        "command": {"seconds": 1.0, "cpu": 0.9, "peak": 120.0},
        "reference": {"seconds": 1.4, "cpu": 1.2, "peak": 180.0},
        "load": {"average": 2.0, "megabytes": 46.0},
    }
    text = bench.section([], {}, {}, {}, [(100000, 30, got)])
    assert "Target (issue #29: the whole command at most the reference's time and memory): met (100,000 x 30: " in text
    assert "CPU 0.75x, peak RSS 0.67x (met))." in text


def test_a_process_is_measured_from_the_launcher_not_from_the_benchmark() -> None:
    numbers, out = bench.run_process([sys.executable, "-c", "print('paired')"])
    assert out == "paired\n"
    own_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    assert numbers["cpu"] > 0
    assert 0 < numbers["peak"] < own_peak  # a child of this process would count this process's peak too
    with pytest.raises(RuntimeError, match="exited with 3"):
        bench.run_process([sys.executable, "-c", "raise SystemExit(3)"])
