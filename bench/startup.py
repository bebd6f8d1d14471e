"""Start-up of the file commands: `swissbot pair` and `swissbot check` as whole processes.

Usage: python -m bench.startup [FILE.trf] [--repeats 5]

Each command runs as `python -m bot.cli COMMAND FILE` in a fresh interpreter; the time is the wall time of
the whole process (start-up, imports, reading and pairing the file, exit), the median of the runs with the
fastest and slowest. `python -c pass` is timed the same way as the floor. The heavy packages a run imported
(discord, aiohttp, berserk, PIL, requests) come from `-X importtime`.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from tests.support.data import corpus

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_FILE = corpus() / "dutch" / "0029.trf"  # 20 players, round 1
HEAVY = ("discord", "aiohttp", "berserk", "PIL", "requests")


def timed(args: list[str], repeats: int) -> list[float]:
    """Wall seconds of `repeats` runs of the process `args`."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(args, cwd=ROOT, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
    return times


def heavy_imports(args: list[str]) -> list[str]:
    """The heavy top-level packages the process imported."""
    done = subprocess.run([args[0], "-X", "importtime", *args[1:]], cwd=ROOT, capture_output=True, text=True)
    names = {line.split("|")[-1].strip().split(".")[0] for line in done.stderr.splitlines() if "|" in line}
    return sorted(names & set(HEAVY))


def main(argv: list[str] | None = None) -> int:
    """Print the table (Markdown) of start-up times."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", type=Path, default=DEFAULT_FILE)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    print(f"Machine: {platform.platform()}, {os.cpu_count()} CPUs, Python {platform.python_version()};")
    print(f"load average {os.getloadavg()[0]:.2f} at the start; file {args.file.name}; {args.repeats} runs each.\n")
    print("| process | median (s) | fastest to slowest (s) | heavy imports |")
    print("|---|---:|---:|---|")
    runs = [
        ("python -c pass", [sys.executable, "-c", "pass"]),
        ("swissbot pair FILE", [sys.executable, "-m", "bot.cli", "pair", str(args.file)]),
        ("swissbot check FILE", [sys.executable, "-m", "bot.cli", "check", str(args.file)]),
    ]
    for label, command in runs:
        times = timed(command, args.repeats)
        heavy = ", ".join(heavy_imports(command)) or "none"
        print(f"| `{label}` | **{statistics.median(times):.3f}** | {min(times):.3f} to {max(times):.3f} | {heavy} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
