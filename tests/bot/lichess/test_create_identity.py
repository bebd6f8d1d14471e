"""What identifies a create's challenge, read from answers shaped as lila gives them (no `name`, not listed)."""

from __future__ import annotations

from typing import Any

from bot.lichess.forms import candidate_games, is_attempt_challenge, pending_challenge

# lila's `GET /api/challenge/{id}/show` of an accepted open challenge (JsonView.apiAndMobile): no name, the first
# player who joined as challenger, `open.userIds`, `rules` when not empty
LILA_SHOWN: dict[str, Any] = {
    "id": "AbCd1234",
    "url": "https://lichess.org/AbCd1234",
    "status": "accepted",
    "challenger": {"id": "carol", "name": "Carol", "rating": 1500},
    "destUser": None,
    "variant": {"key": "standard", "name": "Standard", "short": "Std"},
    "rated": True,
    "speed": "rapid",
    "timeControl": {"type": "clock", "limit": 600, "increment": 5, "show": "10+5"},
    "color": "white",
    "finalColor": "white",
    "perf": {"icon": "", "name": "Rapid"},
    "direction": "in",
    "open": {"userIds": ["carol", "dave"]},
    "rules": ["noClaimWin", "noGiveTime", "noRematch"],
}
RULES = ("noRematch", "noGiveTime", "noClaimWin")


def shown(**changes: Any) -> dict[str, Any]:
    return LILA_SHOWN | changes


def attempt(answer: dict[str, Any], name: str = "Night #3 R1 B2") -> bool:
    return is_attempt_challenge(answer, "Carol", "dave", name=name, clock=(600, 5), rated=True, rules=RULES)


def test_lilas_open_challenge_for_the_two_players_with_the_events_settings_is_the_attempts() -> None:
    assert attempt(shown())
    assert attempt(shown(status="created"))  # one player joined, or none


def test_a_challenge_that_differs_in_anything_the_attempt_sent_is_not_the_attempts() -> None:
    assert not attempt(shown(open={"userIds": ["dave", "carol"]}))  # colours the other way round
    assert not attempt(shown(open={}))  # open to anyone: not the bot's
    assert not attempt(shown(timeControl={"type": "clock", "limit": 300, "increment": 5, "show": "5+5"}))
    assert not attempt(shown(timeControl={"type": "correspondence", "daysPerTurn": 2}))
    assert not attempt(shown(rated=False))
    assert not attempt(shown(rules=["noRematch"]))


def test_a_friend_challenge_between_the_players_is_not_the_attempts() -> None:
    # one player challenged the other from the website: a destUser, no `open`
    friend = {k: v for k, v in LILA_SHOWN.items() if k != "open"} | {"destUser": {"id": "dave", "name": "dave"}}
    assert not attempt(friend)


def test_a_name_given_must_be_the_attempts() -> None:
    # the local Lichess gives the name; lila does not, and then the rest decides
    assert attempt(shown(name="Night #3 R1 B2"))
    assert not attempt(shown(name="Other club #9 R2 B4"))
    assert not attempt(shown(name="Night #3 R1 B2"), name="Night #3 R1 B2 G2")


def test_lila_lists_no_open_challenge_under_its_creator() -> None:
    # `GET /api/challenge` of the bot: lila's `out` holds challenges whose challenger is the bot, never an open one
    assert pending_challenge({"in": [], "out": []}, "carol", "dave", "Night #3 R1 B2") is None
    listed = {"out": [LILA_SHOWN | {"name": "Night #3 R1 B2"}]}
    found = pending_challenge(listed, "carol", "dave", "Night #3 R1 B2")
    assert found is not None and found.game_id == "AbCd1234"


def game(game_id: str, white: str, black: str, created_ms: int, clock: tuple[int, int] | None = (600, 5)) -> Any:
    data: dict[str, Any] = {
        "id": game_id,
        "rated": True,
        "variant": "standard",
        "speed": "rapid",
        "perf": "rapid",
        "createdAt": created_ms,
        "lastMoveAt": created_ms,
        "status": "started",
        "source": "friend",
        "players": {"white": {"user": {"id": white, "name": white}}, "black": {"user": {"id": black, "name": black}}},
    }
    if clock is not None:
        data["clock"] = {"initial": clock[0], "increment": clock[1], "totalTime": clock[0] + 40 * clock[1]}
    return data


def test_candidates_are_the_two_players_games_of_the_attempts_window_and_clock() -> None:
    games = [
        game("newer000", "carol", "dave", 5_000),
        game("stored00", "carol", "dave", 4_000),
        game("swapped0", "dave", "carol", 4_000),
        game("blitz000", "carol", "dave", 3_000, clock=(180, 2)),
        game("before00", "carol", "dave", 500),
    ]
    found = candidate_games(games, "carol", "dave", since_ms=1_000, until_ms=None, clock=(600, 5), exclude={"stored00"})
    assert found == ["newer000"]
