"""`swissbot run` and `swissbot sync`: clear errors before anything connects; the startup channel check."""

from __future__ import annotations

import argparse
import json
import os
import socket
import sqlite3
import subprocess
import sys
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.cli import run as cli_run
from bot.cli import sync as cli_sync
from bot.cli.exit_codes import ExitCode
from bot.config import ClubConfig, Config
from bot.discord.bot import channel_problems
from tests.support.paths import ROOT
from tests.support.processes import first_lines, process

EXAMPLE = ROOT / "config.example.toml"


def _parse(module: Any, argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    module.register(parser.add_subparsers())
    return parser.parse_args(argv)


def test_run_without_tokens_says_which_variable_is_missing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.setenv("LICHESS_TOKEN", "lip_x")
    args = _parse(cli_run, ["run", "--config", str(EXAMPLE)])
    assert args.handler(args) == ExitCode.CONFIG
    assert capsys.readouterr().err.strip() == (
        "swissbot run: environment variable DISCORD_TOKEN is not set (tokens never go in the file)"
    )


def test_run_with_an_unknown_key_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", "secret-d")
    monkeypatch.setenv("LICHESS_TOKEN", "secret-l")
    config = tmp_path / "config.toml"
    config.write_text("[discord]\ndm_player = true\n")
    args = _parse(cli_run, ["run", "--config", str(config)])
    assert args.handler(args) == ExitCode.CONFIG
    err = capsys.readouterr().err
    assert "unknown key 'discord.dm_player'" in err and "secret" not in err


def test_sync_without_a_token_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    args = _parse(cli_sync, ["sync", "--guild", "123"])
    assert args.guild == 123
    assert args.handler(args) == ExitCode.CONFIG
    assert "DISCORD_TOKEN is not set" in capsys.readouterr().err


@dataclass
class _Channel:
    name: str
    allowed: dict[str, bool]

    def permissions_for(self, member: Any) -> discord.Permissions:
        return discord.Permissions(**self.allowed)


@dataclass
class _Guild:
    id: int
    name: str
    channels: dict[int, _Channel] = field(default_factory=dict)
    me: object = None

    def get_channel(self, channel_id: int) -> _Channel | None:
        return self.channels.get(channel_id)


class _Client:
    def __init__(self, *guilds: _Guild) -> None:
        self.guilds = {g.id: g for g in guilds}

    def get_guild(self, guild_id: int) -> _Guild | None:
        return self.guilds.get(guild_id)


ALL = {
    "view_channel": True,
    "send_messages": True,
    "embed_links": True,
    "attach_files": True,
    "read_message_history": True,
}


def test_channel_check_names_what_is_wrong() -> None:
    config = Config(
        database=Path("x"),
        clubs=(ClubConfig(1, "TD", 10), ClubConfig(2, "TD", 20), ClubConfig(3, "TD", 30), ClubConfig(4, "TD", 40)),
    )
    client = _Client(
        _Guild(1, "Good Club", {10: _Channel("swiss", ALL)}),
        _Guild(2, "Quiet Club", {20: _Channel("events", ALL | {"send_messages": False, "attach_files": False})}),
        _Guild(3, "Empty Club"),
    )
    problems = channel_problems(client, config)  # type: ignore[arg-type]
    assert problems == [
        "the bot cannot post in #events of Quiet Club: it lacks send messages, attach files",
        "no channel 30 in the server Empty Club ([[clubs]] channel_id)",
        "the bot is not in the server 4 ([[clubs]] guild_id): invite it first",
    ]
    good = _Client(_Guild(1, "Good Club", {10: _Channel("swiss", ALL)}))
    assert channel_problems(good, Config(database=Path("x"), clubs=config.clubs[:1])) == []  # type: ignore[arg-type]


def _club_config(tmp_path: Path, discord_url: str) -> Path:
    config = tmp_path / "config.toml"
    config.write_text(
        f'[bot]\ndatabase = "club.sqlite3"\n\n[discord]\napi_url = "{discord_url}"\n\n'
        '[lichess]\nbase_url = "http://127.0.0.1:9"\n\n'
        '[[clubs]]\nguild_id = 1\norganiser_role = "Organiser"\nchannel_id = 2\n'
    )
    return config


def _club_server(discord_url: str) -> None:
    """Server 1 with channel 2 and the Organiser role on the local Discord (`_club_config`'s club)."""
    body = {
        "id": "1",
        "name": "Club",
        "channels": [{"id": "2", "name": "swiss"}],
        "roles": [{"id": "3", "name": "Organiser"}],
    }
    request = urllib.request.Request(
        discord_url + "/sandbox/guilds", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        assert reply.status == 201


def _run(config: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DISCORD_TOKEN": "local-discord-token", "LICHESS_TOKEN": "lip_x"}
    command = [sys.executable, "-m", "bot.cli", "run", "--config", str(config)]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_run_without_network_is_one_sentence(tmp_path: Path) -> None:
    done = _run(_club_config(tmp_path, "http://127.0.0.1:9"))  # nothing listens on the discard port
    assert done.returncode == ExitCode.UNREACHABLE
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().startswith("swissbot run: cannot reach Discord at http://127.0.0.1:9 (")
    assert done.stderr.strip().endswith(
        "check the network and [discord] api_url, then start it again (nothing was changed)"
    )
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_run_on_a_database_locked_by_another_program_is_one_sentence(tmp_path: Path) -> None:
    with process("discord-sandbox", "--port", "0", "--token", "local-discord-token", "--seed", "1") as discord:
        discord_url = first_lines(discord, 3)[0].split()[-1]
        _club_server(discord_url)  # the club as configured, so the start-up checks pass and the database is next
        config = _club_config(tmp_path, discord_url)
        holder = sqlite3.connect(tmp_path / "club.sqlite3", isolation_level=None)
        try:
            holder.execute("BEGIN EXCLUSIVE")  # another program writing the file, for longer than the bot waits
            done = _run(config)
        finally:
            holder.close()
    assert done.returncode == ExitCode.NO_DATABASE, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"swissbot run: cannot use the database {tmp_path / 'club.sqlite3'}: the database is locked by another "
        "program (another swissbot or a tool that has the file open): close it and try again; nothing was changed"
    )


@pytest.mark.slow
def test_run_with_its_web_port_taken_names_the_key(tmp_path: Path) -> None:
    with (
        process("discord-sandbox", "--port", "0", "--token", "local-discord-token", "--seed", "1") as discord,
        socket.socket() as taken,
    ):
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        discord_url = first_lines(discord, 3)[0].split()[-1]
        _club_server(discord_url)
        config = _club_config(tmp_path, discord_url)
        config.write_text(config.read_text() + f'\n[web]\nport = {port}\npublic_url = "http://127.0.0.1:{port}"\n')
        done = _run(config)
    assert done.returncode == ExitCode.CANNOT_LISTEN, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"swissbot run: 127.0.0.1:{port} is already in use (another program, or another swissbot, listens there); "
        f"set another [web] port in {config} (or stop what listens there)"
    )
