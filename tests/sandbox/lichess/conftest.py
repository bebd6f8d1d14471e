"""Fixtures for the local Lichess's own tests: a sandbox on loopback with four accounts."""

from __future__ import annotations

from tests.support.lichess_sandbox import sandbox_fixture

sandbox = sandbox_fixture(seed=7, users={"Alice": 1850, "Bob": 1720, "Carol": 1600, "Dave": 1500})
