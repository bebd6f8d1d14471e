"""Reading the reference corpus: a case's expected lines, and an engine's lines for a case."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pairing import trf
from pairing.errors import PairingError
from pairing.model import Pairing, Tournament

Engine = Callable[[Tournament], Pairing]


def expected_lines(path: Path) -> list[str]:
    """The non-blank lines of a `.pairs` or `.out` file, stripped."""
    return [line.strip() for line in path.read_text().splitlines() if line.strip()]


def pair_lines(engine: Engine, path: Path) -> list[str]:
    """The engine's output lines for a TRF file, or one `error: ...` line when it finds no pairing."""
    try:
        return engine(trf.read(str(path))).lines()
    except PairingError as exc:
        return [f"error: {exc}"]
