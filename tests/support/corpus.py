"""Reading the shared reference corpus: a case's expected engine output, and an engine's output in that form."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pairing import trf
from pairing.errors import PairingError
from pairing.model import Pairing, Tournament


def expected_lines(path: Path) -> list[str]:
    """The reference engine's `-p` output of a case, without blank lines."""
    return [line.strip() for line in path.read_text().splitlines() if line.strip()]


def engine_lines(engine: Callable[[Tournament], Pairing], path: Path) -> list[str]:
    """Our engine's output for a case's TRF in the same form (count, `white black` in board order, `bye 0`)."""
    try:
        return engine(trf.read(str(path))).lines()
    except PairingError as exc:
        return [f"error: {exc}"]
