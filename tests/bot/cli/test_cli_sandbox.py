"""`swissbot sandbox` serves until SIGTERM, and berserk can talk to it."""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys

import berserk
import pytest

from bot.cli import sandbox as cli_sandbox
from bot.cli.exit_codes import ExitCode

pytestmark = pytest.mark.slow  # the local Lichess as a process


def test_the_parser_reads_every_option() -> None:
    parser = argparse.ArgumentParser()
    cli_sandbox.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["sandbox", "--host", "127.0.0.1", "--port", "0", "--seed", "3", "--autoplay"])
    assert (args.host, args.port, args.seed, args.autoplay, args.handler) == ("127.0.0.1", 0, 3, True, cli_sandbox.run)
    assert parser.parse_args(["sandbox"]).autoplay is False


def test_an_invalid_port_is_refused() -> None:
    args = argparse.Namespace(host="127.0.0.1", port=70000, seed=None, autoplay=False, autoplay_delay=0.0)
    assert cli_sandbox.run(args) == ExitCode.USAGE


def test_the_sandbox_runs_until_sigterm() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot.cli.sandbox", "--port", "0", "--seed", "4", "--autoplay", "--autoplay-delay", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("Sandbox listening on http://127.0.0.1:"), first
        url = first.split()[-1]
        client = berserk.Client(session=berserk.TokenSession("lip_sandbox_swissbot"), base_url=url)
        assert client.account.get()["id"] == "swissbot"
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=20)
        assert proc.returncode == 0, err
        assert "Sandbox stopped." in out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
