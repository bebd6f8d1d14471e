"""`swissbot run` as a process against `swissbot sandbox --autoplay` and `swissbot discord-sandbox`, also processes:
a whole event driven only through the two control APIs, a SIGTERM (as a service manager stops it) that stops it
gracefully, then `swissbot export` of its database passes `check`."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import ROOT
from tests.support.processes import first_lines, process

pytestmark = pytest.mark.slow  # the real bot process against both local services

GUILD, CHANNEL, ORGANISER_ROLE = 720000000000000001, 720000000000000011, 720000000000000021
OLGA, ALICE, BOB = 820000000000000001, 820000000000000002, 820000000000000003
DISCORD_TOKEN = "local-discord-token"
DEADLINE = 90.0


def call(url: str, body: Any = None, method: str = "POST") -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as reply:
        text = reply.read().decode()
        return json.loads(text) if text else None


def command(discord_url: str, user: int, slash: str, **options: Any) -> str:
    """A member types a slash command in the club's channel; what the bot answered, as text."""
    body = {"guild_id": str(GUILD), "channel_id": str(CHANNEL), "user_id": str(user), "command": slash}
    answer = call(discord_url + "/sandbox/interactions", {**body, "options": options})
    assert "error" not in answer, f"/{slash}: {answer}"
    return "\n".join((r.get("content") or "") for r in answer["responses"])


def test_swissbot_run_plays_a_whole_event_driven_through_the_two_control_apis(tmp_path: Path) -> None:
    with (
        process("sandbox", "--port", "0", "--autoplay", "--autoplay-delay", "0", "--seed", "5") as lichess_proc,
        process("discord-sandbox", "--port", "0", "--token", DISCORD_TOKEN, "--seed", "1") as discord_proc,
    ):
        lichess_url = first_lines(lichess_proc, 1)[0].split()[-1]
        lichess_token = re.search(r"\(token (\S+)\)", first_lines(lichess_proc, 1)[0])
        assert lichess_token is not None
        discord_url = first_lines(discord_proc, 3)[0].split()[-1]
        guild = {
            "id": str(GUILD),
            "name": "Chess Club",
            "channels": [{"id": str(CHANNEL), "name": "tournaments"}],
            "roles": [{"id": str(ORGANISER_ROLE), "name": "Organiser", "permissions": str(1 << 33)}],
        }
        call(discord_url + "/sandbox/guilds", guild)
        for user, name, roles in ((OLGA, "olga", [str(ORGANISER_ROLE)]), (ALICE, "alice", []), (BOB, "bob", [])):
            call(
                discord_url + "/sandbox/members",
                {"guild_id": str(GUILD), "user": {"id": str(user), "name": name}, "roles": roles},
            )
        for name, rating in (("alice", 1800), ("bob", 1700)):
            call(lichess_url + "/sandbox/users", {"username": name, "rating": rating})
        config = tmp_path / "config.toml"
        config.write_text(
            f'[bot]\ndatabase = "club.sqlite3"\n\n[discord]\napi_url = "{discord_url}"\n\n'
            f'[lichess]\nbase_url = "{lichess_url}"\n\n'
            f'[[clubs]]\nguild_id = {GUILD}\norganiser_role = "Organiser"\nchannel_id = {CHANNEL}\n\n'
            "[director]\npoll_interval = 1.0\n"
        )
        env = {"DISCORD_TOKEN": DISCORD_TOKEN, "LICHESS_TOKEN": lichess_token.group(1)}
        synced = subprocess.run(
            [sys.executable, "-m", "bot.cli", "sync", "--config", str(config), "--guild", str(GUILD)],
            cwd=ROOT,
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert synced.returncode == 0, synced.stdout + synced.stderr
        with process("run", "--config", str(config), env=env) as bot_proc:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not any(
                s["connected"] for s in call(discord_url + "/sandbox/gateway", method="GET")
            ):
                time.sleep(0.2)
            assert "Club Night" in command(
                discord_url, OLGA, "swiss create", name="Club Night", rounds=2, schedule="interval", interval=0.05
            )
            command(discord_url, OLGA, "swiss open")
            for user, name in ((ALICE, "alice"), (BOB, "bob")):
                code = re.search(r"`([^`]+)`", command(discord_url, user, "link", **{"lichess-username": name}))
                assert code is not None
                call(lichess_url + "/sandbox/users", {"username": name, "bio": f"hi {code.group(1)}"})
                assert "Linked" in command(discord_url, user, "link")
                command(discord_url, user, "join")
            command(discord_url, OLGA, "swiss start")
            deadline = time.monotonic() + DEADLINE
            posted = ""
            while time.monotonic() < deadline:
                messages = call(f"{discord_url}/sandbox/channels/{CHANNEL}/messages", method="GET")
                posted = json.dumps(messages).lower()
                if "final standings" in posted:
                    break
                time.sleep(0.5)
            assert "final standings" in posted, posted[-2000:]
            bot_proc.send_signal(signal.SIGTERM)
            stopped_output, _ = bot_proc.communicate(timeout=30)  # an open database thread would hang it
            assert bot_proc.returncode == 0, stopped_output
            assert "SIGTERM: stopping" in stopped_output and stopped_output.rstrip().endswith("stopped")
            assert "Traceback" not in stopped_output, stopped_output
    exported = tmp_path / "event.trf"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bot.cli",
            "export",
            "--db",
            str(tmp_path / "club.sqlite3"),
            "--format",
            "trf",
            "--output",
            str(exported),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    checked = subprocess.run(
        [sys.executable, "-m", "bot.cli", "check", str(exported)], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert checked.returncode == 0 and "no discrepancy" in checked.stdout + checked.stderr, checked.stderr
