"""Properties of bulk pairing's checks: all or nothing, every bad token named, nobody paired twice in real time."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sandbox.lichess.bulk import Refused, parse_bulk
from sandbox.lichess.http import BadRequest
from sandbox.lichess.state import BOT_USERNAME, SandboxState

KINDS = ("good", "unscoped", "unknown", "closed")


def world(kinds: list[str]) -> tuple[SandboxState, list[str], dict[str, str]]:
    """A state with one player per token kind given; the tokens, and the error each bad one must get."""
    state = SandboxState(seed=1, clock=lambda: 1_000_000.0)
    tokens, bad = [], {}
    for i, kind in enumerate(kinds):
        secret = f"lip_{kind}_{i}"
        if kind != "unknown":
            scopes = frozenset() if kind == "unscoped" else frozenset({"challenge:write"})
            state.add_user(f"p{i}", token=secret, scopes=scopes, disabled=kind == "closed")
        tokens.append(secret)
        if kind != "good":
            bad[secret] = {"unscoped": "Missing scope: challenge:write", "unknown": "No such token"}.get(
                kind, "No such user"
            )
    return state, tokens, bad


@given(st.lists(st.sampled_from(KINDS), min_size=1, max_size=12).map(lambda k: k + k[:1] if len(k) % 2 else k))
def test_a_bulk_is_all_or_nothing(kinds: list[str]) -> None:
    state, tokens, bad = world(kinds)
    players = ",".join(f"{w}:{b}" for w, b in zip(tokens[::2], tokens[1::2], strict=True))
    body = {"players": players, "clock.limit": "300", "clock.increment": "0"}
    if len(tokens) != len(set(tokens)):  # the odd list was padded with its first token: refused as a form error
        with pytest.raises(BadRequest, match="unique"):
            parse_bulk(state, body, state.users[BOT_USERNAME.lower()])
        return
    if bad:
        with pytest.raises(Refused) as refused:
            parse_bulk(state, body, state.users[BOT_USERNAME.lower()])
        assert refused.value.status == 400 and refused.value.body == {"tokens": bad}
        return
    bulk = parse_bulk(state, body, state.users[BOT_USERNAME.lower()])
    owners = [state.tokens[t].user for t in tokens]
    assert [(g.white, g.black) for g in bulk.games] == list(zip(owners[::2], owners[1::2], strict=True))
    assert len({g.id for g in bulk.games}) == len(bulk.games)
