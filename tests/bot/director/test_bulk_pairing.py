"""Bulk pairing through the real director, gateway and SQLite against the local Lichess on the test's clock."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import aiohttp
import pytest

from bot.assembly import Services, build
from bot.cli.exit_codes import ExitCode
from bot.cli.repair import run as run_repair
from bot.config import Config, WebConfig
from bot.director.models import Actor
from bot.director.streaming import StreamFeeder
from bot.errors import InvalidState
from bot.lichess.gateway import LichessGateway
from bot.lichess.payloads import TokenInfo
from bot.lichess.stream import GameStream
from bot.rendering.text import round_messages
from bot.settings import DirectorSettings
from bot.token_vault import TOKEN_KEY_ENV, TokenVault
from domain.corrections import CorrectionKind
from domain.entry import EntryStatus
from domain.result import Result
from sandbox.lichess.server import run_sandbox
from storage import bulks as storage_bulks
from storage.audit import audit_log
from storage.db import open_database
from tests.bot.director.director_world import ORGANISER, World
from tests.support.announcer import RecordingAnnouncer
from tests.support.clock import ManualClock


@pytest.fixture
async def bulk_world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[World]:
    """A world whose local Lichess runs on the test's clock, with OAuth and bulk pairing on; autoplay off. The vault's
    key is in the environment, as the bot's is (`swissbot repair` opens it there)."""
    key = TokenVault.new_key()
    monkeypatch.setenv(TOKEN_KEY_ENV, key)
    clock = ManualClock()
    async with run_sandbox(seed=5, autoplay=False, clock=lambda: clock.now().timestamp()) as sandbox:
        db = await open_database(tmp_path / "swiss.sqlite3")
        gateway = LichessGateway(
            sandbox.url, sandbox.bot_token, rate_limit_pause=0.05, retry_backoff=0.01, timeout=5.0,
            wall_clock=lambda: clock.now().timestamp(),
        )  # fmt: skip
        announcer = RecordingAnnouncer()
        config = Config(
            database=tmp_path / "swiss.sqlite3",
            director=DirectorSettings(poll_interval=20.0, reminder_before=60.0),
            web=WebConfig(public_url="http://bot.test"),
        )
        services = Services(db, gateway, announcer, TokenVault(key), sandbox.bot_token)
        app = await build(config, clock, services, scheduled=False)
        assert app.director.ctx.bulk_pairing
        try:
            yield World(sandbox, db, gateway, clock, announcer, app.director, app.scheduler)
        finally:
            await gateway.close()
            await db.close()


async def oauth_member(world: World, name: str, rating: int, discord_id: int) -> Actor:
    """A member who links through Lichess's OAuth page (the test plays the browser)."""
    actor = Actor(discord_id, name)
    world.sandbox.add_user(name, rating=rating)
    start = await world.director.start_oauth_link(actor)
    pending = await world.director.pending_link(parse_qs(urlsplit(start).query)["state"][0])
    assert pending is not None and pending.discord_id == discord_id
    url = pending.lichess_url
    async with aiohttp.ClientSession() as http, http.get(f"{url}&sandbox_user={name}", allow_redirects=False) as r:
        query = parse_qs(urlsplit(r.headers["Location"]).query)
    outcome = await world.director.finish_oauth_link(query["state"][0], query["code"][0], None)
    assert outcome.linked, outcome.sentence
    return actor


async def requests_to(world: World, method: str, path: str) -> int:
    async with aiohttp.ClientSession() as http, http.get(f"{world.sandbox.url}/sandbox/requests") as reply:
        seen: list[dict[str, Any]] = await reply.json()
    return sum(1 for r in seen if r["method"] == method and r["path"] == path)


async def sandbox_games(world: World) -> list[dict[str, Any]]:
    async with aiohttp.ClientSession() as http, http.get(f"{world.sandbox.url}/sandbox/games") as reply:
        games: list[dict[str, Any]] = await reply.json()
    return games


async def six_player_event(world: World) -> int:
    """Ranks 1, 4 and 2, 5 link by OAuth, 3 and 6 by the bio code: Dutch round 1 pairs 1-4, 2-5, 3-6."""
    event_id, _ = await world.event(rounds=2)
    ratings = [2000, 1900, 1800, 1700, 1600, 1500]
    for rank, rating in enumerate(ratings, start=1):
        name = f"p{rank}"
        if rank in (3, 6):
            actor = await world.member(name, rating=rating, discord_id=9000 + rank)
        else:
            actor = await oauth_member(world, name, rating, 9000 + rank)
        await world.director.join(actor, event_id)
    return event_id


async def test_boards_with_two_tokens_go_out_as_one_bulk_and_the_rest_as_open_challenges(bulk_world: World) -> None:
    world = bulk_world
    event_id = await six_player_event(world)
    await world.start(event_id)
    view = await world.director.pairings(event_id, 1)
    assert all(b.game_id for b in view.boards)
    assert await requests_to(world, "POST", "/api/bulk-pairing") == 1
    games = {g["id"]: g for g in await sandbox_games(world)}
    kinds = {b.number: games[b.game_id]["source"] for b in view.boards if b.game_id}
    assert kinds == {1: "api", 2: "api", 3: "friend"}
    bulk_ids = {games[b.game_id]["bulk"] for b in view.boards[:2] if b.game_id}
    assert len(bulk_ids) == 1
    (bulk,) = world.sandbox.state.bulks.values()
    assert set(bulk.rules) == {"noAbort", "noRematch", "noGiveTime", "noClaimWin", "noEarlyDraw"}
    event = await world.director.event(event_id)
    assert event.settings.start_at is not None
    expected_start = event.settings.start_at.timestamp() + event.settings.no_show_seconds
    assert bulk.start_clocks_at is not None and abs(bulk.start_clocks_at - expected_start) < 1
    attempts = await storage_bulks.bulks_of_round(world.db, event_id, 1)
    assert [(a.status, a.lichess_id, len(a.games)) for a in attempts] == [("created", bulk.id, 2)]
    # the players got Lichess's message with their game and opponent
    async with aiohttp.ClientSession() as http, http.get(f"{world.sandbox.url}/sandbox/messages") as reply:
        messages = await reply.json()
    assert len(messages) == 4 and all("round 1: your game with" in m["text"] for m in messages)


async def test_the_clock_finds_the_no_shows_of_bulk_games(bulk_world: World) -> None:
    world = bulk_world
    event_id = await six_player_event(world)
    await world.start(event_id)
    view = await world.director.pairings(event_id, 1)
    one, two, three = view.boards
    # board 1: white moves, black never answers; board 2: nobody moves; board 3 (open challenge) is played
    await world.control(f"/sandbox/games/{one.game_id}/play", {"winner": None, "status": "started", "plies": 1})
    await world.play(event_id, 3, "white")
    event = await world.director.event(event_id)

    async def decided() -> bool:
        return all(b.result is not None for b in (await world.director.pairings(event_id, 1)).boards)

    await world.run_until(decided, step=60.0)
    assert event.settings.start_at is not None
    flags = event.settings.start_at + timedelta(seconds=event.settings.no_show_seconds + event.settings.clock_limit)
    assert world.clock.now() >= flags  # decided by the flags, not before
    results = {b.number: b.result for b in (await world.director.pairings(event_id, 1)).boards}
    assert results[1] is Result.WHITE_WINS_FORFEIT
    assert results[2] is Result.DOUBLE_FORFEIT
    assert results[3] is Result.WHITE_WINS
    statuses = {e.name: e.status for e in await world.director.entries(event_id)}
    absent = {one.black.name, two.white.name, two.black.name}
    assert {n for n, s in statuses.items() if s is EntryStatus.ABSENT} == absent
    assert one.white.name not in absent and three.white.name not in absent


async def test_a_token_lichess_still_refuses_moves_its_board_to_the_fallback(
    bulk_world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = bulk_world
    event_id = await six_player_event(world)
    revoked = next(t for t in world.sandbox.state.tokens if t.startswith("lio_"))
    owner = world.sandbox.state.tokens[revoked].user
    await world.gateway.revoke_token(revoked)
    real_test = world.gateway.test_tokens

    async def stale_test(tokens: list[str]) -> dict[str, TokenInfo | None]:
        # the test said yes a moment before Lichess revoked the token
        answers = await real_test(tokens)
        if revoked in answers:
            answers[revoked] = TokenInfo(owner, frozenset({"challenge:write"}), None)
        return answers

    monkeypatch.setattr(world.gateway, "test_tokens", stale_test)
    await world.start(event_id)
    assert await requests_to(world, "POST", "/api/bulk-pairing") == 2  # refused, then once more without it
    attempts = await storage_bulks.bulks_of_round(world.db, event_id, 1)
    assert [a.status for a in attempts] == ["failed", "created"]
    assert len(attempts[1].games) == 1
    view = await world.director.pairings(event_id, 1)
    games = {g["id"]: g for g in await sandbox_games(world)}
    assert sorted(games[b.game_id]["source"] for b in view.boards if b.game_id) == ["api", "friend", "friend"]
    player = next(a for a in await world.director.entries(event_id) if a.lichess_id == owner)
    assert any("run /link again" in text for who, text in world.announcer.of("dm") if who == player.discord_id)


async def test_the_boards_the_budget_has_no_room_for_are_open_challenges_and_the_organisers_told_once(
    bulk_world: World,
) -> None:
    """Other events of the bot spent 499 of the token's 500 games of these 10 minutes: one board fits."""
    world = bulk_world
    event_id = await six_player_event(world)
    world.gateway.bulk_ledger.take(499)
    await world.start(event_id)
    view = await world.director.pairings(event_id, 1)
    assert all(b.game_id for b in view.boards)
    games = {g["id"]: g for g in await sandbox_games(world)}
    assert [games[b.game_id]["source"] for b in view.boards if b.game_id] == ["api", "friend", "friend"]
    (bulk,) = world.sandbox.state.bulks.values()
    assert len(bulk.games) == 1
    assert [r.status for r in world.sandbox.state.requests if r.status == 429] == []
    told = [text for _, text in world.announcer.of("notice") if "bulk-paired games every 10 minutes" in text]
    assert len(told) == 1 and "1 board(s) are bulk pairings and 1 are open challenges" in told[0]
    world.clock.advance(20)
    await world.scheduler.run_due()
    assert len([t for _, t in world.announcer.of("notice") if "bulk-paired games every 10 minutes" in t]) == 1


async def test_boards_the_window_has_room_for_within_seconds_wait_for_the_next_poll(bulk_world: World) -> None:
    """A staggered bulk: 499 games were sent 570 s before the round; 30 s later the window has room again."""
    world = bulk_world
    event_id = await six_player_event(world)
    world.gateway.bulk_ledger.take(499)
    world.clock.advance(570)
    await world.start(event_id)
    paired = world.clock.now()
    view = await world.director.pairings(event_id, 1)
    assert [b.game_id is not None for b in view.boards] == [True, False, True]  # board 2 waits
    for _ in range(3):
        world.clock.advance(20)
        await world.scheduler.run_due()
    view = await world.director.pairings(event_id, 1)
    games = {g["id"]: g for g in await sandbox_games(world)}
    assert [games[b.game_id]["source"] for b in view.boards if b.game_id] == ["api", "api", "friend"]
    assert len(world.sandbox.state.bulks) == 2
    created = max(g.created_at for g in world.sandbox.state.games.values())
    assert created - paired.timestamp() <= 60
    assert not [t for _, t in world.announcer.of("notice") if "bulk-paired games every 10 minutes" in t]
    assert any(args[1].number == 1 for args in world.announcer.of("round_paired"))


async def test_a_429_nobody_foresaw_sends_the_boards_to_open_challenges_at_once(bulk_world: World) -> None:
    """Another program spent the token's budget: one 429, no waiting it out, no second try for 10 minutes."""
    world = bulk_world
    event_id = await six_player_event(world)
    world.sandbox.state.bulk_costs.append((world.sandbox.state.now(), "swissbot", 1500))
    await world.start(event_id)
    view = await world.director.pairings(event_id, 1)
    games = {g["id"]: g for g in await sandbox_games(world)}
    assert [games[b.game_id]["source"] for b in view.boards if b.game_id] == ["friend", "friend", "friend"]
    assert await requests_to(world, "POST", "/api/bulk-pairing") == 1
    assert isinstance(world.gateway, LichessGateway)  # the bulk world speaks HTTP
    assert world.gateway.pause.limited_count == 1
    assert world.gateway.bulk_ledger.take(1)[0].fallback == 1  # the window counts as full


async def test_a_lost_reply_is_found_again_and_never_created_twice(bulk_world: World) -> None:
    world = bulk_world
    event_id = await six_player_event(world)
    # Lichess creates the bulk, the reply is lost: the bulk stays unconfirmed
    await world.control("/sandbox/faults", {"path": "/api/bulk-pairing", "status": 502, "count": 1, "after": True})
    await world.start(event_id)
    attempts = await storage_bulks.bulks_of_round(world.db, event_id, 1)
    assert [a.status for a in attempts] == ["creating"]
    assert len(world.sandbox.state.bulks) == 1
    world.clock.advance(20)
    await world.scheduler.run_due()  # the poll looks it up by its players and clock start
    attempts = await storage_bulks.bulks_of_round(world.db, event_id, 1)
    (bulk,) = world.sandbox.state.bulks.values()
    assert [(a.status, a.lichess_id) for a in attempts] == [("created", bulk.id)]
    assert {g.lichess_id for g in attempts[0].games} == {g.id for g in bulk.games}
    assert await requests_to(world, "POST", "/api/bulk-pairing") == 1
    view = await world.director.pairings(event_id, 1)
    assert all(b.game_id for b in view.boards)


async def test_a_bulk_written_but_never_sent_is_created_once_after_a_restart(bulk_world: World) -> None:
    world = bulk_world
    event_id = await six_player_event(world)
    # the bot dies between writing the attempt and sending it: the request never reaches Lichess
    await world.control("/sandbox/faults", {"path": "/api/bulk-pairing", "status": 502, "count": 1})
    await world.start(event_id)
    assert [a.status for a in await storage_bulks.bulks_of_round(world.db, event_id, 1)] == ["creating"]
    assert world.sandbox.state.bulks == {}
    world.clock.advance(20)
    await world.scheduler.run_due()
    attempts = await storage_bulks.bulks_of_round(world.db, event_id, 1)
    assert [a.status for a in attempts] == ["failed", "created"]
    assert len(world.sandbox.state.bulks) == 1
    assert all(b.game_id for b in (await world.director.pairings(event_id, 1)).boards)


async def test_a_lost_bulk_whose_games_were_played_meanwhile_is_found_with_their_results(bulk_world: World) -> None:
    world = bulk_world
    event_id = await six_player_event(world)
    await world.control("/sandbox/faults", {"path": "/api/bulk-pairing", "status": 502, "count": 1, "after": True})
    await world.start(event_id)
    (lost,) = world.sandbox.state.bulks.values()
    for game in lost.games:  # Lichess messaged the players their links: they played while the bot was down
        await world.control(f"/sandbox/games/{game.id}/play", {"winner": "white", "status": "resign", "plies": 40})
    world.clock.advance(20)
    await world.scheduler.run_due()
    (attempt,) = await storage_bulks.bulks_of_round(world.db, event_id, 1)
    assert (attempt.status, attempt.lichess_id) == ("created", lost.id)
    boards = {b.game_id: b.result for b in (await world.director.pairings(event_id, 1)).boards}
    assert all(boards[g.id] is Result.WHITE_WINS for g in lost.games)
    assert await requests_to(world, "POST", "/api/bulk-pairing") == 1


async def test_a_lost_bulk_is_found_only_by_its_own_players_clock_start_and_clock(bulk_world: World) -> None:
    world = bulk_world
    event_id = await six_player_event(world)
    await world.control("/sandbox/faults", {"path": "/api/bulk-pairing", "status": 502, "count": 1, "after": True})
    await world.start(event_id)
    (lost,) = world.sandbox.state.bulks.values()
    lost.clock_limit = 600  # what Lichess lists is another bulk of the same players and clock start: another clock
    world.clock.advance(20)
    await world.scheduler.run_due()
    attempts = await storage_bulks.bulks_of_round(world.db, event_id, 1)
    assert [a.status for a in attempts] == ["failed", "created"] and attempts[1].lichess_id != lost.id
    told = [n for _, n in world.announcer.of("notice") if "bulk pairing" in n and "not on Lichess" in n]
    assert len(told) == 1


async def test_a_bulk_stored_for_another_attempt_is_never_taken(bulk_world: World) -> None:
    world = bulk_world
    event_id = await six_player_event(world)
    await world.control("/sandbox/faults", {"path": "/api/bulk-pairing", "status": 502, "count": 1, "after": True})
    await world.start(event_id)
    (lost,) = world.sandbox.state.bulks.values()
    async with world.db.transaction() as conn:  # the same bulk is already another attempt's (of round 2, here)
        await conn.execute(
            "INSERT INTO bulks (event_id, round, status, lichess_id, start_clocks_at, created_at, updated_at)"
            " VALUES (?, 2, 'created', ?, '2026-01-01T00:00:00+00:00', '2026-01-01T00:00:00+00:00',"
            " '2026-01-01T00:00:00+00:00')",
            (event_id, lost.id),
        )
    world.clock.advance(20)
    await world.scheduler.run_due()
    attempts = await storage_bulks.bulks_of_round(world.db, event_id, 1)
    assert attempts[0].status == "failed" and lost.id not in {a.lichess_id for a in attempts}


async def test_a_result_arrives_through_the_stream_without_a_poll(bulk_world: World) -> None:
    world = bulk_world
    event_id = await six_player_event(world)
    await world.start(event_id)
    feeder = StreamFeeder(world.director.ctx, world.sandbox.bot_token, sync_interval=0.05, backoff=0.05)
    assert isinstance(feeder.stream, GameStream)  # this world's Lichess is served over HTTP
    await feeder.start()
    try:
        await asyncio.wait_for(feeder.stream.connected.wait(), 10)
        view = await world.director.pairings(event_id, 1)
        assert set(feeder.stream.watching) == {b.game_id for b in view.boards}
        await world.play(event_id, 1, "black")  # a bulk game, played to the end; no scheduler job runs

        async def recorded() -> None:
            while (await world.director.pairings(event_id, 1)).boards[0].result is None:
                await asyncio.sleep(0.05)

        await asyncio.wait_for(recorded(), 10)
        assert feeder.finished == [view.boards[0].game_id]
        assert (await world.director.pairings(event_id, 1)).boards[0].result is Result.BLACK_WINS
    finally:
        await feeder.close()


async def test_an_early_draws_replacement_is_a_bulk_pairing_and_its_link_reaches_both_players(
    bulk_world: World,
) -> None:
    world = bulk_world
    event_id = await six_player_event(world)
    await world.start(event_id)
    first = (await world.director.pairings(event_id, 1)).boards[0]
    await world.control(f"/sandbox/games/{first.game_id}/play", {"winner": None, "status": "draw", "plies": 20})
    world.clock.advance(30)
    await world.scheduler.run_due()
    again = (await world.director.pairings(event_id, 1)).boards[0]
    assert again.game_id not in (None, first.game_id) and again.result is None
    games = {g["id"]: g for g in await sandbox_games(world)}
    assert games[again.game_id]["source"] == "api" and games[again.game_id]["bulk"]  # a bulk pairing again
    assert await requests_to(world, "POST", "/api/bulk-pairing") == 2
    for me, other in ((first.white, first.black), (first.black, first.white)):
        assert (
            me.discord_id,
            f"Club Swiss round 1 board 1: your game against {other.name} is played again, in a new game: {again.url}",
        ) in world.announcer.of("dm")
    shown = world.announcer.of("results_updated")[-1][1].boards
    assert (shown[0].game_id, shown[0].detail) == (again.game_id, "new game") and shown[1].detail == ""


async def test_the_rounds_footer_says_how_each_board_starts(bulk_world: World) -> None:
    world = bulk_world
    event_id = await six_player_event(world)
    await world.start(event_id)
    view = await world.director.pairings(event_id, 1)
    assert [b.bulk for b in view.boards] == [True, True, False]
    (page,) = round_messages(await world.director.event(event_id), view, mention=False)
    assert page.embeds[-1].footer == (
        "Boards 1, 2: the game is ready and its clock starts by itself. Boards 3: click your game link to join;"
        " the clock starts when both players move."
    )


async def _forbid_board_one(world: World, event_id: int) -> dict[int, str]:
    """Round 1's game ids by board, once the organisers forbid board 1's pair after the fact (a re-pair's reason)."""
    first = await world.director.pairings(event_id, 1)
    await world.director.forbid(ORGANISER, event_id, first.boards[0].white.name, first.boards[0].black.name)
    return {b.number: b.game_id for b in first.boards if b.game_id}


async def test_a_re_pair_cancels_the_rounds_bulk_games_with_the_players_tokens(bulk_world: World) -> None:
    world = bulk_world
    state = world.sandbox.state
    event_id = await six_player_event(world)  # boards 1 (p1-p4) and 2 (p2-p5) bulk games, board 3 an open challenge
    await world.start(event_id)
    old = await _forbid_board_one(world, event_id)
    white = {b.number: b.white.name.lower() for b in (await world.director.pairings(event_id, 1)).boards}
    assert [state.games[old[n]].source for n in (1, 2)] == ["api", "api"] and old[3] in state.games
    assert "noAbort" in state.games[old[1]].rules  # the bot's token alone cannot abort it: it plays in neither
    outcome = await world.director.correct_pairing(ORGANISER, event_id, CorrectionKind.REPAIR, ())
    assert outcome.applied and ("p1", "p4") not in outcome.boards
    assert [state.games[old[n]].status for n in (1, 2)] == ["aborted", "aborted"]
    assert old[3] not in state.games  # nobody had joined: the bot's challenge, cancelled with its token
    callers = {r.path.split("/")[3]: r.user for r in state.requests if r.path.endswith("/cancel")}
    # a bulk game by white's token, black's as opponentToken; the pending challenge by the bot's
    assert callers == {old[1]: white[1], old[2]: white[2], old[3]: "swissbot"}
    await world.scheduler.run_due()  # the round's poll creates the new games
    view = await world.director.pairings(event_id, 1)
    assert all(b.game_id is not None and b.game_id not in old.values() for b in view.boards)
    assert {(b.white.name, b.black.name) for b in view.boards} == set(outcome.boards)


async def test_a_re_pair_is_refused_unchanged_when_a_bulk_games_player_token_is_gone(bulk_world: World) -> None:
    world = bulk_world
    state = world.sandbox.state
    event_id = await six_player_event(world)
    await world.start(event_id)
    old = await _forbid_board_one(world, event_id)
    before = await world.director.pairings(event_id, 1)
    for secret in [s for s, t in state.tokens.items() if t.user == "p5"]:
        del state.tokens[secret]  # p5 revoked the bot's access on Lichess
    with pytest.raises(InvalidState) as refused:
        await world.director.correct_pairing(ORGANISER, event_id, CorrectionKind.REPAIR, ())
    assert str(refused.value) == (
        "Round 1 cannot be corrected, as its games on Lichess cannot be cancelled (board 2: the game exists on"
        " Lichess and the bot holds no valid Lichess permission (token) of p5 to abort it); nothing was changed."
    )
    assert await world.director.pairings(event_id, 1) == before
    assert [state.games[old[n]].status for n in (1, 2, 3)] == ["started", "started", "created"]
    assert not [r for r in state.requests if r.path.endswith("/cancel")]
    assert await audit_log(world.db, event_id=event_id, action="round.correct") == []


async def test_a_re_pair_deletes_a_bulk_lichess_has_not_paired_yet(bulk_world: World) -> None:
    world = bulk_world
    state = world.sandbox.state
    event_id = await six_player_event(world)
    await world.start(event_id)
    old = await _forbid_board_one(world, event_id)
    (bulk,) = state.bulks.values()
    # as on lila between the bulk's creation and its pairing: the bulk is scheduled, its games do not exist yet
    bulk.pair_at, bulk.paired_at = state.now() + 3600, None
    for planned in bulk.games:
        del state.games[planned.id]
    outcome = await world.director.correct_pairing(ORGANISER, event_id, CorrectionKind.REPAIR, ())
    assert outcome.applied
    assert bulk.id not in state.bulks
    assert [(r.method, r.user) for r in state.requests if r.path == f"/api/bulk-pairing/{bulk.id}"] == [
        ("DELETE", "swissbot")
    ]
    assert [r.path for r in state.requests if r.path.endswith("/cancel")] == [f"/api/challenge/{old[3]}/cancel"]
    world.clock.advance(2 * 3600)
    state.tick()
    assert old[1] not in state.games and old[2] not in state.games  # the deleted bulk never paired


async def test_swissbot_repair_cancels_bulk_games_with_the_tokens_the_bots_key_opens(
    bulk_world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = bulk_world
    state = world.sandbox.state
    event_id = await six_player_event(world)
    await world.start(event_id)
    old = await _forbid_board_one(world, event_id)
    config = tmp_path / "config.toml"
    config.write_text(f'[bot]\ndatabase = "{world.db.path}"\n[lichess]\nbase_url = "{world.sandbox.url}"\n')
    monkeypatch.setenv("LICHESS_TOKEN", world.sandbox.bot_token)
    args = argparse.Namespace(config=config, event=event_id, accept=False)
    assert await asyncio.to_thread(run_repair, args) == ExitCode.OK  # its own event loop, as from a shell
    assert [state.games[old[n]].status for n in (1, 2)] == ["aborted", "aborted"] and old[3] not in state.games
    monkeypatch.setenv(TOKEN_KEY_ENV, "not a key")
    assert await asyncio.to_thread(run_repair, args) == ExitCode.CONFIG
