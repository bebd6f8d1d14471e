"""The Lichess endpoints the bot uses, with lichess.org's paths, bodies and status codes."""

from __future__ import annotations

import re
from typing import Any

from aiohttp import web

from sandbox.lichess import bulk
from sandbox.lichess.autoplay_runner import on_challenge_created
from sandbox.lichess.http import (
    BadRequest,
    NotFound,
    base_url,
    error,
    form_or_json,
    me,
    ndjson,
    not_found,
    scoped,
    state_of,
    trueish,
)
from sandbox.lichess.state import GAME_RULES, Game, SandboxState, User
from sandbox.lichess.views import challenge_json, game_json, game_pgn, light_user, ms, user_json

EXPORT_IDS_LIMIT = 300
MAX_EXPIRY = 14 * 24 * 3600.0
CANCEL_SCOPES = ("challenge:write", "bot:play", "board:play", "web:mobile")  # lila's apiCancel: any of them
ACCEPTED_CHALLENGE_KEPT = 3 * 3600.0  # lila's ChallengeRepo.accept: an accepted challenge expires 3 h later
_USERNAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,29}$")

routes = web.RouteTableDef()


def _int_field(body: dict[str, Any], key: str, low: int, high: int) -> int | None:
    raw = body.get(key)
    if raw is None or raw == "":
        return None
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise BadRequest(f"{key}: must be a number") from None
    if not low <= value <= high:
        raise BadRequest(f"{key}: must be between {low} and {high}")
    return value


def _bool_field(body: dict[str, Any], key: str) -> bool:
    raw = body.get(key)
    if raw is None or isinstance(raw, bool):
        return bool(raw)
    if raw in ("true", "false"):  # Play's boolean formatter: lowercase only
        return bool(raw == "true")
    raise BadRequest(f"{key}: error.boolean")


def _rules(raw: Any) -> frozenset[str]:
    if raw is None or raw == "":
        return frozenset()
    rules = frozenset(r.strip() for r in str(raw).split(",") if r.strip())
    unknown = sorted(rules - GAME_RULES)
    if unknown:
        raise BadRequest(f"rules: unknown rule {', '.join(unknown)}")
    if "noAbort" in rules:
        raise BadRequest("rules: The noAbort rule is now restricted to challenge administrators")
    return rules


def open_challenge(state: SandboxState, body: dict[str, Any], creator: User | None) -> Game:
    """The open challenge a `challengeOpen` body asks for, recorded (raises `BadRequest` as lila refuses it)."""
    limit = _int_field(body, "clock.limit", 0, 10800)
    increment = _int_field(body, "clock.increment", 0, 180)
    days = _int_field(body, "days", 1, 14)
    if (limit is None) != (increment is None):
        raise BadRequest("clock: both clock.limit and clock.increment are required")
    if limit is not None and days is not None:
        raise BadRequest("days: a game has either a clock or days")
    rated = _bool_field(body, "rated")
    rules = _rules(body.get("rules"))
    name = body.get("name")
    if name is not None and (not isinstance(name, str) or len(name) > 200):
        raise BadRequest("name: at most 200 characters")
    users = [u.strip().lower() for u in str(body.get("users", "")).split(",") if u.strip()]
    if len(users) != 2 or users[0] == users[1]:
        raise BadRequest("users: exactly two different usernames are required")
    for uid in users:
        if uid not in state.users or state.users[uid].disabled:
            raise BadRequest(f"users: no such user {uid}")
    expires = _int_field(body, "expiresAt", 0, 2**53)
    now = state.now()
    expires_at = None
    if expires is not None:
        expires_at = expires / 1000
        if not now < expires_at <= now + MAX_EXPIRY:
            raise BadRequest("expiresAt: must be in the future and at most 2 weeks after creation")
    return state.create_challenge(
        white=users[0],
        black=users[1],
        name=name or None,
        clock_limit=limit,
        clock_increment=increment,
        days=days,
        rated=rated,
        rules=rules,
        creator=creator.id if creator else None,
        expires_at=expires_at,
    )


@routes.post("/api/challenge/open")
async def create_open_challenge(request: web.Request) -> web.Response:
    """`challengeOpen`: an open challenge; `users=a,b` restricts it to a (white) and b (black)."""
    state = state_of(request)
    try:
        game = open_challenge(state, await form_or_json(request), me(request))
    except BadRequest as exc:
        return error(400, str(exc))
    response = challenge_json(game, state, base_url(request))
    await on_challenge_created(request.app, game)
    return web.json_response(response)


def pending_challenges(state: SandboxState, user: User) -> list[Game]:
    """The open challenges `user` created that nobody accepted yet."""
    return [g for g in state.games.values() if g.creator == user.id and not g.accepted]


@routes.get("/api/challenge")
async def list_challenges(request: web.Request) -> web.Response:
    """`challengeList`: the token owner's pending challenges (open ones it created are `out`); `challenge:read`, as
    lila's `ScopedBody(_.Challenge.Read)`."""
    user = scoped(request, "challenge:read")
    if isinstance(user, web.Response):
        return user
    state = state_of(request)
    url = base_url(request)
    out = [challenge_json(g, state, url, listed=True) for g in pending_challenges(state, user)]
    return web.json_response({"in": [], "out": out})


def cancel(state: SandboxState, user: User, challenge_id: str, opponent_token: str | None = None) -> None:
    """lila's `Challenge.apiCancel` (raises `NotFound`, `BadRequest`): the creator cancels a pending challenge; a game
    that exists is aborted only for one of its players, while it is abortable by a user (started, fewer than 2
    plies, no `noAbort` rule), else with the other player's `challenge:write` token as `opponentToken` (then even
    after moves, lila's `AbortForce`), else for a player who made the open challenge while nobody moved."""
    game = state.games.get(challenge_id)
    if game is None:
        raise NotFound()
    if not game.accepted:  # a pending challenge: only its creator's (lila's activeByIdBy; open challenges name no dest)
        if user.id != game.creator:
            raise NotFound()
        del state.games[game.id]
        return
    if user.id not in (game.white, game.black) or game.finished:  # no `Pov(game, me)`, or not `playable`
        raise NotFound()
    abortable = game.status == "started" and len(game.moves) < 2
    if abortable and "noAbort" not in game.rules:
        _abort(state, game)
    elif opponent_token:
        token = state.token(opponent_token)
        if token is None:
            raise BadRequest("No such token")
        if "challenge:write" not in token.scopes:
            raise BadRequest("Missing scope: challenge:write")
        opponent = game.black if user.id == game.white else game.white
        if token.user != opponent:
            raise BadRequest("Not the opponent token")
        _abort(state, game)
    elif user.id == game.creator and game.source == "friend":  # lila's `isOpenBy`: the open challenge's maker plays
        if not abortable:
            raise BadRequest("The game can no longer be aborted")
        _abort(state, game)
    else:
        raise BadRequest("Missing opponentToken")


def _abort(state: SandboxState, game: Game) -> None:
    game.status = "aborted"
    game.winner = None
    state.notify()


@routes.post("/api/challenge/{challenge_id}/cancel")
async def cancel_challenge(request: web.Request) -> web.Response:
    """`challengeCancel` (`cancel`); `opponentToken` is read from the query string, as lila's `get` reads it."""
    user = scoped(request, *CANCEL_SCOPES)
    if isinstance(user, web.Response):
        return user
    try:
        cancel(state_of(request), user, request.match_info["challenge_id"], request.query.get("opponentToken") or None)
    except NotFound:
        return not_found()
    except BadRequest as exc:
        return error(400, str(exc))
    return web.json_response({"ok": True})


def shown_challenge(state: SandboxState, challenge_id: str) -> Game:
    """The challenge `GET /api/challenge/{id}/show` answers: pending, or accepted less than 3 hours ago (lila then
    removes it); `NotFound` for a game that was no challenge (a lobby game, a bulk pairing's game)."""
    game = state.games.get(challenge_id)
    if game is None or game.source != "friend":
        raise NotFound()
    if game.started_at is not None and state.now() - game.started_at > ACCEPTED_CHALLENGE_KEPT:
        raise NotFound()
    return game


@routes.get("/api/challenge/{challenge_id}/show")
async def show_challenge(request: web.Request) -> web.Response:
    """`challengeShow`: a challenge, even recently accepted (anonymous or with a token, as lila's `AnonOrScoped`)."""
    state = state_of(request)
    try:
        game = shown_challenge(state, request.match_info["challenge_id"])
    except NotFound:
        return not_found()
    return web.json_response(challenge_json(game, state, base_url(request), shown=True))


def _exportable(game: Game | None) -> bool:
    return game is not None and game.accepted


def exported_games(state: SandboxState, ids: list[str]) -> list[Game]:
    """The games among the first 300 ids (extra ids are silently dropped), newest first."""
    found = [state.games[i] for i in dict.fromkeys(ids[:EXPORT_IDS_LIMIT]) if _exportable(state.games.get(i))]
    return sorted(found, key=lambda g: g.started_at or 0.0, reverse=True)


@routes.post("/api/games/export/_ids")
async def export_games_by_ids(request: web.Request) -> web.StreamResponse:
    """`gamesExportIds`: at most 300 ids (extra ids are silently dropped), newest first."""
    state = state_of(request)
    text = await request.text()
    found = exported_games(state, [i.strip() for i in text.split(",") if i.strip()])
    if "application/x-chess-pgn" in request.headers.get("Accept", ""):
        return web.Response(text="\n".join(game_pgn(g, state) for g in found), content_type="application/x-chess-pgn")
    moves = trueish(request.query.get("moves"), True)
    pgn = trueish(request.query.get("pgnInJson"), False)
    return ndjson(request, (game_json(g, state, moves=moves, pgn_in_json=pgn) for g in found))


@routes.get("/game/export/{game_id}")
async def export_game(request: web.Request) -> web.Response:
    """`gamePgn`: one game, as JSON when asked for it."""
    state = state_of(request)
    game = state.games.get(request.match_info["game_id"])
    if game is None or not _exportable(game):
        return not_found()
    if "application/json" in request.headers.get("Accept", ""):
        moves = trueish(request.query.get("moves"), True)
        pgn = trueish(request.query.get("pgnInJson"), False)
        return web.json_response(game_json(game, state, moves=moves, pgn_in_json=pgn))
    return web.Response(text=game_pgn(game, state), content_type="application/x-chess-pgn")


def games_of_user(
    state: SandboxState,
    uid: str,
    *,
    since: float = 0.0,
    until: float | None = None,
    limit: int | None = None,
    vs: str | None = None,
    color: str | None = None,
    ongoing: bool = False,
    finished: bool = True,
) -> list[Game]:
    """A player's games (times in epoch seconds), newest first, as `apiGamesUser` filters them."""
    games = []
    for game in state.games.values():
        if not game.accepted or game.started_at is None or uid not in (game.white, game.black):
            continue
        opponent = game.black if game.white == uid else game.white
        mine = "white" if game.white == uid else "black"
        if game.started_at < since or (until is not None and game.started_at > until):
            continue
        if (vs and opponent != vs) or (color and color != mine):
            continue
        if not (ongoing if not game.finished else finished):
            continue
        games.append(game)
    games.sort(key=lambda g: g.started_at or 0.0, reverse=True)
    return games[:limit]


@routes.get("/api/games/user/{username}")
async def export_games_of_user(request: web.Request) -> web.Response:
    """`apiGamesUser`: a player's games, newest first, filtered by since/until/vs/color/max."""
    state = state_of(request)
    uid = request.match_info["username"].lower()
    if uid not in state.users:
        return not_found()
    query = request.query
    try:
        since = int(query.get("since", "0")) / 1000
        until = int(query["until"]) / 1000 if "until" in query else None
        limit = int(query["max"]) if "max" in query else None
    except ValueError:
        return error(400, "since, until and max must be numbers")
    games = games_of_user(
        state,
        uid,
        since=since,
        until=until,
        limit=limit,
        vs=query.get("vs", "").lower() or None,
        color=query.get("color"),
        ongoing=trueish(query.get("ongoing"), False),
        finished=trueish(query.get("finished"), True),
    )
    moves = trueish(query.get("moves"), True)
    return ndjson(request, (game_json(g, state, moves=moves) for g in games))


@routes.get("/api/user/{username}")
async def public_user(request: web.Request) -> web.Response:
    """`apiUser`: public data; 404 for an unknown name."""
    state = state_of(request)
    user = state.users.get(request.match_info["username"].lower())
    if user is None:
        return not_found()
    return web.json_response(user_json(user, base_url(request)))


USERS_PER_CALL = 300
USERS_PER_WINDOW = 8000  # users read per 10 minutes, per token (or per address without one)
USERS_WINDOW = 600.0


def read_users(state: SandboxState, names: list[str], by: str) -> list[User]:
    """`POST /api/users`'s answer: the accounts of up to 300 lower-case names, unknown ones left out, the order kept;
    `bulk.Refused` 400 past 300 names and 429 past 8,000 users per 10 minutes for `by` (nothing read)."""
    if len(names) > USERS_PER_CALL:
        raise bulk.Refused(400, {"error": f"Too many ids: {len(names)}, expected up to {USERS_PER_CALL}"})
    now = state.now()
    state.user_reads = [r for r in state.user_reads if now - r[0] < USERS_WINDOW]
    if sum(r[2] for r in state.user_reads if r[1] == by) + len(names) > USERS_PER_WINDOW:
        raise bulk.Refused(429, {"error": "Too many requests. Try again later."})
    state.user_reads.append((now, by, len(names)))
    return [u for u in (state.users.get(name) for name in names) if u is not None]


@routes.post("/api/users")
async def users_by_id(request: web.Request) -> web.Response:
    """`apiUsers`: up to 300 comma-separated names in a text body (`read_users`)."""
    state = state_of(request)
    names = [n.strip().lower() for n in (await request.text()).split(",") if n.strip()]
    user = me(request)
    by = user.id if user is not None else (request.remote or "anonymous")
    try:
        found = read_users(state, names, by)
    except bulk.Refused as exc:
        return web.json_response(exc.body, status=exc.status)
    return web.json_response([user_json(u, base_url(request)) for u in found])


@routes.get("/api/account")
async def account(request: web.Request) -> web.Response:
    """`accountMe`: the token owner."""
    user = me(request)
    if user is None:
        return error(401, "No token provided")
    return web.json_response(user_json(user, base_url(request)))


def teams_of(state: SandboxState, uid: str) -> list[dict[str, Any]]:
    """`teamOfUsername`'s answer: the teams a user belongs to."""
    teams = []
    for team_id, members in sorted(state.teams.items()):
        if uid in members:
            leader = state.users.get(min(members))
            teams.append(
                {
                    "id": team_id,
                    "name": state.team_names.get(team_id, team_id),
                    "leader": light_user(leader, min(members)),
                    "nbMembers": len(members),
                    "open": True,
                }
            )
    return teams


@routes.get("/api/team/of/{username}")
async def teams_of_user(request: web.Request) -> web.Response:
    """`teamOfUsername`: the teams a user belongs to."""
    return web.json_response(teams_of(state_of(request), request.match_info["username"].lower()))


@routes.get("/api/team/{team_id}/users")
async def team_members(request: web.Request) -> web.Response:
    """`teamIdUsers`: the members of a team (ndjson); 404 for an unknown team."""
    state = state_of(request)
    members = state.teams.get(request.match_info["team_id"])
    if members is None:
        return not_found()
    items = []
    for uid in sorted(members):
        user = state.users.get(uid)
        items.append(light_user(user, uid) | {"joinedTeamAt": ms(user.created_at if user else 0.0)})
    return ndjson(request, items)


def valid_username(name: str) -> bool:
    """Lichess usernames: 1 to 30 letters, digits, `_` or `-`, starting with a letter or digit."""
    return bool(_USERNAME.match(name))
