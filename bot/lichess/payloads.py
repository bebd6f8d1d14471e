"""Typed values of what Lichess answers (accounts, exported games, challenges); no HTTP client here."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

USERNAME = re.compile(r"[A-Za-z0-9_-]{2,30}")  # Lichess usernames (the only text the bot puts into a URL path)


def valid_username(text: str) -> bool:
    """`text` can be a Lichess username: 2 to 30 letters, digits, _ or -."""
    return USERNAME.fullmatch(text) is not None


SPEEDS = ("ultraBullet", "bullet", "blitz", "rapid", "classical", "correspondence")

JsonDict = dict[str, Any]


@dataclass(frozen=True)
class LichessUser:
    """A Lichess account's public data (`GET /api/user/{username}` or `/api/account`)."""

    id: str
    username: str
    title: str | None
    bio: str
    disabled: bool
    tos_violation: bool
    ratings: Mapping[str, int]
    provisional: frozenset[str]
    created_at: datetime | None
    raw: Mapping[str, Any] = field(repr=False, compare=False)
    rated_games: Mapping[str, int] = field(default_factory=dict)  # rated games played at each speed

    @property
    def is_bot(self) -> bool:
        """A BOT account."""
        return self.title == "BOT"


@dataclass(frozen=True)
class GameData:
    """A game as Lichess exports it (`moves` in SAN, as exported; `raw` is the JSON, ready to store)."""

    id: str
    white: str
    black: str
    status: str
    winner: str | None
    moves: str
    plies: int
    created_at: datetime
    last_move_at: datetime
    initial_fen: str | None
    raw: Mapping[str, Any] = field(repr=False, compare=False)
    pgn: str | None = None

    @property
    def finished(self) -> bool:
        """The game is over (aborted included)."""
        return self.status not in ("created", "started")

    @property
    def begun(self) -> bool:
        """The game began: a move was played or it ended, unless it was aborted (an aborted game never began)."""
        return self.status != "aborted" and (self.plies > 0 or self.finished)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameData:
        """Parse one exported game (timestamps as epoch ms, as Lichess sends them)."""
        players = data.get("players", {})
        moves = str(data.get("moves", ""))
        return cls(
            id=str(data["id"]),
            white=player_id(players.get("white", {})),
            black=player_id(players.get("black", {})),
            status=str(data["status"]),
            winner=data.get("winner"),
            moves=moves,
            plies=len(moves.split()),
            created_at=from_ms(data["createdAt"]),
            last_move_at=from_ms(data.get("lastMoveAt", data["createdAt"])),
            initial_fen=data.get("initialFen"),
            raw=dict(data),
            pgn=data.get("pgn"),
        )


@dataclass(frozen=True)
class Challenge:
    """An open challenge restricted to two players; its id is the game's id."""

    game_id: str
    url: str
    white: str
    black: str
    name: str
    url_white: str | None = None
    url_black: str | None = None


def player_id(player: Mapping[str, Any]) -> str:
    user = player.get("user") or {}
    return str(user.get("id") or player.get("userId") or "")


def from_ms(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value
    return datetime.fromtimestamp(int(value) / 1000, tz=UTC)


def to_ms(value: Any) -> Any:
    if isinstance(value, datetime):
        return round(value.timestamp() * 1000)
    return value


def unconvert(data: Mapping[str, Any], *keys: str) -> JsonDict:
    """Undo berserk's datetime conversion so the raw JSON is what Lichess sent."""
    raw = dict(data)
    for key in keys:
        if key in raw:
            raw[key] = to_ms(raw[key])
    return raw


def parse_user(data: Mapping[str, Any]) -> LichessUser:
    """A `LichessUser` from Lichess's user JSON."""
    raw = unconvert(data, "createdAt", "seenAt")
    perfs = raw.get("perfs") or {}
    ratings = {s: int(p["rating"]) for s, p in perfs.items() if s in SPEEDS and "rating" in p}
    provisional = frozenset(s for s, p in perfs.items() if s in SPEEDS and p.get("prov"))
    created = raw.get("createdAt")
    return LichessUser(
        id=str(raw["id"]),
        username=str(raw.get("username", raw["id"])),
        title=raw.get("title"),
        bio=str((raw.get("profile") or {}).get("bio", "")),
        disabled=bool(raw.get("disabled", False)),
        tos_violation=bool(raw.get("tosViolation", False)),
        ratings=ratings,
        provisional=provisional,
        rated_games={s: int(p.get("games", 0)) for s, p in perfs.items() if s in SPEEDS and isinstance(p, dict)},
        created_at=from_ms(created) if created is not None else None,
        raw=raw,
    )


@dataclass(frozen=True)
class TokenInfo:
    """What `POST /api/token/test` says of a valid token: its owner, its scopes, when it expires."""

    user_id: str
    scopes: frozenset[str]
    expires: datetime | None


@dataclass(frozen=True)
class AccessToken:
    """A token Lichess issued by OAuth (`POST /api/token`); the token itself never shows in a repr."""

    token: str = field(repr=False)
    expires_in: int | None = None


@dataclass(frozen=True)
class BulkGameRef:
    """One game of a bulk pairing: its final id and its two players' user ids."""

    id: str
    white: str
    black: str


@dataclass(frozen=True)
class BulkPairing:
    """A bulk pairing as Lichess shows it (`BulkPairing` in the spec)."""

    id: str
    games: tuple[BulkGameRef, ...]
    start_clocks_at: int | None
    paired_at: int | None
    raw: Mapping[str, Any] = field(repr=False, compare=False)


def parse_token_info(data: Any) -> TokenInfo | None:
    """One answer of `POST /api/token/test` (None: no such token, revoked or expired)."""
    if not isinstance(data, Mapping) or not data.get("userId"):
        return None
    scopes = frozenset(s.strip() for s in str(data.get("scopes") or "").split(",") if s.strip())
    expires = data.get("expires")
    return TokenInfo(str(data["userId"]).lower(), scopes, from_ms(expires) if expires is not None else None)


def parse_bulk(data: Mapping[str, Any]) -> BulkPairing:
    """A `BulkPairing` from its JSON."""
    games = tuple(
        BulkGameRef(str(g["id"]), str(g.get("white", "")).lower(), str(g.get("black", "")).lower())
        for g in data.get("games") or ()
    )
    return BulkPairing(
        id=str(data["id"]),
        games=games,
        start_clocks_at=to_ms(data.get("startClocksAt")),
        paired_at=to_ms(data.get("pairedAt")),
        raw=dict(data),
    )
