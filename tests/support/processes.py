"""`swissbot` subprocesses for tests: started from the repository, stopped with SIGINT (then killed); free ports."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.paths import ROOT


@contextmanager
def process(
    *args: str, env: dict[str, str] | None = None, cwd: Path = ROOT, wait: float = 20
) -> Iterator[subprocess.Popen[str]]:
    """A `swissbot` process, stopped with SIGINT (then killed after `wait` seconds) at the end."""
    started = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, **(env or {})},
    )
    try:
        yield started
    finally:
        if started.poll() is None:
            started.send_signal(signal.SIGINT)
            try:
                started.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                started.kill()
                started.wait()


def first_lines(proc: subprocess.Popen[str], count: int) -> list[str]:
    """The next `count` lines the process printed."""
    assert proc.stdout is not None
    return [proc.stdout.readline() for _ in range(count)]


def free_port() -> int:
    """A TCP port free on 127.0.0.1 just now (for a server whose address must be known before it starts)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port
