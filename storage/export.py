"""Write an event from the database: TRF for arbiters, PGN of its games, JSON of everything."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

import chess
import chess.pgn

from domain.entry import Entry, EntryStatus
from domain.result import GameRow, GameStatus, Result
from domain.rounds import BoardRow, RoundSummary
from pairing import systems, trf
from pairing.model import RecordKind, Scoring, Tournament
from pairing.standings.ranking import compute_standings
from storage import teams
from storage.audit import audit_log
from storage.db import Connection, Database, fetchall, utc_text
from storage.entries import entry_json
from storage.events import settings_json
from storage.games import game_from_row
from storage.history import History, build_tournament, load_history, results_tournament

FORMATS = ("trf", "pgn", "json")


def _date(moment: datetime | None, sep: str = "/") -> str:
    return moment.astimezone(UTC).strftime(f"%Y{sep}%m{sep}%d") if moment else ""


async def export_trf(db: Database, event_id: int, *, private: bool = False) -> str:
    """The event as a TRF file (decided rounds, plus the next round's fixed byes). `private` (the organisers'
    export): the players' FIDE profiles fill their 001 fields; the public one leaves them blank."""
    async with db.snapshot() as conn:
        history = await load_history(conn, event_id)
    tournament = build_tournament(history)
    event = history.event
    report = event.settings.trf_header
    header = [f"012 {event.settings.name}"]
    header.extend(f"{tag} {text}" for tag, text in (("022", report.city), ("032", report.federation)) if text)
    if event.started_at:
        header.append(f"042 {_date(event.started_at)}")
    if event.finished_at:
        header.append(f"052 {_date(event.finished_at)}")
    header.append(f"062 {len(tournament.players)}")
    if report.fide_rated:
        rated = sum(1 for e in history.numbered.values() if e.player.fide.fide_id)
        header.append(f"072 {rated}")
    header.append("092 Individual: Swiss-System")
    if report.chief_arbiter:
        header.append(f"102 {report.chief_arbiter}")
    header.extend(f"112 {deputy}" for deputy in report.deputy_arbiters)
    if report.time_control:
        header.append(f"122 {report.time_control}")
    if report.fide_rated:
        header.append(_round_dates(history))
    # Record 192 when one system with a code paired every round (Fast Swiss, and a mix, have none; the JSON
    # export names each round's system).
    used = {summary.round.system for summary in history.rounds}
    if len(used) == 1 and (system := systems.SYSTEMS.get(used.pop())) is not None and system.trf_code is not None:
        header.append(f"192 {system.trf_code}")
    if report.fide_rated:
        header.append(f"222 {event.settings.clock_limit}+{event.settings.clock_increment}")
    manual = [s.round.number for s in history.rounds[: history.decided_rounds] if s.round.manual]
    if manual:  # the rounds an organiser corrected: `swissbot check` holds them to the absolute criteria only
        header.append(trf.manual_record(manual))
    if event.settings.pairing_system.team:  # the team records (192, 310, 320, ...) of pairing.team
        header[header.index("092 Individual: Swiss-System")] = "092 Team: Swiss-System"
        async with db.snapshot() as conn:
            rows = await teams.load_teams(conn, event_id)
        tournament = teams.team_tournament(history, rows, replace(tournament, header=tuple(header)))
        return trf.dumps(tournament)
    tournament = _report_players(history, tournament, private)
    return trf.dumps(replace(tournament, header=tuple(header)))


def _round_dates(history: History) -> str:
    """Record 132: each round's date (YY/MM/DD) in its round block's columns (92-99 for round 1, then every 10)."""
    line = "132".ljust(91)
    for summary in history.rounds[: history.decided_rounds]:
        played = summary.round.started_at or summary.round.paired_at
        line += f"{played.astimezone(UTC):%y/%m/%d}  "
    return line.rstrip()


def _report_players(history: History, tournament: Tournament, private: bool) -> Tournament:
    """The players as an arbiter's report gives them: the rank field the place in the standings (disqualified
    players after the ranked ones), and with `private` their FIDE profiles."""
    played = results_tournament(history)
    out = [n for n, e in history.numbered.items() if e.status is EntryStatus.DISQUALIFIED]
    settings = history.event.settings
    rows = compute_standings(played, settings.tiebreaks, exclude=out, lichess_sb=settings.lichess_sb)
    rank = {row.number: row.rank for row in rows}
    rank.update({n: len(rows) + i for i, n in enumerate(sorted(out), start=1)})
    players = []
    for player in tournament.players:
        fide = history.numbered[player.number].player.fide
        if private:
            player = replace(
                player,
                title=fide.title or "",
                federation=fide.federation or "",
                fide_id=fide.fide_id or "",
                birth_date="" if fide.birth_year is None else str(fide.birth_year),
            )
        players.append(replace(player, rank=rank.get(player.number)))
    return replace(tournament, players=tuple(players))


LICHESS_URL = "https://lichess.org"

# The PGN Termination Lichess writes for each game status.
TERMINATIONS = {
    "created": "Unterminated",
    "started": "Unterminated",
    "aborted": "Abandoned",
    "noStart": "Abandoned",
    "timeout": "Time forfeit",
    "outoftime": "Time forfeit",
    "cheat": "Rules infraction",
}
DRAW_STATUSES = frozenset({"draw", "stalemate", "insufficientMaterialClaim", "outoftime", "timeout"})


@dataclass(frozen=True)
class PlayedGame:
    """One Lichess game of a board, as stored: the deciding game, or an attempt that was annulled."""

    summary: RoundSummary
    board: BoardRow
    lichess_id: str
    data: dict[str, Any]
    created_at: datetime | None
    deciding: bool
    annulled: bool


def _json_object(text: str | None) -> dict[str, Any] | None:
    if not text:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def plies_of(data: dict[str, Any]) -> int:
    """How many half-moves the stored game has."""
    moves = data.get("moves")
    return len(moves.split()) if isinstance(moves, str) else 0


def was_played(data: dict[str, Any]) -> bool:
    """Both players moved: a game Lichess keeps (fewer than 2 plies is a no-show or an abort)."""
    return plies_of(data) >= 2


def lichess_result(data: dict[str, Any]) -> str:
    """The game's result on Lichess as a PGN result ("*" while unfinished or aborted)."""
    winner = data.get("winner")
    if winner in ("white", "black"):
        return "1-0" if winner == "white" else "0-1"
    return "1/2-1/2" if data.get("status") in DRAW_STATUSES else "*"


def played_games(history: History, games: dict[int, list[GameRow]]) -> list[PlayedGame]:
    """Every game of the event in which both players moved, round by round, board by board, attempt by attempt."""
    found: list[PlayedGame] = []
    for summary in history.rounds:
        for board in summary.boards:
            candidates: list[tuple[str, str | None, datetime | None, bool, bool]] = []
            seen = set()
            for game in games.get(board.id, []):
                if game.lichess_id is None:
                    continue
                seen.add(game.lichess_id)
                deciding = board.result is not None and game.lichess_id == board.game_id
                text = board.game_data if deciding and board.game_data else game.data
                annulled = game.status is GameStatus.REPLACED
                candidates.append((game.lichess_id, text, game.created_at, deciding, annulled))
            if board.game_id and board.game_id not in seen and board.result is not None:
                candidates.append((board.game_id, board.game_data, None, True, False))
            for lichess_id, text, created, deciding, annulled in candidates:
                data = _json_object(text)
                if data is not None and was_played(data):
                    found.append(PlayedGame(summary, board, lichess_id, data, created, deciding, annulled))
    return found


def _side(data: dict[str, Any], colour: str) -> dict[str, Any]:
    players = data.get("players")
    side = players.get(colour) if isinstance(players, dict) else None
    return side if isinstance(side, dict) else {}


def _player_name(entry: Entry | None, side: dict[str, Any]) -> str:
    """The player's Lichess name (the linked account, else the game's), else the member's name."""
    if entry is not None and entry.player.lichess_name:
        return entry.player.lichess_name
    user = side.get("user")
    if isinstance(user, dict) and isinstance(user.get("name"), str):
        return str(user["name"])
    return entry.player.name if entry is not None else "?"


def _rating(entry: Entry | None, side: dict[str, Any]) -> int | None:
    """The rating Lichess shows in the game, else the event's rating of the player."""
    rating = side.get("rating")
    if isinstance(rating, int) and not isinstance(rating, bool):
        return rating
    return entry.rating if entry is not None else None


def _created(game: PlayedGame) -> datetime | None:
    created = game.data.get("createdAt")
    if isinstance(created, int) and not isinstance(created, bool):
        return datetime.fromtimestamp(created / 1000, UTC)
    return game.created_at or game.summary.round.started_at


def _comment(history: History, game: PlayedGame, recorded: str, own: str) -> str | None:
    """Why this game's PGN result is not simply the one Lichess gave, if it is not."""
    status = str(game.data.get("status", "?"))
    if game.annulled:
        moves = (plies_of(game.data) + 1) // 2
        limit = history.event.settings.early_draw_moves
        if own == "1/2-1/2" and moves < limit:
            return (
                f"Annulled: drawn ({status}) after {moves} moves, before move {limit} (the event's early-draw rule);"
                " the board was played again."
            )
        return f"Annulled: {own} ({status}) after {moves} moves; the board was played again."
    if not game.deciding or game.board.result is None:
        return None
    if game.board.result is Result.DOUBLE_FORFEIT:
        return f"The event scored this board -/- (both players forfeit); Lichess: {own} ({status})."
    if recorded != own:
        return f"The event recorded {game.board.result.value}; Lichess: {own} ({status})."
    return None


def game_pgn(history: History, game: PlayedGame, site: str = LICHESS_URL) -> str:
    """One played game as PGN: the event's result for it, the players' Lichess names, its real URL."""
    data = game.data
    entries = {e.player.id: e for e in history.numbered.values()}
    white, black = entries.get(game.board.white_id), entries.get(game.board.black_id)
    white_side, black_side = _side(data, "white"), _side(data, "black")
    own = lichess_result(data)
    recorded = own
    if game.deciding and game.board.result is not None and game.board.result is not Result.DOUBLE_FORFEIT:
        recorded = game.board.result.pgn
    pgn = chess.pgn.Game()
    fen = data.get("initialFen")
    if isinstance(fen, str) and fen != chess.STARTING_FEN:
        pgn.setup(chess.Board(fen))
    created = _created(game)
    headers = pgn.headers
    headers["Event"] = history.event.settings.name
    headers["Site"] = f"{site.rstrip('/')}/{game.lichess_id}"
    headers["Date"] = _date(created, ".") or "????.??.??"
    headers["Round"] = f"{game.summary.round.number}.{game.board.board_no}"
    headers["White"] = _player_name(white, white_side)
    headers["Black"] = _player_name(black, black_side)
    headers["Result"] = recorded
    if created is not None:
        headers["UTCDate"] = _date(created, ".")
        headers["UTCTime"] = created.astimezone(UTC).strftime("%H:%M:%S")
    for tag, rating in (("WhiteElo", _rating(white, white_side)), ("BlackElo", _rating(black, black_side))):
        if rating is not None:
            headers[tag] = str(rating)
    clock = data.get("clock")
    if isinstance(clock, dict) and "initial" in clock:
        headers["TimeControl"] = f"{clock['initial']}+{clock.get('increment', 0)}"
    else:
        settings = history.event.settings
        headers["TimeControl"] = f"{settings.clock_limit}+{settings.clock_increment}"
    status = data.get("status")
    termination = TERMINATIONS.get(status, "Normal") if isinstance(status, str) else "Unterminated"
    headers["Termination"] = "Adjudication" if recorded != own else termination
    comment = _comment(history, game, recorded, own)
    if comment:
        pgn.comment = comment
    node: chess.pgn.GameNode = pgn
    moves = data.get("moves")
    if isinstance(moves, str):
        position = pgn.board()
        for san in moves.split():
            try:
                move = position.parse_san(san)
            except ValueError:
                node.comment = f"the stored moves stop being legal at {san!r}"
                break
            node = node.add_variation(move)
            position.push(move)
    out = io.StringIO()
    pgn.accept(chess.pgn.FileExporter(out, headers=True, comments=True, variations=False))
    return out.getvalue().strip() + "\n"


async def _games_by_board(conn: Connection, event_id: int) -> dict[int, list[GameRow]]:
    rows = await fetchall(
        conn,
        "SELECT g.* FROM games g JOIN boards b ON b.id = g.board_id WHERE b.event_id = ?"
        " ORDER BY g.board_id, g.attempt",
        (event_id,),
    )
    games: dict[int, list[GameRow]] = {}
    for row in rows:
        game = game_from_row(row)
        games.setdefault(game.board_id, []).append(game)
    return games


async def export_pgn(db: Database, event_id: int, *, site: str = LICHESS_URL) -> str:
    """The PGN of every game played on Lichess (both players moved), round by round; `site` is the Lichess the
    games live on. Boards decided without a game (no-shows, forfeits) are left out: the TRF has them."""
    async with db.snapshot() as conn:
        history = await load_history(conn, event_id)
        games = await _games_by_board(conn, event_id)
    return "\n".join(game_pgn(history, game, site) for game in played_games(history, games))


def _time(moment: datetime | None) -> str | None:
    return utc_text(moment) if moment else None


def _board_json(board: BoardRow, games: list[GameRow]) -> dict[str, Any]:
    return {
        "board": board.board_no,
        "white": board.white_number,
        "black": board.black_number,
        "result": board.result.value if board.result else None,
        "result_kind": board.result.kind.value if board.result else None,
        "game_id": board.game_id,
        "decided_at": _time(board.decided_at),
        "game": json.loads(board.game_data) if board.game_data else None,
        "attempts": [
            {
                "attempt": g.attempt,
                "challenge": g.challenge_name,
                "lichess_id": g.lichess_id,
                "status": g.status.value,
                "created_at": _time(g.created_at),
                "updated_at": _time(g.updated_at),
            }
            for g in games
        ],
    }


PRIVATE_SETTINGS = ("guild_id", "channel_id")
PRIVATE_EVENT = ("created_by",)
PRIVATE_ENTRY = ("discord_id", "player_id")
PRIVATE_SECTIONS = ("requested_byes", "forbidden_pairs", "audit")


async def export_json(db: Database, event_id: int, *, public: bool = False) -> str:
    """Everything stored about the event: settings, entries, rounds, boards, games, byes, audit log.

    `public` leaves out what the event's web pages never show: Discord ids (of members, of the organiser who
    created it, of the server and channel), the players' internal ids, requested byes, forbidden pairs and the
    audit log (organisers' names, Discord ids and reasons). The full document stays behind `/swiss export` and
    the CLI.
    """
    async with db.snapshot() as conn:
        history = await load_history(conn, event_id)
        games = await _games_by_board(conn, event_id)
        audit = await audit_log(db, event_id=event_id)
    numbers = {e.player.id: n for n, e in history.numbered.items()}
    event = history.event
    tournament = build_tournament(history)
    requested = [
        {"player_id": pid, "number": numbers.get(pid), "round": r}
        for pid, rounds in sorted(history.requested.items())
        for r in sorted(rounds)
    ]
    document: dict[str, Any] = {
        "format": "swissbot-event",
        "version": 1,
        "event": {
            "id": event.id,
            "status": event.status.value,
            "settings": settings_json(event.settings),
            "created_by": event.created_by,
            "created_at": _time(event.created_at),
            "started_at": _time(event.started_at),
            "finished_at": _time(event.finished_at),
            "next_round_at": _time(event.next_round_at),
        },
        "entries": [
            {
                **entry_json(e),
                "name": e.player.name,
                "discord_id": e.player.discord_id,
                "lichess_id": e.player.lichess_id,
                "points": _points(tournament, numbers.get(e.player.id)),
            }
            for e in history.entries
        ],
        "rounds": [
            {
                "number": s.round.number,
                "system": s.round.system,
                "status": s.round.status.value,
                "paired_at": _time(s.round.paired_at),
                "started_at": _time(s.round.started_at),
                "finished_at": _time(s.round.finished_at),
                "boards": [_board_json(b, games.get(b.id, [])) for b in s.boards],
                "byes": {str(numbers.get(pid, 0)): kind.value for pid, kind in sorted(s.byes.items())},
            }
            for s in history.rounds
        ],
        **({"matches": _matches_json(history)} if event.settings.pairing_system.two_game_matches else {}),
        "requested_byes": requested,
        "forbidden_pairs": [[numbers.get(a), numbers.get(b)] for a, b in history.forbidden],
        "audit": [
            {
                "at": _time(a.at),
                "actor": a.actor,
                "action": a.action,
                "subject": a.subject,
                "before": json.loads(a.before) if a.before else None,
                "after": json.loads(a.after) if a.after else None,
                "reason": a.reason,
            }
            for a in audit
        ],
    }
    if public:
        document = _public(document)
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _public(document: dict[str, Any]) -> dict[str, Any]:
    """The document without what only organisers see (`export_json`'s `public`)."""
    event = {k: v for k, v in document["event"].items() if k not in PRIVATE_EVENT}
    event["settings"] = {k: v for k, v in event["settings"].items() if k not in PRIVATE_SETTINGS}
    entries = [{k: v for k, v in entry.items() if k not in PRIVATE_ENTRY} for entry in document["entries"]]
    kept = {k: v for k, v in document.items() if k not in PRIVATE_SECTIONS}
    return kept | {"event": event, "entries": entries}


SCORING = Scoring()  # the bot's events score 1/½/0


def _matches_json(history: History) -> list[dict[str, Any]]:
    """A Double-Swiss event's matches: the two games of each pairing (game 1's White first), the match score once
    both are decided, whether one player forfeited both games, and each match's byes by game."""
    rounds = {s.round.number: s for s in history.rounds}
    numbers = {e.player.id: n for n, e in history.numbered.items()}
    found: list[dict[str, Any]] = []
    for first_round in sorted(n for n in rounds if n % 2):
        first, second = rounds[first_round], rounds.get(first_round + 1)
        later = {frozenset((b.white_number, b.black_number)): b for b in (second.boards if second else ())}
        boards = []
        for board in first.boards:
            white, black = board.white_number, board.black_number
            again = later.get(frozenset((white, black)))
            games = [board.result, again.result if again is not None else None]
            first_game = games[0].records(white, black) if games[0] is not None else None
            second_game = games[1].records(black, white) if games[1] is not None else None  # colours reversed
            records = [first_game, second_game]
            score = None
            if first_game is not None and second_game is not None:
                score = [
                    str(float(SCORING.points(first_game[n]) + SCORING.points(second_game[n]))) for n in (white, black)
                ]
            forfeits = [
                {n for n, rec in r.items() if rec.kind is RecordKind.FORFEIT_LOSS} if r is not None else set()
                for r in records
            ]
            boards.append(
                {
                    "white": white,
                    "black": black,
                    "games": [g.value if g is not None else None for g in games],
                    "score": score,
                    "forfeited": bool(forfeits[0] & forfeits[1]),  # one player forfeited both games
                }
            )
        byes: dict[str, list[str | None]] = {}
        for offset, summary in enumerate((first, second)):
            for pid, kind in (summary.byes if summary is not None else {}).items():
                byes.setdefault(str(numbers.get(pid, 0)), [None, None])[offset] = kind.value
        found.append({"match": (first_round + 1) // 2, "boards": boards, "byes": byes})
    return found


def _points(tournament: Tournament, number: int | None) -> str | None:
    """A player's points in the decided rounds, as a decimal string."""
    if number is None:
        return None
    total = sum((tournament.scoring.points(r) for r in tournament.player(number).rounds), Fraction(0))
    return str(float(total))


async def export_event(db: Database, event_id: int, fmt: str, *, site: str = LICHESS_URL, public: bool = False) -> str:
    """The event in one of FORMATS (`site`: the Lichess the games live on, for the PGN's links; `public`: what
    the web pages may serve, the JSON without what only organisers see and the TRF without FIDE profiles; else the
    organisers' export, the TRF with the players' FIDE profiles)."""
    if fmt == "trf":
        return await export_trf(db, event_id, private=not public)
    if fmt == "pgn":
        return await export_pgn(db, event_id, site=site)
    if fmt == "json":
        return await export_json(db, event_id, public=public)
    raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
