"""Maximum-weight matching in general graphs (Edmonds' blossom algorithm, primal-dual, integer weights).

The implementation follows the classic O(n^3) formulation (Galil 1986) with integer arithmetic only,
so arbitrarily large Python integers can encode lexicographic criteria as edge weights. Vertices are
0..n-1; the graph is given as a list of (u, v, weight) edges and stored once as adjacency lists.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

Edge = tuple[int, int, int]


@dataclass(frozen=True)
class Duals:
    """The optimal dual solution of a maximum-weight matching: vertex duals and nested blossom duals."""

    vertex: list[int]
    chains: list[tuple[int, ...]]
    blossom: dict[int, int]

    def covers(self, u: int, v: int, weight: int) -> bool:
        """True when adding an edge u-v of this weight cannot improve the matching (its dual constraint holds)."""
        total = self.vertex[u] + self.vertex[v] - 2 * weight
        if total >= 0:
            return True
        for bu, bv in zip(self.chains[u], self.chains[v], strict=False):
            if bu != bv:
                break
            total += 2 * self.blossom[bu]
        return total >= 0


def max_weight_matching(n: int, edges: Sequence[Edge], *, max_cardinality: bool = False) -> list[int]:
    """Return `mate` with mate[v] = partner of v or -1, for a maximum-weight matching.

    With `max_cardinality`, the matching has maximum cardinality first and maximum weight among those.
    """
    return _solve(n, edges, max_cardinality, warm=False)


def matching_with_duals(n: int, edges: Sequence[Edge]) -> tuple[list[int], Duals]:
    """A maximum-weight matching and its optimal duals (to check edges left out of the graph)."""
    out: list[Duals] = []
    mate = _solve(n, edges, False, warm=False, duals=out)
    return mate, out[0]


def perfect_matching_with_duals(n: int, edges: Sequence[Edge]) -> tuple[list[int], Duals] | None:
    """A maximum-weight perfect matching and its optimal duals (warm-started), or None when there is none."""
    if n == 0:
        return [], Duals([], [], {})
    out: list[Duals] = []
    mate = _solve(n, edges, True, warm=True, duals=out)
    return None if -1 in mate else (mate, out[0])


def max_weight_perfect_matching(n: int, edges: Sequence[Edge]) -> list[int] | None:
    """A maximum-weight perfect matching as `mate`, or None when the graph has no perfect matching.

    Starts from feasible duals (each vertex at its heaviest edge) and a greedy matching of tight edges, which
    saves most augmentation stages when many edges share the top weight (as players far below a bracket do).
    """
    mate = _solve(n, edges, True, warm=True)
    return None if -1 in mate else mate


def _solve(
    n: int, edges: Sequence[Edge], max_cardinality: bool, *, warm: bool, duals: list[Duals] | None = None
) -> list[int]:
    if n == 0:
        return []
    if not warm:
        touched = sorted({v for u, w, _ in edges for v in (u, w)})
        if len(touched) < n:
            return _solve_touched(n, touched, edges, max_cardinality, duals)
    return _solve_all(n, edges, max_cardinality, warm=warm, duals=duals)


def _solve_touched(
    n: int, touched: list[int], edges: Sequence[Edge], max_cardinality: bool, duals: list[Duals] | None
) -> list[int]:
    """Solve on the vertices that have an edge: isolated ones stay single, with dual 0 (still an optimal dual).

    The stages of the blossom algorithm scan every vertex, so a bracket's graph, which holds every player below
    it while its weighted edges touch only the bracket and the next one, is much cheaper solved this way.
    """
    index = {v: k for k, v in enumerate(touched)}
    inner_duals: list[Duals] | None = None if duals is None else []
    inner = _solve_all(
        len(touched), [(index[u], index[w], wt) for u, w, wt in edges], max_cardinality, warm=False, duals=inner_duals
    )
    mate = [-1] * n
    for k, v in enumerate(touched):
        if inner[k] != -1:
            mate[v] = touched[inner[k]]
    if duals is not None and inner_duals is not None:
        got = inner_duals[0]
        vertex = [0] * n
        chains: list[tuple[int, ...]] = [()] * n
        for k, v in enumerate(touched):
            vertex[v] = got.vertex[k]
            chains[v] = got.chains[k]
        duals.append(Duals(vertex, chains, got.blossom))
    return mate


def _solve_all(
    n: int, edges: Sequence[Edge], max_cardinality: bool, *, warm: bool, duals: list[Duals] | None = None
) -> list[int]:
    if not edges:
        if duals is not None:
            duals.append(Duals([0] * n, [()] * n, {}))
        return [-1] * n
    nedge = len(edges)
    eu = [i for i, _, _ in edges]
    ev = [j for _, j, _ in edges]
    wt2 = [w + w for _, _, w in edges]
    endpoint: list[int] = [0] * (2 * nedge)
    endpoint[0::2] = eu
    endpoint[1::2] = ev
    neighbend: list[list[int]] = [[] for _ in range(n)]
    p = 0
    for i, j, _ in edges:
        neighbend[i].append(p + 1)
        neighbend[j].append(p)
        p += 2
    maxweight = max(0, max(wt2) // 2)

    mate = [-1] * n
    label = [0] * (2 * n)
    labelend = [-1] * (2 * n)
    inblossom = list(range(n))
    blossomparent = [-1] * (2 * n)
    blossomchilds: list[list[int]] = [[] for _ in range(2 * n)]
    blossombase = list(range(n)) + [-1] * n
    blossomendps: list[list[int]] = [[] for _ in range(2 * n)]
    # Each blossom's leaves in the order a depth-first walk from its last child visits them (a vertex: itself).
    leaves: list[list[int]] = [[v] for v in range(n)] + [[] for _ in range(n)]
    bestedge = [-1] * (2 * n)
    # The slack of bestedge[x] when it was set, valid while no vertex dual has changed since (`epoch`).
    bestslack = [0] * (2 * n)
    bestepoch = [-1] * (2 * n)
    epoch = 0
    blossombestedges: list[list[int] | None] = [None] * (2 * n)
    unusedblossoms = list(range(n, 2 * n))
    dualvar = [maxweight] * n + [0] * n
    allowedge = bytearray(nedge)  # edges known tight in this stage
    queue: list[int] = []
    if warm:
        # Feasible start: dual(v) = heaviest incident edge (slack = d(v) + d(w) - 2 w(vw) >= 0); match tight edges
        # greedily; free vertices must share one parity so that S-S slacks stay even (integer delta3).
        top: list[int | None] = [None] * n
        for i, j, w in edges:
            t = top[i]
            if t is None or w > t:
                top[i] = w
            t = top[j]
            if t is None or w > t:
                top[j] = w
        dualvar[:n] = [0 if t is None else t for t in top]
        for v in range(n):
            if mate[v] != -1:
                continue
            dv = dualvar[v]
            for p in neighbend[v]:
                u = endpoint[p]
                if mate[u] == -1 and dv + dualvar[u] == wt2[p >> 1]:
                    mate[v] = p
                    mate[u] = p ^ 1
                    break
        for v in range(n):
            if mate[v] == -1 and dualvar[v] & 1:
                dualvar[v] += 1

    def assign_label(w: int, t: int, p: int) -> None:
        b = inblossom[w]
        label[w] = label[b] = t
        labelend[w] = labelend[b] = p
        bestedge[w] = bestedge[b] = -1
        if t == 1:
            queue.extend(leaves[b])
        else:
            base = blossombase[b]
            assign_label(endpoint[mate[base]], 1, mate[base] ^ 1)

    def scan_blossom(v: int, w: int) -> int:
        path = []
        base = -1
        while v != -1 or w != -1:
            b = inblossom[v]
            if label[b] & 4:
                base = blossombase[b]
                break
            path.append(b)
            label[b] = 5
            if labelend[b] == -1:
                v = -1
            else:
                v = endpoint[labelend[b]]
                b = inblossom[v]
                v = endpoint[labelend[b]]
            if w != -1:
                v, w = w, v
        for b in path:
            label[b] = 1
        return base

    def add_blossom(base: int, k: int) -> None:
        v, w = endpoint[2 * k], endpoint[2 * k + 1]
        bb = inblossom[base]
        bv = inblossom[v]
        bw = inblossom[w]
        b = unusedblossoms.pop()
        blossombase[b] = base
        blossomparent[b] = -1
        blossomparent[bb] = b
        path: list[int] = []
        endps: list[int] = []
        while bv != bb:
            blossomparent[bv] = b
            path.append(bv)
            endps.append(labelend[bv])
            v = endpoint[labelend[bv]]
            bv = inblossom[v]
        path.append(bb)
        path.reverse()
        endps.reverse()
        endps.append(2 * k)
        while bw != bb:
            blossomparent[bw] = b
            path.append(bw)
            endps.append(labelend[bw] ^ 1)
            w = endpoint[labelend[bw]]
            bw = inblossom[w]
        blossomchilds[b] = path
        leaves[b] = [leaf for child in reversed(path) for leaf in leaves[child]]
        blossomendps[b] = endps
        label[b] = 1
        labelend[b] = labelend[bb]
        dualvar[b] = 0
        for leaf in leaves[b]:
            if label[inblossom[leaf]] == 2:
                queue.append(leaf)
            inblossom[leaf] = b
        # The least-slack edge from the new blossom to each S-blossom, first found kept on ties (as a scan of
        # the edges in this order with a strict comparison keeps it); listed by that blossom's index.
        bestedgeto: dict[int, int] = {}
        bestslack: dict[int, int] = {}
        for bv in path:
            edgelist = blossombestedges[bv]
            if edgelist is None:
                for leaf in leaves[bv]:
                    dleaf = dualvar[leaf]
                    for p in neighbend[leaf]:
                        j = endpoint[p]
                        bj = inblossom[j]
                        if bj != b and label[bj] == 1:
                            kk = p >> 1
                            kslack = dleaf + dualvar[j] - wt2[kk]
                            if bj not in bestedgeto or kslack < bestslack[bj]:
                                bestedgeto[bj] = kk
                                bestslack[bj] = kslack
            else:
                for kk in edgelist:
                    j = ev[kk]
                    if inblossom[j] == b:
                        j = eu[kk]
                    bj = inblossom[j]
                    if bj != b and label[bj] == 1:
                        kslack = dualvar[eu[kk]] + dualvar[ev[kk]] - wt2[kk]
                        if bj not in bestedgeto or kslack < bestslack[bj]:
                            bestedgeto[bj] = kk
                            bestslack[bj] = kslack
            blossombestedges[bv] = None
            bestedge[bv] = -1
        order = sorted(bestedgeto)
        blossombestedges[b] = [bestedgeto[bj] for bj in order]
        least = -1
        leastslack = 0
        for bj in order:
            if least == -1 or bestslack[bj] < leastslack:
                least = bestedgeto[bj]
                leastslack = bestslack[bj]
        bestedge[b] = least
        bestepoch[b] = -1

    def expand_blossom(b: int, endstage: bool) -> None:
        for s in blossomchilds[b]:
            blossomparent[s] = -1
            if s < n:
                inblossom[s] = s
            elif endstage and dualvar[s] == 0:
                expand_blossom(s, endstage)
            else:
                for leaf in leaves[s]:
                    inblossom[leaf] = s
        if not endstage and label[b] == 2:
            entrychild = inblossom[endpoint[labelend[b] ^ 1]]
            childs = blossomchilds[b]
            endps = blossomendps[b]
            j = childs.index(entrychild)
            if j & 1:
                j -= len(childs)
                jstep = 1
                endptrick = 0
            else:
                jstep = -1
                endptrick = 1
            p = labelend[b]
            while j != 0:
                label[endpoint[p ^ 1]] = 0
                label[endpoint[endps[j - endptrick] ^ endptrick ^ 1]] = 0
                assign_label(endpoint[p ^ 1], 2, p)
                allowedge[endps[j - endptrick] // 2] = 1
                j += jstep
                p = endps[j - endptrick] ^ endptrick
                allowedge[p // 2] = 1
                j += jstep
            bv = childs[j]
            label[endpoint[p ^ 1]] = label[bv] = 2
            labelend[endpoint[p ^ 1]] = labelend[bv] = p
            bestedge[bv] = -1
            j += jstep
            while childs[j] != entrychild:
                bv = childs[j]
                if label[bv] == 1:
                    j += jstep
                    continue
                for v in leaves[bv]:
                    if label[v] != 0:
                        break
                else:
                    j += jstep
                    continue
                if label[v] != 0:
                    label[v] = 0
                    label[endpoint[mate[blossombase[bv]]]] = 0
                    assign_label(v, 2, labelend[v])
                j += jstep
        label[b] = labelend[b] = -1
        blossomchilds[b] = []
        leaves[b] = []
        blossomendps[b] = []
        blossombase[b] = -1
        blossombestedges[b] = None
        bestedge[b] = -1
        unusedblossoms.append(b)

    def augment_blossom(b: int, v: int) -> None:
        t = v
        while blossomparent[t] != b:
            t = blossomparent[t]
        if t >= n:
            augment_blossom(t, v)
        childs = blossomchilds[b]
        endps = blossomendps[b]
        i = j = childs.index(t)
        if i & 1:
            j -= len(childs)
            jstep = 1
            endptrick = 0
        else:
            jstep = -1
            endptrick = 1
        while j != 0:
            j += jstep
            t = childs[j]
            p = endps[j - endptrick] ^ endptrick
            if t >= n:
                augment_blossom(t, endpoint[p])
            j += jstep
            t = childs[j]
            if t >= n:
                augment_blossom(t, endpoint[p ^ 1])
            mate[endpoint[p]] = p ^ 1
            mate[endpoint[p ^ 1]] = p
        blossomchilds[b] = childs[i:] + childs[:i]
        blossomendps[b] = endps[i:] + endps[:i]
        blossombase[b] = blossombase[childs[i]]
        leaves[b] = [leaf for child in reversed(blossomchilds[b]) for leaf in leaves[child]]

    def augment_matching(k: int) -> None:
        v, w = endpoint[2 * k], endpoint[2 * k + 1]
        for s, p in ((v, 2 * k + 1), (w, 2 * k)):
            while True:
                bs = inblossom[s]
                if bs >= n:
                    augment_blossom(bs, s)
                mate[s] = p
                if labelend[bs] == -1:
                    break
                t = endpoint[labelend[bs]]
                bt = inblossom[t]
                s = endpoint[labelend[bt]]
                j = endpoint[labelend[bt] ^ 1]
                if bt >= n:
                    augment_blossom(bt, j)
                mate[j] = labelend[bt]
                p = labelend[bt] ^ 1

    zero_labels = [0] * (2 * n)
    no_edges = [-1] * (2 * n)
    no_lists: list[list[int] | None] = [None] * n
    no_allowed = bytes(nedge)
    for _stage in range(n):
        label[:] = zero_labels
        bestedge[:] = no_edges
        blossombestedges[n:] = no_lists
        allowedge[:] = no_allowed
        queue.clear()
        for v in range(n):
            if mate[v] == -1 and label[inblossom[v]] == 0:
                assign_label(v, 1, -1)
        augmented = False
        while True:
            while queue and not augmented:
                v = queue.pop()
                # Vertex duals change only between scans, and v's blossom only when add_blossom makes a new one.
                dv = dualvar[v]
                bv = inblossom[v]
                for p in neighbend[v]:
                    w = endpoint[p]
                    bw = inblossom[w]
                    if bv == bw:
                        continue
                    k = p >> 1
                    if allowedge[k]:
                        kslack = 0
                    else:
                        kslack = dv + dualvar[w] - wt2[k]
                        if kslack <= 0:
                            allowedge[k] = 1
                    if kslack <= 0:
                        lw = label[bw]
                        if lw == 0:
                            assign_label(w, 2, p ^ 1)
                        elif lw == 1:
                            base = scan_blossom(v, w)
                            if base >= 0:
                                add_blossom(base, k)
                                bv = inblossom[v]
                            else:
                                augment_matching(k)
                                augmented = True
                                break
                        elif label[w] == 0:
                            label[w] = 2
                            labelend[w] = p ^ 1
                    elif label[bw] == 1:
                        kb = bestedge[bv]
                        if kb == -1 or kslack < (
                            bestslack[bv] if bestepoch[bv] == epoch else dualvar[eu[kb]] + dualvar[ev[kb]] - wt2[kb]
                        ):
                            bestedge[bv] = k
                            bestslack[bv] = kslack
                            bestepoch[bv] = epoch
                    elif label[w] == 0:
                        kw = bestedge[w]
                        if kw == -1 or kslack < (
                            bestslack[w] if bestepoch[w] == epoch else dualvar[eu[kw]] + dualvar[ev[kw]] - wt2[kw]
                        ):
                            bestedge[w] = k
                            bestslack[w] = kslack
                            bestepoch[w] = epoch
            if augmented:
                break
            deltatype = -1
            delta = 0
            deltaedge = -1
            deltablossom = -1
            if not max_cardinality:
                deltatype = 1
                delta = min(dualvar[:n])
            for v in range(n):
                kv = bestedge[v]
                if kv != -1 and label[inblossom[v]] == 0:
                    d = dualvar[eu[kv]] + dualvar[ev[kv]] - wt2[kv]
                    if deltatype == -1 or d < delta:
                        delta = d
                        deltatype = 2
                        deltaedge = kv
            for b in range(2 * n):
                kb = bestedge[b]
                if kb != -1 and label[b] == 1 and blossomparent[b] == -1:
                    d = (dualvar[eu[kb]] + dualvar[ev[kb]] - wt2[kb]) // 2
                    if deltatype == -1 or d < delta:
                        delta = d
                        deltatype = 3
                        deltaedge = kb
            for b in range(n, 2 * n):
                if (
                    blossombase[b] >= 0
                    and blossomparent[b] == -1
                    and label[b] == 2
                    and (deltatype == -1 or dualvar[b] < delta)
                ):
                    delta = dualvar[b]
                    deltatype = 4
                    deltablossom = b
            if deltatype == -1:
                deltatype = 1
                delta = max(0, min(dualvar[:n]))
            if delta:
                epoch += 1
                for v in range(n):
                    lv = label[inblossom[v]]
                    if lv == 1:
                        dualvar[v] -= delta
                    elif lv == 2:
                        dualvar[v] += delta
                for b in range(n, 2 * n):
                    if blossombase[b] >= 0 and blossomparent[b] == -1:
                        if label[b] == 1:
                            dualvar[b] += delta
                        elif label[b] == 2:
                            dualvar[b] -= delta
            if deltatype == 1:
                break
            if deltatype == 2:
                allowedge[deltaedge] = 1
                i, j = endpoint[2 * deltaedge], endpoint[2 * deltaedge + 1]
                if label[inblossom[i]] == 0:
                    i, j = j, i
                queue.append(i)
            elif deltatype == 3:
                allowedge[deltaedge] = 1
                queue.append(endpoint[2 * deltaedge])
            else:
                expand_blossom(deltablossom, False)
        if not augmented:
            break
        for b in range(n, 2 * n):
            if blossomparent[b] == -1 and blossombase[b] >= 0 and label[b] == 1 and dualvar[b] == 0:
                expand_blossom(b, True)

    if duals is not None:
        chains: list[tuple[int, ...]] = []
        for v in range(n):
            chain = []
            b = blossomparent[v]
            while b != -1:
                chain.append(b)
                b = blossomparent[b]
            chains.append(tuple(reversed(chain)))
        blossoms = {b: dualvar[b] for b in range(n, 2 * n) if blossombase[b] >= 0}
        duals.append(Duals(dualvar[:n], chains, blossoms))
    return [endpoint[m] if m != -1 else -1 for m in mate]


def max_cardinality_matching(adjacency: Sequence[Sequence[int]]) -> list[int]:
    """A maximum-cardinality matching (Edmonds' blossom search from each free vertex after a greedy start) as `mate`.

    `adjacency[v]` lists v's neighbours (both directions); mate[v] is v's partner or -1.
    """
    n = len(adjacency)
    mate = [-1] * n
    for v in range(n):
        if mate[v] < 0:
            for u in adjacency[v]:
                if mate[u] < 0 and u != v:
                    mate[v] = u
                    mate[u] = v
                    break
    for root in range(n):
        if mate[root] < 0:
            _augment_from(root, adjacency, mate)
    return mate


def _augment_from(root: int, adjacency: Sequence[Sequence[int]], mate: list[int]) -> bool:
    """Augment `mate` along a shortest-found augmenting path from the free vertex `root`; False when none exists."""
    n = len(mate)
    parent = [-1] * n
    base = list(range(n))
    used = [False] * n
    used[root] = True
    queue = [root]

    def lca(a: int, b: int) -> int:
        seen = [False] * n
        while True:
            a = base[a]
            seen[a] = True
            if mate[a] < 0:
                break
            a = parent[mate[a]]
        while True:
            b = base[b]
            if seen[b]:
                return b
            b = parent[mate[b]]

    def mark(v: int, top: int, child: int, inside: list[bool]) -> None:
        while base[v] != top:
            inside[base[v]] = inside[base[mate[v]]] = True
            parent[v] = child
            child = mate[v]
            v = parent[mate[v]]

    for v in queue:
        for u in adjacency[v]:
            if base[v] == base[u] or mate[v] == u:
                continue
            if u == root or (mate[u] >= 0 and parent[mate[u]] >= 0):
                top = lca(v, u)
                inside = [False] * n
                mark(v, top, u, inside)
                mark(u, top, v, inside)
                for i in range(n):
                    if inside[base[i]]:
                        base[i] = top
                        if not used[i]:
                            used[i] = True
                            queue.append(i)
            elif parent[u] < 0:
                parent[u] = v
                if mate[u] < 0:
                    while u >= 0:
                        previous = parent[u]
                        after = mate[previous]
                        mate[u] = previous
                        mate[previous] = u
                        u = after
                    return True
                used[mate[u]] = True
                queue.append(mate[u])
    return False
