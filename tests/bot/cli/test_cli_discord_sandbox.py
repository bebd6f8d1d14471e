"""`swissbot discord-sandbox`: prints its URL, the bot token it accepts and the application id, stops on Ctrl-C."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import urllib.request

import pytest

from tests.support.paths import ROOT

pytestmark = pytest.mark.slow  # the local Discord as a process


def test_the_local_discord_starts_answers_and_stops() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "discord-sandbox", "--port", "0", "--token", "tok-123", "--seed", "1"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline() for _ in range(3)]
        url = lines[0].split()[-1]
        assert url.startswith("http://127.0.0.1:") and "Bot token: tok-123" in lines[1], lines
        request = urllib.request.Request(url + "/api/v10/users/@me", headers={"Authorization": "Bot tok-123"})
        with urllib.request.urlopen(request, timeout=10) as reply:
            assert json.loads(reply.read())["bot"] is True
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=20) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
