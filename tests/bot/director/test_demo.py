"""`swissbot demo`: a whole event run by the real bot against the local Discord and Lichess, with simulated members
typing their commands, deterministic for a seed, resumable, with its files; its members link by OAuth through the
bot's web endpoint, its rounds go out as bulk pairings and game ends come through the stream.

Several tests read one run of the demo (`demo_run`: made once per session, also across pytest-xdist workers, in
`tests.support.once`); a test that changes its database works on a copy."""

from __future__ import annotations

import asyncio
import contextlib
import io
import re
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from bot.cli import main
from bot.cli.exit_codes import ExitCode
from bot.demo.club import ORGANISER_ID
from bot.demo.runner import DemoMembers, DemoOptions, members, run_demo
from bot.errors import SwissbotError
from pairing import trf
from tests.support.once import copy_of, once

OPTS = DemoOptions(players=8, rounds=3, seed=5, speed=120.0)


async def demo(tmp_path: Path, name: str, db: Path | None = None) -> tuple[str, Path]:
    out = io.StringIO()
    opts = replace(OPTS, db=db, out=tmp_path / name)
    assert await run_demo(opts, out) == 0
    return out.getvalue(), tmp_path / name


@dataclass(frozen=True)
class DemoRun:
    """A finished run of the demo with `OPTS` on a database of its own: the channel as members read it, its
    output files, the folder of its database (`demo.sqlite3` and the key and clock files beside it)."""

    text: str
    out: Path
    db_folder: Path

    def database_copy(self, into: Path) -> Path:
        """The run's database, copied with its key and clock (for a test that opens or resumes it)."""
        return copy_of(self.db_folder, into) / "demo.sqlite3"


def _make_demo_run(folder: Path) -> None:
    (folder / "db").mkdir()
    opts = replace(OPTS, db=folder / "db" / "demo.sqlite3", out=folder / "out")
    out = io.StringIO()
    with ThreadPoolExecutor(1) as thread:  # a loop of its own: the fixture is not inside the test's loop
        code = thread.submit(asyncio.run, run_demo(opts, out)).result()
    (folder / "channel.txt").write_text(out.getvalue())
    assert code == 0, out.getvalue()[-2000:]


@pytest.fixture
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    folder = once(tmp_path_factory, "demo-8-players-3-rounds", _make_demo_run)
    return DemoRun((folder / "channel.txt").read_text(), folder / "out", folder / "db")


@pytest.mark.slow
async def test_demo_runs_a_whole_event_and_writes_its_files(tmp_path: Path, demo_run: DemoRun) -> None:
    text, out = demo_run.text, demo_run.out
    # The channel, as the local Discord holds it: the organiser's commands, then the bot's posts in order.
    assert "demo-organiser: /swiss create → Created swissbot demo (draft)" in text.replace("**", "")
    assert text.index("== swissbot demo — open for entries ==") < text.index("/swiss start → ")
    assert re.search(r"== swissbot demo — round 1 \(0/3 results\) ==\n {2}1 \w+ \(\d+\) … \w+ \(\d+\) · http://", text)
    assert "== swissbot demo — round 1 (complete) == (edited)" in text  # the round's message, edited with results
    assert "final" not in text.split("== swissbot demo — round 1 (")[0]
    assert "joins late" in text and "withdraws before round 3" in text and "half-point bye in round 2" in text
    assert "swissbot demo is over: all 3 rounds played" in text and "[file: crosstable.png]" in text
    tournament = trf.parse((out / "tournament.trf").read_text())
    assert len(tournament.players) == 8 and tournament.rounds_completed == 3
    assert tournament.name == "swissbot demo"  # storage.export's TRF, with its header
    pgn = (out / "games.pgn").read_text()
    assert pgn.count("[Event ") >= 8 and pgn.count('[Site "http://127.0.0.1:') == pgn.count("[Site ")
    assert "standings after round 3" in (out / "standings.txt").read_text()
    assert (out / "standings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    _, out2 = await demo(tmp_path, "second")  # another run, on a fresh (temporary) database: the same event
    assert _undated(out2 / "tournament.trf") == _undated(out / "tournament.trf")


def _undated(path: Path) -> list[str]:
    """A TRF file's lines but its start and end dates (two runs on fresh databases may straddle midnight)."""
    return [line for line in path.read_text().splitlines() if not line.startswith(("042 ", "052 "))]


@pytest.mark.slow
async def test_demo_resumes_with_the_same_database(tmp_path: Path, demo_run: DemoRun) -> None:
    db = demo_run.database_copy(tmp_path / "db")
    text, out2 = await demo(tmp_path, "resumed", db)
    assert "resuming event #1" in text and "round 1 (" not in text and "/swiss create" not in text
    assert (out2 / "tournament.trf").read_text() == (demo_run.out / "tournament.trf").read_text()


@pytest.mark.slow
async def test_demo_rounds_go_out_as_bulk_pairings_and_no_token_is_stored_in_clear(
    tmp_path: Path, demo_run: DemoRun
) -> None:
    """The demo links its members by OAuth through the bot's web endpoint, pairs by bulk, and reads the stream."""
    text = demo_run.text
    assert "on Lichess's OAuth page" in text
    assert "game ends came through Lichess's game stream" in text
    bio_member = members(OPTS.players, OPTS.seed)[1].username.lower()
    db = demo_run.database_copy(tmp_path / "db")
    raw = b"".join(p.read_bytes() for p in db.parent.glob("demo.sqlite3*") if not p.name.endswith((".key", ".clock")))
    with contextlib.closing(sqlite3.connect(db)) as conn:
        bulks = conn.execute("SELECT round, status FROM bulks WHERE status = 'created' ORDER BY round").fetchall()
        assert [r for r, _ in bulks] == [1, 2, 3]  # one bulk a round
        rows = conn.execute(
            "SELECT p.lichess_id, q.lichess_id, bg.game_id IS NOT NULL FROM games g"
            " JOIN boards b ON b.id = g.board_id"
            " JOIN players p ON p.id = b.white_id JOIN players q ON q.id = b.black_id"
            " LEFT JOIN bulk_games bg ON bg.game_id = g.id WHERE g.lichess_id IS NOT NULL"
        ).fetchall()
        tokens = conn.execute("SELECT count(*) FROM player_tokens").fetchone()
    for white, black, in_bulk in rows:
        if bio_member in (white, black):
            assert not in_bulk  # the bio-linked member's boards are open challenges
    assert any(in_bulk for *_, in_bulk in rows)
    assert tokens == (len(members(OPTS.players, OPTS.seed)) - 1,)
    assert b"lio_" not in raw


@pytest.mark.slow
async def test_demo_refuses_to_resume_an_unfinished_event_on_a_new_local_lichess(tmp_path: Path) -> None:
    db = tmp_path / "demo.sqlite3"
    opts = replace(OPTS, db=db, out=tmp_path / "out")
    run = asyncio.create_task(run_demo(opts, io.StringIO()))
    for _ in range(600):  # stop the first run once round 1's games are on its in-process Lichess
        await asyncio.sleep(0.1)
        if db.exists() and _games_created(db) > 0:
            break
    run.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await run
    before = _games_created(db)
    assert before > 0

    with pytest.raises(SwissbotError, match=r"not finished.*--lichess-url"):
        await run_demo(opts, io.StringIO())
    assert _games_created(db) == before  # nothing was forfeited or replayed
    assert not (tmp_path / "out").exists()


def _games_created(db: Path) -> int:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        try:
            return int(conn.execute("SELECT COUNT(*) FROM games WHERE lichess_id IS NOT NULL").fetchone()[0])
        except sqlite3.OperationalError:  # not migrated yet
            return 0


@pytest.mark.slow
async def test_demo_exits_1_with_the_reason_when_the_event_did_not_finish(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    scripted = DemoMembers.before_pairing

    async def organiser_cancels_before_round_2(members: DemoMembers, event_id: int, round_number: int) -> None:
        await scripted(members, event_id, round_number)
        if round_number == 2:  # typed beside the pairing job, as an organiser does in the channel
            asyncio.get_running_loop().create_task(members.club.command(ORGANISER_ID, "swiss cancel"))

    monkeypatch.setattr(DemoMembers, "before_pairing", organiser_cancels_before_round_2)
    out = tmp_path / "out"
    code = await asyncio.to_thread(
        main, ["demo", "--players", "6", "--rounds", "3", "--seed", "5", "--speed", "120", "--out", str(out)]
    )
    assert code == ExitCode.FAILED
    err = capsys.readouterr().err
    assert "swissbot demo: the event was cancelled before its last round; no files written" in err
    assert not out.exists()
