"""The tests' reference inputs kept in the repository (`tests/data/`): the pairing corpus and the two OpenAPI specs.

They are stored compressed. The corpus is unpacked once per machine and archive content into a folder under the
system's temporary directory, safely when several pytest-xdist workers ask at once: each unpacks into its own
folder, complete, and renames it into place; the first rename wins. A missing archive fails the test that needs it.
"""

from __future__ import annotations

import hashlib
import json
import lzma
import shutil
import tarfile
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from tests.support.paths import ROOT

DATA = ROOT / "tests" / "data"
CORPUS_ARCHIVE = DATA / "corpus.tar.xz"
LICHESS_SPEC = DATA / "lichess-openapi.json.xz"
DISCORD_SPEC = DATA / "discord-openapi.json.xz"


class MissingTestData(FileNotFoundError):
    """A test input the repository should hold is not there."""


def _require(path: Path) -> Path:
    if not path.is_file():
        raise MissingTestData(f"test input missing: {path.relative_to(ROOT)} (it belongs in the repository)")
    return path


@cache
def corpus() -> Path:
    """The unpacked corpus folder (`dutch/`, `burstein/`, `fast/`), unpacked on first use."""
    archive = _require(CORPUS_ARCHIVE)
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()[:16]
    target = Path(tempfile.gettempdir()) / f"swissbot-test-corpus-{digest}"
    done = target / "corpus" / ".unpacked"
    if not done.exists():
        staging = Path(tempfile.mkdtemp(prefix=f"{target.name}-", dir=target.parent))
        try:
            with tarfile.open(archive, "r:xz") as tar:
                tar.extractall(staging, filter="data")
            (staging / "corpus" / ".unpacked").touch()
            try:
                staging.rename(target)
            except OSError:  # another worker renamed its complete copy into place first
                if not done.exists():
                    raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return target / "corpus"


def _json_xz(path: Path) -> Any:
    with lzma.open(_require(path), "rt", encoding="utf-8") as handle:
        return json.load(handle)


@cache
def lichess_spec() -> dict[str, Any]:
    """Lichess's official OpenAPI spec (lichess-org/api, AGPL-3.0-or-later)."""
    spec: dict[str, Any] = _json_xz(LICHESS_SPEC)
    return spec


@cache
def discord_spec() -> dict[str, Any]:
    """Discord's official OpenAPI spec (discord/discord-api-spec, MIT; its licence is beside it)."""
    spec: dict[str, Any] = _json_xz(DISCORD_SPEC)
    return spec
