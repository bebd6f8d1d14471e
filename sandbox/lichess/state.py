"""The sandbox's world: accounts, teams, challenges and games, faults, and its own clock."""

from __future__ import annotations

import asyncio
import random
import string
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import chess

from sandbox.lichess.games import Color, Course, san_moves

GAME_RULES = frozenset({"noAbort", "noRematch", "noGiveTime", "noClaimWin", "noEarlyDraw"})
UNPLAYED_GAME_LIFETIME = 24 * 3600.0  # lila's Titivate removes games nobody moved in after 24 h
CHALLENGE_LIFETIME = 24 * 3600.0
BOT_USERNAME = "SwissBot"
BOT_TOKEN = "lip_sandbox_swissbot"
# The OAuth scopes of lichess.org (the spec's securitySchemes); a personal token made by the control API
# has them all unless it is given a list.
ALL_SCOPES = frozenset(
    {
        "preference:read", "preference:write", "email:read", "engine:read", "engine:write", "challenge:read",
        "challenge:write", "challenge:bulk", "study:read", "study:write", "tournament:write", "racer:write",
        "puzzle:read", "puzzle:write", "team:read", "team:write", "team:lead", "follow:read", "follow:write",
        "msg:write", "board:play", "bot:play", "web:mod",
    }
)  # fmt: skip

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
    absent: bool = False  # a simulated player who never moves (no-shows on purpose)


@dataclass
class Token:
    """An access token: whose it is, what it may do, and until when (None: no expiry)."""

    secret: str
    user: str
    scopes: frozenset[str]
    expires: float | None = None


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
    source: str = "friend"
    bulk: str | None = None
    clock_started_at: float | None = None

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


@dataclass(frozen=True)
class BulkGame:
    """One game of a bulk pairing: its id and the two players' ids."""

    id: str
    white: str
    black: str


@dataclass
class Bulk:
    """A bulk pairing: games Lichess creates at `pair_at`, whose clocks it starts at `start_clocks_at`."""

    id: str
    by: str
    games: list[BulkGame]
    clock_limit: int | None
    clock_increment: int | None
    days: int | None
    rated: bool
    rules: frozenset[str]
    message: str | None
    pair_at: float
    start_clocks_at: float | None
    scheduled_at: float
    paired_at: float | None = None
    started_clocks_at: float | None = None


@dataclass(frozen=True)
class Message:
    """A private message Lichess sent on someone's behalf (a bulk pairing's game announcement)."""

    sender: str
    to: str
    text: str
    game: str
    bulk: str
    at: float


@dataclass
class AuthCode:
    """A pending OAuth authorization code (single use, short-lived)."""

    code: str
    user: str
    scopes: frozenset[str]
    client_id: str
    redirect_uri: str
    challenge: str
    expires: float


@dataclass
class Fault:
    """The next `count` requests whose path starts with `path` answer `status` (after `delay` s)."""

    path: str
    status: int | None
    count: int
    delay: float = 0.0
    after: bool = False
    cut: int | None = None  # a stream is opened, then dropped after this many lines


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
        self.tokens: dict[str, Token] = {}
        self.auth_codes: dict[str, AuthCode] = {}
        self.oauth_decisions: list[tuple[str | None, str | None]] = []  # (state or None, user or None: deny)
        self.bulks: dict[str, Bulk] = {}
        self.bulk_costs: list[tuple[float, str, int]] = []  # (when, by, cost) for the 10-minute limit
        self.user_reads: list[tuple[float, str, int]] = []  # (when, by, users) of `POST /api/users`, per 10 minutes
        self.messages: list[Message] = []
        self.public_url = "https://lichess.org"
        self.changed = asyncio.Event()
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
        scopes: frozenset[str] | None = None,
        absent: bool | None = None,
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
        if absent is not None:
            user.absent = absent
        if token:
            self.tokens[token] = Token(token, uid, ALL_SCOPES if scopes is None else scopes)
        for team in teams:
            self.teams.setdefault(team, set()).add(uid)
        return user

    def token(self, secret: str) -> Token | None:
        """A live token (not revoked, not expired)."""
        token = self.tokens.get(secret)
        if token is None or (token.expires is not None and self.now() >= token.expires):
            return None
        return token

    def user_for_token(self, token: str) -> User | None:
        """The account a live token belongs to."""
        found = self.token(token)
        return self.users.get(found.user) if found else None

    def random_string(self, length: int) -> str:
        """Letters and digits (deterministic with a seed)."""
        alphabet = string.ascii_letters + string.digits
        return "".join(self._id_rng.choice(alphabet) for _ in range(length))

    def notify(self) -> None:
        """Wake whoever waits for a game to start or finish (the game streams)."""
        self.changed.set()
        self.changed = asyncio.Event()

    def new_game_id(self, exclude: set[str] | None = None) -> str:
        """A fresh 8-character id (deterministic with a seed), not among `exclude` nor any bulk's games."""
        scheduled = {g.id for bulk in self.bulks.values() for g in bulk.games} | (exclude or set())
        while True:
            gid = self.random_string(8)
            if gid not in self.games and gid not in scheduled:
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

    def casual_game(
        self, *, white: str, black: str, clock_limit: int, clock_increment: int, rated: bool = False
    ) -> Game:
        """A game the two players started themselves from the lobby (no challenge of anyone's): begun, nobody moved."""
        now = self.now()
        game = Game(
            id=self.new_game_id(),
            name=None,
            white=white,
            black=black,
            clock_limit=clock_limit,
            clock_increment=clock_increment,
            days=None,
            rated=rated,
            rules=frozenset(),
            creator=None,
            created_at=now,
            expires_at=now + CHALLENGE_LIFETIME,
            source="lobby",
        )
        self.games[game.id] = game
        self.start(game)
        return game

    def start(self, game: Game) -> None:
        """Both players joined the challenge: the game begins, nobody has moved."""
        if not game.accepted:
            game.started_at = self.now()
            game.status = "started"
            self.notify()

    def play(self, game: Game, course: Course) -> None:
        """Both players play `course` to its end (joining first if needed)."""
        self.start(game)
        now = self.now()
        game.moves = list(course.moves)
        game.status = course.status
        game.winner = course.winner
        if course.moves:
            game.last_move_at = now
        # lila starts the clock once both players have moved
        if game.bulk is not None and len(game.moves) >= 2 and game.clock_started_at is None:
            game.clock_started_at = now
        self.notify()

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
                self.notify()

    def take_fault(self, path: str) -> Fault | None:
        """The fault that applies to this request, if any (its count goes down by one)."""
        for fault in self.faults:
            if fault.count > 0 and path.startswith(fault.path):
                fault.count -= 1
                if fault.count == 0:
                    self.faults.remove(fault)
                return fault
        return None

    def tick(self) -> list[Game]:
        """Let time act: due bulks pair, due clocks start, flags fall, unplayed games go; the new games."""
        paired = self.pair_due_bulks()
        self.start_due_clocks()
        self.flag_games()
        self.remove_expired()
        return paired

    def pair_due_bulks(self) -> list[Game]:
        """Create the games of every bulk whose `pair_at` has come, as lila's ChallengeBulkApi does."""
        now = self.now()
        created: list[Game] = []
        for bulk in sorted(self.bulks.values(), key=lambda b: b.pair_at):
            if bulk.paired_at is not None or bulk.pair_at > now:
                continue
            at = bulk.pair_at  # when the sandbox jumps past it, the games still date from then
            for planned in bulk.games:
                game = Game(
                    id=planned.id,
                    name=None,
                    white=planned.white,
                    black=planned.black,
                    clock_limit=bulk.clock_limit,
                    clock_increment=bulk.clock_increment,
                    days=bulk.days,
                    rated=bulk.rated,
                    rules=bulk.rules,
                    creator=bulk.by,
                    created_at=at,
                    expires_at=at,
                    started_at=at,
                    status="started",
                    source="api",
                    bulk=bulk.id,
                )
                self.games[game.id] = game
                created.append(game)
                self._announce(bulk, game, at)
            bulk.paired_at = at
        if created:
            self.notify()
        return created

    def _announce(self, bulk: Bulk, game: Game, at: float) -> None:
        template = bulk.message or "Your game with {opponent} is ready: {game}."
        for me, opponent in ((game.white, game.black), (game.black, game.white)):
            opponent_name = self.users[opponent].username if opponent in self.users else opponent
            text = template.replace("{game}", f"{self.public_url}/{game.id}").replace(
                "{opponent}", f"{self.public_url}/@/{opponent_name}"
            )
            self.messages.append(Message(bulk.by, me, text, game.id, bulk.id, at))

    def start_due_clocks(self) -> None:
        """Start the clocks of every paired bulk whose `start_clocks_at` has come."""
        now = self.now()
        for bulk in self.bulks.values():
            start = bulk.start_clocks_at
            if bulk.paired_at is None or bulk.started_clocks_at is not None or start is None or start > now:
                continue
            at = max(start, bulk.paired_at)  # the clocks started then, even if the sandbox's time jumped past
            bulk.started_clocks_at = at
            for planned in bulk.games:
                game = self.games.get(planned.id)
                if game is not None and not game.finished and game.clock_started_at is None:
                    game.clock_started_at = at

    def flag_at(self, game: Game) -> float | None:
        """When the side to move runs out of time, if its clock runs (bulk games only)."""
        if game.clock_started_at is None or game.finished or game.clock_limit is None:
            return None
        # scalachess: a 0-minute clock starts with the increment, at least 3 seconds
        initial = game.clock_limit or max(game.clock_increment or 0, 3)
        since = max(game.clock_started_at, game.last_move_at or 0.0)
        return since + initial

    def flag_games(self) -> None:
        """The side to move whose clock ran out loses `outoftime` (no winner if the other side cannot mate)."""
        now = self.now()
        for game in self.games.values():
            flag = self.flag_at(game)
            if flag is None or now < flag:
                continue
            board = chess.Board()
            for uci in game.moves:
                board.push_uci(uci)
            loser = board.turn
            game.status = "outoftime"
            game.winner = None if board.has_insufficient_material(not loser) else ("black" if loser else "white")
            self.notify()
