"""Bulk pairing as lila's ChallengeBulk does it: all or nothing, scheduled, clocks that start themselves."""

from __future__ import annotations

from typing import Any

import chess
from aiohttp import web

from sandbox.lichess.http import BadRequest, NotFound, error, form_or_json, ndjson, not_found, scoped, state_of, trueish
from sandbox.lichess.state import GAME_RULES, Bulk, BulkGame, SandboxState, User
from sandbox.lichess.views import game_json, game_pgn, ms

MAX_GAMES = 500  # per bulk, and per 10 minutes (cost 3 a game out of 1500 credits for ordinary accounts)
RATE_CREDITS = MAX_GAMES * 3
RATE_COST_PER_GAME = 3
RATE_WINDOW = 600.0
MAX_QUEUED_BULKS = 20
MAX_QUEUED_GAMES = 1000
MAX_AHEAD = 7 * 24 * 3600.0  # pairAt and startClocksAt: up to 7 days ahead
MAX_MESSAGE = 8000
DAYS = frozenset({1, 2, 3, 5, 7, 10, 14})

routes = web.RouteTableDef()


def _int(body: dict[str, Any], key: str, low: int, high: int) -> int | None:
    raw = body.get(key)
    if raw is None or raw == "":
        return None
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise BadRequest(f"{key}: error.number") from None
    if value < low:
        raise BadRequest(f"{key}: error.min")
    if value > high:
        raise BadRequest(f"{key}: error.max")
    return value


def _bool(body: dict[str, Any], key: str) -> bool:
    raw = body.get(key)
    if raw is None or isinstance(raw, bool):
        return bool(raw)
    if raw in ("true", "false"):
        return bool(raw == "true")
    raise BadRequest(f"{key}: error.boolean")


def token_pairs(raw: str) -> list[tuple[str, str]]:
    """lila's `extractTokenPairs`: `white:black` pairs separated by commas; malformed pairs are skipped."""
    pairs = []
    for chunk in raw.split(","):
        parts = chunk.split(":")
        if len(parts) == 2 and parts[0].strip() and parts[1].strip():
            pairs.append((parts[0].strip(), parts[1].strip()))
    return pairs


def _rules(raw: Any) -> frozenset[str]:
    rules = frozenset(r.strip() for r in str(raw or "").split(",") if r.strip())
    unknown = sorted(rules - GAME_RULES)
    if unknown:
        raise BadRequest(f"rules: unknown rule {', '.join(unknown)}")
    return rules  # bulk pairings accept all five, noAbort included


def _message(raw: Any) -> str | None:
    if raw is None or raw == "":
        return None
    text = str(raw)
    if len(text) > MAX_MESSAGE:
        raise BadRequest(f"message: at most {MAX_MESSAGE} characters")
    if "{game}" not in text:
        raise BadRequest("message: The message must contain {game}, which will be replaced with the game URL.")
    return text


def _position(body: dict[str, Any]) -> None:
    variant = body.get("variant") or "standard"
    fen = body.get("fen")
    if variant not in ("standard", "fromPosition"):
        raise BadRequest(f"variant: the sandbox plays standard chess only, not {variant}")
    if fen:
        try:
            board = chess.Board(str(fen))
        except ValueError:
            raise BadRequest("invalidFen") from None
        if board.board_fen() != chess.STARTING_BOARD_FEN or board.fen() != chess.STARTING_FEN:
            raise BadRequest("fen: the sandbox plays from the initial position only")


class Refused(Exception):
    """A bulk Lichess refuses as a whole: its status and its body."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(str(body))
        self.status = status
        self.body = body


def _players(state: SandboxState, pairs: list[tuple[str, str]], realtime: bool) -> list[tuple[str, str]]:
    """Every token must be a live `challenge:write` token of an open account; then nobody twice (real time)."""
    bad: dict[str, str] = {}
    users: list[str] = []
    for token_secret in (t for pair in pairs for t in pair):
        token = state.token(token_secret)
        user = state.users.get(token.user) if token else None
        if token is None:
            bad[token_secret] = "No such token"
        elif "challenge:write" not in token.scopes:
            bad[token_secret] = "Missing scope: challenge:write"
        elif user is None or user.disabled:
            bad[token_secret] = "No such user"
        else:
            users.append(user.id)
    if bad:
        raise Refused(400, {"tokens": bad})
    duplicates = sorted({u for u in users if users.count(u) > 1})
    if realtime and duplicates:
        raise Refused(400, {"duplicateUsers": duplicates})
    return list(zip(users[::2], users[1::2], strict=True))


def _schedule_checks(state: SandboxState, bulk: Bulk) -> None:
    queued = [b for b in state.bulks.values() if b.by == bulk.by and b.paired_at is None]
    players = {u for g in bulk.games for u in (g.white, g.black)}
    if len(queued) >= MAX_QUEUED_BULKS:
        raise Refused(400, {"error": "Already too many bulks queued"})
    if sum(len(b.games) for b in queued) >= MAX_QUEUED_GAMES:
        raise Refused(400, {"error": "Already too many games queued"})
    for other in queued:
        same_time = other.pair_at == bulk.pair_at or (
            bulk.start_clocks_at is not None and other.start_clocks_at == bulk.start_clocks_at
        )
        if same_time and players & {u for g in other.games for u in (g.white, g.black)}:
            raise Refused(400, {"error": "A bulk containing the same players is scheduled at the same time"})


def _rate_limited(state: SandboxState, by: str, cost: int) -> bool:
    now = state.now()
    state.bulk_costs = [c for c in state.bulk_costs if now - c[0] < RATE_WINDOW]
    spent = sum(c[2] for c in state.bulk_costs if c[1] == by)
    return spent + cost > RATE_CREDITS


def parse_bulk(state: SandboxState, body: dict[str, Any], by: User) -> Bulk:
    """The bulk a form describes, checked as lila checks it (raises `BadRequest` or `Refused`)."""
    raw_players = str(body.get("players") or "")
    if not raw_players:
        raise BadRequest("players: error.required")
    pairs = token_pairs(raw_players)
    if not pairs:
        raise BadRequest("players: Not enough tokens")
    if len(pairs) > MAX_GAMES:
        raise BadRequest(f"players: Too many tokens (max: {MAX_GAMES * 2})")
    limit = _int(body, "clock.limit", 0, 10800)
    increment = _int(body, "clock.increment", 0, 60)
    days = _int(body, "days", 1, 14)
    if days is not None and days not in DAYS:
        raise BadRequest(f"days: one of {', '.join(map(str, sorted(DAYS)))}")
    if (limit is None) != (increment is None):
        raise BadRequest("clock: both clock.limit and clock.increment are required")
    if limit is None and days is None:
        raise BadRequest("clock or correspondence days required")
    now = state.now()
    latest = round((now + MAX_AHEAD) * 1000)
    pair_at = _int(body, "pairAt", 0, latest)
    start_clocks_at = _int(body, "startClocksAt", 0, latest)
    rated = _bool(body, "rated")
    _position(body)
    message = _message(body.get("message"))
    rules = _rules(body.get("rules"))
    realtime = limit is not None
    secrets_ = [t for pair in pairs for t in pair]
    if realtime and len(secrets_) != len(set(secrets_)):
        raise BadRequest("Tokens must be unique for real-time games (not correspondence)")
    players = _players(state, pairs, realtime)
    if _rate_limited(state, by.id, RATE_COST_PER_GAME * len(players)):
        raise Refused(429, {"error": f"Ratelimited! Max games per 10 minutes: {MAX_GAMES}"})
    games: list[BulkGame] = []
    for white, black in players:
        games.append(BulkGame(state.new_game_id(exclude={g.id for g in games}), white, black))
    return Bulk(
        id=state.random_string(8),
        by=by.id,
        games=games,
        clock_limit=limit,
        clock_increment=increment,
        days=None if realtime else days,
        rated=rated,
        rules=rules,
        message=message,
        pair_at=now if pair_at is None else pair_at / 1000,
        start_clocks_at=None if start_clocks_at is None else start_clocks_at / 1000,
        scheduled_at=now,
    )


def bulk_json(bulk: Bulk) -> dict[str, Any]:
    """lila's `ChallengeBulkSetup.toJson` (the spec's BulkPairing)."""
    data: dict[str, Any] = {
        "id": bulk.id,
        "games": [{"id": g.id, "white": g.white, "black": g.black} for g in bulk.games],
        "variant": "standard",
        "rated": bulk.rated,
        "pairAt": ms(bulk.pair_at),
        "startClocksAt": None if bulk.start_clocks_at is None else ms(bulk.start_clocks_at),
        "scheduledAt": ms(bulk.scheduled_at),
        "pairedAt": None if bulk.paired_at is None else ms(bulk.paired_at),
    }
    if bulk.clock_limit is not None:
        data["clock"] = {"limit": bulk.clock_limit, "increment": bulk.clock_increment or 0}
    if bulk.days is not None:
        data["correspondence"] = {"daysPerTurn": bulk.days}
    if bulk.message is not None:
        data["message"] = bulk.message
    if bulk.rules:
        data["rules"] = sorted(bulk.rules)
    return data


def schedule_bulk(state: SandboxState, body: dict[str, Any], by: User) -> Bulk:
    """Check and schedule the bulk a form describes (raises `BadRequest` or `Refused`); it pairs on a later tick."""
    bulk = parse_bulk(state, body, by)
    _schedule_checks(state, bulk)
    state.bulks[bulk.id] = bulk
    state.bulk_costs.append((state.now(), by.id, RATE_COST_PER_GAME * len(bulk.games)))
    return bulk


def bulks_of(state: SandboxState, user: User) -> list[Bulk]:
    """`user`'s bulks, latest `pairAt` first."""
    return sorted((b for b in state.bulks.values() if b.by == user.id), key=lambda b: b.pair_at, reverse=True)


@routes.post("/api/bulk-pairing")
async def create_bulk(request: web.Request) -> web.Response:
    """`bulkPairingCreate`: schedule the games; one bad token refuses the whole bulk."""
    user = scoped(request, "challenge:bulk")
    if isinstance(user, web.Response):
        return user
    try:
        bulk = schedule_bulk(state_of(request), await form_or_json(request), user)
    except BadRequest as exc:
        return error(400, str(exc))
    except Refused as exc:
        return web.json_response(exc.body, status=exc.status)
    return web.json_response(bulk_json(bulk))  # pairing happens on the next tick, as on Lichess


def _mine(request: web.Request) -> Bulk | web.Response:
    user = scoped(request, "challenge:bulk")
    if isinstance(user, web.Response):
        return user
    bulk = state_of(request).bulks.get(request.match_info["bulk_id"])
    if bulk is None or bulk.by != user.id:
        return not_found()
    return bulk


@routes.get("/api/bulk-pairing")
async def list_bulks(request: web.Request) -> web.Response:
    """`bulkPairingList`: the token owner's bulks, latest `pairAt` first."""
    user = scoped(request, "challenge:bulk")
    if isinstance(user, web.Response):
        return user
    return web.json_response([bulk_json(b) for b in bulks_of(state_of(request), user)])


@routes.get("/api/bulk-pairing/{bulk_id}")
async def show_bulk(request: web.Request) -> web.Response:
    """`bulkPairingGet`."""
    bulk = _mine(request)
    return bulk if isinstance(bulk, web.Response) else web.json_response(bulk_json(bulk))


def delete_bulk(state: SandboxState, user: User, bulk_id: str) -> None:
    """lila's `ChallengeBulkApi.deleteBy`: the owner's bulk is deleted, whether paired or not; games already created
    stay, and a bulk not paired yet creates none (`NotFound` for no such bulk of the owner's)."""
    bulk = state.bulks.get(bulk_id)
    if bulk is None or bulk.by != user.id:
        raise NotFound()
    del state.bulks[bulk.id]


@routes.delete("/api/bulk-pairing/{bulk_id}")
async def cancel_bulk(request: web.Request) -> web.Response:
    """`bulkPairingDelete`: the bulk is deleted; games already created stay (no refund of the rate limit)."""
    user = scoped(request, "challenge:bulk")
    if isinstance(user, web.Response):
        return user
    try:
        delete_bulk(state_of(request), user, request.match_info["bulk_id"])
    except NotFound:
        return not_found()
    return web.json_response({"ok": True})


@routes.post("/api/bulk-pairing/{bulk_id}/start-clocks")
async def start_clocks(request: web.Request) -> web.Response:
    """`bulkPairingStartClocks`: start every clock now; 404 before the games exist (lila's `pairedAt` check)."""
    bulk = _mine(request)
    if isinstance(bulk, web.Response):
        return bulk
    if bulk.paired_at is None:
        return not_found()
    state = state_of(request)
    if bulk.started_clocks_at is None:
        bulk.start_clocks_at = state.now()
        state.start_due_clocks()
    return web.json_response({"ok": True})


@routes.get("/api/bulk-pairing/{bulk_id}/games")
async def bulk_games(request: web.Request) -> web.Response:
    """`bulkPairingIdGamesGet`: the bulk's games, ndjson (JSON `Accept`) or PGN (the default)."""
    bulk = _mine(request)
    if isinstance(bulk, web.Response):
        return bulk
    state = state_of(request)
    games = [state.games[g.id] for g in bulk.games if g.id in state.games]
    accept = request.headers.get("Accept", "")
    if "json" not in accept:
        return web.Response(text="\n".join(game_pgn(g, state) for g in games), content_type="application/x-chess-pgn")
    moves = trueish(request.query.get("moves"), True)
    pgn = trueish(request.query.get("pgnInJson"), False)
    return ndjson(request, (game_json(g, state, moves=moves, pgn_in_json=pgn) for g in games))
