"""A round in play: read its games back, adjudicate, apply the decisions, withdraw and ban the no-shows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from bot.director.bulk import bulk_game_rows
from bot.director.challenges import cancel_games
from bot.director.context import Context
from bot.director.endings import decide_board, finish_round, show_results
from bot.director.lookups import OVER, get_event, get_round, latest_games, load_people
from bot.director.models import SYSTEM_ACTOR
from bot.director.outcome import Aborted, Absent, EarlyDraw, Held, Outcome, Pending, Played, ban_hours, decide
from bot.director.queries import round_view
from bot.director.rounds import ensure_games
from bot.lichess.errors import LichessError
from bot.lichess.payloads import GameData
from domain.entry import Entry, EntryStatus
from domain.event import Event
from domain.result import GameRow, GameStatus
from domain.rounds import BoardRow, RoundStatus, RoundSummary, is_decided
from domain.settings import EventSettings
from storage import audit as storage_audit
from storage import entries as storage_entries
from storage import games as storage_games
from storage import outbox as storage_outbox
from storage import players as storage_players
from storage import rounds as storage_rounds
from storage.outbox import PostKind


async def poll_round(ctx: Context, event_id: int, only: frozenset[str] | None = None) -> None:
    """Read the round's games, adjudicate, store results; when all are in, standings and next round.

    `only`: read just these Lichess games (the game stream says they finished), not every live one.
    """
    async with ctx.lock(event_id):
        await _poll(ctx, event_id, only)
    ctx.changed()


async def _poll(ctx: Context, event_id: int, only: frozenset[str] | None = None) -> None:
    """One look at the last round: its missing games created, its live games decided, finished when all are."""
    async with ctx.db.snapshot():  # the event's state, read once for the whole poll
        event = await get_event(ctx.db, event_id)
        last = await storage_rounds.last_round(ctx.db, event_id)
        people = await load_people(ctx.db, event_id)
    if last is None or last.round.status is RoundStatus.FINISHED or event.status in OVER:
        return
    number = last.round.number
    await ensure_games(ctx, event, people, number)
    async with ctx.db.snapshot():
        summary = await get_round(ctx.db, event, number)
        games = await storage_games.games_of_round(ctx.db, event_id, number)
    rnd = summary.round
    boards = [b for b in summary.boards if b.result is None]
    live = live_attempts(summary, games)
    if only is not None:
        live = {board_id: game for board_id, game in live.items() if game.lichess_id in only}
    if rnd.started_at is not None and live:
        try:
            exported = await ctx.lichess_of(event.guild_id).export_games(
                [g.lichess_id for g in live.values() if g.lichess_id]
            )
        except LichessError as exc:
            await ctx.announcer.notice(event, f"Could not read the games of round {number} ({exc}); retrying.")
            return
        data = {g.id: g for g in exported}
        now = ctx.clock.now()
        clocked = await bulk_game_rows(ctx, event_id, number)  # their clocks find the no-shows, not a deadline
        started = rnd.started_at

        by_board: dict[int, list[GameRow]] = {}
        for row in games:
            by_board.setdefault(row.board_id, []).append(row)
        picked: list[tuple[BoardRow, GameRow, GameData | None]] = []
        judged: list[Judged] = []
        for board in boards:
            game = live.get(board.id)
            if game is None or game.lichess_id is None:
                continue
            got = data.get(game.lichess_id)
            picked.append((board, game, got))
            slim = None if got is None else replace(got, raw={}, pgn=None)  # what judging reads, not the JSON
            judged.append((slim, game, tuple(by_board.get(board.id, ())), game.id in clocked))
        # Replaying the moves (the early-draw rule) is python-chess's pure-Python work: in a worker process.
        outcomes = await ctx.workers.run(decide_games, judged, event.settings, started, now)
        decisions: list[tuple[BoardRow, GameRow, Outcome, Any]] = [
            (board, game, outcome, dict(got.raw) if got else None)
            for (board, game, got), outcome in zip(picked, outcomes, strict=True)
            if not isinstance(outcome, Pending)
        ]
        if decisions:
            await _apply(ctx, event, decisions, people)
    if is_decided(await get_round(ctx.db, event, number)):
        await finish_round(ctx, event_id, number)


Judged = tuple[GameData | None, GameRow, tuple[GameRow, ...], bool]  # the export, the attempt, its board's, clocked


def decide_games(judged: Sequence[Judged], rules: EventSettings, started: datetime, now: datetime) -> list[Outcome]:
    """Each live game's outcome (pure, plain data in and out: runs in a worker process)."""
    return [
        decide(got, game, attempts, rules, round_started=started, now=now, clocked=clocked)
        for got, game, attempts, clocked in judged
    ]


def live_attempts(summary: RoundSummary, games: Sequence[GameRow]) -> dict[int, GameRow]:
    """The undecided boards' latest attempts that are games on Lichess, by board id."""
    latest = latest_games(games)
    return {
        b.id: latest[b.id]
        for b in summary.boards
        if b.result is None and b.id in latest and latest[b.id].status is GameStatus.CREATED
    }


async def _apply(
    ctx: Context, event: Event, decisions: list[tuple[BoardRow, GameRow, Outcome, Any]], people: dict[int, Entry]
) -> None:
    """Store the decisions in one transaction, then tell the organisers and the absent, re-create replayed games
    and update the round's message."""
    now = ctx.clock.now()
    notices: list[str] = []
    dms: list[tuple[int, str]] = []
    replays = False
    system = SYSTEM_ACTOR.name
    async with ctx.db.transaction():
        for board, game, outcome, raw in decisions:
            subject = f"round:{board.round}:board:{board.board_no}"
            if isinstance(outcome, (EarlyDraw, Aborted)):
                await storage_games.update_game(ctx.db, game.id, GameStatus.REPLACED, at=now, data=raw)
                await storage_audit.record_action(
                    ctx.db,
                    at=now,
                    actor=system,
                    action="game.replay",
                    subject=subject,
                    event_id=event.id,
                    before=game.lichess_id,
                    reason=outcome.detail,
                )
                notices.append(f"Round {board.round} board {board.board_no}: {outcome.detail}.")
                replays = True
                continue
            if isinstance(outcome, Held):
                if not await storage_audit.logged(ctx.db, event_id=event.id, action="result.review", subject=subject):
                    await storage_audit.record_action(
                        ctx.db,
                        at=now,
                        actor=system,
                        action="result.review",
                        subject=subject,
                        event_id=event.id,
                        reason=outcome.detail,
                    )
                    notices.append(f"Round {board.round} board {board.board_no}: {outcome.detail} (/swiss result).")
                continue
            assert not isinstance(outcome, Pending)  # never collected
            await decide_board(
                ctx, board, outcome.result, actor=system, game_id=game.lichess_id, game_data=raw,
                reason=outcome.detail, at=now,
            )  # fmt: skip
            ended = GameStatus.FINISHED if raw else GameStatus.ABORTED
            await storage_games.update_game(ctx.db, game.id, ended, at=now, data=raw)
            for colour in outcome.absent if isinstance(outcome, Absent) else ():
                entry = people[board.white_id if colour == "white" else board.black_id]
                until = await _noshow_penalty(ctx, event, entry, board.round, now)
                dms.append((entry.discord_id, _noshow_dm(event, board.round, until)))
                notices.append(
                    f"Round {board.round} board {board.board_no}: {entry.player.name} did not play: withdrawn, and"
                    f" banned from the club's events until {until:%Y-%m-%d %H:%M} UTC (/swiss unban lifts it)."
                )
    for text in notices:
        await ctx.announcer.notice(event, text)
    for discord_id, text in dms:
        await ctx.announcer.dm(discord_id, text)
    unplayed = [g for _, g, o, raw in decisions if _scored(o) and (raw or {}).get("status") == "started"]
    await cancel_games(ctx, event.guild_id, unplayed)  # a forfeit on a game nobody moved in: abort it on Lichess
    if replays:
        await ensure_games(ctx, event, people, decisions[0][0].round)
        replaced = {b.board_no for b, _, o, _ in decisions if isinstance(o, (EarlyDraw, Aborted))}
        await _send_new_links(ctx, event, decisions[0][0].round, replaced, people)
    if any(_scored(o) for _, _, o, _ in decisions):
        async with ctx.db.snapshot():
            view = await round_view(ctx, event, decisions[0][0].round, people)
        await show_results(ctx, event, view)


async def _send_new_links(
    ctx: Context, event: Event, round_number: int, boards: set[int], people: dict[int, Entry]
) -> None:
    """Each replaced board's new game reaches both players (a DM naming the board), and the round's post shows it,
    marking the board "new game"."""
    async with ctx.db.snapshot():
        view = await round_view(ctx, event, round_number, people)
    changed = [b for b in view.boards if b.number in boards and b.url]
    if not changed:
        return
    for board in changed:
        for me, other in ((board.white, board.black), (board.black, board.white)):
            if me.discord_id:
                await ctx.announcer.dm(
                    me.discord_id,
                    f"{event.name} {event.round_name(round_number)} board {board.number}: your game against"
                    f" {other.name} is played again, in a new game: {board.url}",
                )
    marked = tuple(
        replace(b, detail=f"{b.detail} · new game" if b.detail else "new game") if b in changed else b
        for b in view.boards
    )
    if not await ctx.announced(event.id, ctx.announcer.results_updated(event, replace(view, boards=marked))):
        # the post says which board changed; refused now, the new links are shown from the database later
        await storage_outbox.queue_post(ctx.db, event.id, PostKind.RESULTS, round_number, at=ctx.clock.now())


def _scored(outcome: Outcome) -> bool:
    """The outcome gives the board a result."""
    return isinstance(outcome, (Played, Absent))


async def _noshow_penalty(ctx: Context, event: Event, entry: Entry, round_number: int, now: datetime) -> datetime:
    """Withdraw a player who never moved and ban them from joining the club's events; return the ban's end."""
    system = SYSTEM_ACTOR.name
    if entry.status is EntryStatus.ACTIVE:
        await storage_entries.set_entry_status(
            ctx.db,
            event.id,
            entry.player_id,
            EntryStatus.ABSENT,
            at=now,
            actor=system,
            reason=f"no-show in round {round_number}",
        )
    previous = await storage_players.get_ban(ctx.db, event.guild_id, entry.player_id)
    count = previous.count if previous else 0
    until = now + timedelta(hours=ban_hours(ctx.settings.ban_policy, count))
    await storage_players.set_ban(
        ctx.db,
        event.guild_id,
        entry.player_id,
        until=until,
        count=count + 1,
        reason=f"no-show in {event.name} round {round_number}",
        at=now,
        actor=system,
    )
    return until


def _noshow_dm(event: Event, round_number: int, until: datetime) -> str:
    """What the absent player is told."""
    return (
        f"You did not play your game in {event.name} round {round_number}: you are withdrawn from the event"
        f" and cannot join the club's events until {until:%Y-%m-%d %H:%M} UTC."
    )


async def noshow_deadline(ctx: Context, event_id: int, round_number: int) -> None:
    """Adjudicate the boards whose game never started; withdraw and ban the absent."""
    event = await get_event(ctx.db, event_id)
    if event.current_round == round_number:
        await poll_round(ctx, event_id)
