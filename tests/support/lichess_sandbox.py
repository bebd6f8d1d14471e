"""Pytest helpers for any test suite that needs a running sandbox (import from a conftest).

from tests.support.lichess_sandbox import sandbox_fixture
sandbox = sandbox_fixture(seed=1, autoplay=True, users={"alice": 1800, "bob": 1700})
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import pytest_asyncio

from sandbox.lichess.server import Sandbox, run_sandbox
from sandbox.lichess.state import Clock


def sandbox_fixture(
    *,
    seed: int | None = 1,
    autoplay: bool = False,
    autoplay_delay: float = 0.0,
    users: Mapping[str, int] | None = None,
    clock: Clock | None = None,
) -> Callable[..., Any]:
    """A function-scoped async fixture yielding a running `Sandbox` with these accounts (name: rating)."""

    @pytest_asyncio.fixture
    async def _sandbox() -> AsyncIterator[Sandbox]:
        async with run_sandbox(seed=seed, autoplay=autoplay, autoplay_delay=autoplay_delay, clock=clock) as sb:
            for username, rating in (users or {}).items():
                sb.add_user(username, rating=rating)
            yield sb

    return _sandbox


def gateway_kwargs(**overrides: Any) -> dict[str, Any]:
    """`LichessGateway` settings for tests: short pauses and timeouts, so failures are quick."""
    settings: dict[str, Any] = {"timeout": 5.0, "rate_limit_pause": 0.2, "retry_backoff": 0.01}
    settings.update(overrides)
    return settings
