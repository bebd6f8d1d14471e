"""`swissbot repair`: the last round paired again from the command line, its games on the local Lichess cancelled;
the running bot's poll creates the new ones."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import pytest

from bot.assembly import OwnLichess, Services, build
from bot.cli import main
from bot.cli.exit_codes import ExitCode
from bot.cli.repair import outcome_lines, repair
from bot.config import Config, LichessConfig
from bot.errors import InvalidState
from bot.lichess.gateway import LichessGateway
from bot.settings import DirectorSettings
from bot.token_vault import TOKEN_KEY_ENV
from sandbox.lichess.server import run_sandbox
from storage.audit import audit_log
from storage.db import open_database
from tests.bot.director.director_world import CHANNEL, ORGANISER, World, make_world
from tests.support.announcer import RecordingAnnouncer
from tests.support.clock import ManualClock
from tests.support.lichess_sandbox import gateway_kwargs

CLUB_GUILD = 3000
CLUB_TOKEN = "lip_clubaccounttoken"


async def test_repair_re_pairs_the_last_round_after_a_late_withdrawal(tmp_path: Path) -> None:
    async with make_world(tmp_path / "swiss.sqlite3", autoplay=False, http=True) as w:  # the CLI speaks HTTP
        # A withdrawal while the round is held for review (outside a hold it decides the board by forfeit at once).
        event_id, actors = await w.event(players=5, rounds=2, pairing_review=10)
        await w.start(event_id)
        withdrawn = next(b.white for b in (await w.director.pairings(event_id)).boards)
        await w.director.withdraw(next(a for a in actors if a.discord_id == withdrawn.discord_id), event_id)
        config = Config(database=Path(w.db.path), lichess=LichessConfig(base_url=w.sandbox.url))
        outcome = await repair(config, w.sandbox.bot_token, None, accept=False)
        assert outcome.applied and outcome.problems == ()
        assert all(withdrawn.name not in board for board in outcome.boards) and len(outcome.boards) == 2
        assert outcome_lines(outcome)[-1] == "applied"
        w.clock.advance(10 * 60)
        await w.scheduler.run_due()  # the hold ends: the bot's poll job creates the games
        view = await w.director.pairings(event_id)
        assert all(b.game_id is not None and b.result is None for b in view.boards)
        await w.play(event_id, 1, "white")
        with pytest.raises(InvalidState, match="games in play"):
            await repair(config, w.sandbox.bot_token, event_id, accept=False)


async def test_repair_cancels_the_games_already_created_for_the_round(tmp_path: Path) -> None:
    async with make_world(tmp_path / "swiss.sqlite3", autoplay=False, http=True) as w:
        event_id, _ = await w.event(players=6, rounds=2)  # no hold: the games exist at once
        await w.start(event_id)
        first = await w.director.pairings(event_id)
        games = [b.game_id for b in first.boards if b.game_id]
        assert len(games) == 3 and all(g in w.sandbox.state.games for g in games)
        # The organisers forbid a pair after the fact (a withdrawal would forfeit its board at once, #24).
        pair = (first.boards[0].white.name, first.boards[0].black.name)
        await w.director.forbid(ORGANISER, event_id, *pair)
        config = Config(database=Path(w.db.path), lichess=LichessConfig(base_url=w.sandbox.url))
        outcome = await repair(config, w.sandbox.bot_token, event_id, accept=False)
        assert outcome.applied and outcome.held_until is None and len(outcome.boards) == 3
        assert pair not in outcome.boards and pair[::-1] not in outcome.boards
        assert all(g not in w.sandbox.state.games for g in games)  # cancelled on Lichess: nobody had joined
        assert all(b.game_id is None for b in (await w.director.pairings(event_id)).boards)
        (line,) = await audit_log(w.db, event_id=event_id, action="round.correct")
        assert line.actor.startswith("swissbot repair") and sorted(games) == sorted(
            json.loads(line.before or "")["games"]
        )
        await w.scheduler.run_due()  # the running bot's poll creates the new games
        view = await w.director.pairings(event_id)
        assert all(b.game_id is not None and b.game_id not in games for b in view.boards)
        assert {(b.white.name, b.black.name) for b in view.boards} == set(outcome.boards)


def test_repair_needs_the_lichess_token(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[bot]\ndatabase = "swiss.sqlite3"\n')
    monkeypatch.delenv("LICHESS_TOKEN", raising=False)
    assert main(["repair", "--config", str(config)]) == ExitCode.CONFIG


async def test_repair_cancels_a_clubs_games_with_the_clubs_own_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = ManualClock()
    database = tmp_path / "swiss.sqlite3"
    async with run_sandbox(seed=11, autoplay=False, clock=lambda: clock.now().timestamp()) as sandbox:
        sandbox.add_user("ClubBot", title="BOT", token=CLUB_TOKEN)  # the club's own Lichess account
        own = LichessGateway(sandbox.url, CLUB_TOKEN, **gateway_kwargs())
        gateway = LichessGateway(sandbox.url, sandbox.bot_token, **gateway_kwargs())
        announcer = RecordingAnnouncer()
        db = await open_database(database)
        services = Services(db, gateway, announcer, club_lichess={CLUB_GUILD: OwnLichess(own, CLUB_TOKEN)})
        app = await build(Config(database=database, director=DirectorSettings(poll_interval=20.0)), clock, services)
        w = World(sandbox, db, gateway, clock, announcer, app.director, app.scheduler)
        try:
            template, _ = await w.event()
            settings = replace((await w.director.event(template)).settings)
            event_id = (await w.director.create_event(ORGANISER, CLUB_GUILD, CHANNEL + 1, settings)).id
            await w.director.open_event(ORGANISER, event_id)
            for i in range(4):
                await w.director.join(await w.member(f"member{i}", rating=1900 - 10 * i), event_id)
            await w.start(event_id)
            first = await w.director.pairings(event_id)
            games = [b.game_id for b in first.boards if b.game_id]
            assert len(games) == 2 and {sandbox.state.games[g].creator for g in games} == {"clubbot"}
            await w.director.forbid(ORGANISER, event_id, first.boards[0].white.name, first.boards[0].black.name)
            config = tmp_path / "config.toml"
            config.write_text(
                f'[bot]\ndatabase = "{database}"\n[lichess]\nbase_url = "{sandbox.url}"\n'
                f'[[clubs]]\nguild_id = {CLUB_GUILD}\norganiser_role = "organisers"\nchannel_id = {CHANNEL + 1}\n'
                'lichess_token_env = "CLUB_LICHESS_TOKEN"\n'
            )
            monkeypatch.setenv("LICHESS_TOKEN", sandbox.bot_token)
            monkeypatch.setenv("CLUB_LICHESS_TOKEN", CLUB_TOKEN)
            monkeypatch.delenv(TOKEN_KEY_ENV, raising=False)
            # The command as an organiser types it, in its own process's thread (the local Lichess serves this loop).
            code = await asyncio.to_thread(main, ["repair", "--config", str(config), "--event", str(event_id)])
            assert code == ExitCode.OK
            assert all(g not in sandbox.state.games for g in games)  # cancelled by the club's account, its creator
            assert all(b.game_id is None for b in (await w.director.pairings(event_id)).boards)
        finally:
            await services.close()
