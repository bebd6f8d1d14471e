"""An organiser corrects the last round's pairing before it is played: a swap, a pair, a bye or a re-pair, each
checked against the system's absolute criteria (one sentence per criterion broken) and applied only when nothing
is broken or the organiser accepts it; and the review hold ends when an organiser confirms the pairing."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace

from bot.director.challenges import carry_out, open_games, plan_cancel
from bot.director.context import Context
from bot.director.lookups import by_player, event_history, player_in_event
from bot.director.models import Actor
from bot.director.rounds import ensure_games
from bot.errors import InvalidSetting, InvalidState, NotOrganiser
from bot.lichess.errors import LichessError
from domain import corrections
from domain.corrections import CorrectionKind, CorrectionRefused, PairingCorrection
from domain.event import EventStatus
from domain.result import GameStatus
from domain.rounds import RoundStatus, RoundSummary
from pairing import checker, systems
from pairing.errors import PairingError
from pairing.model import Board, Pairing, RecordKind
from storage import errors as storage_errors
from storage import games as storage_games
from storage import rounds as storage_rounds
from storage.history import History, build_tournament


@dataclass(frozen=True)
class CorrectionOutcome:
    """A correction's pairing, the criteria it breaks (one sentence each) and whether it was applied."""

    round_number: int
    applied: bool
    problems: tuple[str, ...]
    boards: tuple[tuple[str, str], ...]  # White's and Black's names, in board order
    bye: str | None
    held_until: str | None  # the end of the review hold, "HH:MM UTC" (None: the games are created now)


async def correct_pairing(
    ctx: Context, actor: Actor, event_id: int, kind: CorrectionKind, players: tuple[str, ...], accept: bool
) -> CorrectionOutcome:
    """Correct the last round's pairing (players by Lichess name, Discord id or '#number'); applied when it breaks
    no absolute criterion or `accept` is given, else only shown. Games already created for the round are cancelled
    on Lichess first; a game already begun refuses the correction. The new games are the round's poll job's (the
    scheduler's, in the bot's process: a correction from the command line needs no Discord)."""
    if not actor.is_organiser:
        raise NotOrganiser()
    async with ctx.lock(event_id):
        history = await event_history(ctx.db, event_id)
        current = _correctable(history)
        numbers = {e.player_id: n for n, e in history.numbered.items()}
        names = {n: e.name for n, e in history.numbered.items()}
        chosen = [numbers[(await player_in_event(ctx.db, event_id, who)).player_id] for who in players]
        earlier = build_tournament(replace(history, rounds=history.rounds[:-1]))
        number, system = current.round.number, current.round.system
        correction = PairingCorrection(kind, tuple(chosen))
        if kind is CorrectionKind.REPAIR:
            try:
                pairing = await asyncio.to_thread(systems.engine(system), earlier, number)
            except PairingError as exc:
                raise InvalidState(f"The engine cannot pair round {number} again: {exc}.") from None
        else:
            try:
                pairing = corrections.apply(_pairing(current, numbers), correction, names)
            except CorrectionRefused as exc:
                raise InvalidSetting(str(exc)) from None
        problems = corrections.sentences(checker.check_round(earlier, number, pairing, system), names)
        held = current.round.review_until
        outcome = CorrectionOutcome(
            number,
            applied=not problems or accept,
            problems=tuple(problems),
            boards=tuple((names[b.white], names[b.black]) for b in pairing.boards),
            bye=None if pairing.bye is None else names[pairing.bye],
            held_until=None if held is None or not current.round.held(ctx.clock.now()) else f"{held:%H:%M} UTC",
        )
        if not outcome.applied:
            return outcome
        await _cancel_round_games(ctx, history, number)
        what = corrections.describe(correction, names)
        reason = what if not problems else f"{what}; accepted: {' '.join(problems)}"
        try:
            await storage_rounds.replace_pairing(
                ctx.db, event_id, number, pairing, manual=kind is not CorrectionKind.REPAIR or bool(problems),
                at=ctx.clock.now(), actor=actor.audit_name, reason=reason,
            )  # fmt: skip
        except storage_errors.StorageError as exc:
            raise InvalidState(f"Round {number} cannot be corrected: {exc}.") from None
        await ctx.announcer.notice(history.event, f"Round {number}'s pairing was corrected by {actor.name}: {what}.")
    ctx.changed()  # the round's poll job creates its games (at once, or when the hold ends) and announces them
    return outcome


async def confirm_pairing(ctx: Context, actor: Actor, event_id: int) -> int:
    """End the review hold of the last round's pairing: its games are created now; the round's number."""
    if not actor.is_organiser:
        raise NotOrganiser()
    async with ctx.lock(event_id):
        history = await event_history(ctx.db, event_id)
        current = _correctable(history)
        number = current.round.number
        await storage_rounds.release_hold(ctx.db, event_id, number, at=ctx.clock.now(), actor=actor.audit_name)
        await ensure_games(ctx, history.event, by_player(history.entries), number)
    ctx.changed()
    return number


def _correctable(history: History) -> RoundSummary:
    """The last round, if its pairing can still be corrected (InvalidState in one sentence otherwise)."""
    event = history.event
    if event.status is not EventStatus.RUNNING:
        raise InvalidState(f"{event.name} is {event.status.value}, not running.")
    if not history.rounds or history.rounds[-1].round.status is RoundStatus.FINISHED:
        raise InvalidState(f"{event.name} has no round waiting to be played.")
    current = history.rounds[-1]
    if event.settings.pairing_system.team or event.settings.pairing_system.two_game_matches:
        raise InvalidState(f"A {event.settings.pairing_system.label} event's pairing cannot be corrected by hand.")
    if any(b.result is not None for b in current.boards):
        raise InvalidState(
            f"Round {current.round.number} already has results: correct it board by board (/swiss result)."
        )
    return current


def _pairing(summary: RoundSummary, numbers: dict[int, int]) -> Pairing:
    """The stored round as the engine's pairing (starting numbers)."""
    boards = tuple(Board(b.white_number, b.black_number) for b in summary.boards)
    pab = [numbers[pid] for pid, kind in summary.byes.items() if kind is RecordKind.PAB]
    return Pairing(boards, pab[0] if pab else None)


async def _cancel_round_games(ctx: Context, history: History, number: int) -> None:
    """Cancel the round's games on Lichess once none of them has begun and each can be cancelled (InvalidState in one
    sentence naming the boards and why, before anything is cancelled): the bot's pending challenges with its token, a
    game that exists with its players' tokens (`challenges.plan_cancel`), a bulk not paired yet deleted. An aborted
    game never began (`GameData.begun`). Cancels Lichess refuses after others succeeded keep the pairing: the
    organisers are told which boards are created again and that the correction can be given again."""
    games = await open_games(ctx, history.event.id, number)
    guild = history.event.guild_id
    try:
        exported = await ctx.lichess_of(guild).export_games([g.lichess_id for g in games if g.lichess_id])
    except LichessError as exc:
        raise InvalidState(f"Lichess cannot tell whether round {number}'s games have begun ({exc}).") from None
    begun = sorted(g.id for g in exported if g.begun)
    if begun:
        raise InvalidState(
            f"Round {number} has games in play on Lichess ({', '.join(begun)}): correct it board by board through "
            "results (/swiss result)."
        )
    try:
        plan = await plan_cancel(ctx, guild, games, exported)
    except LichessError as exc:
        raise InvalidState(f"Lichess cannot tell how round {number}'s games can be cancelled ({exc}).") from None
    if plan.refused:
        why = "; ".join(f"board {board}: {reason}" for board, reason in plan.refused)
        raise InvalidState(
            f"Round {number} cannot be corrected, as its games on Lichess cannot be cancelled ({why}); nothing was"
            " changed."
        )
    cancelled = {g.id for g in await carry_out(ctx, guild, plan)}
    left = sorted(p.board_no for p in plan.planned if p.game.id not in cancelled)
    if not left:
        aborted = {g.id for g in exported if g.status == "aborted"}
        for game in games:  # aborted on Lichess and not polled yet: nothing to cancel, the attempt is over
            if game.lichess_id in aborted:
                await storage_games.update_game(ctx.db, game.id, GameStatus.ABORTED, at=ctx.clock.now())
        return
    done = sorted(p.board_no for p in plan.planned if p.game.id in cancelled)
    refused = f"Lichess did not cancel round {number}'s game on board(s) {_boards(left)}, so its pairing is unchanged"
    if not done:
        raise InvalidState(f"{refused}; nothing was cancelled: try again.")
    told = (
        f"{refused}; the games of board(s) {_boards(done)} were cancelled and are created again under this pairing"
        " at the bot's next poll. Giving the correction again is safe: it cancels what is left, then corrects."
    )
    await ctx.announcer.notice(history.event, told)
    raise InvalidState(told)


def _boards(numbers: list[int]) -> str:
    """Board numbers as organisers read them: "1, 3"."""
    return ", ".join(str(n) for n in numbers)
