"""Games on Lichess over a club's week: a refused game, the look-up of a lost create, replays of aborted games,
challenges nobody joined, and the bot's challenges cancelled when they can no longer be played."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import aiohttp
import pytest

from bot.director.models import JobKind
from domain.entry import EntryStatus
from domain.event import EventStatus
from domain.result import GameStatus, Result
from domain.rounds import RoundStatus
from domain.settings import EarlyDrawPolicy
from storage.games import games_of_round
from storage.players import get_ban, player_by_discord
from tests.bot.director.director_world import GUILD, ORGANISER, World, make_world

pytestmark = pytest.mark.lichess_http  # Lichess's faults and refusals through the real gateway


@pytest.fixture
async def synced_world(tmp_path: Path) -> AsyncIterator[World]:
    """Autoplay off, and the local Lichess keeps the manual clock's time (games are dated as the bot sees them)."""
    async with make_world(tmp_path / "swiss.sqlite3", autoplay=False, lichess_on_clock=True, http=True) as w:
        yield w


def notices(w: World, text: str) -> list[str]:
    """The notices to the organisers that contain `text`."""
    return [n[1] for n in w.announcer.of("notice") if text in n[1]]


async def fail_creates(w: World, status: int, count: int) -> None:
    """The next `count` game creations answer `status` (Lichess does nothing)."""
    await w.control("/sandbox/faults", {"path": "/api/challenge/open", "status": status, "count": count})


async def poll_for(w: World, seconds: int, step: int = 20) -> None:
    """Let the clock run for `seconds`, running the due jobs at every step."""
    for _ in range(seconds // step):
        w.clock.advance(step)
        await w.scheduler.run_due()


# --- one game Lichess refuses ---------------------------------------------------------------------


async def test_a_refused_game_holds_its_board_alone_and_the_organisers_are_told_once(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=6, rounds=2)
    await fail_creates(w, 400, 1)  # Lichess refuses the first game of the round
    await w.start(event_id)
    view = await w.director.pairings(event_id)
    assert view.status is RoundStatus.PLAYING
    assert view.boards[0].game_id is None and all(b.game_id for b in view.boards[1:])
    assert len(w.announcer.of("round_paired")) == 1
    await poll_for(w, 5 * 60)
    assert len(notices(w, "refused")) == 1 and "/swiss result" in notices(w, "refused")[0]
    assert (await w.director.pairings(event_id)).boards[0].result is None  # held: no forfeit on that evidence
    await w.play(event_id, 2, "white")
    await w.play(event_id, 3, "black")
    await w.scheduler.run_due()
    await w.director.set_result(ORGANISER, event_id, 1, 1, "1/2-1/2", "Lichess refused the game")
    assert await w.next_round(event_id) == 2
    second = await w.director.pairings(event_id, 2)
    assert len(second.boards) == 3 and all(b.game_id for b in second.boards)
    assert len(notices(w, "refused")) == 1


async def test_a_closed_account_loses_its_board_by_forfeit_and_the_round_goes_on(quiet_world: World) -> None:
    w = quiet_world
    event_id, actors = await w.event(players=4, rounds=3)
    await w.start(event_id)
    await w.play_all(event_id, "white")
    await poll_for(w, 60)
    # Closed between rounds: the start's entry check is past, so Lichess refuses the game.
    w.sandbox.state.users["player04"].disabled = True
    assert await w.next_round(event_id) == 2
    view = await w.director.pairings(event_id)
    gone = next(b for b in view.boards if "player04" in (b.white.name, b.black.name))
    other = next(b for b in view.boards if b is not gone)
    loser_is_white = gone.white.name == "player04"
    assert gone.result is (Result.BLACK_WINS_FORFEIT if loser_is_white else Result.WHITE_WINS_FORFEIT)
    assert other.game_id is not None and len(w.announcer.of("round_paired")) == 2
    entries = {e.discord_id: e.status for e in await w.director.entries(event_id)}
    assert entries[actors[3].discord_id] is EntryStatus.WITHDRAWN
    player = await player_by_discord(w.db, actors[3].discord_id)
    assert player is not None and await get_ban(w.db, GUILD, player.id) is None  # withdrawn, not banned
    await poll_for(w, 5 * 60)
    assert len(notices(w, "account is closed")) == 1
    await w.play(event_id, other.number, "white")
    await poll_for(w, 60)
    assert await w.next_round(event_id) == 3
    third = await w.director.pairings(event_id, 3)
    placed = {b.white.name for b in third.boards} | {b.black.name for b in third.boards}
    assert "player04" not in placed and all(b.game_id for b in third.boards)


# --- a lost create is found by its own challenge, never by the players alone ----------------------


async def test_a_failed_create_never_adopts_an_older_game_of_the_same_players(synced_world: World) -> None:
    w = synced_world
    event_id, _ = await w.event(players=2, rounds=1, start_at=w.clock.now() + timedelta(days=7))
    old = w.sandbox.state.create_challenge(
        white="player01", black="player02", name="casual", clock_limit=180, clock_increment=2,
        days=None, rated=False, rules=frozenset(), creator="player01", expires_at=None,
    )  # fmt: skip
    await w.control(f"/sandbox/games/{old.id}/play", {"winner": "black", "status": "resign", "plies": 40})
    await fail_creates(w, 502, 4)  # every try of the round's create fails: the row is left 'failed'
    await w.start(event_id)
    assert (await w.director.pairings(event_id)).boards[0].game_id is None
    await poll_for(w, 60)
    board = (await w.director.pairings(event_id)).boards[0]
    assert board.result is None and board.game_id not in (None, old.id)
    assert w.sandbox.state.games[board.game_id].name == "Club Swiss #1 R1 B1 G2"


async def test_a_failed_create_never_adopts_a_game_of_another_event(synced_world: World) -> None:
    w = synced_world
    first, actors = await w.event(players=2, rounds=1)
    second, _ = await w.event(players=0, rounds=1, start_at=w.clock.now() + timedelta(minutes=10))
    for actor in actors:
        await w.director.join(actor, second)
    await w.start(first)
    theirs = (await w.director.pairings(first)).boards[0].game_id
    assert theirs is not None
    await fail_creates(w, 502, 4)
    await w.start(second)
    await w.play(first, 1, "white")  # the first event's game starts (and ends) after the second's create failed
    await poll_for(w, 60)
    assert (await w.director.pairings(first)).boards[0].result is Result.WHITE_WINS
    board = (await w.director.pairings(second)).boards[0]
    assert board.game_id not in (None, theirs) and board.result is None
    assert not notices(w, "rror")


async def interrupted(w: World, event_id: int) -> str:
    """Round 1's only game as a kill between Lichess's create and the bot's write leaves it: the attempt 'creating'
    with no id in the database, its challenge on Lichess (returned: its id)."""
    await w.start(event_id)
    (game,) = await games_of_round(w.db, event_id, 1)
    assert game.lichess_id is not None
    async with w.db.transaction() as conn:
        await conn.execute("UPDATE games SET status = 'creating', lichess_id = NULL WHERE id = ?", (game.id,))
    return game.lichess_id


@pytest.mark.parametrize("accepted", [False, True], ids=["pending", "accepted-meanwhile"])
async def test_an_interrupted_create_is_found_again_by_its_challenge(synced_world: World, accepted: bool) -> None:
    w = synced_world
    event_id, _ = await w.event(players=2, rounds=1)
    lost = await interrupted(w, event_id)
    if accepted:  # the players joined and moved while the bot was down: no longer a pending challenge
        await w.control(f"/sandbox/games/{lost}/play", {"winner": "white", "status": "resign", "plies": 30})
    await w.director.start_round(event_id, 1)  # the restart's round-start job
    (game,) = await games_of_round(w.db, event_id, 1)
    assert (game.status, game.lichess_id) == (GameStatus.CREATED, lost)
    assert len(w.sandbox.state.games) == 1 and not notices(w, "stopped")  # never created twice, nothing to tell
    await w.director.poll_round(event_id)
    result = (await w.director.pairings(event_id)).boards[0].result
    assert result is (Result.WHITE_WINS if accepted else None)  # the found game's result is the board's


async def test_an_interrupted_create_never_adopts_a_casual_game_of_the_same_players(synced_world: World) -> None:
    w = synced_world
    event_id, _ = await w.event(players=2, rounds=1)
    lost = await interrupted(w, event_id)
    assert await w.gateway.cancel_challenge(lost)  # the attempt's challenge is not on Lichess after all
    # meanwhile the two players started a game of their own, with the event's clock, from the lobby
    casual = await w.control("/sandbox/games", {"white": "player01", "black": "player02", "clock": [180, 2]})
    await w.director.start_round(event_id, 1)
    await w.director.poll_round(event_id)
    games = await games_of_round(w.db, event_id, 1)
    assert [(g.attempt, g.status) for g in games] == [(1, GameStatus.FAILED), (2, GameStatus.CREATED)]
    assert games[1].lichess_id not in (None, casual["id"])
    assert w.sandbox.state.games[games[1].lichess_id or ""].name == "Club Swiss #1 R1 B1 G2"  # a name of its own
    assert len(notices(w, "when the bot stopped is not on Lichess")) == 1  # told once


async def test_an_interrupted_create_never_adopts_another_events_game(synced_world: World) -> None:
    w = synced_world
    first, actors = await w.event(players=2, rounds=1)
    second, _ = await w.event(players=0, rounds=1, start_at=w.clock.now() + timedelta(minutes=10))
    for actor in actors:
        await w.director.join(actor, second)
    lost = await interrupted(w, first)
    assert await w.gateway.cancel_challenge(lost)
    await w.start(second)  # the second event's game of the same two players, same clock, stored for its attempt
    async with w.db.transaction() as conn:  # and its attempt interrupted too: stored for nobody
        await conn.execute(
            "UPDATE games SET status = 'creating', lichess_id = NULL WHERE board_id IN"
            " (SELECT id FROM boards WHERE event_id = ?)",
            (second,),
        )
    theirs = next(g.id for g in w.sandbox.state.games.values() if g.name and "#2" in g.name)
    await w.control(f"/sandbox/games/{theirs}/play", {"winner": "black", "status": "resign", "plies": 30})
    await w.director.start_round(first, 1)
    (_, mine) = await games_of_round(w.db, first, 1)
    assert mine.lichess_id not in (None, theirs)
    await w.director.start_round(second, 1)
    (found,) = await games_of_round(w.db, second, 1)
    assert found.lichess_id == theirs  # found again by its own challenge


# --- an aborted game is re-created once per attempt ----------------------------------------------


async def test_an_aborted_replay_of_an_early_draw_is_created_again(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=2, rounds=1, early_draw_policy=EarlyDrawPolicy.REPLAY)
    await w.start(event_id)
    await w.play(event_id, 1, None, status="draw", plies=20)
    await w.scheduler.run_due()
    replay = (await w.director.pairings(event_id)).boards[0].game_id
    await w.play(event_id, 1, None, status="aborted", plies=0)
    await w.scheduler.run_due()
    board = (await w.director.pairings(event_id)).boards[0]
    assert board.result is None and board.game_id not in (None, replay)  # the replay's own re-creation
    await w.play(event_id, 1, None, status="aborted", plies=0)
    await w.scheduler.run_due()
    board = (await w.director.pairings(event_id)).boards[0]
    assert board.result is Result.BLACK_WINS_FORFEIT  # the re-created game was aborted too
    attempts = await games_of_round(w.db, event_id, 1)
    assert [g.status for g in attempts] == [GameStatus.REPLACED, GameStatus.REPLACED, GameStatus.FINISHED]


async def test_a_game_re_created_after_the_round_started_gets_the_whole_no_show_grace(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=2, rounds=2)  # no_show_seconds=300
    await w.start(event_id)
    started = (await w.director.pairings(event_id)).started_at
    assert started is not None
    await poll_for(w, 4 * 60)
    await w.play(event_id, 1, None, status="aborted", plies=0)
    await w.scheduler.run_due()  # minute 4: created again
    recreated = w.clock.now()
    noshow = [j for j in await w.director.due_jobs() if j.kind is JobKind.NOSHOW]
    assert [j.due_at for j in noshow] == [recreated + timedelta(minutes=5)]  # not the round's start + 5
    await w.play(event_id, 1, None, status="started", plies=0)  # both joined the new game, white never moves
    await poll_for(w, 2 * 60)  # past the round's start + 5 minutes: the new game's grace still runs
    assert (await w.director.pairings(event_id)).boards[0].result is None
    await poll_for(w, 3 * 60)
    assert (await w.director.pairings(event_id, 1)).boards[0].result is Result.BLACK_WINS_FORFEIT


# --- a challenge nobody joined --------------------------------------------------------------------


async def test_a_challenge_nobody_joined_is_held_and_nobody_is_banned(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=4, rounds=2)
    await w.start(event_id)
    await w.play(event_id, 2, "white")
    await poll_for(w, 10 * 60)
    board = (await w.director.pairings(event_id)).boards[0]
    assert board.result is None
    for entry in await w.director.entries(event_id):
        assert entry.status is EntryStatus.ACTIVE
        player = await player_by_discord(w.db, entry.discord_id)
        assert player is not None and await get_ban(w.db, GUILD, player.id) is None
    assert not [d for d in w.announcer.of("dm") if "did not play" in d[1]]
    held = notices(w, "cannot tell who was there")
    assert len(held) == 1 and "/swiss result" in held[0]
    assert board.game_id is not None and board.game_id in w.sandbox.state.games
    await w.director.set_result(ORGANISER, event_id, 1, 1, "+/-", "black never came (told us on Discord)")
    assert board.game_id not in w.sandbox.state.games  # its challenge is cancelled on Lichess
    assert await w.next_round(event_id) == 2


# --- the bot's own challenges that can no longer be played ---------------------------------------


def cancels(w: World) -> list[str]:
    """The challenge ids the bot cancelled on the local Lichess."""
    return [r.path.split("/")[3] for r in w.sandbox.state.requests if r.path.endswith("/cancel")]


@pytest.mark.parametrize("end", ["cancel", "finish"])
async def test_ending_the_event_cancels_its_open_challenges(quiet_world: World, end: str) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=6, rounds=2)
    await w.start(event_id)
    await w.play(event_id, 1, "white")
    await w.scheduler.run_due()
    ids = [b.game_id for b in (await w.director.pairings(event_id)).boards]
    if end == "cancel":
        await w.director.cancel(ORGANISER, event_id)
    else:
        await w.director.finish(ORGANISER, event_id)
    status = (await w.director.event(event_id)).status
    assert status is (EventStatus.CANCELLED if end == "cancel" else EventStatus.FINISHED)
    assert ids[0] in w.sandbox.state.games and not any(i in w.sandbox.state.games for i in ids[1:])
    assert sorted(cancels(w)) == sorted(i for i in ids[1:] if i)


async def test_a_removed_players_unplayed_game_is_cancelled_and_forfeited(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=6, rounds=2)
    await w.start(event_id)
    board = (await w.director.pairings(event_id)).boards[1]
    await w.director.remove(ORGANISER, event_id, board.white.name)
    assert board.game_id not in w.sandbox.state.games and cancels(w) == [board.game_id]
    assert (await w.director.pairings(event_id)).boards[1].result is Result.BLACK_WINS_FORFEIT


async def test_an_organisers_forfeit_cancels_the_boards_challenge(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=4, rounds=2)
    await w.start(event_id)
    game_id = (await w.director.pairings(event_id)).boards[0].game_id
    await w.director.set_result(ORGANISER, event_id, 1, 1, "-/+", "white withdrew before the game")
    assert cancels(w) == [game_id] and game_id not in w.sandbox.state.games


async def test_a_forfeit_on_a_game_nobody_moved_in_leaves_it_to_its_players_without_their_tokens(
    quiet_world: World,
) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=2, rounds=2)
    await w.start(event_id)
    await w.play(event_id, 1, None, status="started", plies=0)  # both joined, white never moves
    await poll_for(w, 6 * 60)
    board = (await w.director.pairings(event_id, 1)).boards[0]
    assert board.result is Result.BLACK_WINS_FORFEIT
    # lila aborts a game only for one of its players: the bot, which plays in none and holds no token of these
    # players (linked by the bio code), does not ask
    assert board.game_id is not None and w.sandbox.state.games[board.game_id].status == "started"
    assert cancels(w) == []


async def test_a_lichess_outage_at_the_round_start_is_told_once(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=4, rounds=1)
    await fail_creates(w, 503, 500)  # Lichess fails every create until it is back
    await w.start(event_id)
    await poll_for(w, 4 * 60)
    assert (await w.director.pairings(event_id)).status is RoundStatus.PAIRED
    async with aiohttp.ClientSession() as http, http.delete(f"{w.sandbox.url}/sandbox/faults") as reply:
        assert reply.status < 300  # Lichess is back
    await poll_for(w, 60)
    view = await w.director.pairings(event_id)
    assert view.status is RoundStatus.PLAYING and all(b.game_id for b in view.boards)
    assert len(notices(w, "did not create every game")) == 1
