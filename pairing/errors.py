"""Typed errors of the pairing engine."""

from __future__ import annotations


class PairingError(Exception):
    """A round that cannot be paired."""


class NoValidPairing(PairingError):
    """No pairing satisfies the absolute criteria (the event cannot go on under these rules)."""


class BudgetExhausted(PairingError):
    """The engine gave up before deciding (a limit on work was reached); not a proof of impossibility."""


class TeamError(ValueError):
    """A team event that is not well formed (a short roster, a player in two teams, an unknown player)."""
