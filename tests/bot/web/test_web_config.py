"""The [web] table of the configuration."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from bot.assembly import discord_signin
from bot.config import DISCORD_CLIENT_SECRET_ENV, ConfigError, WebConfig, load_secrets, parse_config

ROOT = Path(__file__).resolve().parents[3]


def test_web_is_off_without_a_public_url() -> None:
    config = parse_config({}, ROOT)
    assert config.web == WebConfig() and not config.web.enabled
    assert not parse_config({"web": {"public_url": ""}}, ROOT).web.enabled


def test_web_reads_host_port_and_public_url() -> None:
    web = parse_config({"web": {"host": "0.0.0.0", "port": 9000, "public_url": "https://swiss.example.org/"}}, ROOT).web
    assert (web.host, web.port, web.public_url, web.enabled) == ("0.0.0.0", 9000, "https://swiss.example.org", True)


@pytest.mark.parametrize(
    ("table", "words"),
    [
        ({"public_url": "swiss.example.org"}, "'web.public_url' must start with http://"),
        ({"port": 70000}, "'web.port' must be a TCP port"),
        ({"port": "8081"}, "'web.port' must be int"),
        ({"callback": "/x"}, "unknown key 'web.callback'"),
    ],
)
def test_bad_web_settings_are_errors(table: dict[str, object], words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        parse_config({"web": table}, ROOT)


def test_the_example_documents_every_web_key() -> None:
    example = tomllib.loads((ROOT / "config.example.toml").read_text())
    assert set(example["web"]) == {"host", "port", "public_url"}
    assert not parse_config(example, ROOT).web.enabled


def test_discord_sign_in_needs_the_application_id_and_its_secret_from_the_environment() -> None:
    example = tomllib.loads((ROOT / "config.example.toml").read_text())
    assert example["discord"]["oauth_client_id"] == 0
    on = {"discord": {"oauth_client_id": 123}, "web": {"public_url": "https://swiss.example.org"}}
    config = parse_config(on, ROOT)
    assert config.discord.oauth_client_id == 123
    assert discord_signin(config, None) is None and discord_signin(parse_config({}, ROOT), "s3cret") is None
    signin = discord_signin(config, "s3cret")
    assert signin is not None and signin.redirect_uri == "https://swiss.example.org/oauth/discord"
    assert "s3cret" not in repr(signin)
    environ = {"DISCORD_TOKEN": "d", "LICHESS_TOKEN": "l", DISCORD_CLIENT_SECRET_ENV: " s3cret "}
    secrets = load_secrets(environ)
    assert secrets.discord_client_secret == "s3cret" and "s3cret" not in repr(secrets)
    assert load_secrets({"DISCORD_TOKEN": "d", "LICHESS_TOKEN": "l"}).discord_client_secret is None
    with pytest.raises(ConfigError, match="oauth_client_id"):
        parse_config({"discord": {"oauth_client_id": -1}}, ROOT)
