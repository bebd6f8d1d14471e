"""`swissbot run` refuses to start half-configured: each problem one sentence, found on the local Discord's and the
local Lichess's real endpoints (guild, roles, channel, the bot's member, `POST /api/token/test`)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path

import discord
import pytest

from bot.cli import preflight
from bot.cli import run as cli_run
from bot.cli.exit_codes import ExitCode
from bot.config import ClubConfig, Config, DiscordConfig, LichessConfig, Secrets
from bot.lichess.scopes import BOT_SCOPES
from sandbox.discord import DiscordSandbox, run_discord_sandbox
from sandbox.discord.state import Fault
from sandbox.lichess import run_sandbox
from sandbox.lichess.server import Sandbox
from tests.support.paths import ROOT

GUILD, CHANNEL, SECRET_CHANNEL, ORGANISER = (
    730000000000000001,
    730000000000000011,
    730000000000000012,
    730000000000000021,
)
SEND_MESSAGES = 1 << 11


@dataclass
class Services:
    discord: DiscordSandbox
    lichess: Sandbox

    def config(self, organiser_role: str = "Organiser", channel_id: int = CHANNEL, guild_id: int = GUILD) -> Config:
        club = ClubConfig(guild_id=guild_id, organiser_role=organiser_role, channel_id=channel_id)
        return Config(
            database=Path("unused.sqlite3"),
            clubs=(club,),
            discord=DiscordConfig(api_url=self.discord.url),
            lichess=LichessConfig(base_url=self.lichess.url),
        )

    def secrets(self, lichess_token: str | None = None, discord_token: str | None = None) -> Secrets:
        return Secrets(
            discord_token=discord_token or self.discord.token, lichess_token=lichess_token or self.lichess.bot_token
        )


@pytest.fixture
async def services() -> AsyncIterator[Services]:
    async with run_discord_sandbox(seed=2) as local_discord, run_sandbox(seed=2) as local_lichess:
        state = local_discord.state
        guild = state.add_guild(GUILD, "Chess Club", owner_id=830000000000000001)  # not the bot: it has no say
        state.add_channel(guild, CHANNEL, "tournaments")
        state.add_role(guild, ORGANISER, "Organiser", 1 << 33)
        state.add_role(guild, 730000000000000022, "Members")
        yield Services(local_discord, local_lichess)


async def test_a_club_configured_as_its_server_is_starts(services: Services) -> None:
    assert await preflight.problems(services.config(), services.secrets()) == []
    by_id = services.config(organiser_role=str(ORGANISER))
    assert await preflight.problems(by_id, services.secrets()) == []


async def test_an_organiser_role_missing_from_the_server_names_the_roles_found(services: Services) -> None:
    found = await preflight.problems(services.config(organiser_role="Tournament Organiser"), services.secrets())
    assert found == [
        "the server Chess Club has no role 'Tournament Organiser' ([[clubs]] organiser_role); its roles: "
        "'Organiser', 'Members'"
    ]


async def test_a_channel_that_does_not_exist_or_the_bot_cannot_post_in_is_named(services: Services) -> None:
    found = await preflight.problems(services.config(channel_id=SECRET_CHANNEL), services.secrets())
    assert found == [f"the server Chess Club has no channel {SECRET_CHANNEL} the bot can see ([[clubs]] channel_id)"]
    guild = services.discord.state.guilds[GUILD]
    everyone = guild.roles[GUILD]
    services.discord.state.add_role(guild, GUILD, "@everyone", everyone.permissions & ~SEND_MESSAGES)
    found = await preflight.problems(services.config(), services.secrets())
    assert found == ["the bot cannot post in #tournaments of Chess Club ([[clubs]] channel_id): it lacks send messages"]


async def test_a_server_the_bot_is_not_in_is_named(services: Services) -> None:
    found = await preflight.problems(services.config(guild_id=GUILD + 5), services.secrets())
    assert found == [f"the bot is not in the server {GUILD + 5} ([[clubs]] guild_id): invite it first"]


async def test_a_discord_token_refused_is_a_login_failure(services: Services) -> None:
    with pytest.raises(discord.LoginFailure):
        await preflight.problems(services.config(), services.secrets(discord_token="not-the-token"))


async def test_a_lichess_token_refused_or_without_challenge_write_is_one_sentence(services: Services) -> None:
    found = await preflight.problems(services.config(), services.secrets(lichess_token="lip_nobody"))
    assert found == [
        f"Lichess ({services.lichess.url}) refuses the token in LICHESS_TOKEN (unknown, revoked or expired): "
        "make a new one with the scopes challenge:write and challenge:bulk"
    ]
    services.lichess.add_user("ClubBot", token="lip_readonly", scopes=frozenset({"challenge:bulk", "team:read"}))
    found = await preflight.problems(services.config(), services.secrets(lichess_token="lip_readonly"))
    assert found == [
        "the token in LICHESS_TOKEN lacks the scope challenge:write, with which the bot creates and cancels the "
        "games: make a new one with the scopes challenge:write and challenge:bulk"
    ]
    services.lichess.add_user("ClubBot", token="lip_nobulk", scopes=frozenset({"challenge:write"}))
    assert await preflight.problems(services.config(), services.secrets(lichess_token="lip_nobulk")) == []


def test_the_token_step_of_the_readme_and_the_example_config_name_the_bots_scopes() -> None:
    """The scopes a club gives the bot's token are named once, in `bot.lichess.scopes`: the docs say those."""
    scope = re.compile(r"\b(?:challenge|team|bot|board|email|preference|study|tournament|racer|puzzle|msg|follow|"
                       r"engine|web):[a-z]+\b")  # fmt: skip
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    step = readme[readme.index("2. **Lichess.**") : readme.index("3. **Linking")]
    example = (ROOT / "config.example.toml").read_text(encoding="utf-8")
    token_lines = example[example.index("#   LICHESS_TOKEN") : example.index("#   SWISSBOT_TOKEN_KEY")]
    names = {s.name for s in BOT_SCOPES}
    assert set(scope.findall(step)) == names
    assert set(scope.findall(token_lines)) == names


async def test_run_prints_each_problem_and_exits_config_before_starting_anything(
    services: Services, capsys: pytest.CaptureFixture[str]
) -> None:
    config = services.config(organiser_role="TD", channel_id=SECRET_CHANNEL)
    assert await cli_run.serve(config, services.secrets(lichess_token="lip_nobody")) == ExitCode.CONFIG
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 3 and all(line.startswith("swissbot run: ") for line in lines), lines
    assert not services.discord.gateway.has_session()  # nothing connected


async def test_a_discord_that_answers_5xx_or_429_is_not_a_problem_only_unchecked(
    services: Services, caplog: pytest.LogCaptureFixture
) -> None:
    state = services.discord.state
    state.faults.append(Fault(path=f"/api/v10/guilds/{GUILD}", status=503, count=1))
    assert await preflight.problems(services.config(organiser_role="nobody"), services.secrets()) == []
    assert "could not check the clubs on Discord (Discord answered 503" in caplog.text


async def test_a_lichess_that_does_not_answer_is_not_a_problem(services: Services) -> None:
    config = replace(services.config(), lichess=LichessConfig(base_url="http://127.0.0.1:9"))
    assert await preflight.problems(config, services.secrets()) == []


def test_channel_permissions_follow_discords_order_of_overwrites() -> None:
    view, send, embed = 1 << 10, 1 << 11, 1 << 14
    guild = {
        "id": "1",
        "owner_id": "9",
        "roles": [{"id": "1", "permissions": str(view | send | embed)}, {"id": "5", "permissions": "0"}],
    }
    bot = {"user": {"id": "7"}, "roles": ["5"]}
    overwrites = [
        {"id": "1", "type": 0, "allow": "0", "deny": str(send | embed)},  # @everyone may not write here
        {"id": "5", "type": 0, "allow": str(send), "deny": "0"},  # the bot's role may
        {"id": "7", "type": 1, "allow": "0", "deny": str(view)},  # but the bot itself is shut out
    ]
    assert preflight.channel_permissions(guild, bot, {"permission_overwrites": overwrites[:2]}) == view | send
    assert preflight.channel_permissions(guild, bot, {"permission_overwrites": overwrites}) == send
    owner = {"user": {"id": "9"}, "roles": []}
    assert (
        preflight.channel_permissions(guild, owner, {"permission_overwrites": overwrites})
        == discord.Permissions.all().value
    )
