"""`swissbot local-club` and `swissbot member` in pieces: the club set up, the members linked, the files written, a
port in use named by its option, a typed command read as Discord's client sends it, and their exit codes."""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tomllib
import urllib.request
from pathlib import Path

import pytest

from bot.cli import local_club, member
from bot.cli.exit_codes import ExitCode
from bot.config import load_config
from bot.token_vault import TokenVault
from sandbox.discord.state import DiscordState
from storage import players
from storage.db import open_database
from tests.support.paths import ROOT
from tests.support.processes import first_lines, process

MEMBERS = {name: str(user_id) for name, user_id in local_club.members().items()}


def test_the_club_server_has_its_channel_role_organiser_and_members() -> None:
    state = DiscordState(seed=1)
    local_club.set_up_discord(state)
    guild = state.guilds[local_club.GUILD_ID]
    assert [c.name for c in guild.channels.values()] == ["tournaments"]
    organiser = guild.roles[local_club.ORGANISER_ROLE_ID]
    assert organiser.name == "Organiser" and organiser.permissions == local_club.MANAGE_EVENTS
    olga = local_club.members()["olga"]
    assert guild.members[olga].roles == [local_club.ORGANISER_ROLE_ID]
    assert guild.owner_id == olga  # the server's owner is a member, not the bot
    assert {state.users[m].name for m in guild.members if m != state.bot.id} == set(local_club.members())


async def test_every_player_but_heidi_is_linked_and_linking_again_changes_nothing(tmp_path: Path) -> None:
    database = tmp_path / "swissbot.sqlite3"
    await local_club.link_members(database)
    await local_club.link_members(database)  # `local-club` started again on the same folder
    db = await open_database(database)
    try:
        linked = {}
        for name, user_id in local_club.members().items():
            player = await players.player_by_discord(db, user_id)
            linked[name] = player.lichess_name if player is not None else None
    finally:
        await db.close()
    assert linked == {"olga": None, "heidi": None} | {n: n for n, _ in local_club.PLAYERS if n != "heidi"}


def test_the_files_written_are_a_config_run_accepts_and_the_tokens_as_exports(tmp_path: Path) -> None:
    club = local_club.LocalClub(tmp_path / "club", "http://127.0.0.1:1", "dtok", "http://127.0.0.1:2", "lip_x y")
    local_club.write_files(club)
    config = load_config(club.config)
    assert config.discord.api_url == "http://127.0.0.1:1" and config.lichess.base_url == "http://127.0.0.1:2"
    assert (config.web.host, config.web.port, config.web.public_url) == ("127.0.0.1", 8081, "http://127.0.0.1:8081")
    (only,) = config.clubs
    assert only.public  # its pages are served
    assert (only.guild_id, only.organiser_role, only.channel_id) == (
        local_club.GUILD_ID,
        "Organiser",
        local_club.CHANNEL_ID,
    )
    assert config.database == tmp_path / "club" / "swissbot.sqlite3"
    assert "token" not in tomllib.loads(club.config.read_text()).get("discord", {})
    env = club.env.read_text()
    assert env.startswith("export DISCORD_TOKEN=dtok\nexport LICHESS_TOKEN='lip_x y'\nexport SWISSBOT_TOKEN_KEY=")
    key = local_club.token_key(club.env)
    TokenVault(key)  # a Fernet key the bot accepts
    local_club.write_files(club)
    assert club.env.read_text() == env  # written again: the same key, so the members' stored tokens stay readable
    about = json.loads((club.folder / "club.json").read_text())
    assert about["members"] == MEMBERS and about["discord_url"] == "http://127.0.0.1:1"


def _local_club_args(tmp_path: Path, discord_port: int, lichess_port: int) -> argparse.Namespace:
    return argparse.Namespace(
        dir=tmp_path / "club",
        host="127.0.0.1",
        discord_port=discord_port,
        lichess_port=lichess_port,
        web_port=8081,
        autoplay_delay=3.0,
        seed=1,
    )


@pytest.mark.parametrize("which", ["--discord-port", "--lichess-port"])
def test_a_port_in_use_is_one_sentence_naming_its_option(
    which: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        ports = (port, 0) if which == "--discord-port" else (0, port)
        assert local_club.run(_local_club_args(tmp_path, *ports)) == ExitCode.CANNOT_LISTEN
    assert capsys.readouterr().err == (
        f"swissbot local-club: 127.0.0.1:{port} is already in use (another program, or another swissbot, listens "
        f"there); start it with another {which}\n"
    )
    assert local_club.run(_local_club_args(tmp_path, 70000, 0)) == ExitCode.USAGE
    zero_web_port = _local_club_args(tmp_path, 0, 0)
    zero_web_port.web_port = 0  # a config must name the port
    assert local_club.run(zero_web_port) == ExitCode.USAGE


def test_typed_words_become_the_command_and_options_discord_sends() -> None:
    words = ["/swiss", "create", "name:Club Night", "rounds:3", "interval:0.5", "rated:false", "player:@alice"]
    assert member.parse_words(words, MEMBERS) == (
        "swiss create",
        {"name": "Club Night", "rounds": 3, "interval": 0.5, "rated": False, "player": MEMBERS["alice"]},
    )
    assert member.parse_words(["/join"], MEMBERS) == ("join", {})
    assert member.parse_words(["link", "lichess-username:heidi"], MEMBERS) == ("link", {"lichess-username": "heidi"})
    for wrong in ([], ["rounds:3"], ["swiss", "rounds:3", "create"], ["join", ":x"]):
        with pytest.raises(ValueError):
            member.parse_words(wrong, MEMBERS)


def test_an_answer_reads_as_the_member_sees_it() -> None:
    private = {"content": "Put this code in your bio", "ephemeral": True, "embeds": [], "components": []}
    assert member.answer_text(private) == "(only you see this) Put this code in your bio"
    public = {
        "content": "",
        "ephemeral": False,
        "embeds": [{"title": "Round 1", "description": "alice - bob", "fields": [{"name": "Board", "value": "1"}]}],
        "components": [{"components": [{"label": "Join", "custom_id": "join:1"}]}],
        "attachments": ["round1.png"],
    }
    assert member.answer_text(public) == "Round 1\nalice - bob\nBoard: 1\n[Join]\n(file round1.png)"


def _member(tmp_path: Path, *words: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "bot.cli", "member", "--dir", str(tmp_path / "club"), *words]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_member_says_what_is_missing_in_one_sentence(tmp_path: Path) -> None:
    done = _member(tmp_path, "alice", "/join")
    assert done.returncode == ExitCode.UNREADABLE and "start `swissbot local-club` first" in done.stderr
    local_club.write_files(local_club.LocalClub(tmp_path / "club", "http://127.0.0.1:9", "d", "http://x", "l"))
    done = _member(tmp_path, "zoe", "/join")
    assert done.returncode == ExitCode.BAD_INPUT
    assert done.stderr.strip() == "swissbot member: no member 'zoe'; the club's: " + ", ".join(MEMBERS)
    done = _member(tmp_path, "alice", "/join")  # nothing listens on the discard port
    assert done.returncode == ExitCode.UNREACHABLE
    assert done.stderr.startswith("swissbot member: the local Discord at http://127.0.0.1:9 does not answer")
    assert _member(tmp_path, "alice").returncode == ExitCode.USAGE


@pytest.mark.slow  # the local Discord as a process
def test_member_before_the_commands_are_synced_says_to_sync(tmp_path: Path) -> None:
    with process("discord-sandbox", "--port", "0", "--seed", "1") as local_discord:
        url = first_lines(local_discord, 3)[0].split()[-1]
        guild = {
            "id": str(local_club.GUILD_ID),
            "name": "Chess Club",
            "channels": [{"id": str(local_club.CHANNEL_ID), "name": "t"}],
        }
        for path, body in (
            ("/sandbox/guilds", guild),
            ("/sandbox/members", {"guild_id": guild["id"], "user": {"id": MEMBERS["alice"], "name": "alice"}}),
        ):
            request = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST")
            urllib.request.urlopen(request, timeout=10).close()
        local_club.write_files(local_club.LocalClub(tmp_path / "club", url, "d", "http://x", "l"))
        done = _member(tmp_path, "alice", "/join")
    assert done.returncode == ExitCode.FAILED
    assert done.stderr.strip() == (
        "swissbot member: the local Discord refused /join: no command /join is synced here (run `swissbot sync "
        f"--config {tmp_path / 'club' / 'config.toml'} --guild {local_club.GUILD_ID}`)"
    )
