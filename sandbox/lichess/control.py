"""The control API under `/sandbox/`: accounts, playing games, faults, the clock, the request log."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from sandbox.lichess.api import valid_username
from sandbox.lichess.autoplay import game_rng
from sandbox.lichess.autoplay_runner import tick
from sandbox.lichess.games import Color, GameSpecError, plan_game
from sandbox.lichess.http import base_url, error, state_of
from sandbox.lichess.state import ALL_SCOPES, Fault, Game, SandboxState, Token
from sandbox.lichess.streams import STREAMS
from sandbox.lichess.views import game_json, ms, user_json

routes = web.RouteTableDef()
_TITLES = frozenset({"GM", "WGM", "IM", "WIM", "FM", "WFM", "NM", "CM", "WCM", "WNM", "LM", "BOT"})


async def _json_object(request: web.Request) -> dict[str, Any] | web.Response:
    try:
        body = await request.json()
    except ValueError:
        return error(400, "the body must be a JSON object")
    if not isinstance(body, dict):
        return error(400, "the body must be a JSON object")
    return body


@routes.post("/sandbox/users")
async def create_user(request: web.Request) -> web.Response:
    """Create (or update) an account: `{"username", "rating", "bio", "title", "disabled", ...}`."""
    body = await _json_object(request)
    if isinstance(body, web.Response):
        return body
    username = body.get("username")
    if not isinstance(username, str) or not valid_username(username):
        return error(400, "username: 1 to 30 letters, digits, _ or -")
    rating = body.get("rating", 1500)
    if not isinstance(rating, int) or isinstance(rating, bool) or not 400 <= rating <= 4000:
        return error(400, "rating: an integer between 400 and 4000")
    title = body.get("title")
    if title is not None and title not in _TITLES:
        return error(400, f"title: one of {', '.join(sorted(_TITLES))}")
    teams = body.get("teams", [])
    if not isinstance(teams, list) or not all(isinstance(t, str) and t for t in teams):
        return error(400, "teams: a list of team ids")
    token = body.get("token")
    if token is not None and not isinstance(token, str):
        return error(400, "token: a string")
    scopes = _scopes(body.get("scopes"))
    if isinstance(scopes, web.Response):
        return scopes
    absent = body.get("absent")
    if absent is not None and not isinstance(absent, bool):
        return error(400, "absent: true or false")
    user = state_of(request).add_user(
        username,
        rating=rating,
        bio=str(body.get("bio", "")),
        title=title,
        disabled=bool(body.get("disabled", False)),
        tos_violation=bool(body.get("tosViolation", False)),
        provisional=bool(body.get("provisional", False)),
        token=token,
        teams=tuple(teams),
        scopes=scopes,
        absent=absent,
    )
    return web.json_response(user_json(user, base_url(request)), status=201)


def _scopes(raw: Any) -> frozenset[str] | web.Response | None:
    if raw is None:
        return None
    if not isinstance(raw, list) or not all(isinstance(s, str) for s in raw) or set(raw) - ALL_SCOPES:
        return error(400, f"scopes: a list of Lichess scopes ({', '.join(sorted(ALL_SCOPES))})")
    return frozenset(raw)


@routes.post("/sandbox/tokens")
async def create_token(request: web.Request) -> web.Response:
    """A personal access token for an account: `{"username", "token"?, "scopes"?, "expiresIn"?}`."""
    body = await _json_object(request)
    if isinstance(body, web.Response):
        return body
    state = state_of(request)
    user = state.users.get(str(body.get("username", "")).lower())
    if user is None:
        return error(404, "Not found.")
    scopes = _scopes(body.get("scopes"))
    if isinstance(scopes, web.Response):
        return scopes
    secret = body.get("token") or f"lip_{state.random_string(20)}"
    expires_in = body.get("expiresIn")
    if not isinstance(secret, str) or (expires_in is not None and not isinstance(expires_in, int | float)):
        return error(400, "token: a string; expiresIn: seconds")
    expires = None if expires_in is None else state.now() + float(expires_in)
    token = Token(secret, user.id, ALL_SCOPES if scopes is None else scopes, expires)
    state.tokens[secret] = token
    return web.json_response(
        {"token": secret, "userId": user.id, "scopes": sorted(token.scopes), "expires": expires and ms(expires)},
        status=201,
    )


@routes.post("/sandbox/users/{username}/absent")
async def set_absent(request: web.Request) -> web.Response:
    """`{"absent": true}`: the simulated player never moves (nor joins a challenge) until set back."""
    body = await _json_object(request)
    if isinstance(body, web.Response):
        return body
    user = state_of(request).users.get(request.match_info["username"].lower())
    if user is None:
        return error(404, "Not found.")
    absent = body.get("absent", True)
    if not isinstance(absent, bool):
        return error(400, "absent: true or false")
    user.absent = absent
    return web.json_response({"id": user.id, "absent": user.absent})


@routes.post("/sandbox/oauth/decisions")
async def queue_oauth_decision(request: web.Request) -> web.Response:
    """How the next authorization page is answered: `{"username": "alice"}` or `{"deny": true}`, `"state"`?."""
    body = await _json_object(request)
    if isinstance(body, web.Response):
        return body
    state = state_of(request)
    username, deny, for_state = body.get("username"), body.get("deny", False), body.get("state")
    if for_state is not None and not isinstance(for_state, str):
        return error(400, "state: a string")
    if deny is True:
        state.oauth_decisions.append((for_state, None))
    elif isinstance(username, str) and username.lower() in state.users:
        state.oauth_decisions.append((for_state, username.lower()))
    else:
        return error(400, "username: an existing account, or deny: true")
    return web.json_response({"ok": True}, status=201)


@routes.get("/sandbox/messages")
async def messages(request: web.Request) -> web.Response:
    """The messages Lichess sent for bulk pairings, oldest first."""
    return web.json_response(
        [
            {"from": m.sender, "to": m.to, "text": m.text, "game": m.game, "bulk": m.bulk, "at": ms(m.at)}
            for m in state_of(request).messages
        ]
    )


@routes.get("/sandbox/streams")
async def open_streams(request: web.Request) -> web.Response:
    """The open game streams and the ids each still watches."""
    return web.json_response([{"id": s.id, "watching": sorted(s.watched)} for s in request.app[STREAMS].open])


@routes.post("/sandbox/streams/{stream_id}/cut")
async def cut_stream(request: web.Request) -> web.Response:
    """Drop the connection of every open stream with this id (the client sees the body end unfinished)."""
    cut = request.app[STREAMS].named(request.match_info["stream_id"])
    for stream in cut:
        stream.cut = True
    state_of(request).notify()
    return web.json_response({"cut": len(cut)})


@routes.get("/sandbox/games")
async def list_games(request: web.Request) -> web.Response:
    """Every challenge and game, oldest first."""
    state = state_of(request)
    items = [
        {
            "id": g.id,
            "white": g.white,
            "black": g.black,
            "name": g.name,
            "status": g.status,
            "winner": g.winner,
            "plies": len(g.moves),
            "rules": sorted(g.rules),
            "rated": g.rated,
            "createdAt": ms(g.created_at),
            "url": f"{base_url(request)}/{g.id}",
            "source": g.source,
            "bulk": g.bulk,
            "clockStartedAt": None if g.clock_started_at is None else ms(g.clock_started_at),
        }
        for g in sorted(state.games.values(), key=lambda g: g.created_at)
    ]
    return web.json_response(items)


@routes.post("/sandbox/games")
async def create_casual_game(request: web.Request) -> web.Response:
    """A game two players start themselves from the lobby, no challenge of anyone's: `{"white", "black",
    "clock": [limit, increment], "rated"?}` (begun, nobody moved; `/play` plays it)."""
    state = state_of(request)
    body = await _json_object(request)
    if isinstance(body, web.Response):
        return body
    white, black = (str(body.get(key, "")).lower() for key in ("white", "black"))
    clock = body.get("clock")
    if white not in state.users or black not in state.users or white == black:
        return error(400, "white, black: two different existing usernames")
    if not (isinstance(clock, list) and len(clock) == 2 and all(type(v) is int and v >= 0 for v in clock)):
        return error(400, "clock: [limit, increment] in seconds")
    game = state.casual_game(
        white=white, black=black, clock_limit=clock[0], clock_increment=clock[1], rated=body.get("rated") is True
    )
    return web.json_response(game_json(game, state))


@routes.post("/sandbox/games/{game_id}/play")
async def play_game(request: web.Request) -> web.Response:
    """Both players play the game to `{"winner", "status", "plies", "reason"?}`."""
    state = state_of(request)
    game = state.games.get(request.match_info["game_id"])
    if game is None:
        return error(404, "Not found.")
    if game.finished or game.moves:
        return error(409, f"game {game.id} has already been played ({game.status})")
    body = await _json_object(request)
    if isinstance(body, web.Response):
        return body
    winner = body.get("winner")
    status = body.get("status", "mate" if winner else "draw")
    plies = body.get("plies", 60)
    reason = body.get("reason")
    if winner not in (None, "white", "black"):
        return error(400, "winner: white, black or null")
    if not isinstance(status, str) or not isinstance(plies, int) or isinstance(plies, bool):
        return error(400, "status: a string; plies: an integer")
    if reason is not None and not isinstance(reason, str):
        return error(400, "reason: a string")
    try:
        play_to(state, game, winner=winner, status=status, plies=plies, reason=reason)
    except GameSpecError as exc:
        return error(400, str(exc))
    return web.json_response(game_json(game, state))


def play_to(
    state: SandboxState, game: Game, *, winner: Color | None, status: str, plies: int, reason: str | None = None
) -> None:
    """Both players play the game to this end (raises `GameSpecError` for an ending that cannot be)."""
    rng = game_rng(state.seed, game.white, game.black, game.name)
    state.play(game, plan_game(rng, status=status, winner=winner, plies=plies, rules=game.rules, reason=reason))


@routes.post("/sandbox/faults")
async def add_fault(request: web.Request) -> web.Response:
    """Make the next `count` requests whose path starts with `path` answer `status`."""
    body = await _json_object(request)
    if isinstance(body, web.Response):
        return body
    path, status, count = body.get("path"), body.get("status"), body.get("count", 1)
    delay, after, cut = body.get("delay", 0), body.get("after", False), body.get("cut")
    if not isinstance(path, str) or not path.startswith("/") or path.startswith("/sandbox"):
        return error(400, "path: a path prefix such as /api/challenge/open (not /sandbox)")
    if status is not None and (not isinstance(status, int) or not 400 <= status <= 599):
        return error(400, "status: an HTTP error status (400-599) or null")
    if not isinstance(count, int) or count < 1:
        return error(400, "count: a positive integer")
    if cut is not None and (not isinstance(cut, int) or isinstance(cut, bool) or cut < 0 or status is not None):
        return error(400, "cut: a number of lines >= 0, without a status")
    if not isinstance(delay, int | float) or delay < 0 or (status is None and delay == 0 and cut is None):
        return error(400, "delay: seconds >= 0 (a fault needs a status, a delay or a cut)")
    state_of(request).faults.append(Fault(path, status, count, float(delay), bool(after), cut))
    return web.json_response({"ok": True}, status=201)


@routes.delete("/sandbox/faults")
async def clear_faults(request: web.Request) -> web.Response:
    """Remove every pending fault."""
    state_of(request).faults.clear()
    return web.json_response({"ok": True})


@routes.post("/sandbox/clock")
async def advance_clock(request: web.Request) -> web.Response:
    """Move the sandbox's clock forward by `{"advance": seconds}`."""
    body = await _json_object(request)
    if isinstance(body, web.Response):
        return body
    advance = body.get("advance")
    if not isinstance(advance, int | float) or advance < 0:
        return error(400, "advance: seconds >= 0")
    state = state_of(request)
    state.clock_offset += float(advance)
    await tick(request.app)
    return web.json_response({"now": ms(state.now())})


@routes.get("/sandbox/requests")
async def request_log(request: web.Request) -> web.Response:
    """Every Lichess API request received so far (monotonic time, method, path, user, status)."""
    return web.json_response(
        [
            {"started": r.started, "at": r.at, "method": r.method, "path": r.path, "user": r.user, "status": r.status}
            for r in state_of(request).requests
        ]
    )
