"""An organiser's correction of a round's pairing before it is played, and the criteria it breaks in sentences."""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pairing.checker import Discrepancy, DiscrepancyKind
from pairing.model import Board, Pairing


class CorrectionKind(enum.Enum):
    """What an organiser does to a paired round."""

    SWAP = "swap"  # two players change places (boards, colours, the bye)
    PAIR = "pair"  # two players play each other; their former opponents play each other
    BYE = "bye"  # a player gets the pairing-allocated bye; its holder takes the player's seat
    REPAIR = "repair"  # the engine pairs the round again from scratch, as the event stands now


@dataclass(frozen=True)
class PairingCorrection:
    """One correction, the players by starting number (none for a re-pair, one for a bye)."""

    kind: CorrectionKind
    players: tuple[int, ...] = ()


class CorrectionRefused(ValueError):
    """A correction that cannot be applied to this pairing; the message is one sentence."""


def _seat(pairing: Pairing, number: int, name: str) -> None:
    """CorrectionRefused unless the player has a board or the bye in the pairing."""
    if pairing.bye == number or any(number in (b.white, b.black) for b in pairing.boards):
        return
    raise CorrectionRefused(f"{name} is not paired in this round.")


def swap(pairing: Pairing, a: int, b: int, names: Mapping[int, str]) -> Pairing:
    """a and b change places: board and colour, or the bye (on one board: they change colours)."""
    if a == b:
        raise CorrectionRefused("Name two different players.")
    _seat(pairing, a, names[a])
    _seat(pairing, b, names[b])
    moved = {a: b, b: a}
    boards = tuple(Board(moved.get(x.white, x.white), moved.get(x.black, x.black)) for x in pairing.boards)
    bye = moved.get(pairing.bye, pairing.bye) if pairing.bye is not None else None
    return Pairing(boards, bye)


def opponent(pairing: Pairing, number: int) -> int | None:
    """The player's opponent in the pairing (None: the bye)."""
    for board in pairing.boards:
        if number in (board.white, board.black):
            return board.black if board.white == number else board.white
    return None


def pair(pairing: Pairing, a: int, b: int, names: Mapping[int, str]) -> Pairing:
    """a plays b on a's board with a's colour (b's seat goes to a's former opponent), or, when a has the bye,
    on b's board (b's former opponent gets the bye)."""
    if a == b:
        raise CorrectionRefused("Name two different players.")
    _seat(pairing, a, names[a])
    _seat(pairing, b, names[b])
    if opponent(pairing, a) == b:
        raise CorrectionRefused(f"{names[a]} and {names[b]} are already paired.")
    if pairing.bye == a:
        other = opponent(pairing, b)
        assert other is not None
        return swap(pairing, a, other, names)
    other = opponent(pairing, a)
    assert other is not None
    return swap(pairing, b, other, names)


def give_bye(pairing: Pairing, a: int, names: Mapping[int, str]) -> Pairing:
    """a gets the pairing-allocated bye and its holder takes a's seat."""
    _seat(pairing, a, names[a])
    if pairing.bye is None:
        raise CorrectionRefused(
            "Nobody has the pairing-allocated bye this round (an even number plays): to leave a player out, "
            "record their bye request or withdrawal and re-pair the round."
        )
    if pairing.bye == a:
        raise CorrectionRefused(f"{names[a]} has the pairing-allocated bye already.")
    return swap(pairing, a, pairing.bye, names)


def apply(pairing: Pairing, correction: PairingCorrection, names: Mapping[int, str]) -> Pairing:
    """The pairing after a swap, a pair or a bye (a re-pair is the engine's, not this)."""
    players = correction.players
    if correction.kind is CorrectionKind.SWAP:
        return swap(pairing, players[0], players[1], names)
    if correction.kind is CorrectionKind.PAIR:
        return pair(pairing, players[0], players[1], names)
    if correction.kind is CorrectionKind.BYE:
        return give_bye(pairing, players[0], names)
    raise ValueError("a re-pair is the engine's pairing")


def describe(correction: PairingCorrection, names: Mapping[int, str]) -> str:
    """The correction in words, for the audit log and the organisers."""
    who = [names[n] for n in correction.players]
    if correction.kind is CorrectionKind.SWAP:
        return f"swap {who[0]} and {who[1]}"
    if correction.kind is CorrectionKind.PAIR:
        return f"pair {who[0]} with {who[1]}"
    if correction.kind is CorrectionKind.BYE:
        return f"the pairing-allocated bye to {who[0]}"
    return "re-pair the round"


def sentence(problem: Discrepancy, names: Mapping[int, str]) -> str:
    """One of the checker's findings about a pairing as one sentence naming the players and the FIDE criterion."""
    who = [names.get(n, f"player {n}") for n in problem.players]
    first = who[0] if who else "A player"
    second = who[1] if len(who) > 1 else "their opponent"
    kind = problem.kind
    if kind is DiscrepancyKind.REMATCH:
        return f"{first} and {second} have already played each other: a rematch (FIDE C.04.1 a, [C1])."
    if kind is DiscrepancyKind.FORBIDDEN_PAIR:
        return f"{first} and {second} are a forbidden pair and may not meet."
    if kind is DiscrepancyKind.COLOUR_DIFFERENCE:
        return f"{first} would have two more games with one colour than the other: an absolute colour rule ([C3])."
    if kind is DiscrepancyKind.COLOUR_STREAK:
        return f"{first} would get the same colour three times in a row: an absolute colour rule ([C3])."
    if kind is DiscrepancyKind.REPEATED_PAB:
        return f"{first} has had the pairing-allocated bye already: a second bye ([C2])."
    if kind is DiscrepancyKind.PAB_INELIGIBLE:
        return f"{first} may not receive the pairing-allocated bye ([C2]): {problem.message.split(' ', 1)[-1]}."
    if kind is DiscrepancyKind.NOT_TO_BE_PAIRED:
        return f"{first} is not to play this round (withdrawn, absent or on a requested bye) but is paired."
    if kind is DiscrepancyKind.UNPAIRED:
        return f"{first} has neither an opponent nor the bye."
    if kind is DiscrepancyKind.PAIRED_TWICE:
        return f"{first} is placed more than once."
    if kind is DiscrepancyKind.BYE_COUNT:
        return f"The pairing-allocated bye is wrong: {problem.message}."
    return f"{problem.message[:1].upper()}{problem.message[1:]}."


def sentences(problems: Sequence[Discrepancy], names: Mapping[int, str]) -> list[str]:
    """Each finding as one sentence, in the checker's order, without repeats."""
    return list(dict.fromkeys(sentence(p, names) for p in problems))
