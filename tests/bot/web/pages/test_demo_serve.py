"""`swissbot demo --serve PORT`: the demo's event pages, whose standings and TRF are the demo's own."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.bot.web.pages.test_pages_browser import cli_standings
from tests.support.paths import ROOT
from tests.support.processes import free_port

pytestmark = pytest.mark.slow  # a whole demo run

DEADLINE = 240.0


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as reply:
        body: bytes = reply.read()
        return body


def test_the_demo_serves_its_event_until_ctrl_c(tmp_path: Path) -> None:
    port, out = free_port(), tmp_path / "out"
    args = ["demo", "--players", "6", "--rounds", "2", "--out", str(out), "--db", str(tmp_path / "demo.sqlite3")]
    demo = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", *args, "--serve", str(port)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert demo.stdout is not None
        started, lines = time.monotonic(), []
        while time.monotonic() - started < DEADLINE:
            line = demo.stdout.readline()
            if not line:
                break
            lines.append(line)
            if "until Ctrl-C" in line:
                break
        last = lines[-1] if lines else ""
        assert f"serving the event's pages at http://127.0.0.1:{port}/events/1 until Ctrl-C" in last, "".join(lines)
        base = f"http://127.0.0.1:{port}/events/1"
        trf = fetch(base + ".trf")
        assert trf == (out / "tournament.trf").read_bytes()
        (tmp_path / "event.trf").write_bytes(trf)
        settings = json.loads(fetch(base + ".json"))["event"]["settings"]
        expected = cli_standings(tmp_path / "event.trf", tuple(settings["tiebreaks"]))
        page = fetch(base).decode()
        table = page[page.index('id="standings"') : page.index("</table>", page.index('id="standings"'))]
        for row in expected:
            assert f'/players/{row["number"]}">{row["name"]}</a>' in table
        order = [table.index(f'/players/{row["number"]}"') for row in expected]
        assert order == sorted(order)
        demo.send_signal(signal.SIGINT)
        assert demo.wait(timeout=30) == 0
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
