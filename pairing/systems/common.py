"""What several engines share: the bracket-by-bracket round of Dubov, Double-Swiss and Swiss Team, its
completability test and the bye it starts with, the counts of upfloaters taken from each scoregroup, and the
reference's `std::list::sort` (Burstein and Fast Swiss)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence

from pairing.errors import NoValidPairing
from pairing.matching import max_weight_perfect_matching
from pairing.model import Points

Pair = tuple[int, int]


def completable(numbers: Iterable[int], legal: Callable[[int, int], bool]) -> bool:
    """These players (or teams) can all be paired among themselves by `legal` pairs."""
    group = sorted(numbers)
    if len(group) % 2:
        return False
    if not group:
        return True
    edges = [(i, j, 1) for i, j in itertools.combinations(range(len(group)), 2) if legal(group[i], group[j])]
    return max_weight_perfect_matching(len(group), edges) is not None


def first_bye(
    remaining: set[int],
    eligible: Callable[[int], bool],
    score: Callable[[int], Points],
    played: Callable[[int], int],
    pairable: Callable[[Iterable[int]], bool],
    none_left: str,
) -> int:
    """The pairing-allocated bye: the eligible one whose absence leaves the others pairable, lowest score first,
    then most games (matches) played, then the largest number; NoValidPairing with `none_left` when none is."""
    for number in sorted((n for n in remaining if eligible(n)), key=lambda n: (score(n), -played(n), -n)):
        if pairable(remaining - {number}):
            return number
    raise NoValidPairing(none_left)


def pair_by_brackets(
    numbers: Iterable[int],
    choose_bye: Callable[[set[int]], int],
    pairable: Callable[[Iterable[int]], bool],
    next_bracket: Callable[[set[int]], tuple[Iterable[int], Iterable[Pair]]],
    unpairable: str,
) -> tuple[list[Pair], int | None]:
    """A round bracket by bracket: the bye first when the count is odd (else the whole must be pairable, or
    NoValidPairing with `unpairable`), then the next bracket and its pairs until no one is left."""
    remaining = set(numbers)
    bye = None
    if len(remaining) % 2:
        bye = choose_bye(remaining)
        remaining.discard(bye)
    elif not pairable(remaining):
        raise NoValidPairing(unpairable)
    pairs: list[Pair] = []
    while remaining:
        bracket, paired = next_bracket(remaining)
        pairs.extend(paired)
        remaining -= set(bracket)
    return pairs, bye


def compositions(total: int, limits: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Every way to take `total` items from groups of these sizes, the first group's largest share first."""
    if not limits:
        if total == 0:
            yield ()
        return
    for first in range(min(total, limits[0]), -1, -1):
        for rest in compositions(total - first, limits[1:]):
            yield (first, *rest)


def list_sort(items: list[int], less: Callable[[int, int], bool]) -> list[int]:
    """libstdc++'s `std::list::sort` (a bottom-up merge sort through 64 bins), with the same comparisons, so
    the order is the reference's even for a `less` that is not transitive."""

    def merge(into: list[int], other: list[int]) -> list[int]:
        # list::merge: each element of `other` goes before the first element of `into` it is less than.
        out: list[int] = []
        i = j = 0
        while i < len(into) and j < len(other):
            if less(other[j], into[i]):
                out.append(other[j])
                j += 1
            else:
                out.append(into[i])
                i += 1
        return out + into[i:] + other[j:]

    if len(items) < 2:
        return list(items)
    bins: list[list[int]] = []
    for item in items:
        carry = [item]
        k = 0
        while k < len(bins) and bins[k]:
            carry = merge(bins[k], carry)
            bins[k] = []
            k += 1
        if k == len(bins):
            bins.append(carry)
        else:
            bins[k] = carry
    result: list[int] = []
    for k, chunk in enumerate(bins):
        result = chunk if k == 0 else merge(chunk, result)
    return result
