"""An organiser's corrections of a pairing (swap, pair, bye) and the checker's findings as sentences."""

from __future__ import annotations

import pytest

from domain.corrections import CorrectionKind, CorrectionRefused, PairingCorrection, apply, describe, sentences
from pairing import checker
from pairing.model import Board, Colour, Outcome, Pairing, Player, RoundRecord, Tournament

NAMES = {n: f"p{n}" for n in range(1, 8)}
ROUND = Pairing((Board(1, 4), Board(5, 2), Board(3, 6)), bye=7)


def _fix(kind: CorrectionKind, *players: int) -> Pairing:
    return apply(ROUND, PairingCorrection(kind, players), NAMES)


def test_a_swap_exchanges_seats_and_colours_or_the_bye() -> None:
    assert _fix(CorrectionKind.SWAP, 4, 5) == Pairing((Board(1, 5), Board(4, 2), Board(3, 6)), 7)
    assert _fix(CorrectionKind.SWAP, 1, 4) == Pairing((Board(4, 1), Board(5, 2), Board(3, 6)), 7)
    assert _fix(CorrectionKind.SWAP, 7, 3) == Pairing((Board(1, 4), Board(5, 2), Board(7, 6)), 3)


def test_pairing_two_players_pairs_their_former_opponents() -> None:
    assert _fix(CorrectionKind.PAIR, 1, 2) == Pairing((Board(1, 2), Board(5, 4), Board(3, 6)), 7)
    assert _fix(CorrectionKind.PAIR, 7, 2) == Pairing((Board(1, 4), Board(7, 2), Board(3, 6)), 5)


def test_the_bye_moves_and_its_holder_takes_the_seat() -> None:
    assert _fix(CorrectionKind.BYE, 6) == Pairing((Board(1, 4), Board(5, 2), Board(3, 7)), 6)
    with pytest.raises(CorrectionRefused, match="Nobody has the pairing-allocated bye"):
        apply(Pairing((Board(1, 2),), None), PairingCorrection(CorrectionKind.BYE, (1,)), NAMES)


@pytest.mark.parametrize(
    ("kind", "players", "refusal"),
    [
        (CorrectionKind.SWAP, (1, 1), "Name two different players."),
        (CorrectionKind.PAIR, (1, 4), "p1 and p4 are already paired."),
        (CorrectionKind.BYE, (7,), "p7 has the pairing-allocated bye already."),
    ],
)
def test_refusals_are_one_sentence(kind: CorrectionKind, players: tuple[int, ...], refusal: str) -> None:
    with pytest.raises(CorrectionRefused) as raised:
        _fix(kind, *players)
    assert str(raised.value) == refusal


def test_a_player_not_in_the_round_is_refused() -> None:
    names = {**NAMES, 8: "p8"}
    with pytest.raises(CorrectionRefused, match="p8 is not paired in this round"):
        apply(ROUND, PairingCorrection(CorrectionKind.SWAP, (1, 8)), names)


def test_descriptions_name_the_players() -> None:
    assert describe(PairingCorrection(CorrectionKind.PAIR, (1, 2)), NAMES) == "pair p1 with p2"
    assert describe(PairingCorrection(CorrectionKind.REPAIR), NAMES) == "re-pair the round"


def _after_round_one() -> Tournament:
    """Four players after a round 1 of 1-2 and 3-4 (White won both); 1 and 3 may not meet."""

    def played(opponent: int, colour: Colour, outcome: Outcome) -> tuple[RoundRecord, ...]:
        return (RoundRecord.played(opponent, colour, outcome),)

    players = (
        Player(1, rounds=played(2, Colour.WHITE, Outcome.WIN)),
        Player(2, rounds=played(1, Colour.BLACK, Outcome.LOSS)),
        Player(3, rounds=played(4, Colour.WHITE, Outcome.WIN)),
        Player(4, rounds=played(3, Colour.BLACK, Outcome.LOSS)),
    )
    return Tournament(players=players, total_rounds=3, forbidden=(frozenset({1, 3}),))


def test_the_checker_s_findings_are_sentences_naming_the_players_and_the_criterion() -> None:
    state = _after_round_one()
    found = checker.check_round(state, 2, Pairing((Board(1, 3), Board(2, 4))), "dutch")
    assert sentences(found, NAMES) == ["p1 and p3 are a forbidden pair and may not meet."]
    rematch = checker.check_round(state, 2, Pairing((Board(2, 1), Board(4, 3))), "dutch")
    assert sentences(rematch, NAMES) == [
        "p2 and p1 have already played each other: a rematch (FIDE C.04.1 a, [C1]).",
        "p4 and p3 have already played each other: a rematch (FIDE C.04.1 a, [C1]).",
    ]
