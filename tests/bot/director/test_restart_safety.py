"""Killed with SIGKILL at random moments and restarted on the same database, the demo finishes the same event
(identical pairings and results) as an uninterrupted run, and never creates a Lichess game twice, with bulk
pairing on (the demo's members link by OAuth; a bulk cut by a kill is found again by its players and clock start).

The sandbox (`swissbot sandbox --autoplay`) runs as its own process and outlives the killed bot, which is
`swissbot demo --lichess-url URL --db FILE` run as a subprocess.

The moments are drawn over the event's progress (games created plus results stored, as the uninterrupted run
counts them), then jittered in time, so that every kill lands before the event is over however fast or slow
the machine is: kills drawn in wall-clock time alone let a quick machine finish the event first.
"""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

SEED = 11
# The in-process demo tests' fast clock, twice the command's default: the event-time waits (a no-show's 4 minutes,
# the round interval) take half the wall time; the games (0.4 s each, autoplay) still end well inside their clocks.
SPEED = ["--speed", "120"]
DEMO_ARGS = ["--players", "16", "--rounds", "5", "--seed", str(SEED), *SPEED]
# The two-game matches and the team matches run the same kill test: a Double-Swiss event's second games and
# forfeits, a team event's line-ups and defaulted boards are restarted mid-way as well.
SYSTEM_ARGS = {
    "auto": DEMO_ARGS,
    "double": ["--players", "15", "--rounds", "4", "--seed", str(SEED), "--system", "double", *SPEED],
    "team": ["--players", "16", "--rounds", "3", "--seed", str(SEED), "--system", "team", "--boards", "2", *SPEED],
}
KILLS = 10


@contextmanager
def sandbox_process(seed: int) -> Iterator[str]:
    """`swissbot sandbox --autoplay --seed S --port 0` in its own process; yields its URL."""
    args = [sys.executable, "-m", "bot.cli", "sandbox", "--autoplay", "--seed", str(seed), "--port", "0"]
    args += ["--autoplay-delay", "0.4"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "listening on" in line, line
        yield line.rsplit(" ", 1)[-1].strip()
    finally:
        proc.terminate()
        proc.wait(10)


def demo(url: str, db: Path, out: Path, demo_args: list[str] = DEMO_ARGS) -> subprocess.Popen[bytes]:
    """Start the demo against the external sandbox."""
    args = [
        sys.executable,
        "-m",
        "bot.cli",
        "demo",
        *demo_args,
        "--db",
        str(db),
        "--out",
        str(out),
        "--lichess-url",
        url,
    ]
    return subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def sandbox_games(url: str) -> list[dict[str, object]]:
    """Every challenge and game the sandbox holds."""
    with urllib.request.urlopen(f"{url}/sandbox/games", timeout=10) as reply:
        games: list[dict[str, object]] = json.load(reply)
    return games


def rounds_paired(db: Path) -> int:
    """The last round paired in the database so far (0 before the start)."""
    if not db.exists():
        return 0
    with sqlite3.connect(db) as conn:
        try:
            row = conn.execute("SELECT COALESCE(MAX(number), 0) FROM rounds").fetchone()
        except sqlite3.OperationalError:  # killed before the schema was written
            return 0
    return int(row[0])


def progress(db: Path) -> int:
    """Games created on Lichess plus board results stored so far (0 while the database is not there yet)."""
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            row = conn.execute(
                "SELECT (SELECT COUNT(*) FROM games WHERE lichess_id IS NOT NULL)"
                " + (SELECT COUNT(*) FROM boards WHERE result IS NOT NULL)"
            ).fetchone()
    except sqlite3.OperationalError:  # killed before the schema was written
        return 0
    return int(row[0])


def kill_after(proc: subprocess.Popen[bytes], db: Path, target: int, jitter: float) -> bool:
    """SIGKILL the demo `jitter` seconds after its progress reaches `target`; False if it ended first."""
    deadline = time.monotonic() + 120
    while progress(db) < target:
        if proc.poll() is not None:
            return False
        assert time.monotonic() < deadline, f"no progress to {target} in 120 s"
        time.sleep(0.02)
    time.sleep(jitter)
    if proc.poll() is not None:
        return False
    proc.kill()  # SIGKILL
    proc.wait(10)
    return True


def trf_rounds(path: Path) -> list[str]:
    """The player lines of a TRF (pairings, colours and results of every round)."""
    return [line for line in path.read_text().splitlines() if line.startswith("001")]


@pytest.mark.slow
@pytest.mark.parametrize("system", ["auto", "double", "team"])
def test_killed_demo_finishes_the_same_event(tmp_path: Path, system: str) -> None:
    args = SYSTEM_ARGS[system]
    with sandbox_process(SEED) as url:
        ref_db = tmp_path / "ref.sqlite3"
        ref = demo(url, ref_db, tmp_path / "ref", args)
        _, err = ref.communicate(timeout=240)
        assert ref.returncode == 0, err.decode()[-2000:]
    reference = trf_rounds(tmp_path / "ref" / "tournament.trf")
    assert len(reference) == int(args[1])
    total = progress(ref_db)

    rng = random.Random(2026)
    targets = sorted(rng.sample(range(1, total), KILLS))
    with sandbox_process(SEED) as url:
        db, out = tmp_path / "killed.sqlite3", tmp_path / "killed"
        killed_in: list[int] = []
        for target in targets:
            proc = demo(url, db, out, args)
            if not kill_after(proc, db, target, rng.uniform(0.0, 0.4)):
                _, err = proc.communicate(timeout=10)
                pytest.fail(f"the demo ended before kill {len(killed_in) + 1}: {err.decode()[-2000:]}")
            killed_in.append(rounds_paired(db))
        proc = demo(url, db, out, args)
        _, err = proc.communicate(timeout=240)
        assert proc.returncode == 0, err.decode()[-2000:]
        games = sandbox_games(url)
    assert len(killed_in) == KILLS
    assert len({r for r in killed_in if r > 0}) >= 3, f"the kills did not spread over the rounds: {killed_in}"
    print("kills in rounds", killed_in)
    names = [g["name"] for g in games if g["source"] != "api"]
    assert len(names) == len(set(names)), "a Lichess game was created twice"
    # bulk pairing is on (the demo's members link by OAuth): no two bulk games share their players but a game and
    # its replacement (after an abort or an early draw, a bulk pairing too), and every bulk on Lichess is one the
    # database knows
    bulk_games = [g for g in games if g["source"] == "api"]
    assert bulk_games, "no round went out as a bulk pairing"
    with sqlite3.connect(db) as conn:
        known = {row[0] for row in conn.execute("SELECT lichess_id FROM bulks WHERE status = 'created'")}
        replaced = {row[0] for row in conn.execute("SELECT lichess_id FROM games WHERE status = 'replaced'")}
    pairs = [(str(g["white"]), str(g["black"])) for g in bulk_games if g["id"] not in replaced]  # Double-Swiss: both
    assert len(pairs) == len(set(pairs)), "a bulk game was created twice"
    assert {str(g["bulk"]) for g in bulk_games} == known
    assert trf_rounds(out / "tournament.trf") == reference
