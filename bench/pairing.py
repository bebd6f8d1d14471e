"""Benchmark of the Dutch engine: time and peak memory of pairing rounds of generated 11-round events.

Usage: .venv/bin/python bench/pairing.py [--sizes 50 100 200 400 800] [--rounds 11] [--seed 1] [--runs 5]
                                         [--long-runs 3] [--rebuild] [--no-write]

Each event comes from `pairing.generator.generate` (Elo-drawn results, byes, forfeits, withdrawals) paired round
by round by the Dutch engine itself, so the measured rounds have the colour sequences, floats and score groups
of a real event. Building an 800-player event takes over a minute, so each one is cached as a TRF file in
bench/.cache/, keyed by seed, size and rounds (--rebuild makes it again). The engine then pairs round 1, the
middle round and the last round of the parsed file again, each call in a fresh interpreter, and the pairing it
makes must be the one of the event (if it is not, the engine changed since the file was built: --rebuild). The
table goes to docs/benchmarks.md under '## Pairing' (other sections are kept).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

# This file is called pairing.py: make `import pairing` find the package, not this script.
ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]

from pairing import trf  # noqa: E402
from pairing.checker import round_input  # noqa: E402
from pairing.generator import Pair, generate  # noqa: E402
from pairing.model import Board, Colour, Pairing, RecordKind, Tournament  # noqa: E402

DOC = ROOT / "docs" / "benchmarks.md"
CACHE = ROOT / "bench" / ".cache"
# Calls slower than this are run fewer times (--long-runs instead of --runs).
LONG_CALL_SECONDS = 10.0
# The reference engine (C++ bbpPairings), not runnable here: figures given to us, in seconds. Round 1, the whole
# process, medians of 3 (given with the round-1 work); and one round of an event, round not stated (given with the
# earlier targets).
REFERENCE_ROUND_ONE = {100: 0.03, 400: 1.5, 800: 23.0}
REFERENCE_ANY_ROUND = {200: 0.15, 400: 1.2, 800: 13.0}
# Targets: round 1 of 100 players under this; from 200 players, every measured round within the reference's time.
ROUND_ONE_100 = 0.1


# The engines that can be measured, by --system, with the name the table gives them.
SYSTEMS = {"dutch": "Dutch", "burstein": "Burstein"}


def engine(system: str) -> Pair:
    """The `pair` function of a system's module."""
    if system not in SYSTEMS:
        raise ValueError(f"unknown system {system!r} (known: {', '.join(SYSTEMS)})")
    found: Pair = importlib.import_module(f"pairing.{system}").pair
    return found


def heading(system: str) -> str:
    """The section of docs/benchmarks.md that holds a system's table."""
    return "## Pairing" if system == "dutch" else f"## Pairing ({SYSTEMS[system]})"


def cache_path(seed: int, size: int, rounds: int, cache: Path = CACHE, system: str = "dutch") -> Path:
    """The TRF file of the generated event with these parameters."""
    return cache / f"{system}-seed{seed}-{size}p-{rounds}r.trf"


def build_event(
    seed: int, size: int, rounds: int, log: Callable[[str], None] = print, system: str = "dutch"
) -> Tournament:
    """Generate the event, every round paired by the Dutch engine; fail if it stops before the last round."""

    pair = engine(system)

    def timed_pair(state: Tournament) -> Pairing:
        start = time.perf_counter()
        result = pair(state)
        log(f"  {size} players, round {state.round_to_pair} paired in {time.perf_counter() - start:.1f} s")
        return result

    event = generate(seed, size, rounds, pair=timed_pair)
    if event.rounds_completed != rounds:
        raise RuntimeError(f"the generated event stopped after round {event.rounds_completed} of {rounds}")
    return event


def cached_event(
    seed: int,
    size: int,
    rounds: int,
    *,
    rebuild: bool = False,
    cache: Path = CACHE,
    log: Callable[[str], None] = print,
    system: str = "dutch",
) -> Path:
    """The cached event's file, built first if it is missing (or `rebuild`)."""
    path = cache_path(seed, size, rounds, cache, system)
    if path.exists() and not rebuild:
        return path
    log(f"building {path.name} (every round paired by the {SYSTEMS[system]} engine)")
    start = time.perf_counter()
    event = build_event(seed, size, rounds, log, system)
    seconds = time.perf_counter() - start
    comment = (
        f"### bench/pairing.py: generate(seed={seed}, players={size}, rounds={rounds}, pair={system}.pair), "
        f"built in {seconds:.0f} s"
    )
    text = trf.dumps(replace(event, header=(comment,)))
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.write_text(text)
    partial.replace(path)
    log(f"built {path.name} in {seconds:.0f} s")
    return path


def build_seconds(path: Path) -> float | None:
    """The time it took to build a cached event, from its comment line (None if the file does not say)."""
    with path.open() as handle:
        for line in handle:
            found = re.match(r"### bench/pairing\.py: .* built in (\d+) s", line)
            if found:
                return float(found.group(1))
    return None


def event_pairing(event: Tournament, round_number: int) -> tuple[frozenset[Board], int | None]:
    """The boards (White, Black) and the pairing-allocated bye of a round of the event."""
    boards = set()
    bye = None
    for p in event.players:
        rec = p.record(round_number)
        if rec.opponent is not None and rec.colour is Colour.WHITE:
            boards.add(Board(p.number, rec.opponent))
        elif rec.kind is RecordKind.PAB:
            bye = p.number
    return frozenset(boards), bye


def _status_mib(field: str) -> float:
    """A memory field of /proc/self/status (Linux; kB there), in MiB."""
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"/proc/self/status has no {field}")


def _reset_peak() -> bool:
    """Reset this process's peak resident memory (VmHWM) to its current one; False where Linux does not allow it."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
    except OSError:
        return False
    return True


def child(path: str, round_number: int, system: str = "dutch") -> None:
    """Measure one pairing of the cached event in this (fresh) process and print the numbers as JSON."""
    event = trf.read(path)
    state = round_input(event, round_number)
    before = _status_mib("VmRSS")
    # Not ru_maxrss: on Linux it keeps the parent's resident size from before the exec.
    reset = _reset_peak()
    start = time.perf_counter()
    cpu = time.process_time()
    result = engine(system)(state)
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu
    peak = _status_mib("VmHWM")
    paired = len(state.views(round_number).to_pair())
    same = (frozenset(result.boards), result.bye) == event_pairing(event, round_number)
    numbers = {"seconds": seconds, "cpu": cpu, "boards": len(result.boards), "paired": paired}
    numbers |= {"before": before, "peak": peak}
    print(json.dumps({**numbers, "same": same, "reset": reset}))


def measure_once(path: Path, round_number: int, system: str = "dutch") -> dict[str, float]:
    """Run `child` in a fresh interpreter, so that the peak memory is this pairing's alone."""
    command = [sys.executable, __file__, "--system", system, "--child", str(path), str(round_number)]
    out = subprocess.run(command, check=True, capture_output=True, text=True, cwd=ROOT).stdout
    numbers: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    if not numbers["same"]:
        raise RuntimeError(f"round {round_number} of {path.name} pairs differently now: rebuild it (--rebuild)")
    return numbers


def measure(path: Path, round_number: int, runs: int, long_runs: int, system: str = "dutch") -> dict[str, float]:
    """Medians over `runs` fresh-interpreter calls (`long_runs` if a call takes over LONG_CALL_SECONDS)."""
    got = [measure_once(path, round_number, system)]
    wanted = long_runs if got[0]["seconds"] > LONG_CALL_SECONDS else runs
    while len(got) < wanted:
        got.append(measure_once(path, round_number, system))
    seconds = [g["seconds"] for g in got]
    out = {key: statistics.median(g[key] for g in got) for key in ("seconds", "cpu", "peak", "before")}
    spread = {"min": min(seconds), "max": max(seconds), "runs": len(got), "reset": all(g["reset"] for g in got)}
    return {**out, **spread, "paired": got[0]["paired"], "boards": got[0]["boards"]}


def _load() -> float:
    return os.getloadavg()[0]


def reference_seconds(size: int, round_number: int) -> float | None:
    """The reference engine's time that a measured round is held to: the lowest figure that applies to it."""
    figures = [REFERENCE_ANY_ROUND.get(size)]
    if round_number == 1:
        figures.append(REFERENCE_ROUND_ONE.get(size))
    known = [f for f in figures if f is not None]
    return min(known) if known else None


def targets_line(rows: list[tuple[int, int, str, dict[str, float]]]) -> str:
    """The targets, each measured round against its figure, and whether it is met (on wall time)."""
    parts = []
    for size, rnd, _label, got in rows:
        limit = ROUND_ONE_100 if (size, rnd) == (100, 1) else reference_seconds(size, rnd) if size >= 200 else None
        if limit is None:
            continue
        verdict = "met" if got["seconds"] <= limit else "**not met**"
        parts.append(f"{size} players round {rnd}: {got['seconds']:.2f} s against {limit:g} s, {verdict}")
    return (
        f"Targets: round 1 of 100 players under {ROUND_ONE_100:g} s; from 200 players, every measured round within "
        "the reference engine's time (C++ bbpPairings, not runnable here; figures given to us, not measured on this "
        "machine: round 1 as a whole process, medians of 3, "
        + ", ".join(f"{v:g} s for {k}" for k, v in REFERENCE_ROUND_ONE.items())
        + " players; one round, round not stated, "
        + ", ".join(f"{v:g} s for {k}" for k, v in REFERENCE_ANY_ROUND.items())
        + " players; where both apply, the lower). "
        + "; ".join(parts)
        + "."
    )


def section(
    rows: list[tuple[int, int, str, dict[str, float]]],
    args: argparse.Namespace,
    loads: list[float],
    builds: dict[int, float | None],
) -> str:
    """The '## Pairing' section of docs/benchmarks.md."""
    # The bench's own calls keep about one CPU busy; more than that is other work on the machine.
    busy = max(loads) > 1.5
    noise = (
        "; other work was running on the machine at the same time, so the times may be somewhat high (the spread "
        "of the runs is shown)"
        if busy
        else ""
    )
    built = ", ".join(
        f"{seconds:.0f} s for {size} players" if seconds is not None else f"an unrecorded time for {size} players"
        for size, seconds in builds.items()
    )
    if all(got["reset"] for _, _, _, got in rows):
        peak_how = "`VmHWM` of /proc/self/status, reset through /proc/self/clear_refs just before the call"
    else:
        peak_how = "`VmHWM` of /proc/self/status, since the interpreter started: the peak could not be reset"
    lines = [
        heading(args.system),
        "",
        f"Dutch engine (`pairing.dutch.pair`), one round of a generated {args.rounds}-round event "
        f"(`bench/pairing.py`, seed {args.seed}). Each event is built by `pairing.generator.generate` (its default "
        "rates: Elo-drawn results, half-point and zero-point byes, forfeits, withdrawals) with every round paired by "
        "the Dutch engine itself, so the measured rounds have the histories the engine makes (colour sequences, "
        "floats, score groups); it is cached as a TRF file in `bench/.cache/`. The measured call pairs the round "
        "again from the parsed file, in a fresh interpreter, and gives the event's own pairing (checked on every "
        "run). Time: wall time of the call (`time.perf_counter`), the median of "
        f"{args.runs} runs ({args.long_runs} for calls over {LONG_CALL_SECONDS:g} s), with the fastest and slowest "
        "run, and the CPU time of the process during the call (`time.process_time`, median), which other work on "
        "the machine inflates much less than the wall time; "
        f"peak RSS: the process's peak resident memory during the call ({peak_how}; interpreter and event "
        "included), and its resident memory just before the call (medians).",
        "",
        "Building the events (every round paired by the engine, in the bench's process, before the measurements "
        f"and not counted in them) took {built}.",
        "",
        f"Machine: {platform.platform()}, {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()} ({platform.python_implementation()}); 1-minute load average "
        f"{min(loads):.1f} to {max(loads):.1f} during the runs (the bench itself adds about 1){noise}. The 2 cores "
        "are shared with other engineers' work (tests, builds, benchmarks), so the wall times are upper bounds.",
        "",
        targets_line(rows),
        "",
        "Round 1 (no history: one score group, two under acceleration) is settled without any matching when the "
        "natural S1-S2 pairing is provably best (`_Round.natural` in `pairing/dutch.py`), as it is here; later "
        "rounds spend most of their time in the maximum-weight matching of the brackets that it does not settle. "
        "Before it, round 1 took 0.33 s for 100 players, 0.64 s for 200, 3.66 s for 400 and 27.92 s for 800 (the "
        "previous measurement of this page, seed 1, load 1.1 to 1.6).",
        "",
        "| players | round | paired | boards | time (s) | CPU (s) | reference (s) | peak RSS (MiB) | RSS before "
        "pairing (MiB) |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for size, rnd, label, got in rows:
        reference = reference_seconds(size, rnd)
        lines.append(
            f"| {size} | {label} | {got['paired']:.0f} | {got['boards']:.0f} | **{got['seconds']:.2f}** "
            f"({got['min']:.2f} to {got['max']:.2f}) | {got['cpu']:.2f} | "
            f"{'' if reference is None else f'{reference:g}'} | {got['peak']:.0f} | {got['before']:.0f} |"
        )
    return "\n".join(lines) + "\n"


def write_section(text: str, doc: Path = DOC) -> None:
    """Replace (or add) the section the text heads (its first line) in the benchmarks page, keeping the others."""
    old = doc.read_text() if doc.exists() else "# Benchmarks\n"
    title = re.escape(text.splitlines()[0])
    if re.search(rf"^{title}$", old, flags=re.M):
        new = re.sub(rf"^{title}\n.*?(?=^## |\Z)", lambda _: text + "\n", old, count=1, flags=re.M | re.S)
    else:
        new = old.rstrip("\n") + "\n\n" + text
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text(new.rstrip("\n") + "\n")


def main(argv: list[str] | None = None) -> int:
    """Build (or read) the events, measure, and write the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--system", choices=sorted(SYSTEMS), default="dutch", help="the engine to measure")
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 100, 200, 400, 800])
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=5, help="calls per round (median)")
    parser.add_argument("--long-runs", type=int, default=3, help=f"calls per round over {LONG_CALL_SECONDS:g} s")
    parser.add_argument("--rebuild", action="store_true", help="generate the cached events again")
    parser.add_argument("--no-write", action="store_true", help="print the table only")
    parser.add_argument("--child", nargs=2, metavar=("TRF", "ROUND"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child[0], int(args.child[1]), args.system)
        return 0
    middle = (args.rounds + 1) // 2
    rows = []
    loads = []
    builds = {}
    for size in args.sizes:
        path = cached_event(args.seed, size, args.rounds, rebuild=args.rebuild, system=args.system)
        builds[size] = build_seconds(path)
        for label, rnd in (("1", 1), (f"{middle} (middle)", middle), (f"{args.rounds} (last)", args.rounds)):
            loads.append(_load())
            got = measure(path, rnd, args.runs, args.long_runs, args.system)
            rows.append((size, rnd, label, got))
            print(
                f"{size:4d} players, round {label:12s}: {got['seconds']:7.2f} s ({got['min']:.2f} to {got['max']:.2f}, "
                f"{got['runs']:.0f} runs, CPU {got['cpu']:.2f} s), "
                f"peak RSS {got['peak']:7.1f} MiB ({got['before']:.1f} before pairing)",
                flush=True,
            )
    loads.append(_load())
    text = section(rows, args, loads, builds)
    print(text)
    if not args.no_write:
        write_section(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
