"""The demo links its members by OAuth through the bot's web endpoint, pairs by bulk, and reads the stream."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import pytest

from bot.demo.runner import DemoOptions, members, run_demo


@pytest.mark.slow
async def test_demo_rounds_go_out_as_bulk_pairings_and_no_token_is_stored_in_clear(tmp_path: Path) -> None:
    db = tmp_path / "demo.sqlite3"
    opts = DemoOptions(players=8, rounds=3, seed=5, db=db, out=tmp_path / "out", speed=120.0)
    out = io.StringIO()
    assert await run_demo(opts, out) == 0
    text = out.getvalue()
    assert "on Lichess's OAuth page" in text
    assert "game ends came through Lichess's game stream" in text
    bio_member = members(opts.players, opts.seed)[1].username.lower()
    with sqlite3.connect(db) as conn:
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
    assert tokens == (len(members(opts.players, opts.seed)) - 1,)
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("demo.sqlite3*") if not p.name.endswith((".key", ".clock")))
    assert b"lio_" not in raw
