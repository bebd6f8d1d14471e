"""A graceful stop: the application stops taking work and its running jobs finish before Discord closes."""

from __future__ import annotations

from pathlib import Path
from typing import cast

from bot.assembly import App
from bot.config import ClubConfig, Config
from bot.discord.bot import SwissBot


class RecordingApp:
    """Stands for the application: notes whether Discord was still open at each step."""

    def __init__(self) -> None:
        self.bot: SwissBot | None = None
        self.steps: list[tuple[str, bool]] = []

    async def stop(self) -> None:
        assert self.bot is not None
        self.steps.append(("stop", self.bot.is_closed()))

    async def close(self) -> None:
        assert self.bot is not None
        self.steps.append(("close", self.bot.is_closed()))


async def test_running_jobs_end_before_discord_closes_and_the_services_after(tmp_path: Path) -> None:
    app = RecordingApp()
    bot = SwissBot(Config(database=tmp_path / "db.sqlite3", clubs=(ClubConfig(1, "Organiser", 2),)), app=cast(App, app))
    app.bot = bot

    await bot.close()

    assert app.steps == [("stop", False), ("close", True)]
