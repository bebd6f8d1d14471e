"""A scenario file (TOML): read, checked key by key and type by type, every error naming its line."""

from __future__ import annotations

import asyncio
import functools
import re
import tomllib
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from discord import AppCommandOptionType, app_commands

from bot.config import ConfigError, parse_config
from bot.settings import DirectorSettings

DEFAULT_START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday morning
Kinds = tuple[type, ...]
# What a scenario may write for an option of each Discord type (a role is the list of members who hold it).
OPTION_KINDS: dict[AppCommandOptionType, Kinds] = {
    AppCommandOptionType.string: (str,),
    AppCommandOptionType.integer: (int,),
    AppCommandOptionType.number: (int, float),
    AppCommandOptionType.boolean: (bool,),
    AppCommandOptionType.role: (list,),
    AppCommandOptionType.channel: (int,),
}
# The scenario's own value forms, beyond the option's Discord type (`ScenarioRun.interaction_options` turns them
# into what Discord sends): an event by id, a start as Unix seconds, a team's members as a list of names.
SCENARIO_FORMS: dict[str, Kinds] = {"event": (int,), "start": (int,), "members": (list,)}
# The scenario's names for /swiss subcommands of a subgroup: `team` is /swiss team add (or remove, with
# `remove = true`), `teams` is /swiss team list.
SUBCOMMANDS = {"team": "swiss team add", "teams": "swiss team list"}
TEAM_REMOVE = "swiss team remove"


@dataclass(frozen=True)
class CommandSpec:
    """A slash command as the bot's app-command tree defines it: the options a step may give (by the cog's parameter
    name or the name Discord shows), the required ones, and whether members (not organisers) type it."""

    path: str
    options: Mapping[str, Kinds]
    required: tuple[tuple[str, str], ...]  # (the cog's name, Discord's name) of each required option
    member: bool

    def missing(self, given: Mapping[str, Any]) -> list[str]:
        """The required options `given` lacks (under either name)."""
        return [name for name, shown in self.required if name not in given and shown not in given]


def _options(command: app_commands.Command[Any, ..., Any]) -> dict[str, Kinds]:
    found: dict[str, Kinds] = {}
    for param in command.parameters:
        kinds = OPTION_KINDS.get(param.type, (str,)) + SCENARIO_FORMS.get(param.name, ())
        found[param.name] = found[param.display_name] = kinds
    return found


def _spec(command: app_commands.Command[Any, ..., Any], member: bool) -> CommandSpec:
    required = tuple((p.name, p.display_name) for p in command.parameters if p.required)
    return CommandSpec(command.qualified_name, _options(command), required, member)


async def _read_tree() -> dict[str, CommandSpec]:
    from discord.http import Route

    from bot.discord.commands_payload import offline_bot

    base = Route.BASE  # building a bot points discord.py at its Discord: a running bot's must stay
    bot = await offline_bot()
    try:
        found: dict[str, CommandSpec] = {}
        swiss: dict[str, app_commands.Command[Any, ..., Any]] = {}
        for command in bot.tree.walk_commands():
            if isinstance(command, app_commands.Group):
                continue
            if command.parent is None:
                found[command.name] = _spec(command, member=True)
            else:
                swiss[command.qualified_name] = command
        for command in swiss.values():
            if command.parent is not None and command.parent.name == "swiss" and command.name not in found:
                found[command.name] = _spec(command, member=False)
            elif command.parent is not None and command.parent.name != "swiss":
                found[command.qualified_name] = _spec(command, member=False)  # another group's: `do = "arbiter swap"`
        for do, path in SUBCOMMANDS.items():
            found[do] = _spec(swiss[path], member=False)
        remove = _options(swiss[TEAM_REMOVE])
        team = found["team"]
        found["team"] = CommandSpec(team.path, {**remove, **team.options, "remove": (bool,)}, team.required, False)
        return found
    finally:
        await bot.close()
        Route.BASE = base


@functools.cache
def bot_commands() -> Mapping[str, CommandSpec]:
    """The commands a step's `do` may name, read from the bot's app-command tree built offline (as `swissbot sync`
    builds it): each member command, each /swiss subcommand, and `team`/`teams`."""
    with ThreadPoolExecutor(1) as pool:  # a loop of its own: a file may be read inside a running loop
        return pool.submit(asyncio.run, _read_tree()).result()


COMMAND_KEYS = {"by": (str,), "options": (dict,), "reply": (str,), "refused": (str,), "club": (str,)}
ACTION_KEYS: dict[str, dict[str, tuple[type, ...]]] = {
    "wait": {},
    "restart": {"down_for": (str,)},
    "click": {"button": (str,), "by": (str,), "about": (str,), "reply": (str,), "server": (str,)},
    "play": {
        "about": (str,),
        "round": (int,),
        "board": (int,),
        "result": (str,),
        "winner": (str,),
        "status": (str,),
        "plies": (int,),
        "reason": (str,),
    },
    "lichess": {"fault": (dict,), "clear": (bool,)},
    "casual game": {
        "white": (str,),
        "black": (str,),
        "minutes": (int, float),
        "increment": (int,),
        "rated": (bool,),
        "result": (str,),
        "plies": (int,),
    },
    "account": {
        "name": (str,),
        "disabled": (bool,),
        "rating": (int,),
        "provisional": (bool,),
        "tos_violation": (bool,),
        "title": (str,),
        "bio": (str,),
    },
    "discord": {"down": (bool,), "fault": (dict,), "clear": (bool,)},
    "storage": {"trouble": (str,), "after": (str,)},
    "expect": {
        "about": (str,),
        "board": (dict,),
        "player": (dict,),
        "event": (dict,),
        "posted": (str, dict),
        "not_posted": (str,),
        "standings": (list,),
        "team_standings": (list,),
        "trf_contains": (str,),
        "trf_lacks": (str,),
        "trf_checks": (str,),
        "in_channel": (str, dict),
        "lichess_games": (int,),
        "edited": (str, dict),
        "dm": (dict,),
        "pings": (list,),
        "files": (list,),
        "club": (str,),
    },
}
EXPECT_TABLES: dict[str, dict[str, tuple[type, ...]]] = {
    "board": {
        "round": (int,),
        "board": (int,),
        "result": (str,),
        "white": (str,),
        "black": (str,),
        "game": (bool,),
        "casual": (bool,),
    },
    "player": {"name": (str,), "status": (str,)},
    "event": {"status": (str,), "round": (int,), "next_round": (str,)},
    "posted": {"text": (str,), "times": (int,)},
    "in_channel": {"text": (str,), "times": (int,)},
    "edited": {"text": (str,), "times": (int,)},
    "dm": {"to": (str,), "text": (str,), "times": (int,)},
    "fault": {"path": (str,), "status": (int,), "count": (int,), "delay": (int, float), "after": (bool,)},
    "discord_fault": {
        "path": (str,),
        "status": (int,),
        "count": (int,),
        "delay": (int, float),
        "retry_after": (int, float),
        "global": (bool,),
    },
}
CLUB_KEYS = {"name": (str,), "organiser_role": (str,), "channel": (str,), "own_lichess": (bool,)}
LINK_WAYS = ("oauth", "bio")  # how a member links: Lichess's sign-in page (the default), or the bio code
STORAGE_TROUBLE = ("locked", "full", "readonly", "ok")
# Named points inside a job where storage trouble can start: the Lichess call after which it starts.
TROUBLE_POINTS = {"game-created": "create_game", "bulk-created": "create_bulk"}
PLAY_RESULTS = {"1-0": ("white", "resign"), "0-1": ("black", "resign"), "1/2-1/2": (None, "draw")}
_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*([dhms])")
_TIME_FORMATS = ("%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S")


class ScenarioError(ValueError):
    """A scenario file that cannot be run: the message names the file and the line."""


@dataclass(frozen=True)
class Club:
    """A Discord server the bot serves (`[[club]]`, as `[[clubs]]` in the config): its name, its organisers' role and
    announcement channel (by name), and whether it brings its own Lichess account (the club's token)."""

    name: str
    organiser_role: str = "organisers"
    channel: str = "tournaments"
    own_lichess: bool = False
    line: int = 0


DEFAULT_CLUB = Club("scenario club")


@dataclass(frozen=True)
class Member:
    """A club member: a Lichess account (rating at every speed) and a Discord id; linked unless told otherwise."""

    name: str
    rating: int
    discord_id: int
    linked: bool
    link: str  # how the member links: "oauth" (Lichess's sign-in page, as in production) or "bio" (the bio code)
    organiser: bool
    join: bool
    account: Mapping[str, Any]
    line: int
    clubs: tuple[str, ...] = ()  # the clubs' servers the member is in (folded names; empty: every club)


@dataclass(frozen=True)
class Step:
    """One line of the timeline: at `at`, `do` something (a command, an action or an expectation)."""

    index: int
    line: int
    at: datetime
    do: str
    values: Mapping[str, Any]

    @property
    def where(self) -> str:
        """`step N (line L)`."""
        return f"step {self.index} (line {self.line})"

    @property
    def options(self) -> Mapping[str, Any]:
        """A command's options."""
        found: Mapping[str, Any] = self.values.get("options", {})
        return found


@dataclass(frozen=True)
class Scenario:
    """A whole scenario file."""

    path: Path
    name: str
    start: datetime
    seed: int
    autoplay: bool
    director: DirectorSettings
    event: Mapping[str, Any] | None
    open_event: bool
    members: tuple[Member, ...]
    steps: tuple[Step, ...] = field(default=())
    clubs: tuple[Club, ...] = (DEFAULT_CLUB,)
    event_club: str = ""  # the club whose organiser creates the [event] ("": the first)


def parse_time(text: str) -> datetime:
    """A UTC time written `YYYY-MM-DD HH:MM[:SS]`."""
    for fmt in _TIME_FORMATS:
        try:
            return datetime.strptime(text.strip().removesuffix("UTC").strip(), fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    raise ValueError(f"'{text}' is not a time (YYYY-MM-DD HH:MM, UTC)")


def parse_duration(text: str) -> timedelta:
    """`1d2h30m10s`-style durations (any of the parts)."""
    compact = text.replace(" ", "")
    parts = _DURATION.findall(compact)
    if not parts or "".join(n + u for n, u in parts) != compact:
        raise ValueError(f"'{text}' is not a duration (e.g. 90s, 5m, 2h, 1d2h)")
    unit = {"d": 86400, "h": 3600, "m": 60, "s": 1}
    return timedelta(seconds=sum(float(n) * unit[u] for n, u in parts))


def parse_at(text: str, previous: datetime) -> datetime:
    """`+<duration>` after the previous step, or an absolute UTC time."""
    if text.strip().startswith("+"):
        return previous + parse_duration(text.strip()[1:])
    return parse_time(text)


def header_lines(source: str, header: str) -> list[int]:
    """The line numbers (1-based) of every `[[header]]` (or `[header]`) in the source."""
    pattern = re.compile(rf"^\s*\[\[?\s*{re.escape(header)}\s*\]\]?\s*(#.*)?$")
    return [number for number, line in enumerate(source.splitlines(), 1) if pattern.match(line)]


def load(path: Path) -> Scenario:
    """Read and check a scenario file (ScenarioError with the file and line on any problem)."""
    try:
        source = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    try:
        data = tomllib.loads(source)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{path}: not valid TOML: {exc}") from None
    return _Reader(path, source).scenario(data)


class _Reader:
    def __init__(self, path: Path, source: str) -> None:
        self.path = path
        self.source = source

    def fail(self, line: int | None, message: str) -> ScenarioError:
        where = f"{self.path}:{line}" if line else str(self.path)
        return ScenarioError(f"{where}: {message}")

    def line_of(self, header: str, index: int = 0) -> int | None:
        lines = header_lines(self.source, header)
        return lines[index] if index < len(lines) else None

    def check(
        self, table: Mapping[str, Any], allowed: Mapping[str, tuple[type, ...]], where: str, line: int | None
    ) -> None:
        for key, value in table.items():
            if key not in allowed:
                raise self.fail(line, f"{where}: unknown key '{key}' (one of: {', '.join(sorted(allowed))})")
            kinds = allowed[key]
            wrong_bool = isinstance(value, bool) and bool not in kinds
            if wrong_bool or not isinstance(value, kinds):
                names = " or ".join(k.__name__.replace("dict", "table").replace("list", "array") for k in kinds)
                raise self.fail(line, f"{where}: '{key}' must be {names}, got {type(value).__name__}")

    def scenario(self, data: dict[str, Any]) -> Scenario:
        top = {
            "scenario": (dict,),
            "director": (dict,),
            "event": (dict,),
            "member": (list,),
            "step": (list,),
            "club": (list,),
        }
        self.check(data, top, "the file", None)
        head = data.get("scenario", {})
        head_line = self.line_of("scenario")
        self.check(
            head,
            {"name": (str,), "start": (str,), "seed": (int,), "autoplay": (bool,), "link": (str,)},
            "[scenario]",
            head_line,
        )
        default_link = str(head.get("link", "oauth"))
        if default_link not in LINK_WAYS:
            raise self.fail(head_line, f"[scenario]: link must be one of {', '.join(LINK_WAYS)}, not {default_link!r}")
        try:
            start = parse_time(head["start"]) if "start" in head else DEFAULT_START
        except ValueError as exc:
            raise self.fail(head_line, f"[scenario]: start: {exc}") from None
        director_line = self.line_of("director")
        try:
            director = parse_config({"director": data.get("director", {})}, self.path.parent).director
        except (ConfigError, ValueError, TypeError) as exc:
            raise self.fail(director_line, f"[director]: {exc}") from None
        clubs = self.clubs(data.get("club", []))
        club_names = {c.name.casefold() for c in clubs}
        event: dict[str, Any] | None = None
        open_event = True
        event_club = ""
        if "event" in data:
            event = dict(data["event"])
            event_line = self.line_of("event")
            open_event = bool(event.pop("open", True))
            event_club = str(event.pop("club", ""))
            if event_club and event_club.casefold() not in club_names:
                raise self.fail(event_line, f"[event]: club {event_club!r} is no [[club]]")
            create = bot_commands()["create"]
            self.check(event, create.options, "[event]", event_line)
            for key in create.missing(event):
                raise self.fail(event_line, f"[event]: missing '{key}'")
        members = tuple(self.member(i, m, default_link, club_names) for i, m in enumerate(data.get("member", [])))
        names = [m.name.lower() for m in members]
        for member in members:
            if names.count(member.name.lower()) > 1:
                raise self.fail(member.line, f"member '{member.name}' appears twice")
        steps: list[Step] = []
        previous = start
        for index, raw in enumerate(data.get("step", []), 1):
            step = self.step(index, raw, previous, {m.name.lower() for m in members}, club_names)
            steps.append(step)
            previous = step.at
        return Scenario(
            path=self.path,
            name=str(head.get("name", self.path.stem)),
            start=start,
            seed=int(head.get("seed", 7)),
            autoplay=bool(head.get("autoplay", False)),
            director=director,
            event=event,
            open_event=open_event,
            members=members,
            steps=tuple(steps),
            clubs=clubs,
            event_club=event_club,
        )

    def clubs(self, raw: Any) -> tuple[Club, ...]:
        if not raw:
            return (DEFAULT_CLUB,)
        found: list[Club] = []
        for index, table in enumerate(raw):
            line = self.line_of("club", index) or 0
            if not isinstance(table, dict):
                raise self.fail(line, "[[club]] must be a table")
            self.check(table, CLUB_KEYS, "[[club]]", line)
            if not str(table.get("name", "")).strip():
                raise self.fail(line, "[[club]]: missing 'name' (the club's server)")
            if any(c.name.casefold() == table["name"].casefold() for c in found):
                raise self.fail(line, f"club '{table['name']}' appears twice")
            found.append(
                Club(
                    name=str(table["name"]).strip(),
                    organiser_role=str(table.get("organiser_role", DEFAULT_CLUB.organiser_role)),
                    channel=str(table.get("channel", DEFAULT_CLUB.channel)),
                    own_lichess=bool(table.get("own_lichess", False)),
                    line=line,
                )
            )
        return tuple(found)

    def member(self, index: int, raw: Any, default_link: str, clubs: set[str]) -> Member:
        line = self.line_of("member", index)
        if not isinstance(raw, dict):
            raise self.fail(line, "[[member]] must be a table")
        allowed = {
            "name": (str,),
            "rating": (int,),
            "discord_id": (int,),
            "linked": (bool,),
            "link": (str,),
            "organiser": (bool,),
            "join": (bool,),
            "provisional": (bool,),
            "disabled": (bool,),
            "tos_violation": (bool,),
            "title": (str,),
            "teams": (list,),
            "clubs": (list,),
        }
        self.check(raw, allowed, "[[member]]", line)
        for club in raw.get("clubs", []):
            if not isinstance(club, str) or club.casefold() not in clubs:
                raise self.fail(line, f"[[member]]: clubs: {club!r} is no [[club]]")
        if "name" not in raw:
            raise self.fail(line, "[[member]]: missing 'name' (the Lichess username)")
        if raw.get("link", default_link) not in LINK_WAYS:
            raise self.fail(line, f"[[member]]: link must be one of {', '.join(LINK_WAYS)}, not {raw['link']!r}")
        account = {k: raw[k] for k in ("provisional", "disabled", "tos_violation", "title") if k in raw}
        if "teams" in raw:
            account["teams"] = tuple(str(t) for t in raw["teams"])
        return Member(
            name=raw["name"],
            rating=int(raw.get("rating", 1500)),
            discord_id=int(raw.get("discord_id", 10_001 + index)),
            linked=bool(raw.get("linked", True)),
            link=str(raw.get("link", default_link)),
            organiser=bool(raw.get("organiser", False)),
            join=bool(raw.get("join", True)),
            account=account,
            line=line or 0,
            clubs=tuple(str(c).casefold() for c in raw.get("clubs", [])),
        )

    def step(self, index: int, raw: Any, previous: datetime, members: set[str], clubs: set[str]) -> Step:
        line = self.line_of("step", index - 1)
        where = f"step {index}"
        if not isinstance(raw, dict):
            raise self.fail(line, f"{where} must be a table")
        do = raw.get("do")
        if not isinstance(do, str):
            raise self.fail(
                line, f"{where}: missing 'do' (a command such as 'join', or one of {', '.join(ACTION_KEYS)})"
            )
        commands = bot_commands()
        if do in commands:
            allowed: dict[str, tuple[type, ...]] = dict(COMMAND_KEYS)
        elif do in ACTION_KEYS:
            allowed = dict(ACTION_KEYS[do])
        else:
            known = ", ".join([*commands, *ACTION_KEYS])
            raise self.fail(line, f"{where}: unknown 'do = \"{do}\"' (one of: {known})")
        values = {k: v for k, v in raw.items() if k not in ("at", "do", "note")}
        self.check(values, allowed, f"{where} ({do})", line)
        at = raw.get("at", "+0s")
        if not isinstance(at, str):
            raise self.fail(line, f"{where}: 'at' must be a string ('+2h' or 'YYYY-MM-DD HH:MM')")
        try:
            when = parse_at(at, previous)
        except ValueError as exc:
            raise self.fail(line, f"{where}: at: {exc}") from None
        if when < previous:
            raise self.fail(line, f"{where}: at {when:%Y-%m-%d %H:%M:%S} is before the previous step")
        if "club" in values and values["club"].casefold() not in clubs:
            raise self.fail(line, f"{where}: club {values['club']!r} is no [[club]]")
        if do in commands:
            self.command(do, values, where, line, members)
        elif do == "expect":
            self.expect(values, where, line)
        elif do == "play" and not ("board" in values and ("result" in values or "status" in values)):
            raise self.fail(line, f"{where}: play needs 'board' and 'result' (1-0, 0-1, 1/2-1/2) or 'status'")
        elif do == "play" and "result" in values and values["result"] not in PLAY_RESULTS:
            raise self.fail(line, f"{where}: result must be one of {', '.join(PLAY_RESULTS)}")
        elif do == "lichess":
            self.check(values.get("fault", {}), EXPECT_TABLES["fault"], f"{where} fault", line)
        elif do == "casual game":
            self.casual_game(values, where, line, members)
        elif do == "account" and "name" not in values:
            raise self.fail(line, f"{where}: account needs the 'name' of the Lichess account")
        elif do == "discord" and not {"down", "fault", "clear"} & set(values):
            raise self.fail(line, f"{where}: discord needs 'down = true|false', a 'fault' or 'clear = true'")
        elif do == "discord" and "fault" in values:
            self.check(values["fault"], EXPECT_TABLES["discord_fault"], f"{where} fault", line)
            if "path" not in values["fault"]:
                raise self.fail(line, f'{where} fault: missing \'path\' (e.g. "channel" or "/api/v10/users")')
        elif do == "click" and (values.get("button") != "join" or "by" not in values):
            raise self.fail(line, f"{where}: click needs 'button = \"join\"' and 'by' (the member who clicks)")
        elif do == "click" and values.get("server", "other") != "other":
            raise self.fail(line, f"{where}: click 'server' can only be \"other\" (another server the members are in)")
        elif do == "restart" and "down_for" in values:
            try:
                parse_duration(values["down_for"])
            except ValueError as exc:
                raise self.fail(line, f"{where}: down_for: {exc}") from None
        elif do == "storage" and values.get("after", next(iter(TROUBLE_POINTS))) not in TROUBLE_POINTS:
            raise self.fail(line, f"{where}: storage 'after' is one of {', '.join(TROUBLE_POINTS)}")
        elif do == "storage" and values.get("trouble") not in STORAGE_TROUBLE:
            raise self.fail(line, f"{where}: storage needs 'trouble', one of {', '.join(STORAGE_TROUBLE)}")
        return Step(index=index, line=line or 0, at=when, do=do, values=values)

    def command(self, do: str, values: Mapping[str, Any], where: str, line: int | None, members: set[str]) -> None:
        spec = bot_commands()[do]
        options = values.get("options", {})
        self.check(options, spec.options, f"{where} ({do}) options", line)
        for key in spec.missing(options):
            raise self.fail(line, f"{where} ({do}): missing option '{key}'")
        by = values.get("by")
        if spec.member and by is None:
            raise self.fail(line, f"{where} ({do}): 'by' must name the member who runs it")
        if by is not None and by.lower() not in members and by != "organiser":
            raise self.fail(line, f"{where} ({do}): 'by = \"{by}\"' is no [[member]] (or 'organiser')")
        if "reply" in values and "refused" in values:
            raise self.fail(line, f"{where} ({do}): give 'reply' or 'refused', not both")

    def casual_game(self, values: Mapping[str, Any], where: str, line: int | None, members: set[str]) -> None:
        for colour in ("white", "black"):
            if colour not in values:
                raise self.fail(line, f"{where}: casual game needs '{colour}' (a [[member]]'s name)")
            if values[colour].lower() not in members:
                raise self.fail(line, f"{where}: casual game {colour} = {values[colour]!r} is no [[member]]")
        if values["white"].lower() == values["black"].lower():
            raise self.fail(line, f"{where}: casual game needs two different players")
        if "result" in values and values["result"] not in PLAY_RESULTS:
            raise self.fail(line, f"{where}: result must be one of {', '.join(PLAY_RESULTS)}")
        if values.get("minutes", 1) <= 0 or values.get("increment", 0) < 0:
            raise self.fail(line, f"{where}: casual game 'minutes' must be above 0 and 'increment' not below 0")

    def expect(self, values: Mapping[str, Any], where: str, line: int | None) -> None:
        if not values:
            raise self.fail(line, f"{where}: expect needs at least one expectation")
        for key in ("board", "player", "event"):
            if key in values:
                self.check(values[key], EXPECT_TABLES[key], f"{where} expect.{key}", line)
        for key in ("posted", "in_channel", "edited", "dm"):
            if isinstance(values.get(key), dict):
                self.check(values[key], EXPECT_TABLES[key], f"{where} expect.{key}", line)
                if "text" not in values[key]:
                    raise self.fail(line, f"{where} expect.{key}: missing 'text'")
        if "dm" in values and "to" not in values["dm"]:
            raise self.fail(line, f"{where} expect.dm: missing 'to' (a member's name)")
        if "board" in values and not {"round", "board"} <= set(values["board"]):
            raise self.fail(line, f"{where} expect.board: needs 'round' and 'board'")
        if "player" in values and "name" not in values["player"]:
            raise self.fail(line, f"{where} expect.player: needs 'name'")
        for key, what in (("pings", "member names"), ("files", "file names")):
            if key in values and not all(isinstance(n, str) for n in values[key]):
                raise self.fail(line, f"{where} expect.{key}: an array of {what}")
        if "standings" in values and not all(isinstance(n, str) for n in values["standings"]):
            raise self.fail(line, f"{where} expect.standings: an array of player names, first place first")
        if "team_standings" in values and not all(isinstance(n, str) for n in values["team_standings"]):
            raise self.fail(line, f"{where} expect.team_standings: an array of team names, first place first")
        if "event" in values and "next_round" in values["event"] and values["event"]["next_round"] != "none":
            try:
                parse_time(values["event"]["next_round"])
            except ValueError as exc:
                raise self.fail(line, f"{where} expect.event.next_round: {exc}") from None
