"""A round in play: read its games back, adjudicate, apply the decisions, withdraw and ban the no-shows."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from bot.director.bulk import bulk_game_rows
from bot.director.challenges import cancel_games
from bot.director.context import Context
from bot.director.endings import finish_round, show_results
from bot.director.lookups import OVER, get_event, get_round, latest_games
from bot.director.models import SYSTEM_ACTOR
from bot.director.queries import pairings
from bot.director.results import Decision, decide
from bot.director.rounds import ensure_games
from bot.lichess.errors import LichessError
from storage import audit as storage_audit
from storage import entries as storage_entries
from storage import games as storage_games
from storage import players as storage_players
from storage import results as storage_results
from storage import rounds as storage_rounds
from storage.history import is_decided
from storage.records import BoardRow, Entry, EntryStatus, Event, GameRow, GameStatus, RoundStatus


async def poll_round(ctx: Context, event_id: int, only: frozenset[str] | None = None) -> None:
    """Read the round's games, adjudicate, store results; when all are in, standings and next round.

    `only`: read just these Lichess games (the game stream says they finished), not every live one.
    """
    async with ctx.lock(event_id):
        await _poll(ctx, event_id, only)
    ctx.changed()


async def _poll(ctx: Context, event_id: int, only: frozenset[str] | None = None) -> None:
    """One look at the last round: its missing games created, its live games decided, finished when all are."""
    async with ctx.db.snapshot():
        event = await get_event(ctx.db, event_id)
        last = await storage_rounds.last_round(ctx.db, event_id)
    if last is None or last.round.status is RoundStatus.FINISHED or event.status in OVER:
        return
    number = last.round.number
    await ensure_games(ctx, event_id, number)
    async with ctx.db.snapshot():
        summary = await get_round(ctx.db, event, number)
        games = await storage_games.games_of_round(ctx.db, event_id, number)
        people = {e.player_id: e for e in await storage_entries.list_entries(ctx.db, event_id)}
    rnd = summary.round
    latest = latest_games(games)
    boards = [b for b in summary.boards if b.result is None]
    live = {b.id: latest[b.id] for b in boards if b.id in latest and latest[b.id].status is GameStatus.CREATED}
    if only is not None:
        live = {board_id: game for board_id, game in live.items() if game.lichess_id in only}
    if rnd.started_at is not None and live:
        try:
            exported = await ctx.lichess.export_games([g.lichess_id for g in live.values() if g.lichess_id])
        except LichessError as exc:
            await ctx.announcer.notice(event, f"Could not read the games of round {number} ({exc}); retrying.")
            return
        data = {g.id: g for g in exported}
        now = ctx.clock.now()
        noshow = timedelta(seconds=event.settings.no_show_seconds)
        clocked = await bulk_game_rows(ctx, event_id, number)  # their clocks find the no-shows, not a deadline
        decisions: list[tuple[BoardRow, GameRow, Decision, Any]] = []
        for board in boards:
            game = live.get(board.id)
            if game is None or game.lichess_id is None:
                continue
            got = data.get(game.lichess_id)
            # From when the game really exists on Lichess: the row's last update made it 'created'.
            deadline = max(rnd.started_at, game.updated_at) + noshow
            replayed = _recreated_after_abort(games, game)
            decision = decide(
                got,
                deadline_passed=now >= deadline and game.id not in clocked,
                policy=event.settings.early_draw_policy,
                early_draw_moves=event.settings.early_draw_moves,
                recreated_before=replayed,
            )
            if decision.result is not None or decision.replay or decision.review:
                decisions.append((board, game, decision, dict(got.raw) if got else None))
        if decisions:
            await _apply(ctx, event, decisions, people)
    if is_decided(await get_round(ctx.db, event, number)):
        await finish_round(ctx, event_id, number)


def _recreated_after_abort(games: list[GameRow], game: GameRow) -> bool:
    """Whether `game` re-creates an aborted game: its board's previous game on Lichess was replaced after an
    abort (a replay of an early draw does not count, so every attempt gets its own re-creation)."""
    earlier = [g for g in games if g.board_id == game.board_id and g.attempt < game.attempt and g.lichess_id]
    if not earlier:
        return False
    previous = max(earlier, key=lambda g: g.attempt)
    if previous.status is not GameStatus.REPLACED or previous.data is None:
        return False
    data = json.loads(previous.data)
    return isinstance(data, dict) and data.get("status") == "aborted"


async def _apply(
    ctx: Context, event: Event, decisions: list[tuple[BoardRow, GameRow, Decision, Any]], people: dict[int, Entry]
) -> None:
    """Store the decisions in one transaction, then tell the organisers and the absent, re-create replayed games
    and update the round's message."""
    now = ctx.clock.now()
    notices: list[str] = []
    dms: list[tuple[int, str]] = []
    replays = False
    system = SYSTEM_ACTOR.name
    async with ctx.db.transaction():
        for board, game, decision, raw in decisions:
            subject = f"round:{board.round}:board:{board.board_no}"
            if decision.replay:
                await storage_games.update_game(ctx.db, game.id, GameStatus.REPLACED, at=now, data=raw)
                await storage_audit.record_action(
                    ctx.db,
                    at=now,
                    actor=system,
                    action="game.replay",
                    subject=subject,
                    event_id=event.id,
                    before=game.lichess_id,
                    reason=decision.detail,
                )
                notices.append(f"Round {board.round} board {board.board_no}: {decision.detail}.")
                replays = True
                continue
            if decision.review:
                if not await storage_audit.logged(ctx.db, event_id=event.id, action="result.review", subject=subject):
                    await storage_audit.record_action(
                        ctx.db,
                        at=now,
                        actor=system,
                        action="result.review",
                        subject=subject,
                        event_id=event.id,
                        reason=decision.detail,
                    )
                    notices.append(f"Round {board.round} board {board.board_no}: {decision.detail} (/swiss result).")
                continue
            assert decision.result is not None
            await storage_results.record_result(
                ctx.db,
                board.id,
                decision.result,
                at=now,
                actor=system,
                game_id=game.lichess_id,
                game_data=raw,
                reason=decision.detail,
            )
            ended = GameStatus.FINISHED if raw else GameStatus.ABORTED
            await storage_games.update_game(ctx.db, game.id, ended, at=now, data=raw)
            for colour in decision.absent:
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
    unplayed = [g for _, g, d, raw in decisions if d.result is not None and (raw or {}).get("status") == "started"]
    await cancel_games(ctx, unplayed)  # a forfeit on a game nobody moved in: abort it on Lichess
    if replays:
        await ensure_games(ctx, event.id, decisions[0][0].round)
    if any(d.result is not None for _, _, d, _ in decisions):
        await show_results(ctx, event, await pairings(ctx, event.id, decisions[0][0].round))


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
    until = now + timedelta(hours=ctx.settings.ban_policy.hours(count))
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
