"""Team Swiss standings: the teams by match points and the team tie-breaks, each with its players' board results,
and the one-post summary the channel gets after each round and at the end."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from bot.director.context import Context
from bot.director.models import BoardView, PlayerRef, TeamPlayerLine, TeamStandingView
from domain.entry import Entry
from domain.event import Event
from pairing.model import RecordKind
from pairing.team.standings import DEFAULT_TEAM_TIEBREAKS, team_standings
from storage import outbox as storage_outbox
from storage import teams as storage_teams
from storage.history import History, get_history, results_tournament
from storage.outbox import PostKind


async def standings(ctx: Context, event_id: int, after_round: int | None = None) -> list[TeamStandingView]:
    """The team standings: match points, then the team tie-breaks (game points, team SB, Buchholz, direct
    encounter), each team with its players' board results."""
    history = await get_history(ctx.db, event_id)
    if after_round is not None:
        history = replace(history, rounds=[r for r in history.rounds if r.round.number <= after_round])
    rows = await storage_teams.list_teams(ctx.db, event_id)
    if not rows or not any(e.number is not None for e in history.entries):
        return []
    tournament = results_tournament(history)
    event = storage_teams.team_event(history, rows, tournament)
    ranked = team_standings(event, DEFAULT_TEAM_TIEBREAKS)
    rounds = len(history.rounds)
    by_id = {e.player.id: n for n, e in history.numbered.items()}
    boards_of = _board_numbers(history)
    out = []
    for line in ranked:
        stored = next(r for r in rows if r.number == line.number)
        players = []
        for pid in stored.players:
            number = by_id.get(pid)
            if number is None:
                continue
            player = tournament.player(number)
            cells = []
            for r in range(1, rounds + 1):
                rec = player.record(r)
                board = boards_of.get((r, number))
                points = tournament.scoring.points(rec)
                if board is not None:
                    cells.append(f"{board}:{_points(points)}")
                elif rec.kind is RecordKind.PAB:
                    cells.append("bye")
                else:
                    cells.append("-")
            total = sum((tournament.scoring.points(player.record(r)) for r in range(1, rounds + 1)), Fraction(0))
            players.append(TeamPlayerLine(_ref(history.numbered[number]), tuple(cells), total))
        out.append(
            TeamStandingView(
                line.rank,
                line.number,
                line.name,
                Fraction(line.match_points),
                Fraction(line.game_points),
                {k: Fraction(v) for k, v in line.tiebreaks.items()},
                tuple(players),
            )
        )
    return out


def _board_numbers(history: History) -> dict[tuple[int, int], int]:
    """Each board player's board in their match, by (round, starting number)."""
    boards = history.event.settings.team_boards
    found: dict[tuple[int, int], int] = {}
    for summary in history.rounds:
        for b in summary.boards:
            within = (b.board_no - 1) % boards + 1
            found[(summary.round.number, b.white_number)] = within
            found[(summary.round.number, b.black_number)] = within
    return found


def _points(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    whole = value.numerator // value.denominator
    return f"{whole or ''}½" if value - whole == Fraction(1, 2) else str(float(value))


def _ref(entry: Entry) -> PlayerRef:
    return PlayerRef(entry.number or 0, entry.name, entry.discord_id, entry.rating)


def summary_text(rows: list[TeamStandingView], after_round: int, *, final: bool) -> str:
    """The team standings in one post (the announcer names the event): rank, team, match and game points."""
    title = "final team standings" if final else f"team standings after round {after_round}"
    lines = [f"{row.rank}. {row.name}: {_points(row.match_points)} MP, {_points(row.game_points)} GP" for row in rows]
    return "\n".join([title, *lines])


async def announce(ctx: Context, event: Event, after_round: int, *, final: bool) -> None:
    """Queue a team event's team standings as a bulletin in the outbox (the caller sends the event's pending posts,
    after the players' standings); nothing for other events."""
    if not event.settings.pairing_system.team:
        return
    rows = await standings(ctx, event.id, after_round)
    if rows:
        text = summary_text(rows, after_round, final=final)
        await storage_outbox.queue_post(ctx.db, event.id, PostKind.BULLETIN, 0, at=ctx.clock.now(), text=text)


async def label_matches(
    ctx: Context, event: Event, boards: list[BoardView], people: dict[int, Entry]
) -> list[BoardView]:
    """A team event's boards with their match as the detail ("Knights v Bishops, board 2"); others unchanged."""
    if not event.settings.pairing_system.team:
        return boards
    per_match = event.settings.team_boards
    named = {p: t.name for t in await storage_teams.list_teams(ctx.db, event.id) for p in t.players}
    team_of = {e.number: named.get(e.player_id, "?") for e in people.values() if e.number is not None}
    out = []
    for board in boards:
        first = (board.number - 1) // per_match * per_match + 1  # board 1 of the match: its first team is White
        head = next((b for b in boards if b.number == first), board)
        match = f"{team_of.get(head.white.number, '?')} v {team_of.get(head.black.number, '?')}"
        out.append(replace(board, detail=f"{match}, board {board.number - first + 1}"))
    return out
