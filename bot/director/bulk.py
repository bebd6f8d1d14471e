"""A round's games as bulk pairings: the boards whose two players gave the bot a valid token.

Lichess creates a bulk's games directly for both players (no challenge to accept) and starts their clocks
by itself at `startClocksAt` (the round's start + the event's no-show grace), so an absent player loses on
time and no invented deadline is needed. A bulk is all or nothing: the tokens are tested first
(`tokens.valid_tokens`); if Lichess still refuses some, their boards fall back to open challenges and the
bulk is sent once more without them. Other boards keep the open challenge (`rounds.ensure_games`).

Restart safety: the bulk and a 'creating' attempt per board are written in one transaction before the
request, the bulk's id and game ids in one transaction after it. A bulk still 'creating' (a kill, a lost
reply) is looked for among the bot's bulks on Lichess (`GET /api/bulk-pairing`: lila lists the token's own bulks,
with their games' ids and players) by what the attempt wrote before the request (its games' players and the
`startClocksAt` it chose, to the millisecond), never a bulk stored for another attempt; it is created again only
when Lichess has none.

Lichess's limits (500 games a bulk and per 10 minutes, 20 scheduled bulks and 1000 scheduled games per token,
shared by every event of the bot) are planned ahead by the token's `bot.lichess.budget.BulkLedger`: the boards
the window has room for within seconds wait for the next poll (a staggered bulk: a round's games still exist
within a minute of its pairing), the others that do not fit are open challenges at once, and the organisers are
told once a round. A bulk Lichess refuses as a whole (a 429 nevertheless, a queue full) did nothing there: its
boards get the open challenge at once. The bot's own token needs `challenge:bulk` (`ctx.bulk_pairing`, decided at
start by `bot_may_bulk`), and so does a club's own token (`ctx.bulk_pairing_of`); a club with its own token pairs
with it and keeps its own budget (`ctx.lichess_of`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bot.director.context import Context
from bot.director.lichess_port import LichessPort
from bot.director.lookups import get_round
from bot.director.models import SYSTEM_ACTOR
from bot.director.tokens import invalidate, valid_tokens
from bot.errors import InvalidState
from bot.lichess.budget import BulkPlan, SpentBulk
from bot.lichess.errors import LichessBadRequest, LichessError, LichessRateLimited, LichessTokensRefused
from bot.lichess.payloads import BulkPairing, TokenInfo
from bot.lichess.scopes import CHALLENGE_BULK
from domain.entry import Entry
from domain.event import Event
from domain.result import GameRow, GameStatus
from domain.rounds import BoardRow
from storage import audit as storage_audit
from storage import bulks as storage_bulks
from storage import games as storage_games
from storage.bulks import BulkAttempt, BulkBoard

LOG = logging.getLogger(__name__)

BULK_RULES = ("noAbort", "noRematch", "noGiveTime", "noClaimWin", "noEarlyDraw")
BULK_TRIES = 2  # a board goes to at most two bulks (the retry after a refused token), then to the fallback
ROUND_GAMES_WITHIN = 60.0  # seconds: a round's games exist this soon after its pairing, bulk or open challenge
BUDGET_SPENT = "bulk.budget"  # audit action: the token's bulk budget sent some boards of a round to open challenges
BULK_LOST = "bulk.recreated"  # audit action: an unconfirmed bulk was not on Lichess (the organisers told once a round)


async def bot_may_bulk(lichess: LichessPort, bot_token: str) -> str | None:
    """Why the bot's token cannot create bulk pairings (None: it can); asked once, at start (`bot.assembly`)."""
    try:
        info: TokenInfo | None = (await lichess.test_tokens([bot_token])).get(bot_token)
    except LichessError as exc:
        return f"could not check the bot's token ({exc}); every board is an open challenge"
    if info is None or CHALLENGE_BULK.name not in info.scopes:
        return f"the bot's Lichess token lacks the {CHALLENGE_BULK.name} scope: every board is an open challenge"
    try:  # the token's budget starts with what it spent before this process (else at the first bulk)
        lichess.bulk_ledger.seed(await lichess.list_bulks())
    except LichessError as exc:
        LOG.warning("bulk pairing: could not list the bot's bulks at start (%s)", exc)
    return None


def bulk_game_name(event: Event, round_number: int, board: int, attempt: int) -> str:
    """The attempt's name in the database (a bulk game has no challenge name on Lichess): unique per attempt."""
    return f"{event.name[:80]} #{event.id} R{round_number} B{board} bulk G{attempt}"


async def bulk_game_rows(ctx: Context, event_id: int, round_number: int) -> set[int]:
    """The game attempt rows of a round that are bulk games (their clocks start by themselves)."""
    return {g.game_row_id for b in await storage_bulks.bulks_of_round(ctx.db, event_id, round_number) for g in b.games}


@dataclass(frozen=True)
class BulkHold:
    """The boards of a round the open-challenge path must leave alone for now (both are tried again next poll)."""

    unconfirmed: frozenset[int] = frozenset()  # a bulk not confirmed yet holds them: looked up again
    budget: frozenset[int] = frozenset()  # they wait seconds for the token's bulk budget (a staggered bulk)


async def ensure_bulk_games(ctx: Context, event: Event, people: dict[int, Entry], round_number: int) -> BulkHold:
    """Resolve the round's unconfirmed bulks, then pair the eligible boards in bulks; the boards held for now (the
    open-challenge path must leave them alone). `people`: the entries by player id."""
    event_id = event.id
    attempts = await storage_bulks.bulks_of_round(ctx.db, event_id, round_number)
    pending = [b for b in attempts if b.status == "creating"]
    if pending:
        try:
            await _resolve(ctx, event, ctx.lichess_of(event.guild_id), pending)
        except LichessError as exc:
            LOG.warning("bulk pairing: could not look up %d unconfirmed bulk(s): %s", len(pending), exc)
            return BulkHold(unconfirmed=frozenset(g.board_id for b in pending for g in b.games))
    if not ctx.bulk_pairing_of(event.guild_id) or ctx.vault is None:
        return BulkHold()
    held: frozenset[int] = frozenset()
    for _ in range(BULK_TRIES):
        boards = await _eligible(ctx, event, round_number)
        if not boards:
            break
        try:
            refused, held = await _create(ctx, event, people, round_number, boards)
        except LichessError as exc:
            LOG.warning("bulk pairing: round %d of event %d not confirmed: %s", round_number, event_id, exc)
            left = await storage_bulks.bulks_of_round(ctx.db, event_id, round_number)
            return BulkHold(unconfirmed=frozenset(g.board_id for b in left if b.status == "creating" for g in b.games))
        if not refused:
            break
    return BulkHold(budget=held)


async def _resolve(ctx: Context, event: Event, lichess: LichessPort, pending: Sequence[BulkAttempt]) -> None:
    """Find each unconfirmed bulk among the bot's bulks on Lichess (`GET /api/bulk-pairing`) by what the attempt wrote
    before sending it: the same games (white, black) and `startClocksAt` to the millisecond, the event's clock, and
    a bulk id stored for no other attempt."""
    listed = await lichess.list_bulks()
    taken = await storage_bulks.stored_bulk_ids(ctx.db, [b.id for b in listed])
    clock = (event.settings.clock_limit, event.settings.clock_increment)
    now = ctx.clock.now()
    for attempt in pending:
        found = next((b for b in listed if b.id not in taken and _same(attempt, b, clock)), None)
        if found is None:
            LOG.info("bulk pairing: attempt %d is not on Lichess; its boards are paired again", attempt.id)
            await storage_bulks.bulk_failed(ctx.db, attempt.id, at=now)
            await _tell_lost(ctx, event, attempt)
            continue
        LOG.info("bulk pairing: attempt %d was created on Lichess as %s", attempt.id, found.id)
        taken.add(found.id)
        await storage_bulks.bulk_created(ctx.db, attempt.id, found.id, _game_ids(attempt, found), at=now)


async def _tell_lost(ctx: Context, event: Event, attempt: BulkAttempt) -> None:
    """Tell the organisers, once a round, that an unconfirmed bulk is not on Lichess and its boards are paired again."""
    subject = f"round {attempt.round}"
    if await storage_audit.logged(ctx.db, event_id=event.id, action=BULK_LOST, subject=subject):
        return
    await storage_audit.record_action(
        ctx.db, at=ctx.clock.now(), actor=SYSTEM_ACTOR.name, action=BULK_LOST, subject=subject, event_id=event.id,
        reason=f"bulk attempt {attempt.id} ({len(attempt.games)} games) is not on Lichess",
    )  # fmt: skip
    await ctx.announcer.notice(
        event,
        f"Round {attempt.round}: a bulk pairing of {len(attempt.games)} game(s) being created when the bot stopped (or"
        " whose reply was lost) is not on Lichess; its boards are paired again.",
    )


def _same(attempt: BulkAttempt, bulk: BulkPairing, clock: tuple[int, int]) -> bool:
    """Whether Lichess's `bulk` is the attempt's: its games, its clocks' start and its clock."""
    ours = {(g.white, g.black) for g in attempt.games}
    theirs = {(g.white, g.black) for g in bulk.games}
    starts = round(attempt.start_clocks_at.timestamp() * 1000)
    shown = bulk.raw.get("clock")
    if isinstance(shown, dict) and (shown.get("limit"), shown.get("increment")) != clock:
        return False
    return ours == theirs and bulk.start_clocks_at == starts


def _game_ids(attempt: BulkAttempt, bulk: BulkPairing) -> dict[int, str]:
    by_players = {(g.white, g.black): g.id for g in bulk.games}
    return {g.game_row_id: by_players[(g.white, g.black)] for g in attempt.games}


async def _eligible(ctx: Context, event: Event, round_number: int) -> list[tuple[BoardRow, str, str, int]]:
    """Undecided boards never created but in bulks (fewer than `BULK_TRIES`) since their last game was replaced (an
    abort's or an early draw's replacement is a bulk pairing like the first game), whose two players have valid
    tokens: (board, white token, black token, the attempt number)."""
    summary = await get_round(ctx.db, event, round_number)
    games = await storage_games.games_of_round(ctx.db, event.id, round_number)
    in_bulks = await bulk_game_rows(ctx, event.id, round_number)
    by_board: dict[int, list[GameRow]] = {}
    for game in games:
        by_board.setdefault(game.board_id, []).append(game)
    candidates = []
    for board in summary.boards:
        tries = sorted(by_board.get(board.id, []), key=lambda g: g.attempt)
        replaced = [i for i, g in enumerate(tries) if g.status is GameStatus.REPLACED]
        since = tries[replaced[-1] + 1 :] if replaced else tries
        if board.result is not None or any(g.status is not GameStatus.FAILED or g.id not in in_bulks for g in since):
            continue
        if len(since) < BULK_TRIES:
            candidates.append((board, len(tries) + 1))
    if not candidates:
        return []
    ids = {p for board, _ in candidates for p in (board.white_id, board.black_id)}
    tokens = await valid_tokens(ctx, ids, context=f"{event.name} round {round_number}")
    return [
        (board, tokens[board.white_id], tokens[board.black_id], attempt)
        for board, attempt in candidates
        if board.white_id in tokens and board.black_id in tokens
    ]


async def _create(
    ctx: Context,
    event: Event,
    people: dict[int, Entry],
    round_number: int,
    boards: Sequence[tuple[BoardRow, str, str, int]],
) -> tuple[bool, frozenset[int]]:
    """Send the boards the token's budget has room for in bulks (`bot.lichess.budget`); the boards the window has
    room for within `bulk_patience` wait for the next poll; the others are left to the open challenges (the
    organisers are told once). Whether Lichess refused some tokens (the caller retries), and the boards waiting."""
    ledger = ctx.lichess_of(event.guild_id).bulk_ledger
    if not ledger.seeded:  # not listed at start (`bot_may_bulk`): what the token spent before this process
        ledger.seed(await ctx.lichess_of(event.guild_id).list_bulks())
    decided, reservations = ledger.take(len(boards), patience=bulk_patience(ctx))
    sent = decided.bulked
    waiting = frozenset(board.id for board, _, _, _ in boards[sent : sent + decided.waiting])
    if decided.fallback:
        await _tell_fallback(ctx, event, round_number, decided)
    summary = await get_round(ctx.db, event, round_number)
    begin = summary.round.started_at or summary.round.paired_at
    start_clocks = max(begin, ctx.clock.now()) + timedelta(seconds=event.settings.no_show_seconds)
    refused = False
    unused = list(reservations)
    try:
        offset = 0
        for size, reservation in zip(decided.bulks, reservations, strict=True):
            unused.remove(reservation)
            chunk, offset = boards[offset : offset + size], offset + size
            refused |= await _send(ctx, event, people, round_number, chunk, start_clocks, reservation)
    finally:
        for reservation in unused:  # planned but never sent: the room comes back
            ledger.release(reservation)
    return refused, waiting


def bulk_patience(ctx: Context) -> float:
    """How long boards may wait for the token's bulk budget: a round's games exist within a minute of its pairing
    (the next poll sends them)."""
    return max(0.0, ROUND_GAMES_WITHIN - ctx.settings.poll_interval)


async def _tell_fallback(ctx: Context, event: Event, round_number: int, decided: BulkPlan) -> None:
    """Tell the organisers, once a round, that some boards are open challenges because the budget is spent."""
    subject = f"round {round_number}"
    if await storage_audit.logged(ctx.db, event_id=event.id, action=BUDGET_SPENT, subject=subject):
        return
    limits = ctx.lichess_of(event.guild_id).bulk_ledger.limits
    again = (
        f" The budget has room again at {datetime.fromtimestamp(decided.room_again_at, UTC):%H:%M} UTC."
        if decided.room_again_at is not None
        else ""
    )
    text = (
        f"Round {round_number}: Lichess allows a bot account {limits.games_per_window} bulk-paired games every"
        f" {limits.window_seconds / 60:.0f} minutes ({limits.scheduled_bulks} bulks and {limits.scheduled_games} games"
        f" scheduled), shared by every event of the bot: {decided.bulked} board(s) are bulk pairings and"
        f" {decided.fallback} are open challenges, which the players accept on Lichess.{again}"
    )
    await storage_audit.record_action(
        ctx.db, at=ctx.clock.now(), actor=SYSTEM_ACTOR.name, action=BUDGET_SPENT, subject=subject,
        event_id=event.id, reason=f"{decided.bulked} bulk, {decided.fallback} open",
    )  # fmt: skip
    await ctx.announcer.notice(event, text)


async def _send(
    ctx: Context,
    event: Event,
    people: dict[int, Entry],
    round_number: int,
    chunk: Sequence[tuple[BoardRow, str, str, int]],
    start_clocks: datetime,
    reservation: SpentBulk,
) -> bool:
    """One bulk of at most 500 games; True if Lichess refused some tokens (the room of the failed bulk comes back,
    as a failed bulk is free on Lichess)."""
    lichess = ctx.lichess_of(event.guild_id)
    ledger = lichess.bulk_ledger
    rows = []
    for board, _, _, attempt in chunk:
        white, black = people[board.white_id].lichess_id, people[board.black_id].lichess_id
        if white is None or black is None:
            raise InvalidState("a paired player has no linked Lichess account")
        name = bulk_game_name(event, round_number, board.board_no, attempt)
        rows.append(BulkBoard(board.id, name, white, black))
    attempt_row = await storage_bulks.begin_bulk(
        ctx.db, event.id, round_number, rows, start_clocks_at=start_clocks, at=ctx.clock.now()
    )
    try:
        reply = await lichess.create_bulk(
            [(w, b) for _, w, b, _ in chunk],
            clock_limit=event.settings.clock_limit,
            clock_increment=event.settings.clock_increment,
            rated=event.settings.rated,
            rules=BULK_RULES,
            start_clocks_at_ms=round(start_clocks.timestamp() * 1000),
            message=(
                f"{event.name[:100]} round {round_number}: your game with {{opponent}} is ready: {{game}}"
                f" (the clocks start by themselves at {start_clocks:%H:%M} UTC)."
            ),
        )
    except LichessTokensRefused as exc:
        ledger.release(reservation)
        await storage_bulks.bulk_failed(ctx.db, attempt_row.id, at=ctx.clock.now())
        bad = {
            pid
            for board, w, b, _ in chunk
            for pid, token in ((board.white_id, w), (board.black_id, b))
            if token in exc.tokens
        }
        await invalidate(ctx, bad, context=f"{event.name} round {round_number}")
        return True
    except (LichessRateLimited, LichessBadRequest) as exc:
        # Lichess did nothing: the boards go to the open challenges at once. A 429 the ledger did not foresee
        # (another user of the token) counts the window as full.
        ledger.release(reservation)
        if isinstance(exc, LichessRateLimited):
            ledger.exhausted()
        await storage_bulks.bulk_failed(ctx.db, attempt_row.id, at=ctx.clock.now())
        await ctx.announcer.notice(event, f"Round {round_number}: Lichess refused a bulk pairing ({exc}).")
        raise
    await storage_bulks.bulk_created(
        ctx.db, attempt_row.id, reply.id, _game_ids(attempt_row, reply), at=ctx.clock.now()
    )
    return False
