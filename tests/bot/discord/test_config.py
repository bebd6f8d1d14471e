"""The TOML configuration and the tokens from the environment."""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path

import pytest

from bot.config import (
    ClubConfig,
    ConfigError,
    DiscordConfig,
    LichessConfig,
    load_config,
    load_secrets,
    parse_config,
)
from bot.settings import BanPolicy, DirectorSettings
from tests.support.paths import ROOT

EXAMPLE = ROOT / "config.example.toml"

MINIMAL = """
[[clubs]]
guild_id = 1
organiser_role = "TD"
channel_id = 2
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_example_file_loads_and_matches_the_defaults() -> None:
    config = load_config(EXAMPLE)
    assert config.database == EXAMPLE.parent / "swissbot.sqlite3"
    assert config.clubs[0].organiser_role == "Tournament Organiser"
    # The example documents the defaults: loading it gives the same settings as an empty section.
    assert config.director == DirectorSettings()
    assert config.discord == DiscordConfig()
    assert config.lichess == LichessConfig()


def test_example_file_documents_every_key() -> None:
    data = tomllib.loads(EXAMPLE.read_text(encoding="utf-8"))
    expected = {
        "discord": {f.name for f in dataclasses.fields(DiscordConfig)},
        "lichess": {f.name for f in dataclasses.fields(LichessConfig)},
        "director": {f.name for f in dataclasses.fields(DirectorSettings)},
    }
    for section, keys in expected.items():
        assert set(data[section]) == keys, section
    assert set(data["director"]["ban_policy"]) == {f.name for f in dataclasses.fields(BanPolicy)}
    assert set(data["clubs"][0]) == {f.name for f in dataclasses.fields(ClubConfig)}
    # Every key has a comment above it, or above the block of keys and table headers it belongs to.
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        if re.match(r"^[a-z_]+ = ", line):
            above = index - 1
            while re.match(r"^([a-z_]+ = |\[)", lines[above]):
                above -= 1
            assert lines[above].startswith("#"), f"undocumented key: {line}"


def test_minimal_file_uses_defaults(tmp_path: Path) -> None:
    config = load_config(_write(tmp_path, MINIMAL))
    assert config.clubs == (ClubConfig(guild_id=1, organiser_role="TD", channel_id=2),)
    assert config.club(1) is config.clubs[0]
    assert config.club(99) is None
    assert config.director == DirectorSettings()
    assert config.database == tmp_path / "swissbot.sqlite3"


def test_director_section_builds_director_settings(tmp_path: Path) -> None:
    text = MINIMAL + "[director]\npoll_interval = 5\nmin_players = 4\n[director.ban_policy]\nfirst_hours = 12\n"
    config = load_config(_write(tmp_path, text))
    assert config.director.poll_interval == 5.0
    assert isinstance(config.director.poll_interval, float)
    assert config.director.min_players == 4
    assert config.director.ban_policy == BanPolicy(first_hours=12.0)


@pytest.mark.parametrize("pause", ["0", "59.5"])
def test_a_lichess_pause_under_a_minute_is_refused(tmp_path: Path, pause: str) -> None:
    with pytest.raises(ConfigError, match="lichess_pause' must be at least 60 seconds"):
        load_config(_write(tmp_path, MINIMAL + f"[director]\nlichess_pause = {pause}\n"))


def test_a_lichess_pause_of_a_minute_or_more_is_taken(tmp_path: Path) -> None:
    assert load_config(_write(tmp_path, MINIMAL + "[director]\nlichess_pause = 60\n")).director.lichess_pause == 60.0


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[bot]\ndatabse = 'x'\n", "bot.databse"),
        ("[discord]\ndm_player = true\n", "discord.dm_player"),
        ("[director]\npoll_intervall = 3\n", "director.poll_intervall"),
        ("[director.ban_policy]\nhours = 3\n", "director.ban_policy.hours"),
        (MINIMAL + "organizer_role = 'x'\n", "clubs[0].organizer_role"),
        ("[webhooks]\nurl = 'x'\n", "webhooks"),
    ],
)
def test_unknown_key_is_an_error_naming_it(tmp_path: Path, text: str, key: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(f"unknown key '{key}'")):
        load_config(_write(tmp_path, text))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[discord]\ndm_players = 'yes'\n", "'discord.dm_players' must be bool"),
        ("[discord]\nlog_channel_id = true\n", "not a boolean"),
        ("[[clubs]]\nguild_id = 1\nchannel_id = 2\n", "missing key 'clubs[0].organiser_role'"),
        ("[[clubs]]\nguild_id = -1\norganiser_role = 'x'\nchannel_id = 2\n", "Discord id"),
        (MINIMAL + MINIMAL, "more than one"),
        ("[bot]\nlog_level = 'LOUD'\n", "log_level"),
        ("[lichess]\nbase_url = 'lichess.org'\n", "http"),
        ("[director]\npoll_interval = -3\n", "negative"),
        ("[director]\nworker_processes = 9\n", "'director.worker_processes' must be 0 to 8, not 9"),
        ("[bot\n", "not valid TOML"),
        (MINIMAL + "lichess_token_env = 'lip_abc123:x'\n", "must name an environment variable"),
    ],
)
def test_bad_values_are_clear_errors(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_config(_write(tmp_path, text))


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "nope.toml")


def test_tokens_come_from_the_environment_and_are_never_shown() -> None:
    secrets = load_secrets({"DISCORD_TOKEN": "d-secret", "LICHESS_TOKEN": "l-secret "})
    assert secrets.discord_token == "d-secret"
    assert secrets.lichess_token == "l-secret"
    assert "secret" not in repr(secrets) and "secret" not in str(secrets)


@pytest.mark.parametrize(
    ("env", "missing"),
    [
        ({}, "DISCORD_TOKEN and LICHESS_TOKEN"),
        ({"DISCORD_TOKEN": "x"}, "LICHESS_TOKEN"),
        ({"LICHESS_TOKEN": "x"}, "DISCORD_TOKEN"),
    ],
)
def test_missing_token_is_a_clear_error(env: dict[str, str], missing: str) -> None:
    with pytest.raises(ConfigError, match=f"environment variable {missing} is not set"):
        load_secrets(env)


def test_a_club_may_bring_its_own_lichess_token_from_the_environment() -> None:
    clubs = (
        ClubConfig(1, "TD", 2, lichess_token_env="CLUB_A_LICHESS"),
        ClubConfig(3, "TD", 4),
        ClubConfig(5, "TD", 6, lichess_token_env="CLUB_A_LICHESS"),
    )
    env = {"DISCORD_TOKEN": "d", "LICHESS_TOKEN": "l", "CLUB_A_LICHESS": " club-secret "}
    secrets = load_secrets(env, clubs)
    assert secrets.club_tokens == {1: "club-secret", 5: "club-secret"}
    assert "club-secret" not in repr(secrets)
    with pytest.raises(ConfigError, match="environment variable CLUB_A_LICHESS is not set"):
        load_secrets({"DISCORD_TOKEN": "d", "LICHESS_TOKEN": "l"}, clubs)
    config = parse_config(tomllib.loads(MINIMAL + "lichess_token_env = 'CLUB_A_LICHESS'\n"), ROOT)
    assert config.clubs[0].lichess_token_env == "CLUB_A_LICHESS"


def test_a_token_in_the_file_is_refused() -> None:
    with pytest.raises(ConfigError, match=re.escape("unknown key 'discord.token'")):
        parse_config({"discord": {"token": "abc"}}, Path("."))


def test_organiser_role_matches_by_name_or_id() -> None:
    by_name = ClubConfig(1, "Arbiter", 2)
    assert by_name.is_organiser_role(5, "arbiter")
    assert not by_name.is_organiser_role(5, "member")
    by_id = ClubConfig(1, "777", 2)
    assert by_id.is_organiser_role(777, "whatever")
    assert not by_id.is_organiser_role(778, "777x")


@pytest.mark.parametrize("key", ["poll_interval", "default_round_interval_minutes", "default_noshow_minutes"])
@pytest.mark.parametrize("value", ["0", "-0.5", "nan"])
def test_a_director_timing_of_zero_or_less_is_refused_at_start_naming_the_key(
    tmp_path: Path, key: str, value: str
) -> None:
    wanted = "negative" if value == "-0.5" else f"'director.{key}' must be positive"
    with pytest.raises(ConfigError, match=re.escape(wanted)) as refused:
        load_config(_write(tmp_path, MINIMAL + f"[director]\n{key} = {value}\n"))
    assert f"director.{key}" in str(refused.value)
