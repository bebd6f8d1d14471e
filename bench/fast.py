"""Benchmark of the Fast Swiss engine: time and peak memory of pairing one round of 10,000 and 100,000 players.

Usage: .venv/bin/python bench/fast.py [--sizes 10000 100000] [--rounds 10 30] [--seed 1] [--runs 3]
                                      [--model-sizes 10000 100000] [--command-sizes 20000 100000] [--model-runs 1]
                                      [--rebuild] [--no-write] [--before DIR]
                                      [--reference /tmp/bbp-fast/bbpPairings.exe]
       .venv/bin/python bench/fast.py --check-reference BINARY [--events 20] [--max-players 300] [--seed 1]

Each event is simulated column-wise (`pairing.systems.fast.FastEvent`), every round paired by the Fast engine itself:
ratings drawn from a normal law, Elo-drawn results with draws, about 1 % of the boards forfeited (a fifth of
them double forfeits), about 1 % half-point byes and 0.5 % absences (zero-point byes) entered before each
round. The event with the most rounds is built once per size and cached in bench/.cache/ (pickled columns);
fewer rounds are its first columns. A measured call pairs the next round in a fresh interpreter, in two forms:
`pair_event` on the columns (the lean path) and `pair` on the `Tournament` model built from them (what the
director calls today; building the model is not timed, its memory shows in "RSS before"). Time: wall time of the
call (`time.perf_counter`), median of the runs; peak RSS: the process's peak resident memory during the call
(VmHWM, reset through /proc/self/clear_refs just before it), and the resident memory just before it. With
--reference (cyanfish's bbpPairings, default /tmp/bbp-fast/bbpPairings.exe when it exists), the same round of the same
event, written as TRF as the reference reads it, is also paired by `--fast` as a whole process (median of 3), and
its answer must be the one our engine gives on that file. Then the whole command (--command-sizes): `swissbot pair
--system fast FILE` as a process beside the reference's, on the same file, with wall and CPU time and peak RSS
from wait4 (`measure_commands`); once (--model-runs) the model path the command took before, and with --before DIR
(an earlier tree of the project, e.g. `git archive COMMIT | tar -x -C DIR`) that tree's command in the same
interleaved runs. The tables go to docs/benchmarks.md under '## Fast Swiss' (other sections are kept).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pickle
import platform
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from array import array
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]

from pairing import trf  # noqa: E402
from pairing.model import Colour, Outcome, Player, RecordKind, RoundRecord, Tournament  # noqa: E402
from pairing.systems import fast  # noqa: E402

DOC = ROOT / "docs" / "benchmarks.md"
CACHE = ROOT / "bench" / ".cache"
# The reference engine's whole-process time for `--fast -p` (corpus/fast/README.md), by (players, rounds).
REFERENCE = {(5000, 10): 0.15, (20000, 10): 0.68, (50000, 10): 1.29, (100000, 10): 2.36, (100000, 30): 4.69}
DEFAULT_REFERENCE = Path("/tmp/bbp-fast/bbpPairings.exe")  # a build of cyanfish's fork, which has --fast
DRAW_RATE = 0.3
FORFEIT_RATE = 0.01
HALF_BYE_RATE = 0.01
ABSENCE_RATE = 0.005


def simulate(seed: int, players: int, rounds: int, log: bool = True) -> fast.FastEvent:
    """A column-wise event of `rounds` rounds, each paired by the Fast engine."""
    rng = random.Random(seed)
    ratings = sorted((round(rng.gauss(1800, 350)) for _ in range(players)), reverse=True)
    event = fast.FastEvent(numbers=list(range(1, players + 1)), opponents=[], results=[], colours=[])
    for r in range(1, rounds + 1):
        start = time.perf_counter()
        results = bytearray(players)
        colours = bytearray(players)
        opponents = array("l", [-1]) * players
        for i in range(players):
            draw = rng.random()
            if draw < HALF_BYE_RATE:
                results[i] = fast.HALF_BYE
            elif draw < HALF_BYE_RATE + ABSENCE_RATE:
                results[i] = fast.ZERO_BYE
        event = replace(
            event,
            opponents=[*event.opponents, opponents],
            results=[*event.results, bytes(results)],
            colours=[*event.colours, bytes(colours)],
        )
        paired = fast.pair_event(event)
        if paired.bye is not None:
            results[paired.bye] = fast.PAB
        for white, black in paired.boards:
            _play(rng, ratings, white, black, results, colours, opponents)
        event.results[-1] = bytes(results)
        event.colours[-1] = bytes(colours)
        if log:
            print(f"  {players} players, round {r} paired and played in {time.perf_counter() - start:.1f} s")
    return event


def _play(
    rng: random.Random,
    ratings: list[int],
    white: int,
    black: int,
    results: bytearray,
    colours: bytearray,
    opponents: array[int],
) -> None:
    draw = rng.random()
    if draw < FORFEIT_RATE:
        if draw < FORFEIT_RATE / 5:
            results[white] = results[black] = fast.FORFEIT_LOSS
        else:
            won = rng.random() < 0.5
            results[white] = fast.FORFEIT_WIN if won else fast.FORFEIT_LOSS
            results[black] = fast.FORFEIT_LOSS if won else fast.FORFEIT_WIN
        return
    expected = 1 / (1 + math.pow(10, (ratings[black] - ratings[white] - 30) / 400))
    roll = rng.random()
    if roll < DRAW_RATE:
        results[white] = results[black] = fast.DRAW
    elif roll < DRAW_RATE + (1 - DRAW_RATE) * expected:
        results[white], results[black] = fast.WIN, fast.LOSS
    else:
        results[white], results[black] = fast.LOSS, fast.WIN
    colours[white], colours[black] = fast.WHITE, fast.BLACK
    opponents[white], opponents[black] = black, white


def truncated(event: fast.FastEvent, rounds: int) -> fast.FastEvent:
    """The event after its first `rounds` rounds."""
    return replace(
        event, opponents=event.opponents[:rounds], results=event.results[:rounds], colours=event.colours[:rounds]
    )


_RECORDS = {
    fast.FORFEIT_WIN: RecordKind.FORFEIT_WIN,
    fast.FORFEIT_LOSS: RecordKind.FORFEIT_LOSS,
    fast.PAB: RecordKind.PAB,
    fast.FULL_BYE: RecordKind.FULL_BYE,
    fast.HALF_BYE: RecordKind.HALF_BYE,
    fast.ZERO_BYE: RecordKind.ZERO_BYE,
    fast.NOT_PAIRED: RecordKind.NOT_PAIRED,
}
_OUTCOMES = {fast.WIN: Outcome.WIN, fast.DRAW: Outcome.DRAW, fast.LOSS: Outcome.LOSS}


def to_tournament(event: fast.FastEvent, rounds: int) -> Tournament:
    """The `Tournament` model of a simulated event (forfeits get no opponent: the simulation does not keep it)."""
    numbers = event.numbers
    players = []
    for i, number in enumerate(numbers):
        records = []
        for col, opp, colour in zip(event.results, event.opponents, event.colours, strict=True):
            code = col[i]
            if code in _OUTCOMES:
                side = Colour.WHITE if colour[i] == fast.WHITE else Colour.BLACK
                records.append(RoundRecord.played(numbers[opp[i]], side, _OUTCOMES[code]))
            elif code in (fast.FORFEIT_WIN, fast.FORFEIT_LOSS):
                records.append(RoundRecord(_RECORDS[code]))
            else:
                records.append(RoundRecord(_RECORDS[code]))
        players.append(Player(number, rating=0, rounds=tuple(records)))
    return Tournament(players=tuple(players), total_rounds=rounds + 1, initial_colour=Colour.WHITE)


def cache_path(seed: int, size: int, rounds: int) -> Path:
    """The pickled columns of the simulated event."""
    return CACHE / f"fast-seed{seed}-{size}p-{rounds}r.pickle"


def cached_event(seed: int, size: int, rounds: int, rebuild: bool) -> tuple[Path, float | None]:
    """The cached event's file, simulated first if missing; with the simulation's seconds when it ran now."""
    path = cache_path(seed, size, rounds)
    if path.exists() and not rebuild:
        return path, None
    print(f"building {path.name}")
    start = time.perf_counter()
    event = simulate(seed, size, rounds)
    seconds = time.perf_counter() - start
    CACHE.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        pickle.dump(event, handle, protocol=pickle.HIGHEST_PROTOCOL)
    return path, seconds


def _status_mib(name: str) -> float:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(name + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
    except OSError:
        return False
    return True


def child(path: str, rounds: int, form: str) -> None:
    """Load the event, pair round rounds+1 in the given form, print time and memory as JSON."""
    with open(path, "rb") as handle:
        event = truncated(pickle.load(handle), rounds)
    tournament = to_tournament(event, rounds) if form == "model" else None
    before = _status_mib("VmRSS")
    reset = _reset_peak()
    start = time.perf_counter()
    if tournament is not None:
        pairing = fast.pair(tournament)
        boards, bye = len(pairing.boards), pairing.bye
    else:
        result = fast.pair_event(event)
        boards, bye = len(result.boards), result.bye
    seconds = time.perf_counter() - start
    peak = _status_mib("VmHWM")
    placed = 2 * boards + (bye is not None)
    print(json.dumps({"seconds": seconds, "peak": peak, "before": before, "reset": reset, "placed": placed}))


def measure(path: Path, rounds: int, form: str, runs: int) -> dict[str, float]:
    """Medians over `runs` fresh-interpreter calls."""
    got = []
    for _ in range(runs):
        command = [sys.executable, __file__, "--child", str(path), str(rounds), form]
        stdout = subprocess.run(command, check=True, capture_output=True, text=True, cwd=ROOT).stdout
        got.append(json.loads(stdout.strip().splitlines()[-1]))
    seconds = [g["seconds"] for g in got]
    out = {key: statistics.median(g[key] for g in got) for key in ("seconds", "peak", "before")}
    return {**out, "min": min(seconds), "max": max(seconds), "runs": len(got), "placed": got[0]["placed"]}


def with_forfeit_opponents(tournament: Tournament) -> Tournament:
    """The tournament with an opponent for every forfeit, as TRF needs one (the simulation keeps none): in each
    round the forfeit winners meet the forfeit losers in number order, the losers left over meet each other."""
    for r in range(1, tournament.rounds_completed + 1):
        wins = [p.number for p in tournament.players if p.record(r).kind is RecordKind.FORFEIT_WIN]
        losses = [p.number for p in tournament.players if p.record(r).kind is RecordKind.FORFEIT_LOSS]
        pairs = list(zip(wins, losses, strict=False))
        rest = losses[len(wins) :]
        pairs += list(zip(rest[0::2], rest[1::2], strict=False))
        records = {}
        for a, b in pairs:
            records[a] = replace(tournament.player(a).record(r), opponent=b)
            records[b] = replace(tournament.player(b).record(r), opponent=a)
        for lone in rest[len(rest) - len(rest) % 2 :]:
            records[lone] = RoundRecord(RecordKind.ZERO_BYE)  # an odd double forfeit left alone: its 0 points
        tournament = tournament.with_round(r, records)
    return tournament


def measure_reference(binary: str, path: Path, rounds: int, runs: int = 3) -> float:
    """The reference's median wall time pairing round rounds+1 of the cached event as a whole process (the TRF
    written outside the clock, forfeits given opponents: `with_forfeit_opponents`); RuntimeError when its pairing
    is not the one our engine gives on that file."""
    with path.open("rb") as handle:
        event = truncated(pickle.load(handle), rounds)
    tournament = with_forfeit_opponents(to_tournament(event, rounds))
    ours = fast.pair(trf.parse(trf.dumps_bbp(tournament))).lines()
    times = []
    with tempfile.TemporaryDirectory(prefix="bench-fast-") as folder:
        given, answer = Path(folder) / "in.trf", Path(folder) / "out.txt"
        given.write_text(trf.dumps_bbp(tournament))
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run([binary, "--fast", str(given), "-p", str(answer)], check=True, capture_output=True)
            times.append(time.perf_counter() - start)
        theirs = [line.strip() for line in answer.read_text().splitlines() if line.strip()]
    if theirs != ours:
        raise RuntimeError(f"the reference pairs round {rounds + 1} of {path.name} differently from our engine")
    return statistics.median(times)


# What `swissbot pair --system fast FILE` ran before the compact reader: the model reader, then `fast.pair`.
_MODEL_COMMAND = (
    "import sys\n"
    "from bot.cli.trf_files import read_trf\n"
    "from pairing.systems import fast\n"
    "sys.stdout.write('\\n'.join(fast.pair(read_trf(sys.argv[1], require_rounds=True)).lines()) + '\\n')\n"
)


# Spawns the measured process from a small interpreter and reports its wall and CPU time and peak RSS on standard
# error: a child's peak RSS counts its parent's at the fork, so it must not be spawned from the benchmark (1 GiB).
_LAUNCHER = (
    "import json, os, sys, time\n"
    "start = time.perf_counter()\n"
    "pid = os.posix_spawnp(sys.argv[1], sys.argv[1:], os.environ)\n"
    "_, status, usage = os.wait4(pid, 0)\n"
    "wall = time.perf_counter() - start\n"
    "got = {'status': os.waitstatus_to_exitcode(status), 'seconds': wall, 'cpu': usage.ru_utime + usage.ru_stime,"
    " 'peak': usage.ru_maxrss / 1024}\n"
    "print(json.dumps(got), file=sys.stderr)\n"
)


def run_process(command: list[str], cwd: Path = ROOT) -> tuple[dict[str, float], str]:
    """One whole process: wall, CPU (user + system) seconds and peak RSS (MiB) from wait4, and its standard output."""
    done = subprocess.run([sys.executable, "-c", _LAUNCHER, *command], capture_output=True, text=True, cwd=cwd)
    got = json.loads(done.stderr.strip().splitlines()[-1])
    if got["status"] != 0:
        raise RuntimeError(f"{command[0]} exited with {got['status']}")
    return {key: float(got[key]) for key in ("seconds", "cpu", "peak")}, done.stdout


def measure_commands(
    binary: str | None, path: Path, rounds: int, runs: int, model_runs: int, before: Path | None = None
) -> dict[str, dict[str, float]]:
    """`swissbot pair --system fast FILE` (and, `model_runs` times, the model path it took before; with `before`, a
    tree of the project before a change, its own command) beside the reference's `--fast FILE -p OUT`, each a whole
    process on the same TRF file (written outside the clock), runs interleaved; medians, the load average over the
    runs; RuntimeError when the answers differ."""
    with path.open("rb") as handle:
        event = truncated(pickle.load(handle), rounds)
    text = trf.dumps_bbp(with_forfeit_opponents(to_tournament(event, rounds)))
    del event
    got: dict[str, list[dict[str, float]]] = {"command": [], "model": [], "before": [], "reference": []}
    with tempfile.TemporaryDirectory(prefix="bench-fast-") as folder:
        given, answer = Path(folder) / "in.trf", Path(folder) / "out.txt"
        given.write_text(text)
        swissbot = str(Path(sys.executable).with_name("swissbot"))
        load = os.getloadavg()[0]
        answers = set()
        for run in range(runs):
            numbers, out = run_process([swissbot, "pair", "--system", "fast", str(given)])
            got["command"].append(numbers)
            answers.add(out)
            if run < model_runs:
                numbers, out = run_process([sys.executable, "-c", _MODEL_COMMAND, str(given)])
                got["model"].append(numbers)
                answers.add(out)
            if before is not None:
                # `-m` from the tree's folder: its modules come first on the path, before the installed project.
                command = [sys.executable, "-m", "bot.cli", "pair", "--system", "fast", str(given)]
                numbers, out = run_process(command, cwd=before)
                got["before"].append(numbers)
                answers.add(out)
            if binary:
                numbers, _ = run_process([binary, "--fast", str(given), "-p", str(answer)])
                got["reference"].append(numbers)
                answers.add("\n".join(line.strip() for line in answer.read_text().splitlines() if line.strip()) + "\n")
        load = (load + os.getloadavg()[0]) / 2
    if len(answers) != 1:
        raise RuntimeError(f"the processes pair round {rounds + 1} of {path.name} differently")
    medians = {
        name: {key: statistics.median(r[key] for r in runs_got) for key in ("seconds", "cpu", "peak")}
        for name, runs_got in got.items()
        if runs_got
    }
    return {**medians, "load": {"average": load, "megabytes": len(text.encode()) / 2**20}}


def command_section(rows: list[tuple[int, int, dict[str, dict[str, float]]]]) -> list[str]:
    """The whole-command table of the '## Fast Swiss' section."""
    lines = [
        "",
        "### The whole command",
        "",
        "`swissbot pair --system fast FILE` as a whole process (interpreter start-up with numpy, reading the TRF "
        "file's bytes straight into the columns with `pairing.systems.fast_trf`, pairing, writing the answer) beside "
        "the reference's `--fast FILE -p OUT`, on the same file (the round above written by `pairing.trf.dumps_bbp`, "
        "outside the clock), runs interleaved, medians; *model path*: what the command ran before the compact "
        "reader, `trf.parse` into the `Tournament` model then `fast.pair`; *before*: the command of an earlier tree "
        "of the project (`--before DIR`, e.g. `git archive COMMIT | tar -x -C DIR`; `python -m bot.cli` run in "
        "DIR), in the same interleaved runs. Wall and CPU (user + system) seconds and peak RSS from `wait4` of each "
        "process; the answers are checked to be the same. The machine is shared: the load average (1 min) during "
        "the runs is given, and CPU time is the fairer comparison when it is high. The reference binary is built here "
        "from cyanfish/bbpPairings with its Makefile's g++ -O3 as `make max_rounds=100 dutch=no "
        "engine_comparison=no` (g++ 12 rejects the default build, whose unbounded round count makes Burstein's "
        "scores multi-word integers; bounding the rounds makes them machine words, so this build is faster than a "
        "default one).",
        "",
        "| players | rounds played | TRF (MiB) | load | command wall / CPU (s) | reference wall / CPU (s) | CPU ratio "
        "| command peak RSS (MiB) | reference peak RSS (MiB) | RSS ratio | model path CPU (s) / RSS (MiB) "
        "| before CPU (s) / RSS (MiB) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for size, rounds, got in rows:
        ours, ref, model, before = got["command"], got.get("reference"), got.get("model"), got.get("before")
        ref_cells = ["", "", "", ""]
        if ref:
            ref_cells = [
                f"{ref['seconds']:.2f} / {ref['cpu']:.2f}",
                f"**{ours['cpu'] / ref['cpu']:.2f}**",
                f"{ref['peak']:.0f}",
                f"**{ours['peak'] / ref['peak']:.2f}**",
            ]
        model_cell = f"{model['cpu']:.2f} / {model['peak']:.0f}" if model else ""
        before_cell = f"{before['cpu']:.2f} / {before['peak']:.0f}" if before else ""
        lines.append(
            f"| {size:,} | {rounds} | {got['load']['megabytes']:.0f} | {got['load']['average']:.1f} "
            f"| {ours['seconds']:.2f} / **{ours['cpu']:.2f}** | {ref_cells[0]} | {ref_cells[1]} | {ours['peak']:.0f} "
            f"| {ref_cells[2]} | {ref_cells[3]} | {model_cell} | {before_cell} |"
        )
    verdicts = [
        f"{size:,} x {rounds}: CPU {got['command']['cpu'] / got['reference']['cpu']:.2f}x, "
        f"peak RSS {got['command']['peak'] / got['reference']['peak']:.2f}x"
        + (
            " (met)"
            if got["command"]["cpu"] <= got["reference"]["cpu"] and got["command"]["peak"] <= got["reference"]["peak"]
            else ""
        )
        for size, rounds, got in rows
        if "reference" in got
    ]
    if verdicts:
        met = all(
            got["command"]["cpu"] <= got["reference"]["cpu"] and got["command"]["peak"] <= got["reference"]["peak"]
            for _, _, got in rows
            if "reference" in got
        )
        lines += [
            "",
            f"Target (issue #29: the whole command at most the reference's time and memory): "
            f"{'met' if met else '**not met**'} ({'; '.join(verdicts)}).",
        ]
    for name, what in (("model", "the model path"), ("before", "the earlier tree's command")):
        compared = [
            f"{size:,} x {rounds}: CPU {got[name]['cpu']:.2f} s then, {got['command']['cpu']:.2f} s now "
            f"({got[name]['cpu'] / got['command']['cpu']:.1f}x less), peak RSS {got[name]['peak']:.0f} MiB then, "
            f"{got['command']['peak']:.0f} MiB now"
            for size, rounds, got in rows
            if name in got
        ]
        if compared:
            lines += ["", f"Against {what}: " + "; ".join(compared) + "."]
    return lines


def event_mib(path: Path, rounds: int) -> float:
    """The size of the event's columns (arrays and bytes) after `rounds` rounds."""
    with path.open("rb") as handle:
        event = truncated(pickle.load(handle), rounds)
    total = sum(sys.getsizeof(col) for cols in (event.opponents, event.results, event.colours) for col in cols)
    return total / 2**20


def load_seconds(path: Path) -> float:
    """Wall time of loading the cached columns (pickle)."""
    start = time.perf_counter()
    with path.open("rb") as handle:
        pickle.load(handle)
    return time.perf_counter() - start


def check_reference(binary: str, seed: int, events: int, min_players: int, max_players: int) -> int:
    """Pair every round of generated events with the engine and with the reference binary; count differences.

    The binary is cyanfish's bbpPairings built locally (`--fast`); each round's state is written in the form it
    reads (`trf.dumps_bbp`, XXW for wide ids) and its `-p` output compared line for line with `pair(...).lines()`.
    """
    import tempfile
    from fractions import Fraction

    from pairing import generator, trf
    from pairing.errors import NoValidPairing
    from pairing.model import Pairing, Scoring

    def ours(state: Tournament) -> list[str]:
        try:
            return fast.pair(state).lines()
        except NoValidPairing:
            return ["no valid pairing"]

    checked = differing = 0
    with tempfile.TemporaryDirectory() as tmp:
        source, out = Path(tmp) / "round.trf", Path(tmp) / "round.out"
        for event in range(seed, seed + events):
            rng = random.Random(event)
            players, rounds = rng.randint(min_players, max_players), rng.randint(3, 14)
            irregular = rng.random() < 0.5
            scoring = Scoring(win=Fraction(3), draw=Fraction(1)) if rng.random() < 0.15 else Scoring()
            rate = 1.0 if irregular else 0.0
            states: list[Tournament] = []

            def pair(state: Tournament, seen: list[Tournament] = states) -> Pairing:
                seen.append(state)
                return fast.pair(state)

            generator.generate(
                event,
                players,
                rounds,
                pair=pair,
                scoring=scoring,
                forfeit_rate=0.08 * rate,
                half_bye_rate=0.05 * rate,
                absence_rate=0.03 * rate,
                withdraw_rate=0.03 * rate,
                late_entry_rate=0.05 * rate,
            )
            for state in states:
                source.write_text(trf.dumps_bbp(state))
                run = subprocess.run([binary, "--fast", str(source), "-p", str(out)], capture_output=True, text=True)
                theirs = [line.strip() for line in out.read_text().splitlines()] if run.returncode == 0 else []
                mine = ours(state)
                same = theirs == mine if run.returncode == 0 else (run.returncode == 1 and mine == ["no valid pairing"])
                checked += 1
                if not same:
                    differing += 1
                    print(f"event {event} ({players} players), round {state.round_to_pair}: {mine[:3]} / {theirs[:3]}")
    print(f"rounds checked {checked}, differing {differing}")
    return 1 if differing else 0


def section(
    rows: list[tuple[int, int, str, dict[str, float], float]],
    builds: dict[int, float | None],
    loads: dict[int, float] | None = None,
    measured: dict[tuple[int, int], float] | None = None,
    commands: list[tuple[int, int, dict[str, dict[str, float]]]] | None = None,
) -> str:
    """The '## Fast Swiss' section of docs/benchmarks.md."""
    machine = (
        f"{platform.platform()}, {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()} "
        f"({platform.python_implementation()})"
    )
    built = ", ".join(
        f"{seconds:.0f} s for {size:,} players" if seconds is not None else f"an earlier run for {size:,} players"
        for size, seconds in builds.items()
    )
    lines = [
        "## Fast Swiss",
        "",
        "Fast Swiss engine (`pairing.systems.fast`), one round of a simulated event (`bench/fast.py`, seed 1). The "
        "event is simulated column-wise (`FastEvent`), every round paired by the engine itself: normally drawn "
        "ratings, Elo-drawn results with 30 % draws, 1 % of the boards forfeited (a fifth of them double), 1 % "
        "half-point byes and 0.5 % absences entered before each round. Fewer rounds are the first columns of the same"
        " event; the measured round is the next one. Two forms of the same call, each in a fresh interpreter: "
        "`pair_event` on the columns, and `pair` on the `Tournament` model built from them (the model is built before"
        " the clock starts; its weight shows in *RSS before*). Time: wall time of the call (`time.perf_counter`), "
        "median of the runs with the fastest and slowest; peak RSS: the process's peak resident memory during the "
        "call (VmHWM, reset through /proc/self/clear_refs just before it; interpreter and event included), and the "
        "resident memory just before it. *Columns*: the size of the event's arrays.",
        "",
        f"Simulating the events (not counted): {built}.",
        "",
        f"Machine: {machine}; 2 cores shared with other work, so single times move by some tens of percent.",
        "",
        "Reference: cyanfish's bbpPairings `--fast -p` (C++), whole process (reading the TRF included), median of 3. "
        "*Reference here*: measured on this machine on the same round of the same event, written as TRF as it "
        "reads it (`pairing.trf.dumps_bbp`, outside the clock; the simulation keeps no opponent for a forfeit, so "
        "the file gives each forfeit winner a forfeit loser of the round), its answer checked to be the one our "
        "engine gives on that file. *Corpus README*: the figures of `corpus/fast/README.md` for its own files of "
        "those sizes: " + ", ".join(f"{p:,} players after {r} rounds {s} s" for (p, r), s in REFERENCE.items()) + ".",
        "",
        "| players | rounds played | form | placed | time (s) | reference here (s) | corpus README (s) "
        "| peak RSS (MiB) | RSS before (MiB) | columns (MiB) |",
        "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    here = measured or {}
    for size, rounds, form, got, columns in rows:
        ref = REFERENCE.get((size, rounds))
        mine = here.get((size, rounds))
        lines.append(
            f"| {size:,} | {rounds} | {'`pair_event`' if form == 'event' else '`pair` (model)'} | {got['placed']:.0f} "
            f"| **{got['seconds']:.2f}** ({got['min']:.2f} to {got['max']:.2f}) | "
            f"{'' if mine is None else f'{mine:.2f}'} | {'' if ref is None else ref} "
            f"| {got['peak']:.0f} | {got['before']:.0f} | {columns:.1f} |"
        )
    against = dict(REFERENCE) | here
    compared = [
        f"{size:,} players after {rounds} rounds {got['seconds']:.2f} s against {against[(size, rounds)]:.2f} s"
        + (" (measured here)" if (size, rounds) in here else " (corpus README)")
        for size, rounds, form, got, _ in rows
        if form == "event" and (size, rounds) in against
    ]
    if compared:
        lines += [
            "",
            "In short, `pair_event` against the reference engine: "
            + "; ".join(compared)
            + ". Not quite like for like: the reference's time is its whole process, reading the TRF file "
            "included, ours the call alone, the event already in memory ("
            + "; ".join(
                f"loading the {size:,}-player columns from pickle: {s:.2f} s" for size, s in (loads or {}).items()
            )
            + "); the model rows below include building the columns from a `Tournament`.",
        ]
    model = [(size, rounds, got) for size, rounds, form, got, _ in rows if form == "model"]
    if model:
        lines += [
            "",
            "The `Tournament` model is the heavy part at this size: "
            + "; ".join(
                f"{size:,} x {rounds}: {got['before']:.0f} MiB resident before pairing, {got['seconds']:.2f} s "
                "to pair (building the columns from the model included)"
                for size, rounds, got in model
            )
            + ". The columns of the same events take the MiB of the last column of the table; the engine's own "
            "working memory (peak RSS less RSS before) grows with players x rounds.",
        ]
    if commands:
        lines += command_section(commands)
    return "\n".join(lines) + "\n"


def write_section(text: str) -> None:
    """Replace (or append) the '## Fast Swiss' section of docs/benchmarks.md."""
    doc = DOC.read_text() if DOC.exists() else "# Benchmarks\n"
    pattern = re.compile(r"^## Fast Swiss\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(doc):
        doc = pattern.sub(lambda _: text + "\n", doc).rstrip() + "\n"
    else:
        doc = doc.rstrip() + "\n\n" + text
    DOC.write_text(doc)


def main(argv: list[str] | None = None) -> int:
    """Build or load the events, measure, print the section and write it to docs/benchmarks.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--sizes", type=int, nargs="*", default=[10000, 100000])
    parser.add_argument("--rounds", type=int, nargs="+", default=[10, 30])
    parser.add_argument("--model-sizes", type=int, nargs="*", default=[10000, 100000])
    parser.add_argument("--command-sizes", type=int, nargs="*", default=[20000, 100000])
    parser.add_argument("--model-runs", type=int, default=1, help="runs of the model path in the command table")
    parser.add_argument(
        "--before", type=Path, help="a tree of the project before a change: its command is timed too, interleaved"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--from-log", help="render the section from the measurement lines of an earlier run's output")
    parser.add_argument("--check-reference", metavar="BINARY", help="compare with cyanfish's bbpPairings instead")
    parser.add_argument(
        "--reference",
        default=str(DEFAULT_REFERENCE) if DEFAULT_REFERENCE.exists() else None,
        help="cyanfish's bbpPairings, timed on the same rounds (default /tmp/bbp-fast/bbpPairings.exe when it exists)",
    )
    parser.add_argument("--events", type=int, default=20)
    parser.add_argument("--min-players", type=int, default=6)
    parser.add_argument("--max-players", type=int, default=300)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child[0], int(args.child[1]), args.child[2])
        return 0
    if args.check_reference:
        return check_reference(args.check_reference, args.seed, args.events, args.min_players, args.max_players)
    rows = []
    commands: list[tuple[int, int, dict[str, dict[str, float]]]] = []
    measured: dict[tuple[int, int], float] = {}
    builds: dict[int, float | None] = {}
    if args.from_log:
        for line in Path(args.from_log).read_text().splitlines():
            reference = re.fullmatch(r"(\d+) players, (\d+) rounds, reference: ([\d.]+) s", line)
            if reference:
                measured[(int(reference[1]), int(reference[2]))] = float(reference[3])
                continue
            command = re.fullmatch(r"(\d+) players, (\d+) rounds, whole command: (\{.*\})", line)
            if command:
                commands.append((int(command[1]), int(command[2]), json.loads(command[3].replace("'", '"'))))
                continue
            found = re.fullmatch(r"(\d+) players, (\d+) rounds, (\w+): (\{.*\})", line)
            if found:
                size, rounds, form = int(found[1]), int(found[2]), found[3]
                builds[size] = None
                got = json.loads(found[4].replace("'", '"'))
                rows.append((size, rounds, form, got, event_mib(cache_path(args.seed, size, 30), rounds)))
        args.sizes = args.command_sizes = []  # the log's measurements only
    for size in args.sizes:
        path, builds[size] = cached_event(args.seed, size, max(args.rounds), args.rebuild)
        for rounds in args.rounds:
            columns = event_mib(path, rounds)
            if args.reference:
                measured[(size, rounds)] = measure_reference(args.reference, path, rounds)
                print(f"{size} players, {rounds} rounds, reference: {measured[(size, rounds)]:.2f} s", flush=True)
            forms = ["event", "model"] if size in args.model_sizes else ["event"]
            for form in forms:
                got = measure(path, rounds, form, args.runs)
                print(f"{size} players, {rounds} rounds, {form}: {got}")
                rows.append((size, rounds, form, got, columns))
    for size in args.command_sizes:
        path, builds[size] = cached_event(args.seed, size, max(args.rounds), args.rebuild)
        for rounds in args.rounds:
            got_command = measure_commands(args.reference, path, rounds, args.runs, args.model_runs, args.before)
            print(f"{size} players, {rounds} rounds, whole command: {got_command}", flush=True)
            commands.append((size, rounds, got_command))
    loads = {
        size: load_seconds(cache_path(args.seed, size, 30 if args.from_log else max(args.rounds))) for size in builds
    }
    text = section(rows, builds, loads, measured, commands)
    print(text)
    if not args.no_write:
        write_section(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
