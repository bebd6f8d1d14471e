"""Benchmark of the Dutch engine: time and peak memory of pairing rounds of generated 11-round events.

Usage: .venv/bin/python bench/pairing.py [--sizes 50 100 200 400 800] [--rounds 11] [--seed 1] [--no-write]

The event histories come from `pairing.generator.generate` (Elo-drawn results, byes, forfeits), paired by a
fast greedy Swiss pairer (players in score order, each with the next one not met and colour-compatible) so
that building an 800-player history does not itself take the engine's time. The Dutch engine then pairs
round 1, the middle round and the last round of that history. The table goes to docs/benchmarks.md under
'## Pairing' (other sections are kept).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

# This file is called pairing.py: make `import pairing` find the package, not this script.
ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]

from pairing.colours import ColourState, allocate  # noqa: E402
from pairing.dutch import pair  # noqa: E402
from pairing.errors import NoValidPairing  # noqa: E402
from pairing.generator import generate  # noqa: E402
from pairing.model import Board, Colour, Pairing, PreferenceStrength, RecordKind, Tournament  # noqa: E402

DOC = ROOT / "docs" / "benchmarks.md"


def greedy_pair(tournament: Tournament) -> Pairing:
    """A quick legal Swiss pairing (no rematch, no two equal absolute colour preferences)."""
    views = tournament.views()
    order = sorted(views.to_pair(), key=lambda n: (-views.pairing_score(n), n))
    states = {}
    for rank, number in enumerate(order):
        pref = views.preference(number)
        states[number] = ColourState(number, rank, rank + 1, views.colours(number), pref.colour, pref.strength)
    bye = None
    if len(order) % 2:
        eligible = [n for n in reversed(order) if views.pab_eligible(n)]
        bye = eligible[0] if eligible else order[-1]
        order.remove(bye)
    free = list(order)
    boards = []
    while free:
        a = free.pop(0)
        sa = states[a]
        partner = None
        for b in free:
            sb = states[b]
            same_absolute = (
                sa.strength is PreferenceStrength.ABSOLUTE
                and sb.strength is PreferenceStrength.ABSOLUTE
                and sa.preference is sb.preference
            )
            if not views.have_met(a, b) and not same_absolute:
                partner = b
                break
        if partner is None:
            partner = next((b for b in free if not views.have_met(a, b)), None)
        if partner is None:
            raise NoValidPairing("the greedy pairer is stuck")
        free.remove(partner)
        colour = allocate(sa, states[partner], tournament.initial_colour or Colour.WHITE)
        boards.append(Board(a, partner) if colour is Colour.WHITE else Board(partner, a))
    return Pairing(tuple(boards), bye)


def round_state(size: int, rounds: int, round_number: int, seed: int) -> Tournament:
    """The generated event as it stands before `round_number`, with that round's known byes."""
    history = generate(seed, size, rounds, pair=greedy_pair, stop_after=round_number)
    state = history.truncated(round_number - 1)
    known = {
        p.number: p.record(round_number)
        for p in history.players
        if p.record(round_number).kind in (RecordKind.HALF_BYE, RecordKind.ZERO_BYE, RecordKind.FULL_BYE)
    }
    return state.with_round(round_number, known) if known else state


def _rss_mib() -> float:
    """The resident set size of this process now (Linux /proc), in MiB."""
    with open("/proc/self/statm") as handle:
        pages = int(handle.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def child(size: int, rounds: int, round_number: int, seed: int) -> None:
    """Measure one pairing in this (fresh) process and print the numbers as JSON."""
    state = round_state(size, rounds, round_number, seed)
    before = _rss_mib()
    start = time.perf_counter()
    result = pair(state)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    paired = len(state.views(round_number).to_pair())
    print(
        json.dumps({"seconds": seconds, "boards": len(result.boards), "paired": paired, "before": before, "peak": peak})
    )


def measure(size: int, rounds: int, round_number: int, seed: int) -> dict[str, float]:
    """Run `child` in a fresh interpreter, so that the peak memory is this pairing's alone."""
    command = [sys.executable, __file__, "--child", str(size), str(rounds), str(round_number), str(seed)]
    out = subprocess.run(command, check=True, capture_output=True, text=True, cwd=ROOT).stdout
    numbers: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return numbers


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and write the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 100, 200, 400, 800])
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-write", action="store_true", help="print the table only")
    parser.add_argument(
        "--child", type=int, nargs=4, metavar=("SIZE", "ROUNDS", "ROUND", "SEED"), help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    if args.child:
        child(*args.child)
        return 0
    middle = (args.rounds + 1) // 2
    rows = []
    for size in args.sizes:
        for label, rnd in (("1", 1), (f"{middle} (middle)", middle), (f"{args.rounds} (last)", args.rounds)):
            got = measure(size, args.rounds, rnd, args.seed)
            rows.append((size, label, got))
            print(
                f"{size:4d} players, round {label:12s}: {got['seconds']:7.2f} s, peak RSS {got['peak']:7.1f} MiB "
                f"({got['before']:.1f} before pairing)",
                flush=True,
            )
    table = [
        "## Pairing",
        "",
        "Dutch engine (`pairing.dutch.pair`), one round of a generated 11-round event "
        f"(`bench/pairing.py`, seed {args.seed}), each measured in a fresh interpreter: wall time of the call "
        "(`time.perf_counter`), the process's peak resident memory (`ru_maxrss`, interpreter and event "
        "included) and its resident memory just before the call. Histories: `pairing.generator.generate` "
        "with its default rates, paired by a greedy Swiss pairer so that long histories are cheap to build.",
        "",
        f"Machine: {platform.platform()}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()} ({platform.python_implementation()}).",
        "",
        "| players | round | paired | boards | time (s) | peak RSS (MiB) | RSS before pairing (MiB) |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    table += [
        f"| {size} | {label} | {got['paired']:.0f} | {got['boards']:.0f} | {got['seconds']:.2f} | "
        f"{got['peak']:.0f} | {got['before']:.0f} |"
        for size, label, got in rows
    ]
    text = "\n".join(table) + "\n"
    print(text)
    if not args.no_write:
        old = DOC.read_text() if DOC.exists() else "# Benchmarks\n"
        if re.search(r"^## Pairing$", old, flags=re.M):
            new = re.sub(r"^## Pairing\n.*?(?=^## |\Z)", text + "\n", old, flags=re.M | re.S)
        else:
            new = old.rstrip("\n") + "\n\n" + text
        DOC.parent.mkdir(parents=True, exist_ok=True)
        DOC.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
