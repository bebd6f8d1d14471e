"""Lichess-shaped JSON for accounts, challenges and games (see the official OpenAPI schemas)."""

from __future__ import annotations

from typing import Any

import chess.pgn

from sandbox.lichess.state import Game, SandboxState, User

JsonDict = dict[str, Any]

_PERF_NAMES = {
    "ultraBullet": "UltraBullet",
    "bullet": "Bullet",
    "blitz": "Blitz",
    "rapid": "Rapid",
    "classical": "Classical",
    "correspondence": "Correspondence",
}


def ms(seconds: float) -> int:
    """Epoch seconds to Lichess's epoch milliseconds."""
    return round(seconds * 1000)


def speed_of(game: Game) -> str:
    """Lichess's speed from the estimated duration (limit + 40 x increment)."""
    if game.clock_limit is None:
        return "correspondence"
    total = game.clock_limit + 40 * (game.clock_increment or 0)
    if total < 30:
        return "ultraBullet"
    if total < 180:
        return "bullet"
    if total < 480:
        return "blitz"
    if total < 1500:
        return "rapid"
    return "classical"


def user_json(user: User, base_url: str) -> JsonDict:
    """`GET /api/user/{username}` and `GET /api/account` (closed accounts show little)."""
    if user.disabled:
        return {"id": user.id, "username": user.username, "disabled": True, "url": f"{base_url}/@/{user.username}"}
    perf: JsonDict = {"games": 50, "rd": 60, "prog": 0}
    if user.provisional:
        perf = {"games": 0, "rd": 110, "prog": 0, "prov": True}
    perfs = {speed: perf | {"rating": rating} for speed, rating in user.ratings.items()}
    data: JsonDict = {
        "id": user.id,
        "username": user.username,
        "perfs": perfs,
        "createdAt": ms(user.created_at),
        "seenAt": ms(user.created_at),
        "profile": {"bio": user.bio} if user.bio else {},
        "playTime": {"total": 0, "tv": 0},
        "url": f"{base_url}/@/{user.username}",
        "count": {
            "all": 0,
            "rated": 0,
            "draw": 0,
            "loss": 0,
            "win": 0,
            "bookmark": 0,
            "playing": 0,
            "import": 0,
            "me": 0,
        },
        "followable": True,
    }
    if user.title:
        data["title"] = user.title
    if user.tos_violation:
        data["tosViolation"] = True
    return data


def light_user(user: User | None, uid: str) -> JsonDict:
    """`{id, name, title?}` as in game players and team members."""
    if user is None:
        return {"id": uid, "name": uid}
    data: JsonDict = {"id": user.id, "name": user.username}
    if user.title:
        data["title"] = user.title
    return data


def _time_control(game: Game) -> JsonDict:
    if game.clock_limit is not None:
        limit, inc = game.clock_limit, game.clock_increment or 0
        shown = f"{limit // 60}+{inc}" if limit % 60 == 0 else f"{limit / 60:g}+{inc}"
        return {"type": "clock", "limit": limit, "increment": inc, "show": shown}
    if game.days is not None:
        return {"type": "correspondence", "daysPerTurn": game.days}
    return {"type": "unlimited"}


def challenge_json(
    game: Game, state: SandboxState, base_url: str, *, listed: bool = False, shown: bool = False
) -> JsonDict:
    """The reply of `POST /api/challenge/open`; with `listed`, an entry of `GET /api/challenge`; with `shown`, the
    answer of `GET /api/challenge/{id}/show` (to the bot, neither challenger nor challenged: direction `in`). `name` is
    the local Lichess's own: lila's challenge JSON has none."""
    speed = speed_of(game)
    url = f"{base_url}/{game.id}"
    data: JsonDict = {
        "id": game.id,
        "url": url,
        "status": "accepted" if game.accepted else "created",
        "challenger": None,
        "destUser": None,
        "variant": {"key": "standard", "name": "Standard", "short": "Std"},
        "rated": game.rated,
        "speed": speed,
        "timeControl": _time_control(game),
        "color": "random",
        "finalColor": "white",
        "perf": {"icon": "", "name": _PERF_NAMES[speed]},
        "urlWhite": f"{url}?color=white",
        "urlBlack": f"{url}?color=black",
        "open": {"userIds": [game.white, game.black]},
        "rules": sorted(game.rules),
    }
    if game.name:
        data["name"] = game.name
    if listed:
        creator = state.users.get(game.creator or "")
        data["challenger"] = light_user(creator, game.creator or "")
        data["direction"] = "out"
        del data["urlWhite"], data["urlBlack"]
    elif shown:
        data["direction"] = "in"
        del data["urlWhite"], data["urlBlack"]
        if game.accepted:  # lila: the first player who joined an open challenge becomes its challenger
            data["challenger"] = light_user(state.users.get(game.white), game.white)
    return data


def game_json(game: Game, state: SandboxState, *, moves: bool = True, pgn_in_json: bool = False) -> JsonDict:
    """One game as `POST /api/games/export/_ids` exports it (status name, SAN moves)."""
    speed = speed_of(game)
    started = game.started_at if game.started_at is not None else game.created_at
    data: JsonDict = {
        "id": game.id,
        "rated": game.rated,
        "variant": "standard",
        "speed": speed,
        "perf": speed,
        "createdAt": ms(started),
        "lastMoveAt": ms(game.last_move_at if game.last_move_at is not None else started),
        "status": game.status,
        "source": game.source,
        "players": {color: _player(state, uid) for color, uid in (("white", game.white), ("black", game.black))},
    }
    if game.winner:
        data["winner"] = game.winner
    if moves:
        data["moves"] = " ".join(game.san())
    if pgn_in_json:
        data["pgn"] = game_pgn(game, state)
    if game.clock_limit is not None:
        inc = game.clock_increment or 0
        data["clock"] = {"initial": game.clock_limit, "increment": inc, "totalTime": game.clock_limit + 40 * inc}
    elif game.days is not None:
        data["daysPerTurn"] = game.days
    return data


def _player(state: SandboxState, uid: str) -> JsonDict:
    user = state.users.get(uid)
    data: JsonDict = {"user": light_user(user, uid), "rating": user.ratings.get("blitz", 1500) if user else 1500}
    if user and user.provisional:
        data["provisional"] = True
    return data


def result_of(game: Game) -> str:
    """The PGN result."""
    if game.winner:
        return "1-0" if game.winner == "white" else "0-1"
    return "*" if not game.finished or game.status == "aborted" else "1/2-1/2"


def game_pgn(game: Game, state: SandboxState) -> str:
    """The game as PGN text."""
    pgn = chess.pgn.Game()
    white, black = state.users.get(game.white), state.users.get(game.black)
    pgn.headers["Event"] = game.name or "Casual game"
    pgn.headers["Site"] = f"https://lichess.org/{game.id}"
    pgn.headers["White"] = white.username if white else game.white
    pgn.headers["Black"] = black.username if black else game.black
    pgn.headers["Result"] = result_of(game)
    pgn.headers["GameId"] = game.id
    node: chess.pgn.GameNode = pgn
    for uci in game.moves:
        node = node.add_variation(chess.Move.from_uci(uci))
    return str(pgn) + "\n"
