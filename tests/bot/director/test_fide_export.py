"""A FIDE-rated event's TRF, read field by field at the columns of the format (fide-swiss.md §6.2-6.3), accepted by
our checker and by the reference checker (bbpPairings `-c`) where one is present."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bot.errors import InvalidSetting, NotOrganiser
from domain.fide import FideProfile, TrfHeader
from pairing import checker, trf
from tests.bot.director.director_world import ORGANISER, World

REFERENCE = Path("/tmp/bbp/bbpPairings.exe")  # bench/crosscheck.py's reference binary
HEADER = TrfHeader(
    city="Amsterdam",
    federation="NED",
    chief_arbiter="Anna Arbiter (12345678)",
    deputy_arbiters=("Bert Deputy", "Cees Deputy"),
    time_control="3 minutes + 2 seconds per move",
    rating_type="blitz",
)


def _field(line: str, first: int, last: int) -> str:
    """Columns first..last, 1-based and inclusive, as the format counts them."""
    return line[first - 1 : last]


async def _finished_fide_event(w: World) -> tuple[int, str]:
    event_id, actors = await w.event(players=6, rounds=3, trf_header=HEADER)
    await w.director.set_fide_profile(actors[0], FideProfile("1503014", "NOR", "GM", 1990))
    await w.director.set_fide_profile(ORGANISER, FideProfile("24100000", "NED", None, 2004), actors[1].name)
    await w.run_until(lambda: w.finished(event_id))
    return event_id, (await w.director.export(event_id, "trf")).decode()


async def test_a_fide_rated_event_s_trf_fills_every_field_at_its_column(world: World) -> None:
    event_id, text = await _finished_fide_event(world)
    event = await world.director.event(event_id)
    lines = text.splitlines()
    assert lines[:3] == ["012 Club Swiss", "022 Amsterdam", "032 NED"]
    assert event.started_at is not None and event.finished_at is not None
    assert f"042 {event.started_at:%Y/%m/%d}" in lines and f"052 {event.finished_at:%Y/%m/%d}" in lines
    assert "062 6" in lines and "072 2" in lines
    assert [line for line in lines if line[:3] in ("102", "112")] == [
        "102 Anna Arbiter (12345678)",
        "112 Bert Deputy",
        "112 Cees Deputy",
    ]
    assert "122 3 minutes + 2 seconds per move" in lines and "222 180+2" in lines
    (dates,) = [line for line in lines if line.startswith("132")]
    rounds = await world.director.pairings(event_id, 1)
    assert rounds.started_at is not None
    assert _field(dates, 92, 99) == f"{rounds.started_at:%y/%m/%d}"
    assert _field(dates, 102, 109) and _field(dates, 112, 119)

    standings = {row.player.number: row.rank for row in await world.director.standings(event_id)}
    players = [line for line in lines if line.startswith("001")]
    assert len(players) == 6
    for line in players:
        number = int(_field(line, 5, 8))
        assert int(_field(line, 86, 89)) == standings[number]  # the final place
        assert _field(line, 49, 52).strip().isdigit()  # the rating the event was seeded with
        assert _field(line, 81, 84).strip().replace(".", "").isdigit()
    first = next(line for line in players if _field(line, 15, 47).strip() == "player01")
    assert (_field(first, 11, 13), _field(first, 54, 56), _field(first, 58, 68), _field(first, 70, 79)) == (
        " GM",
        "NOR",
        "    1503014",
        "1990      ",
    )
    second = next(line for line in players if _field(line, 15, 47).strip() == "player02")
    assert (_field(second, 11, 13), _field(second, 54, 56), _field(second, 58, 68)) == ("   ", "NED", "   24100000")
    assert _field(second, 70, 73) == "2004"

    # Each round's cell at its columns (92-95 the opponent, 97 the colour, 99 the result; the next round 10 on), and
    # the separators between fields blank: a reader that cuts by column reads what the bot played.
    by_number = {int(_field(line, 5, 8)): line for line in players}
    cells = {"1-0": ("1", "0"), "0-1": ("0", "1"), "1/2-1/2": ("=", "="), "+/-": ("+", "-"), "-/+": ("-", "+")}
    for number in range(1, 4):
        base = 92 + 10 * (number - 1)
        for board in (await world.director.pairings(event_id, number)).boards:
            assert board.result is not None
            sides = ((board.white, board.black, "w"), (board.black, board.white, "b"))
            for (me, them, colour), result in zip(sides, cells[board.result.value], strict=True):
                line = by_number[me.number]
                assert (_field(line, base, base + 3), _field(line, base + 5, base + 5)) == (f"{them.number:>4}", colour)
                assert _field(line, base + 7, base + 7) == result
                assert _field(line, base - 2, base - 1) + _field(line, base + 4, base + 4) == "   "
    for line in players:
        assert [line[column - 1] for column in (4, 9, 14, 48, 53, 57, 69, 80, 85)] == [" "] * 9
        assert _field(line, 10, 10) == " "  # sex: not recorded

    tournament = trf.parse(text)
    assert tournament.player(int(_field(first, 5, 8))).fide_id == "1503014"
    assert checker.check_tournament(tournament, "dutch") == []

    # The public export (the club's pages) carries nobody's FIDE profile.
    public = (await world.director.export(event_id, "trf", public=True)).decode()
    assert "1503014" not in public and "NOR" not in public and " GM " not in public


@pytest.mark.skipif(not REFERENCE.exists(), reason="the reference checker (bbpPairings) is not built here")
async def test_the_reference_checker_accepts_the_export(world: World, tmp_path: Path) -> None:
    _, text = await _finished_fide_event(world)
    path = tmp_path / "event.trf"
    path.write_text(text, encoding="utf-8")
    done = subprocess.run([str(REFERENCE), "--dutch", str(path), "-c"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    # bbp lists each round it checked, and a table of "Checker pairings" for each round it would pair otherwise.
    assert [line.split(": ")[1] for line in done.stdout.splitlines() if ": Round #" in line] == [
        "Round #1",
        "Round #2",
        "Round #3",
    ]
    assert "Checker pairings" not in done.stdout, done.stdout


async def test_profiles_and_headers_are_checked_for_their_form(world: World) -> None:
    event_id, actors = await world.event(players=2, rounds=1)
    with pytest.raises(InvalidSetting, match="'12ab' is not a FIDE id"):
        await world.director.set_fide_profile(actors[0], FideProfile(fide_id="12ab"))
    with pytest.raises(NotOrganiser):
        await world.director.set_fide_profile(actors[0], FideProfile(fide_id="123"), actors[1].name)
    with pytest.raises(InvalidSetting, match="'Dutch' is not a federation code"):
        await world.director.set_trf_header(ORGANISER, event_id, TrfHeader(federation="Dutch"))
    row = await world.director.set_fide_profile(actors[0], FideProfile(fide_id="123", federation="NED"))
    assert row.fide == FideProfile(fide_id="123", federation="NED")


async def test_any_event_s_trf_rank_field_holds_the_final_place(quiet_world: World) -> None:
    w = quiet_world
    event_id, _ = await w.event(players=4, rounds=2)  # not FIDE-rated
    await w.start(event_id)
    await w.play_all(event_id, "black")  # the lower-rated player of each board wins: places differ from numbers
    await w.scheduler.run_due()
    assert await w.next_round(event_id) == 2
    await w.play_all(event_id, "black")
    await w.run_until(lambda: w.finished(event_id))
    lines = (await w.director.export(event_id, "trf")).decode().splitlines()
    standings = {row.player.number: row.rank for row in await w.director.standings(event_id)}
    places = {int(_field(line, 5, 8)): int(_field(line, 86, 89)) for line in lines if line.startswith("001")}
    assert places == standings and places != {n: n for n in places}
