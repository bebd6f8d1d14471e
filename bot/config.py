"""Settings from a TOML file (`config.example.toml`); secrets only from the environment."""

from __future__ import annotations

import dataclasses
import os
import tomllib
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from bot.lichess import LICHESS_URL
from bot.lichess import TOKEN_ENV as LICHESS_TOKEN_ENV
from bot.settings import DirectorSettings

T = TypeVar("T")

DISCORD_TOKEN_ENV = "DISCORD_TOKEN"
DISCORD_CLIENT_SECRET_ENV = "SWISSBOT_DISCORD_CLIENT_SECRET"  # the Discord OAuth2 application's secret (optional)
DISCORD_URL = "https://discord.com"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


MIN_LICHESS_PAUSE = 60.0  # Lichess: "wait a full minute" after a 429
MAX_WORKER_PROCESSES = 8


class ConfigError(ValueError):
    """The configuration file or the environment is not usable; the message says why."""


@dataclass(frozen=True)
class ClubConfig:
    """One Discord server (guild) the bot serves."""

    guild_id: int
    organiser_role: str
    channel_id: int
    name: str = ""
    public: bool = False
    lichess_token_env: str = ""  # the environment variable of the club's own Lichess token ("": the bot's)

    def is_organiser_role(self, role_id: int, role_name: str) -> bool:
        """True when a role (by id or by name) is this club's organiser role."""
        wanted = self.organiser_role.strip()
        return wanted == str(role_id) or wanted.casefold() == role_name.casefold()


@dataclass(frozen=True)
class DiscordConfig:
    """Discord behaviour that is not a secret."""

    dm_players: bool = False
    log_channel_id: int = 0
    api_url: str = DISCORD_URL
    oauth_client_id: int = 0  # the bot's Discord application, for /link's sign-in with Discord (0: off)


@dataclass(frozen=True)
class LichessConfig:
    """Where the Lichess API lives (the sandbox in tests and demos)."""

    base_url: str = LICHESS_URL
    timeout_seconds: float = 20.0


@dataclass(frozen=True)
class WebConfig:
    """The bot's web endpoint (OAuth callback, later the event pages); off while `public_url` is unset."""

    host: str = "127.0.0.1"
    port: int = 8081
    public_url: str | None = None

    @property
    def enabled(self) -> bool:
        """The endpoint runs only when the club gave the address members reach it at."""
        return self.public_url is not None


@dataclass(frozen=True)
class Config:
    """The whole configuration of a running bot, secrets excluded."""

    database: Path
    log_level: str = "INFO"
    clubs: tuple[ClubConfig, ...] = ()
    discord: DiscordConfig = field(default_factory=DiscordConfig)
    lichess: LichessConfig = field(default_factory=LichessConfig)
    director: DirectorSettings = field(default_factory=DirectorSettings)
    web: WebConfig = field(default_factory=WebConfig)

    def club(self, guild_id: int | None) -> ClubConfig | None:
        """The club configured for a guild, if any."""
        return next((club for club in self.clubs if club.guild_id == guild_id), None)


@dataclass(frozen=True)
class Secrets:
    """The tokens read from the environment; never printed. `club_tokens`: the own Lichess token of each club that
    brings one, by guild id."""

    discord_token: str = field(repr=False)
    lichess_token: str = field(repr=False)
    discord_client_secret: str | None = field(default=None, repr=False)  # the OAuth2 application's, optional
    club_tokens: Mapping[int, str] = field(default_factory=dict, repr=False)

    def __repr__(self) -> str:
        return (
            "Secrets(discord_token=<hidden>, lichess_token=<hidden>, discord_oauth=<hidden>, "
            f"{len(self.club_tokens)} club token(s))"
        )


class _Table:
    """A TOML table being read: typed access by key, and an error for every key left over."""

    def __init__(self, data: Mapping[str, Any], where: str) -> None:
        self.data = data
        self.where = where
        self.used: set[str] = set()

    def _path(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def get(self, key: str, kind: type[T], default: T) -> T:
        """The value of `key` checked against `kind`, or `default` when absent."""
        if key not in self.data:
            self.used.add(key)
            return default
        return self.require(key, kind)

    def require(self, key: str, kind: type[T]) -> T:
        """The value of a mandatory key checked against `kind`."""
        self.used.add(key)
        if key not in self.data:
            raise ConfigError(f"missing key '{self._path(key)}'")
        value = self.data[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if isinstance(value, bool) and kind is not bool:
            raise ConfigError(f"'{self._path(key)}' must be {kind.__name__}, not a boolean")
        if not isinstance(value, kind):
            raise ConfigError(f"'{self._path(key)}' must be {kind.__name__}, got {type(value).__name__}")
        return value

    def table(self, key: str) -> _Table:
        """A sub-table (an empty one when absent)."""
        value = self.get(key, dict, {})
        return _Table(value, self._path(key))

    def tables(self, key: str) -> list[_Table]:
        """An array of tables such as `[[clubs]]`."""
        value = self.get(key, list, [])
        result = []
        for index, item in enumerate(value):
            if not isinstance(item, dict):
                raise ConfigError(f"'{self._path(key)}' must be an array of tables ([[{key}]])")
            result.append(_Table(item, f"{self._path(key)}[{index}]"))
        return result

    def finish(self) -> None:
        """Fail on the first key nobody asked for (a typo must not be ignored silently)."""
        for key in self.data:
            if key not in self.used:
                raise ConfigError(f"unknown key '{self._path(key)}'")


def _positive_id(table: _Table, key: str) -> int:
    value = table.require(key, int)
    if value <= 0:
        raise ConfigError(f"'{table._path(key)}' must be a Discord id (a positive integer)")
    return value


def _read_club(table: _Table) -> ClubConfig:
    club = ClubConfig(
        guild_id=_positive_id(table, "guild_id"),
        organiser_role=str(table.require("organiser_role", str)).strip(),
        channel_id=_positive_id(table, "channel_id"),
        name=table.get("name", str, "").strip(),
        public=table.get("public", bool, False),
        lichess_token_env=table.get("lichess_token_env", str, "").strip(),
    )
    if not club.organiser_role:
        raise ConfigError(f"'{table._path('organiser_role')}' must name a role (its name or its id)")
    if club.lichess_token_env and not club.lichess_token_env.replace("_", "A").isalnum():
        raise ConfigError(f"'{table._path('lichess_token_env')}' must name an environment variable, not hold a token")
    table.finish()
    return club


def _read_dataclass(cls: type[T], table: _Table) -> T:
    """Build a frozen settings dataclass from a table: one key per field, sub-tables for nested ones."""
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {}
    for item in dataclasses.fields(cls):  # type: ignore[arg-type]
        kind = hints[item.name]
        if item.name not in table.data:
            table.used.add(item.name)
            continue
        if isinstance(kind, type) and dataclasses.is_dataclass(kind):
            values[item.name] = _read_dataclass(kind, table.table(item.name))
        else:
            value = table.require(item.name, kind)
            if isinstance(value, int | float) and value < 0:
                raise ConfigError(f"'{table._path(item.name)}' must not be negative")
            values[item.name] = value
    table.finish()
    return cls(**values)


def parse_config(data: Mapping[str, Any], base_dir: Path) -> Config:
    """Build a `Config` from parsed TOML; relative paths are taken from `base_dir`."""
    root = _Table(data, "")
    bot = root.table("bot")
    database = Path(bot.get("database", str, "swissbot.sqlite3"))
    log_level = bot.get("log_level", str, "INFO").upper()
    if log_level not in LOG_LEVELS:
        raise ConfigError(f"'bot.log_level' must be one of {', '.join(LOG_LEVELS)}")
    bot.finish()

    discord_table = root.table("discord")
    discord = DiscordConfig(
        dm_players=discord_table.get("dm_players", bool, False),
        log_channel_id=discord_table.get("log_channel_id", int, 0),
        api_url=discord_table.get("api_url", str, DISCORD_URL).rstrip("/"),
        oauth_client_id=discord_table.get("oauth_client_id", int, 0),
    )
    if discord.oauth_client_id < 0:
        raise ConfigError("'discord.oauth_client_id' must be the application's id (a positive integer), or 0")
    discord_table.finish()

    lichess_table = root.table("lichess")
    lichess = LichessConfig(
        base_url=lichess_table.get("base_url", str, LICHESS_URL).rstrip("/"),
        timeout_seconds=lichess_table.get("timeout_seconds", float, 20.0),
    )
    if not lichess.base_url.startswith(("http://", "https://")):
        raise ConfigError("'lichess.base_url' must start with http:// or https://")
    if lichess.timeout_seconds <= 0:
        raise ConfigError("'lichess.timeout_seconds' must be positive")
    lichess_table.finish()

    web = _read_web(root.table("web"))

    clubs = tuple(_read_club(table) for table in root.tables("clubs"))
    guilds = [club.guild_id for club in clubs]
    duplicates = sorted({g for g in guilds if guilds.count(g) > 1})
    if duplicates:
        raise ConfigError(f"guild {duplicates[0]} appears in more than one [[clubs]] table")

    director = _read_dataclass(DirectorSettings, root.table("director"))
    for key in ("poll_interval", "default_round_interval_minutes", "default_noshow_minutes"):
        if not getattr(director, key) > 0:  # NaN too
            raise ConfigError(f"'director.{key}' must be positive, not {getattr(director, key):g}")
    if not 0 <= director.worker_processes <= MAX_WORKER_PROCESSES:
        raise ConfigError(
            f"'director.worker_processes' must be 0 to {MAX_WORKER_PROCESSES}, not {director.worker_processes}"
        )
    if director.lichess_pause < MIN_LICHESS_PAUSE:
        raise ConfigError(
            f"'director.lichess_pause' must be at least {MIN_LICHESS_PAUSE:g} seconds: "
            "Lichess asks for a minute's pause after a 429"
        )
    if director.poll_interval <= 0:
        raise ConfigError("'director.poll_interval' must be positive: the bot would poll Lichess without a pause")
    root.finish()
    return Config(
        database=database if database.is_absolute() else base_dir / database,
        log_level=log_level,
        clubs=clubs,
        discord=discord,
        lichess=lichess,
        director=director,
        web=web,
    )


def _read_web(table: _Table) -> WebConfig:
    public_url = table.get("public_url", str, "").strip().rstrip("/")
    web = WebConfig(
        host=table.get("host", str, "127.0.0.1").strip(),
        port=table.get("port", int, 8081),
        public_url=public_url or None,
    )
    if web.public_url is not None and not web.public_url.startswith(("http://", "https://")):
        raise ConfigError("'web.public_url' must start with http:// or https://")
    if not 0 <= web.port <= 65535:
        raise ConfigError("'web.port' must be a TCP port (0 to 65535)")
    if not web.host:
        raise ConfigError("'web.host' must name an address to listen on")
    table.finish()
    return web


def load_config(path: Path) -> Config:
    """Read and check a TOML configuration file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"cannot read {path}: {error.strerror or error}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path} is not valid TOML: {error}") from None
    try:
        return parse_config(data, path.resolve().parent)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None


def load_secrets(environ: Mapping[str, str] | None = None, clubs: tuple[ClubConfig, ...] = ()) -> Secrets:
    """Read the Discord and Lichess tokens from the environment, and the own Lichess token of every club that
    names one (`lichess_token_env`)."""
    env = os.environ if environ is None else environ
    _require(env, [DISCORD_TOKEN_ENV, *_lichess_token_names(clubs)])
    client_secret = env.get(DISCORD_CLIENT_SECRET_ENV, "").strip() or None
    lichess_token, club_tokens = load_lichess_tokens(env, clubs)
    return Secrets(
        env[DISCORD_TOKEN_ENV].strip(),
        lichess_token,
        discord_client_secret=client_secret,
        club_tokens=club_tokens,
    )


def load_lichess_tokens(
    environ: Mapping[str, str] | None = None, clubs: tuple[ClubConfig, ...] = ()
) -> tuple[str, dict[int, str]]:
    """The Lichess tokens alone (for the commands that never talk to Discord, such as `swissbot repair`): the bot's,
    and the own token of every club that names one (`lichess_token_env`), by guild id."""
    env = os.environ if environ is None else environ
    _require(env, _lichess_token_names(clubs))
    club_tokens = {c.guild_id: env[c.lichess_token_env].strip() for c in clubs if c.lichess_token_env}
    return env[LICHESS_TOKEN_ENV].strip(), club_tokens


def _lichess_token_names(clubs: tuple[ClubConfig, ...]) -> list[str]:
    return [LICHESS_TOKEN_ENV, *(c.lichess_token_env for c in clubs if c.lichess_token_env)]


def _require(env: Mapping[str, str], names: list[str]) -> None:
    """ConfigError naming every variable of `names` not set."""
    missing = list(dict.fromkeys(name for name in names if not env.get(name, "").strip()))
    if missing:
        raise ConfigError(f"environment variable {' and '.join(missing)} is not set (tokens never go in the file)")


def load_discord_token(environ: Mapping[str, str] | None = None) -> str:
    """Only the Discord token (for `swissbot sync`, which never talks to Lichess)."""
    env = os.environ if environ is None else environ
    token = env.get(DISCORD_TOKEN_ENV, "").strip()
    if not token:
        raise ConfigError(f"environment variable {DISCORD_TOKEN_ENV} is not set (tokens never go in the file)")
    return token
