"""Benchmark of a pairing engine (Dutch by default): time and peak memory of pairing rounds of generated events.

Usage: .venv/bin/python bench/pairing.py [--system dutch|burstein] [--sizes 50 100 200 400 800] [--rounds 11]
                                         [--seed 1] [--runs 5] [--long-runs 3] [--rebuild] [--no-write]

Each event comes from `pairing.generator.generate` (Elo-drawn results, byes, forfeits, withdrawals) paired round
by round by the engine itself, so the measured rounds have the colour sequences, floats and score groups
of a real event. Building an 800-player event takes over a minute, so each one is cached as a TRF file in
bench/.cache/, keyed by seed, size and rounds (--rebuild makes it again). The engine then pairs round 1, the
middle round and the last round of the parsed file again, each call in a fresh interpreter, and the pairing it
makes must be the one of the event (if it is not, the engine changed since the file was built: --rebuild). The
table goes to docs/benchmarks.md under '## Pairing' ('## Pairing (Burstein)' for --system burstein; other
sections are kept).
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
# Targets for one round's pairing, by number of players, and the reference engine (C++ bbpPairings) for scale.
TARGETS = {200: 2.0, 400: 10.0, 800: 60.0}
REFERENCE = {200: "0.15", 400: "1.2", 800: "13"}
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
    """Generate the event, every round paired by the system's engine; fail if it stops before the last round."""
    pair_round = engine(system)

    def timed_pair(state: Tournament) -> Pairing:
        start = time.perf_counter()
        result = pair_round(state)
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
    pair = engine(system)
    event = trf.read(path)
    state = round_input(event, round_number)
    before = _status_mib("VmRSS")
    # Not ru_maxrss: on Linux it keeps the parent's resident size from before the exec.
    reset = _reset_peak()
    start = time.perf_counter()
    result = pair(state)
    seconds = time.perf_counter() - start
    peak = _status_mib("VmHWM")
    paired = len(state.views(round_number).to_pair())
    same = (frozenset(result.boards), result.bye) == event_pairing(event, round_number)
    numbers = {"seconds": seconds, "boards": len(result.boards), "paired": paired, "before": before, "peak": peak}
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
    out = {key: statistics.median(g[key] for g in got) for key in ("seconds", "peak", "before")}
    spread = {"min": min(seconds), "max": max(seconds), "runs": len(got), "reset": all(g["reset"] for g in got)}
    return {**out, **spread, "paired": got[0]["paired"], "boards": got[0]["boards"]}


def _load() -> float:
    return os.getloadavg()[0]


def targets_line(rows: list[tuple[int, str, dict[str, float]]], system: str = "dutch") -> str:
    """The targets, each with the slowest measured round of that size and whether it is met."""
    parts = []
    for size, limit in TARGETS.items():
        times = [got["seconds"] for s, _, got in rows if s == size]
        if not times:
            parts.append(f"{size} players < {limit:g} s (not measured)")
            continue
        verdict = "met" if max(times) < limit else "**not met**"
        parts.append(f"{size} players < {limit:g} s: {verdict} (slowest round {max(times):.2f} s)")
    reference = ", ".join(f"{REFERENCE[size]} s for {size}" for size in TARGETS)
    if system != "dutch":
        return "Targets, one round's pairing (those of the Dutch engine): " + "; ".join(parts) + "."
    return (
        "Targets, one round's pairing: "
        + "; ".join(parts)
        + f". For comparison, the reference engine (C++ bbpPairings) takes about {reference} players "
        "(figures given with the targets, not measured on this machine)."
    )


def section(
    rows: list[tuple[int, str, dict[str, float]]],
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
    if all(got["reset"] for _, _, got in rows):
        peak_how = "`VmHWM` of /proc/self/status, reset through /proc/self/clear_refs just before the call"
    else:
        peak_how = "`VmHWM` of /proc/self/status, since the interpreter started: the peak could not be reset"
    system = getattr(args, "system", "dutch")
    lines = [
        heading(system),
        "",
        f"{SYSTEMS[system]} engine (`pairing.{system}.pair`), one round of a generated {args.rounds}-round event "
        f"(`bench/pairing.py`, seed {args.seed}). Each event is built by `pairing.generator.generate` (its default "
        "rates: Elo-drawn results, half-point and zero-point byes, forfeits, withdrawals) with every round paired by "
        f"the {SYSTEMS[system]} engine itself, so the measured rounds have the histories the engine makes (colour "
        "sequences, floats, score groups); it is cached as a TRF file in `bench/.cache/`. The measured call pairs the "
        "round again from the parsed file, in a fresh interpreter, and gives the event's own pairing (checked on every "
        "run). Time: wall time of the call (`time.perf_counter`), the median of "
        f"{args.runs} runs ({args.long_runs} for calls over {LONG_CALL_SECONDS:g} s), with the fastest and slowest "
        f"run; peak RSS: the process's peak resident memory during the call ({peak_how}; interpreter and event "
        "included), and its resident memory just before the call (medians).",
        "",
        "Building the events (every round paired by the engine, in the bench's process, before the measurements "
        f"and not counted in them) took {built}.",
        "",
        f"Machine: {platform.platform()}, {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()} ({platform.python_implementation()}); 1-minute load average "
        f"{min(loads):.1f} to {max(loads):.1f} during the runs (the bench itself adds about 1){noise}.",
        "",
        targets_line(rows, system),
        "",
        "| players | round | paired | boards | time (s) | peak RSS (MiB) | RSS before pairing (MiB) |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {size} | {label} | {got['paired']:.0f} | {got['boards']:.0f} | **{got['seconds']:.2f}** "
        f"({got['min']:.2f} to {got['max']:.2f}) | {got['peak']:.0f} | {got['before']:.0f} |"
        for size, label, got in rows
    ]
    return "\n".join(lines) + "\n"


def write_section(text: str, doc: Path = DOC, title: str = "## Pairing") -> None:
    """Replace (or add) the `title` section of the benchmarks page, keeping the others."""
    old = doc.read_text() if doc.exists() else "# Benchmarks\n"
    here = re.escape(title)
    if re.search(rf"^{here}$", old, flags=re.M):
        new = re.sub(rf"^{here}\n.*?(?=^## |\Z)", lambda _: text + "\n", old, count=1, flags=re.M | re.S)
    else:
        new = old.rstrip("\n") + "\n\n" + text
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text(new.rstrip("\n") + "\n")


def main(argv: list[str] | None = None) -> int:
    """Build (or read) the events, measure, and write the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--system", choices=list(SYSTEMS), default="dutch", help="the engine to measure")
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
            rows.append((size, label, got))
            print(
                f"{size:4d} players, round {label:12s}: {got['seconds']:7.2f} s ({got['min']:.2f} to {got['max']:.2f}, "
                f"{got['runs']:.0f} runs), peak RSS {got['peak']:7.1f} MiB ({got['before']:.1f} before pairing)",
                flush=True,
            )
    loads.append(_load())
    text = section(rows, args, loads, builds)
    print(text)
    if not args.no_write:
        write_section(text, title=heading(args.system))
    return 0


if __name__ == "__main__":
    sys.exit(main())
