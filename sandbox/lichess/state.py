"""The sandbox's world: accounts, teams, challenges and games, faults, and its own clock."""

from __future__ import annotations

import random
import string
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from sandbox.lichess.games import Color, Course, san_moves

GAME_RULES = frozenset({"noAbort", "noRematch", "noGiveTime", "noClaimWin", "noEarlyDraw"})
UNPLAYED_GAME_LIFETIME = 24 * 3600.0  # lila's Titivate removes games nobody moved in after 24 h
CHALLENGE_LIFETIME = 24 * 3600.0
BOT_USERNAME = "SwissBot"
BOT_TOKEN = "lip_sandbox_swissbot"

Clock = Callable[[], float]


@dataclass
class User:
    """A Lichess account."""

    id: str
    username: str
    ratings: dict[str, int]
    bio: str = ""
    title: str | None = None
    disabled: bool = False
    tos_violation: bool = False
    provisional: bool = False
    created_at: float = 0.0


@dataclass
class Game:
    """An open challenge restricted to two users, and the game it becomes once both join."""

    id: str
    name: str | None
    white: str
    black: str
    clock_limit: int | None
    clock_increment: int | None
    days: int | None
    rated: bool
    rules: frozenset[str]
    creator: str | None
    created_at: float
    expires_at: float
    started_at: float | None = None
    moves: list[str] = field(default_factory=list)
    status: str = "created"
    winner: Color | None = None
    last_move_at: float | None = None

    @property
    def accepted(self) -> bool:
        """Both players joined: the game exists on Lichess."""
        return self.started_at is not None

    @property
    def finished(self) -> bool:
        """The game has ended (aborted included)."""
        return self.status not in ("created", "started")

    def san(self) -> list[str]:
        """The moves in SAN."""
        return san_moves(self.moves)


@dataclass
class Fault:
    """The next `count` requests whose path starts with `path` answer `status` (after `delay` s)."""

    path: str
    status: int | None
    count: int
    delay: float = 0.0
    after: bool = False


@dataclass(frozen=True)
class LoggedRequest:
    """One request the sandbox received (monotonic times when it arrived and when it was answered)."""

    started: float
    at: float
    method: str
    path: str
    user: str | None
    status: int


class SandboxState:
    """Everything the sandbox knows; handlers and the control API mutate it."""

    def __init__(self, *, seed: int | None = None, clock: Clock | None = None) -> None:
        self.seed = seed
        self._base_clock: Clock = clock or time.time
        self.clock_offset = 0.0
        self._id_rng = random.Random(seed)
        self.users: dict[str, User] = {}
        self.tokens: dict[str, str] = {}
        self.teams: dict[str, set[str]] = {}
        self.team_names: dict[str, str] = {}
        self.games: dict[str, Game] = {}
        self.faults: list[Fault] = []
        self.requests: list[LoggedRequest] = []
        self.add_user(BOT_USERNAME, rating=1500, title="BOT", token=BOT_TOKEN)

    def now(self) -> float:
        """Seconds since the epoch, as the sandbox sees it (injectable, and advanceable)."""
        return self._base_clock() + self.clock_offset

    def add_user(
        self,
        username: str,
        *,
        rating: int = 1500,
        bio: str = "",
        title: str | None = None,
        disabled: bool = False,
        tos_violation: bool = False,
        provisional: bool = False,
        token: str | None = None,
        teams: tuple[str, ...] = (),
    ) -> User:
        """Create an account, or update it if the name exists."""
        uid = username.lower()
        user = self.users.get(uid)
        if user is None:
            user = User(uid, username, {}, created_at=self.now())
            self.users[uid] = user
        user.ratings = {speed: rating for speed in ("bullet", "blitz", "rapid", "classical", "correspondence")}
        user.bio, user.title, user.disabled = bio, title, disabled
        user.tos_violation, user.provisional = tos_violation, provisional
        if token:
            self.tokens[token] = uid
        for team in teams:
            self.teams.setdefault(team, set()).add(uid)
        return user

    def user_for_token(self, token: str) -> User | None:
        """The account a token belongs to."""
        uid = self.tokens.get(token)
        return self.users.get(uid) if uid else None

    def new_game_id(self) -> str:
        """A fresh 8-character id (deterministic with a seed)."""
        alphabet = string.ascii_letters + string.digits
        while True:
            gid = "".join(self._id_rng.choice(alphabet) for _ in range(8))
            if gid not in self.games:
                return gid

    def create_challenge(
        self,
        *,
        white: str,
        black: str,
        name: str | None,
        clock_limit: int | None,
        clock_increment: int | None,
        days: int | None,
        rated: bool,
        rules: frozenset[str],
        creator: str | None,
        expires_at: float | None,
    ) -> Game:
        """Record an open challenge for two users (the first one gets white)."""
        now = self.now()
        game = Game(
            id=self.new_game_id(),
            name=name,
            white=white,
            black=black,
            clock_limit=clock_limit,
            clock_increment=clock_increment,
            days=days,
            rated=rated,
            rules=rules,
            creator=creator,
            created_at=now,
            expires_at=expires_at if expires_at is not None else now + CHALLENGE_LIFETIME,
        )
        self.games[game.id] = game
        return game

    def start(self, game: Game) -> None:
        """Both players joined the challenge: the game begins, nobody has moved."""
        if not game.accepted:
            game.started_at = self.now()
            game.status = "started"

    def play(self, game: Game, course: Course) -> None:
        """Both players play `course` to its end (joining first if needed)."""
        self.start(game)
        now = self.now()
        game.moves = list(course.moves)
        game.status = course.status
        game.winner = course.winner
        if course.moves:
            game.last_move_at = now

    def remove_expired(self) -> None:
        """Drop games nobody moved in after 24 h, and challenges past their expiry, as Lichess does."""
        now = self.now()
        for gid, game in list(self.games.items()):
            if game.started_at is None:
                expired = now >= game.expires_at
            else:
                unplayed = len(game.moves) < 2 and not game.finished
                expired = unplayed and now - game.started_at >= UNPLAYED_GAME_LIFETIME
            if expired:
                del self.games[gid]

    def take_fault(self, path: str) -> Fault | None:
        """The fault that applies to this request, if any (its count goes down by one)."""
        for fault in self.faults:
            if fault.count > 0 and path.startswith(fault.path):
                fault.count -= 1
                if fault.count == 0:
                    self.faults.remove(fault)
                return fault
        return None
