"""Adding a pairing system is its engine module and one registry entry: a toy system, registered here, is offered
by `/swiss create`, pairs an event through the real director against the local Lichess, and its export carries its
TRF code and passes `swissbot check --system toy`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.discord.commands_payload import command_payloads
from pairing import checker, systems, trf
from pairing.errors import NoValidPairing
from pairing.model import Board, Pairing, RoundViews, Tournament
from tests.bot.director.director_world import World

TOY = systems.PairingSystem(
    name="toy",
    label="Toy",
    engine_module=__name__,  # this module's `pair`
    rules=systems.Rules(
        topscorer_exemption=False,
        pab_eligible=systems.edition_b_pab_eligible,
        pab_reason="already scored a win without playing",
        colour_limits=False,  # the toy alternates colours by board, whatever the players' histories
    ),
    trf_code="TOY_RANK_ORDER",
)


def pair(tournament: Tournament, round_number: int | None = None) -> Pairing:
    """The toy engine: the lowest-ranked eligible player gets the bye, then the players in rank order (score, then
    starting number) each meet the first one below not met yet; White to the higher-ranked player on odd boards."""
    views = tournament.views(round_number)
    ranked = sorted(views.to_pair(), key=lambda number: (-views.score(number), number))
    bye = None
    if len(ranked) % 2:
        bye = next((n for n in reversed(ranked) if views.pab_eligible(n)), None)
        if bye is None:
            raise NoValidPairing("nobody may receive the bye")
        ranked.remove(bye)
    pairs = _first_pairs(views, ranked)
    if pairs is None:
        raise NoValidPairing("every rank-order pairing repeats a game")
    boards = [Board(a, b) if index % 2 == 0 else Board(b, a) for index, (a, b) in enumerate(pairs)]
    return Pairing(tuple(boards), bye)


def _first_pairs(views: RoundViews, left: list[int]) -> list[tuple[int, int]] | None:
    if not left:
        return []
    top, rest = left[0], left[1:]
    for index, other in enumerate(rest):
        if views.have_met(top, other) or views.tournament.is_forbidden(top, other):
            continue
        found = _first_pairs(views, rest[:index] + rest[index + 1 :])
        if found is not None:
            return [(top, other), *found]
    return None


@pytest.fixture
def toy() -> Iterator[systems.PairingSystem]:
    """The toy system, registered for the test only."""
    with systems.registered(TOY) as registered:
        yield registered
    assert "toy" not in systems.SYSTEMS


def _system_option(payloads: list[dict[str, Any]], command: str) -> dict[str, Any]:
    swiss = next(c for c in payloads if c["name"] == "swiss")
    options = next(o for o in swiss["options"] if o["name"] == command)["options"]
    found: dict[str, Any] = next(o for o in options if o["name"] == "system")
    return found


async def test_a_registered_system_is_offered_by_swiss_create_and_edit(toy: systems.PairingSystem) -> None:
    payloads = await command_payloads()
    for command in ("create", "edit"):
        offered = _system_option(payloads, command)["choices"]
        assert {"name": "Toy", "value": "toy"} in offered
        assert [c["value"] for c in offered] == list(systems.choices())


async def test_a_system_no_longer_registered_is_not_offered() -> None:
    with systems.registered(TOY):
        pass
    offered = _system_option(await command_payloads(), "create")["choices"]
    assert "toy" not in {c["value"] for c in offered}


async def test_a_registered_system_pairs_an_event_checked_and_exported_with_its_code(
    toy: systems.PairingSystem, world: World, tmp_path: Path
) -> None:
    event_id, _ = await world.event(players=7, rounds=3, system="toy")
    await world.run_until(lambda: world.finished(event_id))
    event = await world.director.event(event_id)
    assert event.current_round == 3
    exported = (await world.director.export(event_id, "trf")).decode()
    assert "192 TOY_RANK_ORDER" in exported
    tournament = trf.parse(exported, require_rounds=False)
    assert tournament.rounds_completed == 3
    assert checker.check_tournament(tournament, "toy") == []  # the absolute criteria, and the engine pairs the same
    path = tmp_path / "toy.trf"
    path.write_text(exported)
    assert main(["check", "--system", "toy", str(path)]) == 0


def test_registering_a_taken_name_or_an_auto_system_that_pairs_matches_is_refused() -> None:
    with pytest.raises(ValueError, match="'dutch' is already registered"):
        systems.register(systems.named("dutch"))
    with pytest.raises(ValueError, match="`auto` picks only individual"):
        systems.register(systems.PairingSystem("toy2", "Toy", __name__, TOY.rules, games_per_match=2, auto_from=5))
    assert "toy2" not in systems.SYSTEMS
