"""A round's start: pair, store, create every Lichess game (finding a half-done one first), announce."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from bot.director import teams
from bot.director.bulk import ensure_bulk_games
from bot.director.context import Context
from bot.director.endings import decide_board, send_posts
from bot.director.lookups import active_entries, by_player, event_history, get_round, latest_games
from bot.director.members import check_entries_at_start
from bot.director.models import SYSTEM_ACTOR
from bot.director.queries import round_view
from bot.director.round_pairing import pair_round
from bot.errors import InvalidState
from bot.lichess.errors import LichessBadRequest, LichessError, LichessUserNotFound
from domain.entry import Entry, EntryStatus
from domain.event import Event, EventStatus
from domain.result import GameRow, GameStatus, Result
from domain.rounds import BoardRow, RoundStatus, RoundSummary, is_second_game
from pairing.model import RecordKind
from storage import audit as storage_audit
from storage import entries as storage_entries
from storage import errors as storage_errors
from storage import events as storage_events
from storage import games as storage_games
from storage import rounds as storage_rounds
from storage.history import History

FIND_SLACK = timedelta(minutes=1)  # clocks differ a little between the bot and Lichess
FIND_TRIES = 5
RECREATED = "game.recreated"  # audit action: an interrupted create was not on Lichess (the organisers told once)


async def start_round(ctx: Context, event_id: int, round_number: int) -> None:
    """Pair, store, create every game, announce; idempotent (does only what is missing). The event's state is
    read once at the start and passed down (again only where the job itself changed it)."""
    async with ctx.lock(event_id):
        history = await event_history(ctx.db, event_id)
        event, rounds = history.event, history.rounds
        if any(r.round.number == round_number for r in rounds):
            await ensure_games(ctx, event, by_player(history.entries), round_number)
            return
        if event.status not in (EventStatus.OPEN, EventStatus.RUNNING):
            return
        if round_number != len(rounds) + 1 or round_number > event.settings.rounds:
            return
        if rounds and rounds[-1].round.status is not RoundStatus.FINISHED:
            return
        if ctx.before_pairing is not None:
            await ctx.before_pairing(event_id, round_number)
            history = await event_history(ctx.db, event_id)  # the demo's members acted on the event
        paired = await _pair(ctx, history, round_number)
        if paired is not None:
            await ensure_games(ctx, paired.event, by_player(paired.entries), round_number)
    ctx.changed()


async def _pair(ctx: Context, history: History, round_number: int) -> History | None:
    """Pair and store a round; the event's state it was stored on (the event's row as storing left it), or None
    if the event ended (or had to wait) instead."""
    now = ctx.clock.now()
    event_id, event = history.event.id, history.event
    if event.status is EventStatus.OPEN:
        await check_entries_at_start(ctx, event_id)  # Lichess's entry conditions again, and today's ratings
        active = active_entries(await storage_entries.list_entries(ctx.db, event_id))
        if len(active) < ctx.settings.min_players:
            later = now + timedelta(seconds=ctx.settings.retry_after)
            await set_next_round_at(ctx, event_id, later)
            if not await storage_audit.logged(ctx.db, event_id=event_id, action=SHORT, subject="round:1"):
                await storage_audit.record_action(
                    ctx.db, at=now, actor=SYSTEM_ACTOR.name, action=SHORT, subject="round:1", event_id=event_id,
                    reason=f"{len(active)} of {ctx.settings.min_players} players",
                )  # fmt: skip
                await ctx.announcer.notice(
                    event,
                    f"Not enough players to start ({len(active)} of the {ctx.settings.min_players} needed):"
                    f" the bot tries again every {_every(ctx.settings.retry_after)} and starts as soon as enough"
                    " have joined (/swiss cancel ends the event).",
                )
            return None
        try:
            await storage_entries.start_event(ctx.db, event_id, at=now, actor=SYSTEM_ACTOR.name)
        except storage_errors.WrongStatus as exc:
            raise InvalidState(str(exc)) from None
        history = await event_history(ctx.db, event_id)  # starting numbers and ratings as the start set them
    if teams.is_team_event(event):  # Team Swiss: matches of teams laid out as board games (bot.director.teams)
        stored = await teams.pair_team_round(ctx, history, round_number)
        return None if stored is None else replace(history, event=stored)
    # Building the engine's input and pairing are pure-Python work on the whole history: in a worker process.
    paired = await pair_round(ctx, history, round_number)
    if paired is None:
        return None
    system, pairing = paired
    review = event.settings.pairing_review
    held = now + timedelta(minutes=review) if review else None
    async with ctx.db.transaction():
        await storage_rounds.store_pairing(
            ctx.db, event_id, round_number, pairing, at=now, actor=SYSTEM_ACTOR.name, system=system,
            review_until=held,
        )  # fmt: skip
        stored = await storage_events.set_next_round_at(ctx.db, event_id, None)
    if held is not None:
        await ctx.announcer.notice(
            event,
            f"Round {round_number} is paired and held for review: its games are created at {held:%H:%M} UTC, or "
            "when an organiser confirms it (/arbiter confirm); /arbiter swap|pair|bye|repair correct it.",
        )
    ctx.changed()
    return replace(history, event=stored)


def _every(seconds: float) -> str:
    """A retry period as organisers read it: "minute", "5 minutes", "30 seconds"."""
    if seconds == 60:
        return "minute"
    return f"{seconds / 60:g} minutes" if seconds >= 60 else f"{seconds:g} seconds"


async def set_next_round_at(ctx: Context, event_id: int, when: datetime | None) -> None:
    """When the event's next round starts (None: not scheduled); the jobs are rebuilt."""
    await storage_events.set_next_round_at(ctx.db, event_id, when)
    ctx.changed()


def challenge_name(event: Event, round_number: int, board: int, attempt: int) -> str:
    """The Lichess challenge's name: unique per event, round, board and attempt (looked up after a restart)."""
    name = f"{event.name[:80]} #{event.id} R{round_number} B{board}"
    return name if attempt == 1 else f"{name} G{attempt}"


REFUSED = "game.refused"  # audit action: Lichess refused a board's game; the board is held for an organiser
SHORT = "start.short"  # audit action: too few players at the start time (the organisers told once)
TROUBLE = "games.trouble"  # audit action: Lichess failed to create a round's games (the organisers told once)


def board_subject(round_number: int, board_no: int) -> str:
    """The audit log's subject for a board."""
    return f"round:{round_number}:board:{board_no}"


async def ensure_games(ctx: Context, event: Event, people: dict[int, Entry], round_number: int) -> None:
    """Create the Lichess game of every undecided board that lacks one (bulk pairings first, then open
    challenges); start the round when every board has one or is held. A game Lichess refuses holds (or forfeits)
    that board alone; trouble on Lichess's side, or a bulk pairing not confirmed yet, leaves the rest for the
    next attempt. `event` and `people` (the entries by player id) are the state the calling job read."""
    event_id = event.id
    if (await get_round(ctx.db, event, round_number)).round.held(ctx.clock.now()):
        return  # the organisers review the pairing; the hold's end (a poll job) or their confirmation goes on
    forfeited = await _forfeit_gone(ctx, event, people, round_number)
    hold = await ensure_bulk_games(ctx, event, people, round_number)  # bulk pairings first (bot.director.bulk)
    async with ctx.db.snapshot():
        summary = await get_round(ctx.db, event, round_number)
        all_games = await storage_games.games_of_round(ctx.db, event_id, round_number)
    latest = latest_games(all_games)
    known_ids = {g.lichess_id for g in all_games if g.lichess_id}
    trouble: str | None = None
    refused: list[tuple[BoardRow, str]] = []
    for board in summary.boards:
        if board.result is not None:
            continue
        game = latest.get(board.id)
        if game is not None and game.status in (GameStatus.CREATED, GameStatus.FINISHED):
            continue
        if board.id in hold.unconfirmed:  # an unconfirmed bulk pairing holds it: looked up again next time
            trouble = trouble or f"board {board.board_no}: its bulk pairing is not confirmed yet"
            continue
        if board.id in hold.budget:  # the token's bulk budget has room for it in seconds: the next poll sends it
            continue
        subject = board_subject(round_number, board.board_no)
        if (
            game is not None
            and game.status is GameStatus.FAILED
            and await storage_audit.logged(ctx.db, event_id=event_id, action=REFUSED, subject=subject)
        ):
            continue  # held for an organiser since Lichess refused it
        white, black = _lichess_id(people[board.white_id]), _lichess_id(people[board.black_id])
        try:
            created = await _create_game(ctx, event, board, game, white, black, known_ids)
        except LichessBadRequest as exc:
            refused.append((board, str(exc)))
            continue  # this board only: the others still get their games
        except LichessError as exc:
            trouble = f"board {board.board_no}: {exc}"
            break  # Lichess is in trouble: leave the rest for the next attempt
        known_ids.add(created)
    for board, why in refused:
        forfeited = await _refused(ctx, event, board, people, why) or forfeited
    if forfeited:  # results like any other: shown now (by the pairing post when that is still to come)
        await send_posts(ctx, event_id)
    if trouble is not None:
        subject = f"round:{round_number}"
        if not await storage_audit.logged(ctx.db, event_id=event_id, action=TROUBLE, subject=subject):
            await storage_audit.record_action(
                ctx.db, at=ctx.clock.now(), actor=SYSTEM_ACTOR.name, action=TROUBLE, subject=subject,
                event_id=event_id, reason=trouble,
            )  # fmt: skip
            await ctx.announcer.notice(
                event,
                f"Lichess did not create every game of round {round_number} ({trouble}); retrying at every poll.",
            )
        return
    if hold.budget:
        return  # the round starts when its last games exist
    if summary.round.status is RoundStatus.PAIRED:
        await storage_rounds.mark_round_started(ctx.db, event_id, round_number, at=ctx.clock.now())
    await _announce_round(ctx, event, people, round_number)


async def _forfeit_gone(ctx: Context, event: Event, people: dict[int, Entry], round_number: int) -> bool:
    """Boards a player is paired on without playing, decided by forfeit before any game is created: a player who
    left while the round's pairing was held for review, a Double-Swiss match's second game whose player left after
    the first (C.04.5: the match is still one pairing), and a team match's board that a team short of players
    defaults (its absent player: gone, or on a bye). Before the round starts, a player who left loses a bye of it
    worth points (`_void_byes`). True when it decided a board."""
    event_id = event.id
    second_game = is_second_game(event, round_number)
    byes_count = second_game or teams.is_team_event(event)  # elsewhere a paired player has no bye of the round
    on_bye: set[int] = set()
    async with ctx.db.snapshot():
        if byes_count:
            # Read again, not taken from the job's start: a player who left while the round was paired loses here.
            people = {e.player_id: e for e in await storage_entries.list_entries(ctx.db, event_id)}
            on_bye = {
                b.player_id for b in await storage_entries.bye_requests(ctx.db, event_id) if b.round == round_number
            }
        summary = await get_round(ctx.db, event, round_number)
        left = {pid for pid, entry in people.items() if entry.status is not EntryStatus.ACTIVE}
        gone = left | on_bye
        tried = {g.board_id for g in await storage_games.games_of_round(ctx.db, event_id, round_number)}
    if not byes_count and summary.round.status is RoundStatus.PAIRED:
        await _void_byes(ctx, event, round_number, summary, people, left)
    if not any(b.white_id in gone or b.black_id in gone for b in summary.boards if b.result is None):
        return False
    now = ctx.clock.now()
    decided = False
    for board in summary.boards:
        if board.result is not None or board.id in tried:
            continue
        white_gone, black_gone = (pid in gone for pid in (board.white_id, board.black_id))
        if not (white_gone or black_gone) or (second_game and white_gone and black_gone):
            continue  # both play; or (two-game matches) both gone, which pairing settled with zero-point byes
        if white_gone and black_gone:
            result, reason = Result.DOUBLE_FORFEIT, "both players are absent"
        else:
            result = Result.BLACK_WINS_FORFEIT if white_gone else Result.WHITE_WINS_FORFEIT
            name = people[board.white_id if white_gone else board.black_id].name
            reason = (
                f"{name} left after the match's first game"
                if second_game
                else f"{name} is absent"
                if byes_count
                else f"{name} left before the game"
            )
        await decide_board(ctx, board, result, actor=SYSTEM_ACTOR.name, reason=reason, at=now)
        decided = True
    return decided


async def _void_byes(
    ctx: Context, event: Event, round_number: int, summary: RoundSummary, people: dict[int, Entry], left: set[int]
) -> None:
    """A player who left before the round's games exist (a pairing held for review) gets no points for it: their
    pairing-allocated or half-point bye becomes a zero-point bye (as `planned_byes` gives a player not active), and
    the organisers are told."""
    if not any(summary.byes.get(pid) in storage_rounds.VOIDABLE for pid in left):
        return
    voided = await storage_rounds.void_byes(
        ctx.db, event.id, round_number, sorted(left), at=ctx.clock.now(), actor=SYSTEM_ACTOR.name
    )
    for pid, kind in sorted(voided.items()):
        what = "pairing-allocated bye" if kind is RecordKind.PAB else "half-point bye"
        await ctx.announcer.notice(
            event,
            f"{event.round_name(round_number).capitalize()}: {people[pid].name} left before the round's games were"
            f" created, so their {what} is void: a zero-point bye.",
        )


async def _refused(ctx: Context, event: Event, board: BoardRow, people: dict[int, Entry], why: str) -> bool:
    """Lichess refused a board's game: a player whose account is closed loses by forfeit and is withdrawn (no
    ban); otherwise the board is held for an organiser. Either way the organisers are told once. True when the
    board is forfeited."""
    now = ctx.clock.now()
    subject = board_subject(board.round, board.board_no)
    closed = [
        colour
        for colour, player_id in (("white", board.white_id), ("black", board.black_id))
        if await _account_closed(ctx, _lichess_id(people[player_id]))
    ]
    where = f"Round {board.round} board {board.board_no}"
    if len(closed) == 1:
        gone = people[board.white_id if closed[0] == "white" else board.black_id]
        result = Result.BLACK_WINS_FORFEIT if closed[0] == "white" else Result.WHITE_WINS_FORFEIT
        reason = f"{gone.name}'s Lichess account is closed"
        async with ctx.db.transaction():
            await decide_board(ctx, board, result, actor=SYSTEM_ACTOR.name, reason=reason, at=now)
            if gone.status is EntryStatus.ACTIVE:
                await storage_entries.set_entry_status(
                    ctx.db, event.id, gone.player_id, EntryStatus.WITHDRAWN, at=now, actor=SYSTEM_ACTOR.name,
                    reason=reason,
                )  # fmt: skip
        await ctx.announcer.notice(
            event, f"{where}: Lichess refused the game ({reason}): {gone.name} loses by forfeit and is withdrawn."
        )
        return True
    if await storage_audit.logged(ctx.db, event_id=event.id, action=REFUSED, subject=subject):
        return False
    await storage_audit.record_action(
        ctx.db, at=now, actor=SYSTEM_ACTOR.name, action=REFUSED, subject=subject, event_id=event.id, reason=why
    )
    await ctx.announcer.notice(
        event,
        f"{where}: Lichess refused the game ({why}); the board is held for an organiser (/swiss result)."
        " The other boards go on.",
    )
    return False


async def _account_closed(ctx: Context, username: str) -> bool:
    """Whether Lichess says the account is closed or gone (False when it cannot tell)."""
    try:
        user = await ctx.lichess.get_user(username)
    except LichessUserNotFound:
        return True
    except LichessError:
        return False
    return user.disabled


async def _announce_round(ctx: Context, event: Event, people: dict[int, Entry], round_number: int) -> None:
    """Post a started round's pairings (and DM the players) once; marked after the announcer returns, so a
    restart before that announces them again rather than never."""
    summary = await get_round(ctx.db, event, round_number)
    if summary.round.pairings_announced_at is not None:
        return
    view = await round_view(ctx, event, round_number, people)
    if not await ctx.announced(event.id, ctx.announcer.round_paired(event, view)):
        return  # not marked: the next poll of the round posts them again
    for board_view in view.boards:
        for me, other, colour in (
            (board_view.white, board_view.black, "white"),
            (board_view.black, board_view.white, "black"),
        ):
            if not me.discord_id:
                continue
            if board_view.result is not None:  # decided before any game (a refused game's forfeit)
                what = f"your board against {other.name} is decided without a game: {board_view.result.value}"
            elif board_view.url is None:
                what = f"your game against {other.name} could not be created on Lichess; an organiser decides it"
            else:
                what = f"you play {other.name} with {colour}: {board_view.url}"
            await ctx.announcer.dm(me.discord_id, f"{event.name} {event.round_name(round_number)}: {what}")
    for bye in view.byes:  # the pairing's bye is a pairing too: its player is told like the others
        if bye.kind is RecordKind.PAB and bye.player.discord_id:
            await ctx.announcer.dm(
                bye.player.discord_id,
                f"{event.name} {event.round_name(round_number)}: you have the pairing-allocated bye: no game to play,"
                " and the bye's points are yours.",
            )
    await storage_rounds.mark_pairings_announced(ctx.db, event.id, round_number, at=ctx.clock.now())


async def _create_game(
    ctx: Context, event: Event, board: BoardRow, game: GameRow | None, white: str, black: str, known: set[str]
) -> str:
    """Resolve a pending attempt or start a new one; the game's id is stored at once. An attempt whose create was
    interrupted ('creating') or whose fate is unknown ('failed') is looked up first; one that is not on Lichess is
    failed and the board gets a new attempt under a new name, so no two Lichess challenges share a name."""
    now = ctx.clock.now()
    found: str | None = None
    if game is not None and game.status in (GameStatus.CREATING, GameStatus.FAILED):
        # We may have died (or lost the reply) after Lichess created it: look before creating again.
        found = await _find_created(ctx, event, game, white, black)
        if found is not None and game.status is GameStatus.CREATING:
            await storage_games.game_created(ctx.db, game.id, found, at=now)
            return found
        if game.status is GameStatus.CREATING:
            await storage_games.game_failed(ctx.db, game.id, at=now)
            await _interrupted_create_lost(ctx, event, board)
    attempt = 1 if game is None else game.attempt + 1
    name = challenge_name(event, board.round, board.board_no, attempt)
    row = await storage_games.begin_game(ctx.db, board.id, name, at=now)
    if found is not None:
        await storage_games.game_created(ctx.db, row.id, found, at=now)
        return found
    try:
        challenge = await ctx.lichess_of(event.guild_id).create_game(
            white,
            black,
            clock_limit=event.settings.clock_limit,
            clock_increment=event.settings.clock_increment,
            name=row.challenge_name,
            rated=event.settings.rated,
            rules=event.settings.rules,
            exclude=known,
        )
    except LichessError:
        await storage_games.game_failed(ctx.db, row.id, at=ctx.clock.now())
        raise
    await storage_games.game_created(ctx.db, row.id, challenge.game_id, at=ctx.clock.now())
    return challenge.game_id


async def _find_created(ctx: Context, event: Event, game: GameRow, white: str, black: str) -> str | None:
    """This attempt's challenge or game on Lichess, found by what identifies it (`LichessPort.find_created_game`): its
    challenge name, or a game of the two players since the attempt's own time whose challenge Lichess shows as this
    attempt's open challenge (the event's clock, rated flag and rules), stored for no other attempt of any event. A
    casual game of the same two players, or another event's, is never adopted."""
    since_ms = round((game.created_at - FIND_SLACK).timestamp() * 1000)
    settings = event.settings
    skip: set[str] = set()
    for _ in range(FIND_TRIES):
        found = await ctx.lichess_of(event.guild_id).find_created_game(
            white,
            black,
            name=game.challenge_name,
            since_ms=since_ms,
            clock=(settings.clock_limit, settings.clock_increment),
            rated=settings.rated,
            rules=settings.rules,
            exclude=skip,
        )
        if found is None:
            return None
        owner = await storage_games.game_by_lichess_id(ctx.db, found.game_id)
        if owner is None or owner.id == game.id:
            return found.game_id
        skip.add(found.game_id)
    return None


async def _interrupted_create_lost(ctx: Context, event: Event, board: BoardRow) -> None:
    """A create the bot was killed in is not on Lichess: the board is created again, and the organisers told once."""
    subject = board_subject(board.round, board.board_no)
    if await storage_audit.logged(ctx.db, event_id=event.id, action=RECREATED, subject=subject):
        return
    await storage_audit.record_action(
        ctx.db, at=ctx.clock.now(), actor=SYSTEM_ACTOR.name, action=RECREATED, subject=subject, event_id=event.id,
        reason="the interrupted create is not on Lichess",
    )  # fmt: skip
    await ctx.announcer.notice(
        event,
        f"Round {board.round}, board {board.board_no}: the game being created when the bot stopped is not on "
        "Lichess; it is created again under a new name.",
    )


def _lichess_id(entry: Entry) -> str:
    """The entry's Lichess account (InvalidState if it has none)."""
    if entry.lichess_id is None:  # entries are made for linked players only; an unlink cannot get here
        raise InvalidState(f"{entry.name} has no linked Lichess account.")
    return entry.lichess_id
