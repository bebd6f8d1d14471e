"""The director's operating settings (not per event); `bot/config.py` builds them from the TOML file."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class BanPolicy:
    """Temporary bans after a no-show: `first_hours`, doubled on every repeat, at most `max_days` (`ban_hours`)."""

    first_hours: float = 24.0
    factor: float = 2.0
    max_days: float = 30.0


@dataclass(frozen=True)
class DirectorSettings:
    """Timings and policies of the director (event time, in seconds unless named otherwise)."""

    link_code_lifetime: float = 15 * 60.0
    link_code_prefix: str = "swissbot-"
    poll_interval: float = 20.0
    reminder_before: float = 10 * 60.0
    default_noshow_minutes: float = 10.0
    default_round_interval_minutes: float = 5.0
    ban_policy: BanPolicy = field(default_factory=BanPolicy)
    lichess_pause: float = 60.0
    retry_after: float = 60.0  # an event short of players at start, or a job that failed, tries again this much later
    min_players: int = 2
    # processes that pair rounds and compute standings beside the event loop (0: threads only; `bot.workers`)
    worker_processes: int = 1
