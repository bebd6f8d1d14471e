"""An expensive run made once per test session and read by several tests, also across pytest-xdist workers.

`once(tmp_path_factory, name, make)` calls `make(folder)` in the first test that asks, which fills `folder`; any
later test (in this worker or another) gets the same folder, complete. Workers of one session share the parent of
their base temporary folders: the first to ask takes a lock there (a folder made atomically), the others wait for
its result. When `make` fails, the tests that asked fail with its error (it is not run again), so a broken run shows
in each of them and is not mistaken for theirs.
"""

from __future__ import annotations

import os
import shutil
import time
import traceback
from collections.abc import Callable
from pathlib import Path

import pytest

WAIT = 600.0  # seconds a test waits for another worker's run before it fails


def _shared_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder every worker of this session sees: the parent of the base temp under pytest-xdist, else the
    base temp itself (the parent is then shared with other sessions)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """The folder `make` filled, made by the first test of the session that asked for `name`."""
    root = _shared_root(tmp_path_factory) / f"once-{name}"
    result, done, failed = root / "result", root / "done", root / "failed"
    try:
        root.mkdir()  # the lock: whoever makes the folder runs `make`
    except FileExistsError:
        deadline = time.monotonic() + WAIT
        while not (done.exists() or failed.exists()):
            if time.monotonic() > deadline:
                pytest.fail(f"the shared run {name!r} of another worker did not finish in {WAIT:.0f} s")
            time.sleep(0.1)
    else:
        staging = root / "staging"
        staging.mkdir()
        try:
            make(staging)
        except BaseException:
            failed.write_text(traceback.format_exc())
            raise
        staging.rename(result)
        done.touch()
    if failed.exists():
        pytest.fail(f"the shared run {name!r} failed in another test:\n{failed.read_text()}")
    return result


def copy_of(folder: Path, into: Path) -> Path:
    """A private copy of a shared run's folder, for a test that changes what it holds."""
    shutil.copytree(folder, into)
    return into
