"""The stream of games by ids (lila's GamesByIdsStream): current state at once, then each start and finish."""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from sandbox.lichess.http import CUT, STATE, error, me, state_of
from sandbox.lichess.state import Game, SandboxState
from sandbox.lichess.views import ms, speed_of

KEEPALIVE = 50.0  # lila: an empty line after 50 s without an event (Play's idle timeout is 75 s)
ANONYMOUS_IDS = 500  # ids per request; 1000 with a token
AUTHENTICATED_IDS = 1000
ANONYMOUS_WATCH = 1000  # ids one stream may watch in all (after /add); 5000 with a token
AUTHENTICATED_WATCH = 5000

# scalachess Status ids
STATUS_IDS = {
    "created": 10,
    "started": 20,
    "aborted": 25,
    "mate": 30,
    "resign": 31,
    "stalemate": 32,
    "timeout": 33,
    "draw": 34,
    "outoftime": 35,
    "cheat": 36,
    "noStart": 37,
    "unknownFinish": 38,
    "insufficientMaterialClaim": 39,
    "variantEnd": 60,
}

routes = web.RouteTableDef()


@dataclass(eq=False)
class Stream:
    """One open stream: the ids it watches, and what it last sent for each (None: nothing yet)."""

    id: str
    watched: dict[str, str | None]
    max_watched: int
    cut: bool = False

    def pending(self, state: SandboxState) -> list[dict[str, Any]]:
        """The lines to send now: games that appeared, started or finished since the last look."""
        lines = []
        for gid, sent in list(self.watched.items()):
            game = state.games.get(gid)
            if game is None or not game.accepted:
                continue  # not a game (yet): watched until it is one
            phase = "finished" if game.finished else "started"
            if phase != sent:
                lines.append(stream_json(game, state))
                self.watched[gid] = phase
            if phase == "finished":
                del self.watched[gid]  # lila stops watching a game once it finished
        return lines

    def add(self, ids: list[str]) -> None:
        """Watch more ids (up to the stream's maximum)."""
        for gid in ids:
            if len(self.watched) >= self.max_watched:
                return
            self.watched.setdefault(gid, None)


@dataclass
class Streams:
    """The open streams, by stream id (several connections may share one id)."""

    keepalive: float = KEEPALIVE
    open: list[Stream] = field(default_factory=list)
    closing: bool = False

    def named(self, stream_id: str) -> list[Stream]:
        """The open streams with this id."""
        return [s for s in self.open if s.id == stream_id]


STREAMS = web.AppKey("streams", Streams)


def stream_json(game: Game, state: SandboxState) -> dict[str, Any]:
    """lila's `GameStream.toJson`: numeric `status` and `statusName`, players by user id, no moves."""
    players = {}
    for color, uid in (("white", game.white), ("black", game.black)):
        user = state.users.get(uid)
        player: dict[str, Any] = {"userId": uid, "rating": user.ratings.get("blitz", 1500) if user else 1500}
        if user and user.provisional:
            player["provisional"] = True
        players[color] = player
    speed = speed_of(game)
    data: dict[str, Any] = {
        "id": game.id,
        "rated": game.rated,
        "variant": "standard",
        "speed": speed,
        "perf": speed,
        "createdAt": ms(game.started_at if game.started_at is not None else game.created_at),
        "status": STATUS_IDS[game.status],
        "statusName": game.status,
        "players": players,
    }
    if game.winner:
        data["winner"] = game.winner
    if game.clock_limit is not None:
        data["clock"] = {"initial": game.clock_limit, "increment": game.clock_increment or 0}
    elif game.days is not None:
        data["daysPerTurn"] = game.days
    return data


def _ids(text: str) -> list[str]:
    return list(dict.fromkeys(i.strip() for i in text.split(",") if i.strip()))


def _too_many(request: web.Request, ids: list[str]) -> web.Response | None:
    limit = AUTHENTICATED_IDS if me(request) else ANONYMOUS_IDS
    if len(ids) > limit:
        return error(400, f"Too many ids: {len(ids)}, expected up to {limit}")
    return None


def _gone(request: web.Request) -> bool:
    """The client closed the connection."""
    return request.transport is None or request.transport.is_closing()


def _drop(request: web.Request) -> None:
    """Lose the connection mid-stream (the chunked body never ends), as a network cut would."""
    if request.transport is not None:
        request.transport.close()


@routes.post("/api/stream/games/{stream_id}")
async def stream_games(request: web.Request) -> web.StreamResponse:
    """`gamesByIds`: an ndjson stream kept open, with a keep-alive newline when nothing happens."""
    state = state_of(request)
    registry = request.app[STREAMS]
    ids = _ids(await request.text())
    refused = _too_many(request, ids)
    if refused is not None:
        return refused
    stream = Stream(
        request.match_info["stream_id"],
        {gid: None for gid in ids},
        AUTHENTICATED_WATCH if me(request) else ANONYMOUS_WATCH,
    )
    cut_after: int | None = request.get(CUT)
    response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
    await response.prepare(request)
    registry.open.append(stream)
    sent = 0
    loop = asyncio.get_running_loop()
    last_write = loop.time()
    try:
        while not registry.closing and not _gone(request):
            changed = state.changed
            for line in stream.pending(state):
                if cut_after is not None and sent >= cut_after:
                    break
                await response.write((json.dumps(line) + "\n").encode())
                last_write = loop.time()
                sent += 1
            if stream.cut or (cut_after is not None and sent >= cut_after):
                _drop(request)
                return response
            quiet = registry.keepalive - (loop.time() - last_write)
            if quiet <= 0:
                await response.write(b"\n")
                last_write = loop.time()
                continue
            # wake for an event, for the keep-alive, or every second to notice a client that left
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), min(quiet, 1.0))
    except (ConnectionError, RuntimeError):
        return response  # the client went away
    finally:
        registry.open.remove(stream)
    if not _gone(request):
        await response.write_eof()
    return response


@routes.post("/api/stream/games/{stream_id}/add")
async def add_to_stream(request: web.Request) -> web.Response:
    """`gamesByIdsAdd`: watch more ids on the open stream(s) with this id; `ok` even if none is open."""
    ids = _ids(await request.text())
    refused = _too_many(request, ids)
    if refused is not None:
        return refused
    for stream in request.app[STREAMS].named(request.match_info["stream_id"]):
        stream.add(ids)
    state_of(request).notify()
    return web.json_response({"ok": True})


async def close_all(app: web.Application) -> None:
    """End every open stream (on shutdown), so the server does not wait for them."""
    app[STREAMS].closing = True
    app[STATE].notify()
