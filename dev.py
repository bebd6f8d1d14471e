"""Bootstrap a virtualenv in .venv and run the demo or the checks: `python3 dev.py demo|test`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".installed"


def ensure_venv() -> None:
    """Create .venv and install the project with its test extras when pyproject.toml changed."""
    if not (BIN / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    wanted = (ROOT / "pyproject.toml").stat().st_mtime_ns
    if STAMP.exists() and STAMP.read_text() == str(wanted):
        return
    pip = [str(BIN / "python"), "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "install", "--upgrade", "pip"], check=True)
    subprocess.run([*pip, "install", "-e", f"{ROOT}[test]"], check=True)
    STAMP.write_text(str(wanted))


def main(argv: list[str]) -> int:
    """Run `demo [ARGS]` or `test [PYTEST ARGS]`."""
    if not argv or argv[0] not in ("demo", "test"):
        print("usage: python3 dev.py demo [ARGS] | test [PYTEST ARGS]", file=sys.stderr)
        return 2
    ensure_venv()
    os.chdir(ROOT)
    if argv[0] == "demo":
        return subprocess.run([str(BIN / "swissbot"), "demo", *argv[1:]]).returncode
    for check in (["ruff", "check", "."], ["ruff", "format", "--check", "."], ["mypy"]):
        code = subprocess.run([str(BIN / check[0]), *check[1:]]).returncode
        if code != 0:
            return code
    return subprocess.run([str(BIN / "pytest"), *parallel(argv[1:]), *argv[1:]]).returncode


def parallel(pytest_args: list[str]) -> list[str]:
    """pytest-xdist's options: two workers per core, unless the arguments choose (`-n 0` runs serially). Half of
    the suite's time is waiting (the bot, the local services and the demo as processes, on fast clocks), which a
    second worker on each core fills."""
    if any(arg.startswith(("-n", "--numprocesses", "--dist")) or arg == "no:xdist" for arg in pytest_args):
        return []
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return ["-n", str(2 * cores), "--dist", "worksteal"]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
