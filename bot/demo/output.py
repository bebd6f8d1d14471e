"""The demo's files: the event as storage exports it (TRF, PGN), and the standings as text and PNG."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from bot.demo.console import format_standings
from bot.director.models import StandingRow
from domain.event import Event, EventStatus
from storage.db import Database
from storage.export import export_event


def standings_text(event: Event, rows: Sequence[StandingRow], reason: str | None = None) -> str:
    """The final standings as a text table."""
    head = [f"{event.name} — standings after round {event.current_round}"]
    if reason:
        head.append(f"({reason})")
    return "\n".join([*head, "", *format_standings(rows, event.settings.tiebreaks)]) + "\n"


def standings_png(event: Event, rows: Sequence[StandingRow], *, final: bool) -> bytes:
    """The standings as a PNG (the Discord layer's renderer)."""
    from bot.rendering.image import standings_png as render

    return render(event, rows, final=final)


async def write_outputs(out: Path, db: Database, event: Event, rows: Sequence[StandingRow], *, site: str) -> list[Path]:
    """Write tournament.trf and games.pgn (`storage.export`; the games link to `site`, the Lichess they were played
    on), standings.txt and standings.png into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "tournament.trf": (await export_event(db, event.id, "trf")).encode(),
        "games.pgn": (await export_event(db, event.id, "pgn", site=site)).encode(),
        "standings.txt": standings_text(event, rows, event.finish_reason).encode(),
        "standings.png": standings_png(event, rows, final=event.status is EventStatus.FINISHED),
    }
    written = []
    for name, data in files.items():
        path = out / name
        path.write_bytes(data)
        written.append(path)
    return written
