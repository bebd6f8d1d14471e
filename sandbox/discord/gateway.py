"""The gateway websocket as discord.py speaks it: HELLO, IDENTIFY, READY, heartbeats, RESUME, dispatches."""

from __future__ import annotations

import asyncio
import contextlib
import json
import zlib
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from sandbox.discord.state import DiscordState, Json
from sandbox.discord.views import guild_json, me_json, member_json

DISPATCH, HEARTBEAT, IDENTIFY, PRESENCE, VOICE, RESUME, RECONNECT, REQUEST_MEMBERS = 0, 1, 2, 3, 4, 6, 7, 8
INVALID_SESSION, HELLO, HEARTBEAT_ACK = 9, 10, 11
HEARTBEAT_INTERVAL_MS = 41250
# discord.py records a heartbeat as sent only after its keep-alive thread wakes up again; an ACK that arrives
# before that (loopback answers in microseconds) is measured against the previous heartbeat, a whole interval
# ago, and discord.py warns "Can't keep up ... 41.2s behind". Discord's ACK takes a network round trip: so here.
HEARTBEAT_ACK_DELAY = 0.05
GUILD_MEMBERS_INTENT = 1 << 1
BUFFERED_EVENTS = 1000  # how many past events a session keeps for a RESUME


class Connection:
    """One websocket: sends JSON payloads, zlib-stream compressed when asked for."""

    def __init__(self, socket: web.WebSocketResponse, compress: bool) -> None:
        self.socket = socket
        self._compressor = zlib.compressobj() if compress else None
        self._lock = asyncio.Lock()

    async def send(self, payload: Json) -> None:
        """Send one payload (a whole message per frame; compressed frames end with 00 00 ff ff)."""
        text = json.dumps(payload, separators=(",", ":"))
        async with self._lock:
            if self.socket.closed:
                return
            if self._compressor is None:
                await self.socket.send_str(text)
            else:
                data = self._compressor.compress(text.encode()) + self._compressor.flush(zlib.Z_SYNC_FLUSH)
                await self.socket.send_bytes(data)

    async def close(self, code: int, message: str = "") -> None:
        """Close the socket with a gateway close code."""
        await self.socket.close(code=code, message=message.encode())


@dataclass
class Session:
    """A gateway session: it outlives a dropped socket so the bot can RESUME it."""

    id: str
    intents: int
    sequence: int = 0
    events: list[Json] = field(default_factory=list)
    connection: Connection | None = None
    resumes: int = 0
    identified_at: float = 0.0


class Gateway:
    """The sessions, and dispatching events to them."""

    def __init__(self, state: DiscordState) -> None:
        self.state = state
        self.sessions: dict[str, Session] = {}
        self.heartbeat_interval_ms = HEARTBEAT_INTERVAL_MS
        self.heartbeat_ack_delay = HEARTBEAT_ACK_DELAY
        self._acks: set[asyncio.Task[None]] = set()
        self.connected = asyncio.Event()

    def has_session(self) -> bool:
        """Some bot identified (connected now, or able to resume)."""
        return bool(self.sessions)

    async def dispatch(self, event: str, data: Json, *, intent: int = 0) -> None:
        """Send an event to every session (kept for a RESUME when its socket is down)."""
        for session in list(self.sessions.values()):
            if intent and not session.intents & intent:
                continue
            session.sequence += 1
            payload = {"op": DISPATCH, "t": event, "s": session.sequence, "d": data}
            session.events.append(payload)
            del session.events[:-BUFFERED_EVENTS]
            if session.connection is not None:
                await session.connection.send(payload)

    async def drop(self, code: int) -> int:
        """Close every live socket with this close code (sessions stay resumable); how many were closed."""
        closed = 0
        for session in self.sessions.values():
            connection, session.connection = session.connection, None
            if connection is not None:
                await connection.close(code, "Sandbox: the connection dropped")
                closed += 1
        if closed:
            self.connected.clear()
        return closed

    async def send_op(self, op: int, data: Any) -> int:
        """Send a non-dispatch opcode (RECONNECT, INVALID_SESSION) to every live socket."""
        sent = 0
        for session in self.sessions.values():
            if session.connection is not None:
                await session.connection.send({"op": op, "d": data})
                sent += 1
        return sent

    def acknowledge(self, connection: Connection) -> None:
        """Answer a HEARTBEAT with HEARTBEAT_ACK after a round trip's delay, without holding up the socket's reads."""

        async def ack() -> None:
            await asyncio.sleep(self.heartbeat_ack_delay)
            with contextlib.suppress(ConnectionError):  # the socket closed meanwhile: nobody waits for the ACK
                await connection.send({"op": HEARTBEAT_ACK})

        task = asyncio.create_task(ack())
        self._acks.add(task)
        task.add_done_callback(self._acks.discard)

    async def close_all(self) -> None:
        """Close every socket (the server is stopping)."""
        for task in list(self._acks):
            task.cancel()
        await self.drop(1001)


GATEWAY = web.AppKey("discord_gateway", Gateway)


async def websocket(request: web.Request) -> web.StreamResponse:
    """The gateway endpoint (`/` and `/gateway`), with `?v=10&encoding=json&compress=zlib-stream`."""
    gateway = request.app[GATEWAY]
    socket = web.WebSocketResponse(max_msg_size=4096 * 1024, autoping=True)
    await socket.prepare(request)
    compress = request.query.get("compress")
    connection = Connection(socket, compress == "zlib-stream")
    if request.query.get("encoding", "json") != "json" or compress not in (None, "zlib-stream"):
        await connection.close(4002, "Sandbox: only encoding=json and compress=zlib-stream are served")
        return socket
    if request.query.get("v", "10") not in ("9", "10"):
        await connection.close(4012, "Invalid API version")
        return socket
    await connection.send({"op": HELLO, "d": {"heartbeat_interval": gateway.heartbeat_interval_ms}})
    session: Session | None = None
    try:
        async for message in socket:
            if message.type not in (WSMsgType.TEXT, WSMsgType.BINARY):
                break
            try:
                payload = json.loads(message.data if message.type == WSMsgType.TEXT else zlib.decompress(message.data))
            except (ValueError, zlib.error):
                await connection.close(4002, "Error while decoding payload.")
                break
            session = await _handle(request, gateway, connection, session, payload)
            if socket.closed:
                break
    finally:
        if session is not None and session.connection is connection:
            session.connection = None
            if socket.close_code in (1000, 1001):  # a client closing with 1000/1001 ends its session
                gateway.sessions.pop(session.id, None)
    return socket


async def _handle(
    request: web.Request, gateway: Gateway, connection: Connection, session: Session | None, payload: Any
) -> Session | None:
    """One client payload; returns the socket's session once it identified or resumed."""
    op = payload.get("op") if isinstance(payload, dict) else None
    data = payload.get("d") if isinstance(payload, dict) else None
    if op == HEARTBEAT:
        gateway.acknowledge(connection)
        return session
    if op == IDENTIFY:
        if session is not None:
            await connection.close(4005, "Already authenticated.")
            return session
        return await _identify(request, gateway, connection, data if isinstance(data, dict) else {})
    if op == RESUME:
        return await _resume(gateway, connection, data if isinstance(data, dict) else {})
    if op in (PRESENCE, VOICE, REQUEST_MEMBERS):
        if session is None:
            await connection.close(4003, "Not authenticated.")
        elif op == REQUEST_MEMBERS and isinstance(data, dict):
            await _member_chunk(gateway, data)
        return session
    await connection.close(4001, "Unknown opcode.")
    return session


async def _identify(request: web.Request, gateway: Gateway, connection: Connection, data: Json) -> Session | None:
    state = gateway.state
    if data.get("token") != state.token:
        await connection.close(4004, "Authentication failed.")
        return None
    intents = data.get("intents")
    if not isinstance(intents, int):
        await connection.close(4013, "Invalid intent(s).")
        return None
    session = Session(state.secret(32).lower(), intents)
    session.connection = connection
    gateway.sessions[session.id] = session
    ready: Json = {
        "v": 10,
        "user": me_json(state.bot),
        "guilds": [{"id": str(g), "unavailable": True} for g in state.guilds],
        "session_id": session.id,
        "session_type": "normal",
        "resume_gateway_url": gateway_url(request),
        "application": {"id": str(state.application_id), "flags": 0},
        "private_channels": [],
        "relationships": [],
        "presences": [],
        "guild_join_requests": [],
        "geo_ordered_rtc_regions": [],
        "user_settings": {},
        "auth": {},
        "_trace": ['["sandbox-gateway",{"micros":0}]'],
    }
    if isinstance(data.get("shard"), list):
        ready["shard"] = data["shard"]
    await _send_to(session, "READY", ready)
    for guild in state.guilds.values():
        await _send_to(session, "GUILD_CREATE", guild_json(guild, state, full=True))
    gateway.connected.set()
    return session


async def _send_to(session: Session, event: str, data: Json) -> None:
    """Dispatch to one session only (READY and its GUILD_CREATEs)."""
    session.sequence += 1
    payload = {"op": DISPATCH, "t": event, "s": session.sequence, "d": data}
    session.events.append(payload)
    if session.connection is not None:
        await session.connection.send(payload)


async def _resume(gateway: Gateway, connection: Connection, data: Json) -> Session | None:
    session = gateway.sessions.get(str(data.get("session_id")))
    if data.get("token") != gateway.state.token:
        await connection.close(4004, "Authentication failed.")
        return None
    seq = data.get("seq")
    if session is None or not isinstance(seq, int) or (session.events and seq < session.events[0]["s"] - 1):
        await connection.send({"op": INVALID_SESSION, "d": False})
        return None
    old, session.connection = session.connection, connection
    if old is not None and old is not connection:
        await old.close(4000, "Sandbox: resumed elsewhere")
    for payload in session.events:
        if payload["s"] > seq:
            await connection.send(payload)
    session.resumes += 1
    await _send_to(session, "RESUMED", {"_trace": ['["sandbox-gateway",{"micros":0}]']})
    gateway.connected.set()
    return session


async def _member_chunk(gateway: Gateway, data: Json) -> None:
    """Answer REQUEST_GUILD_MEMBERS with one GUILD_MEMBERS_CHUNK (the members intent is not checked)."""
    state = gateway.state
    guild = state.guilds.get(int(str(data.get("guild_id", 0)))) if str(data.get("guild_id", "")).isdigit() else None
    if guild is None:
        return
    members = [member_json(m, state) for m in guild.members.values()]
    chunk: Json = {"guild_id": str(guild.id), "members": members, "chunk_index": 0, "chunk_count": 1}
    if data.get("nonce"):
        chunk["nonce"] = data["nonce"]
    await gateway.dispatch("GUILD_MEMBERS_CHUNK", chunk)


def gateway_url(request: web.Request) -> str:
    """The websocket URL of this server (what `/gateway` and READY's `resume_gateway_url` give)."""
    scheme = "wss" if request.scheme == "https" else "ws"
    return f"{scheme}://{request.host}/gateway"
