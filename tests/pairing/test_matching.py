"""The blossom matching against exhaustive search on small random graphs."""

from __future__ import annotations

import random

import pytest

from pairing.matching import (
    Edge,
    matching_with_duals,
    max_cardinality_matching,
    max_weight_matching,
    max_weight_perfect_matching,
    perfect_matching_with_duals,
)


def _best(n: int, edges: list[Edge], *, cardinality_first: bool, perfect: bool) -> tuple[int, int] | None:
    weight = {(min(a, b), max(a, b)): w for a, b, w in edges}
    best: tuple[int, int] | None = None

    def search(free: tuple[int, ...], pairs: int, total: int) -> None:
        nonlocal best
        if not free:
            key = (pairs, total) if cardinality_first else (0, total)
            if best is None or key > best:
                best = key
            return
        v, rest = free[0], free[1:]
        if not perfect:
            search(rest, pairs, total)
        for i, u in enumerate(rest):
            w = weight.get((v, u))
            if w is not None:
                search(rest[:i] + rest[i + 1 :], pairs + 1, total + w)

    search(tuple(range(n)), 0, 0)
    return best


def _graph(rng: random.Random, n: int, big: bool) -> list[Edge]:
    edges = []
    for a in range(n):
        for b in range(a + 1, n):
            if rng.random() < 0.6:
                w = rng.randint(0, 3) << 200 | rng.randint(0, 9) if big else rng.randint(0, 12)
                edges.append((a, b, w))
    return edges


def _value(mate: list[int], edges: list[Edge]) -> tuple[int, int]:
    weight = {(min(a, b), max(a, b)): w for a, b, w in edges}
    pairs = [(v, u) for v, u in enumerate(mate) if v < u]
    assert all(mate[u] == v for v, u in pairs)
    return len(pairs), sum(weight[p] for p in pairs)


@pytest.mark.parametrize("seed", range(6))
def test_max_weight_matching_is_optimal(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(150):
        n = rng.randint(1, 8)
        edges = _graph(rng, n, big=rng.random() < 0.5)
        cardinality = rng.random() < 0.5
        mate = max_weight_matching(n, edges, max_cardinality=cardinality)
        pairs, total = _value(mate, edges)
        assert ((pairs if cardinality else 0), total) == _best(n, edges, cardinality_first=cardinality, perfect=False)


@pytest.mark.parametrize("seed", range(6))
def test_perfect_matching_is_optimal_or_absent(seed: int) -> None:
    rng = random.Random(100 + seed)
    for _ in range(150):
        n = rng.choice([2, 4, 6, 8])
        edges = _graph(rng, n, big=rng.random() < 0.5)
        mate = max_weight_perfect_matching(n, edges)
        best = _best(n, edges, cardinality_first=False, perfect=True)
        if best is None:
            assert mate is None
        else:
            assert mate is not None and _value(mate, edges)[1] == best[1]


def test_duals_certify_left_out_edges() -> None:
    rng = random.Random(7)
    for _ in range(200):
        n = rng.randint(2, 8)
        edges = _graph(rng, n, big=False)
        kept = [e for e in edges if rng.random() < 0.5]
        mate, duals = matching_with_duals(n, kept)
        covered = all(duals.covers(a, b, w) for a, b, w in edges)
        full = _best(n, edges, cardinality_first=False, perfect=False)
        assert full is not None
        if covered:
            # Every left-out edge is dual-feasible, so the matching of the subgraph is optimal for the whole graph.
            assert _value(mate, kept)[1] == full[1]
        # Duals are always valid for the edges that were kept.
        assert all(duals.covers(a, b, w) for a, b, w in kept)


def test_perfect_duals_certify_left_out_edges() -> None:
    rng = random.Random(11)
    certified = 0
    for _ in range(300):
        n = rng.choice([2, 4, 6, 8])
        edges = _graph(rng, n, big=rng.random() < 0.5)
        kept = [e for e in edges if rng.random() < 0.7]
        found = perfect_matching_with_duals(n, kept)
        if found is None:
            assert _best(n, kept, cardinality_first=False, perfect=True) is None
            continue
        mate, duals = found
        assert -1 not in mate
        assert all(duals.covers(a, b, w) for a, b, w in kept)
        if all(duals.covers(a, b, w) for a, b, w in edges):
            # Left-out edges all dual-feasible: the subgraph's perfect matching is a best one of the whole graph.
            best = _best(n, edges, cardinality_first=False, perfect=True)
            assert best is not None and _value(mate, kept)[1] == best[1]
            certified += 1
    assert certified > 0


@pytest.mark.parametrize("seed", range(4))
def test_max_cardinality_matching_is_maximum(seed: int) -> None:
    """Greedy start then Edmonds' search from each free vertex: as many pairs as exhaustive search finds."""
    rng = random.Random(300 + seed)
    for _ in range(150):
        n = rng.randint(1, 9)
        density = rng.random()
        edges = [(a, b, 1) for a in range(n) for b in range(a + 1, n) if rng.random() < density]
        adjacency: list[list[int]] = [[] for _ in range(n)]
        for a, b, _ in edges:
            adjacency[a].append(b)
            adjacency[b].append(a)
        for neighbours in adjacency:
            rng.shuffle(neighbours)
        mate = max_cardinality_matching(adjacency)
        pairs, _ = _value(mate, edges)
        best = _best(n, edges, cardinality_first=True, perfect=False)
        assert best is not None and pairs == best[0]
