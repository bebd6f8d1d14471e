"""Property tests of the Fast Swiss engine on generated events: every round it pairs is a legal Fast pairing.

Fast gives no colour guarantee (its passes 4-5 and its fallback ignore colours), so the properties are the
ones it does promise: every player to be paired is placed exactly once, nobody meets an earlier opponent or a
forbidden partner, the PAB goes to a player who has had neither a PAB nor a forfeit win, and the boards come
in the published order. The column-wise entry point gives the same pairing as the model's.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pairing import generator, trf
from pairing.errors import NoValidPairing
from pairing.model import Pairing, RecordKind, Scoring, Tournament
from pairing.systems import fast


def _check_round(state: Tournament, pairing: Pairing) -> None:
    views = state.views()
    to_pair = set(views.to_pair())
    placed = [n for b in pairing.boards for n in (b.white, b.black)]
    if pairing.bye is not None:
        placed.append(pairing.bye)
    assert sorted(placed) == sorted(to_pair), "every player to pair is placed exactly once"
    for board in pairing.boards:
        assert not views.have_met(board.white, board.black), f"rematch {board}"
        assert not state.is_forbidden(board.white, board.black), f"forbidden pair {board}"
    if pairing.bye is not None:
        kinds = {rec.kind for rec in views.history(pairing.bye)}
        assert RecordKind.PAB not in kinds and RecordKind.FORFEIT_WIN not in kinds, "PAB to an ineligible player"
    keys = []
    for board in pairing.boards:
        sw, sb = views.score(board.white), views.score(board.black)
        keys.append((-max(sw, sb), -min(sw, sb)))
    assert keys == sorted(keys), "boards in the published order (higher scores first)"


def _checked_pair(forbid: bool) -> generator.Pair:
    def pair(state: Tournament) -> Pairing:
        if forbid and len(state.players) >= 4:
            state = replace(state, forbidden=(frozenset({1, 2}), frozenset({3, 4})))
        pairing = fast.pair(state)
        _check_round(state, pairing)
        by_event = fast.pair_event(fast.FastEvent.from_tournament(state))
        numbers = sorted(p.number for p in state.players)
        assert [(numbers[w], numbers[b]) for w, b in by_event.boards] == [(b.white, b.black) for b in pairing.boards]
        return pairing

    return pair


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(2, 80),
    rounds=st.integers(1, 12),
    irregular=st.booleans(),
    points310=st.booleans(),
    accelerated=st.booleans(),
    forbid=st.booleans(),
)
def test_generated_events_pair_legally(
    seed: int, players: int, rounds: int, irregular: bool, points310: bool, accelerated: bool, forbid: bool
) -> None:
    scoring = Scoring(win=Fraction(3), draw=Fraction(1)) if points310 else Scoring()
    rate = 1.0 if irregular else 0.0
    generator.generate(
        seed,
        players,
        rounds,
        pair=_checked_pair(forbid),
        scoring=scoring,
        accelerated=accelerated and not points310,
        late_entry_rate=0.1 * rate,
        forfeit_rate=0.1 * rate,
        half_bye_rate=0.08 * rate,
        absence_rate=0.05 * rate,
        withdraw_rate=0.05 * rate,
    )


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(4, 60), rounds=st.integers(1, 8))
def test_pairing_survives_the_trf_round_trip(seed: int, players: int, rounds: int) -> None:
    # The engine reads only what the TRF keeps: the same event written and read back pairs the same.
    event = generator.generate(seed, players, rounds + 1, pair=fast.pair, stop_after=rounds)
    assert _outcome(trf.parse(trf.dumps(event))) == _outcome(event)


def _outcome(tournament: Tournament) -> Pairing | str:
    try:
        return fast.pair(tournament)
    except NoValidPairing as exc:
        return str(exc)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(4, 60), rounds=st.integers(3, 8))
def test_points_too_large_for_machine_integers_pair_as_their_scaled_down_event(
    seed: int, players: int, rounds: int
) -> None:
    """Every point times 10**12 scales each tie-break alike (SB by its square), so the pairing is the same; the
    engine then computes in Python's own integers, as the machine's would overflow."""
    event = generator.generate(seed, players, rounds + 1, pair=fast.pair, stop_after=rounds, half_bye_rate=0.1)
    big = 10**12
    scaled = replace(
        event, scoring=Scoring(win=Fraction(big), draw=Fraction(big, 2), pab=Fraction(big), half_bye=Fraction(big, 2))
    )
    assert _outcome(scaled) == _outcome(event)
