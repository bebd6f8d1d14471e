"""What the bot sends Lichess and how it reads the answers, shared by the HTTP gateway and the in-memory fake.

No HTTP client here: the bodies of the requests that change something, the look-up of a create whose reply was
lost (what identifies it), and the error a refusal becomes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

from bot.lichess.errors import LichessAuthError, LichessBadRequest, LichessError, LichessTokensRefused
from bot.lichess.payloads import Challenge, GameData, unconvert

SHOWN_CANDIDATES = 10  # a create's look-up asks Lichess about at most this many games of the two players


def form(fields: Mapping[str, Any]) -> dict[str, str | int]:
    """lila form bodies: booleans as "true"/"false", None dropped."""
    out: dict[str, str | int] = {}
    for key, value in fields.items():
        if value is None:
            continue
        out[key] = str(value).lower() if isinstance(value, bool) else value
    return out


def open_challenge_form(
    white: str, black: str, *, clock_limit: int, clock_increment: int, name: str, rated: bool, rules: Sequence[str]
) -> dict[str, str | int]:
    """`POST /api/challenge/open`'s body: a challenge only `white` and `black` can join."""
    return form(
        {
            "clock.limit": clock_limit,
            "clock.increment": clock_increment,
            "rated": rated,
            "name": name,
            "users": f"{white},{black}",
            "rules": ",".join(rules),
        }
    )


def bulk_form(
    pairs: Sequence[tuple[str, str]],
    *,
    clock_limit: int,
    clock_increment: int,
    rated: bool,
    rules: Sequence[str],
    start_clocks_at_ms: int,
    message: str,
) -> dict[str, str | int]:
    """`POST /api/bulk-pairing`'s body: (white token, black token) pairs."""
    return form(
        {
            "players": ",".join(f"{white}:{black}" for white, black in pairs),
            "clock.limit": clock_limit,
            "clock.increment": clock_increment,
            "rated": rated,
            "rules": ",".join(rules),
            "startClocksAt": start_clocks_at_ms,
            "message": message,
        }
    )


def challenge_from(reply: Mapping[str, Any], white: str, black: str, name: str) -> Challenge:
    """The `Challenge` of a created (or listed) open challenge."""
    return Challenge(
        game_id=str(reply["id"]),
        url=str(reply["url"]),
        white=white,
        black=black,
        name=name,
        url_white=reply.get("urlWhite"),
        url_black=reply.get("urlBlack"),
    )


def pending_challenge(mine: Mapping[str, Any], white: str, black: str, name: str) -> Challenge | None:
    """Among the bot's pending challenges (`GET /api/challenge`), the one named `name` for these two players. lila lists
    no open challenge under its creator and gives no `name` in its JSON, so on lichess.org this finds nothing; the
    local Lichess lists them with their name."""
    for item in mine.get("out", []):
        user_ids = [u.lower() for u in (item.get("open") or {}).get("userIds", [])]
        if item.get("name") == name and (not user_ids or user_ids == [white.lower(), black.lower()]):
            return challenge_from(item, white, black, name)
    return None


def candidate_games(
    games: Iterable[Mapping[str, Any]],
    white: str,
    black: str,
    *,
    since_ms: int,
    until_ms: int | None,
    clock: tuple[int, int] | None,
    exclude: Collection[str],
) -> list[str]:
    """Among white's recent games (newest first), the ids of white-vs-black games created in [`since_ms`,
    `until_ms`] with `clock`, skipping the ids in `exclude`: what may be an attempt's game, to be confirmed by its
    challenge (`is_attempt_challenge`); none of them is taken on these grounds alone."""
    skip = frozenset(exclude)
    found: list[str] = []
    for game in games:
        data = GameData.from_json(unconvert(game, "createdAt", "lastMoveAt"))
        if data.white != white.lower() or data.black != black.lower() or data.id in skip:
            continue
        created_ms = round(data.created_at.timestamp() * 1000)
        if created_ms < since_ms or (until_ms is not None and created_ms > until_ms):
            continue
        if clock is not None and _clock_of(game) != clock:
            continue
        found.append(data.id)
    return found


def is_attempt_challenge(
    shown: Mapping[str, Any],
    white: str,
    black: str,
    *,
    name: str,
    clock: tuple[int, int] | None,
    rated: bool | None,
    rules: Collection[str] | None,
) -> bool:
    """Whether `GET /api/challenge/{id}/show`'s answer is the attempt's challenge: an open challenge restricted to
    exactly `white` and `black` (white first), with the attempt's clock, rated flag and rules, and named `name` where
    the answer carries a name (lila's JSON has none: only the local Lichess gives it). A lobby game is no challenge
    (404), a challenge between the players themselves is not open, another event's challenge has its own name."""
    user_ids = [str(u).lower() for u in (shown.get("open") or {}).get("userIds") or ()]
    if user_ids != [white.lower(), black.lower()]:
        return False
    if "name" in shown and shown.get("name") != name:
        return False
    control = shown.get("timeControl") or {}
    if clock is not None and (control.get("type"), control.get("limit"), control.get("increment")) != ("clock", *clock):
        return False
    if rated is not None and bool(shown.get("rated")) != rated:
        return False
    return rules is None or "rules" not in shown or set(shown.get("rules") or ()) == set(rules)


async def attempt_among(
    candidates: Sequence[str],
    show: Callable[[str], Awaitable[Mapping[str, Any] | None]],
    white: str,
    black: str,
    *,
    base_url: str,
    name: str,
    clock: tuple[int, int] | None,
    rated: bool | None,
    rules: Collection[str] | None,
) -> Challenge | None:
    """The first candidate game (`candidate_games`, at most `SHOWN_CANDIDATES` asked about) whose challenge, as
    `show` answers it, is the attempt's (`is_attempt_challenge`)."""
    for game_id in candidates[:SHOWN_CANDIDATES]:
        shown = await show(game_id)
        if shown is not None and is_attempt_challenge(
            shown, white, black, name=name, clock=clock, rated=rated, rules=rules
        ):
            return Challenge(game_id, f"{base_url}/{game_id}", white, black, name)
    return None


def _clock_of(game: Mapping[str, Any]) -> tuple[int, int] | None:
    """A game's clock as (limit, increment) seconds, None for correspondence."""
    clock = game.get("clock")
    if not isinstance(clock, Mapping):
        return None
    return int(clock.get("initial", -1)), int(clock.get("increment", -1))


def refusal(what: str, status: int, body: Any, reason: str = "error") -> LichessError:
    """The error a 4xx answer other than 404 and 429 becomes, from its status and JSON body."""
    if status == 400 and isinstance(body, dict) and isinstance(body.get("tokens"), dict):
        return LichessTokensRefused({str(k): str(v) for k, v in body["tokens"].items()})
    if status == 400 and isinstance(body, dict) and isinstance(body.get("duplicateUsers"), list):
        return LichessBadRequest(f"Lichess refused {what}: a player appears twice")
    message = str(body["error"] if isinstance(body, dict) and "error" in body else reason)[:300]
    if status in (401, 403):
        return LichessAuthError(f"Lichess refused the bot's token ({status}): {message}")
    return LichessBadRequest(f"Lichess refused {what} ({status}): {message}")
