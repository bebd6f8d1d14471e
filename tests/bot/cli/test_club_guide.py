"""The README's *Try it as a club* followed to the letter: the commands its code blocks show, run as processes in a
fresh folder (free ports added to `local-club`), a member's command answered by the bot, everything stopped cleanly."""

from __future__ import annotations

import html
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from tests.support.processes import free_port, process

pytestmark = pytest.mark.slow  # three processes: the local services, the bot, and each member's command

START = 60.0


def guide() -> str:
    """The README's section *Try it as a club*."""
    return (ROOT / "README.md").read_text().split("## Try it as a club\n", 1)[1].split("\n## ", 1)[0]


def guide_blocks() -> list[list[str]]:
    """The guide's code blocks, each a list of its command lines (comments and blank lines left out)."""
    section = guide()
    blocks = re.findall(r"```\n(.*?)```", section, re.S)
    return [[line.split("  #")[0].strip() for line in block.splitlines() if line.strip()] for block in blocks]


def swissbot(line: str) -> list[str]:
    """A guide line `swissbot ...` as this interpreter's `python -m bot.cli ...`."""
    words = shlex.split(line)
    assert words[0] == "swissbot", line
    return [sys.executable, "-m", "bot.cli", *words[1:]]


def read_until(proc: subprocess.Popen[str], last: str) -> str:
    """What the process printed up to the line that contains `last`."""
    assert proc.stdout is not None
    lines: list[str] = []
    while not lines or last not in lines[-1]:
        line = proc.stdout.readline()
        assert line, "".join(lines)  # the process ended first
        lines.append(line)
    return "".join(lines)


def exports(path: Path) -> dict[str, str]:
    """The `export NAME=value` lines of the env file, as a shell would read them."""
    found = {}
    for line in path.read_text().splitlines():
        name, value = line.removeprefix("export ").split("=", 1)
        found[name] = shlex.split(value)[0]
    return found


def wait_for_the_bot(discord_url: str) -> None:
    deadline = time.monotonic() + START
    while time.monotonic() < deadline:
        with urllib.request.urlopen(discord_url + "/sandbox/gateway", timeout=10) as reply:
            if any(session["connected"] for session in json.loads(reply.read())):
                return
        time.sleep(0.2)
    raise AssertionError("the bot did not connect to the local Discord")


def member_says(line: str, cwd: Path, env: dict[str, str]) -> str:
    """What the bot answered a guide's `swissbot member ...` line (which must succeed)."""
    typed = subprocess.run(swissbot(line), cwd=cwd, env=env, capture_output=True, text=True, timeout=90)
    assert typed.returncode == 0, (line, typed.stdout, typed.stderr)
    return typed.stdout


def link_heidi_as_the_guide_says(cwd: Path, env: dict[str, str], lichess_url: str) -> None:
    """The guide's prose: heidi links with the bio code (the code, the curl into her bio, /link again), unlinks, then
    links through her button's address in a browser, signing in on the local Lichess as heidi."""
    prose = " ".join(guide().split())
    button, start, finish = re.findall(r"`(swissbot member heidi /link[^`]*)`", prose)
    body = re.search(r"curl -X POST http://127\.0\.0\.1:8090/sandbox/users -d '(\{[^']*\})'", prose)
    assert body is not None and button == finish, prose
    started = member_says(start, cwd, env)
    code = re.search(r"`(swissbot-[0-9a-f]+)`", started)
    assert code is not None and f"({lichess_url}/account/profile" in started, started
    request = urllib.request.Request(
        lichess_url + "/sandbox/users", data=body.group(1).replace("CODE", code.group(1)).encode(), method="POST"
    )
    with urllib.request.urlopen(request, timeout=10) as reply:  # as curl -d sends it (a form content type)
        assert reply.status in (200, 201)
    assert "Linked: you are **heidi** on Lichess" in member_says(finish, cwd, env)
    member_says("swissbot member heidi /unlink", cwd, env)
    address = re.search(r"\[Link on Lichess\] (\S+)", member_says(button, cwd, env))
    assert address is not None
    with urllib.request.urlopen(address.group(1), timeout=10) as page:  # the bot's page naming heidi
        text = page.read().decode()
    sign_in = re.search(r'href="(' + re.escape(lichess_url) + r'/oauth\?[^"]+)"', text)
    assert "heidi" in text and sign_in is not None, text
    choose_heidi = html.unescape(sign_in.group(1)) + "&sandbox_user=heidi"  # the sign-in page's choice, approved
    with urllib.request.urlopen(choose_heidi, timeout=10) as landing:  # back to the bot's landing page
        assert landing.status == 200
    assert "as heidi" in member_says("swissbot member heidi /join", cwd, env)


def test_the_readme_club_guide_runs_as_written(tmp_path: Path) -> None:
    services, bot, members = guide_blocks()
    assert services == [". .venv/bin/activate", "swissbot local-club"]
    assert bot[:2] == [". .venv/bin/activate", ". local-club/env"] and len(bot) == 4
    assert members[0] == ". .venv/bin/activate" and len(members) > 2
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    web_port = free_port()
    ports = ["--discord-port", str(free_port()), "--lichess-port", str(free_port()), "--web-port", str(web_port)]
    with process(*swissbot(services[1])[3:], *ports, env=env, cwd=tmp_path, wait=30) as local_club:
        banner = read_until(local_club, "Ctrl-C stops.")
        assert "swissbot sync --config local-club/config.toml --guild 900000000000000001" in banner
        env |= exports(tmp_path / "local-club" / "env")
        synced = subprocess.run(swissbot(bot[2]), cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
        assert synced.returncode == 0 and "synced" in synced.stdout, synced.stderr
        with process(*swissbot(bot[3])[3:], env=env, cwd=tmp_path, wait=30) as running:
            club = json.loads((tmp_path / "local-club" / "club.json").read_text())
            wait_for_the_bot(club["discord_url"])
            answers = [member_says(line, tmp_path, env) for line in members[1:]]
            assert "Created **Club Night**" in answers[0]
            assert "You are in **Club Night** as alice (1850)." in answers[2]
            link_heidi_as_the_guide_says(tmp_path, env, club["lichess_url"])
            with urllib.request.urlopen(f"http://127.0.0.1:{web_port}/", timeout=10) as page:
                assert "Club Night" in page.read().decode()  # the club's pages, as the guide says
            running.send_signal(signal.SIGINT)
            assert running.wait(timeout=30) == 0
            log = running.stdout.read() if running.stdout else ""
            assert "ready as SwissBot in 1 server(s)" in log
            assert "Traceback" not in log and "keep up" not in log and "heartbeat blocked" not in log, log
        local_club.send_signal(signal.SIGINT)
        assert local_club.wait(timeout=30) == 0
        assert "Local club stopped." in (local_club.stdout.read() if local_club.stdout else "")
