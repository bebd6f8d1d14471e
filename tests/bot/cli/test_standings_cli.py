"""`swissbot standings`: text and JSON output, options, exit codes."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from bot.cli import standings as cli_standings
from bot.cli.exit_codes import ExitCode
from tests.pairing.tiebreak_fixtures import EXAMPLE16, EXAMPLE26


def _run(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="swissbot")
    sub = parser.add_subparsers(dest="command", required=True)
    cli_standings.register(sub)
    args = parser.parse_args(["standings", *argv])
    code: int = args.handler(args)
    return code


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict[str, Any]]:
    assert _run(*argv, "--json") == 0
    rows: list[dict[str, Any]] = json.loads(capsys.readouterr().out)
    return rows


def test_json_rows_in_ranking_order(capsys: pytest.CaptureFixture[str]) -> None:
    rows = _json(capsys, str(EXAMPLE16))
    assert [(r["rank"], r["number"], r["points"]) for r in rows] == [
        (1, 1, 3.5),
        (2, 5, 3),
        (3, 3, 2),
        (4, 4, 1.5),
        (5, 2, 1.5),
    ]
    assert rows[0]["name"] == "Alder, Anna"
    assert rows[0]["tiebreaks"] == {"BH/C1": 6.5, "BH": 8, "SB": 6.5, "DE": 0, "WIN": 3, "BWG": 2, "ARO/C1": 1995}
    assert set(rows[0]) == {"rank", "number", "name", "points", "tiebreaks"}


def test_tiebreaks_option_and_edition(capsys: pytest.CaptureFixture[str]) -> None:
    rows = _json(capsys, str(EXAMPLE16), "--tiebreaks", "bh, sb/c1")
    by_number = {r["number"]: r["tiebreaks"] for r in rows}
    assert by_number[5] == {"BH": 9, "SB/C1": 4.75}
    rows = _json(capsys, str(EXAMPLE16), "--tiebreaks", "BH,SB", "--edition", "2024")
    assert {r["number"]: r["tiebreaks"] for r in rows}[5] == {"BH": 10, "SB": 7.25}


def test_lichess_sb_option(capsys: pytest.CaptureFixture[str]) -> None:
    rows = _json(capsys, str(EXAMPLE16), "--tiebreaks", "SB", "--lichess-sb")
    assert {r["number"]: r["tiebreaks"]["SB"] for r in rows}[5] == 5.75


def test_record_202_is_the_default_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = EXAMPLE26.read_text().replace("202 BH/C1,BH,SB,DE,WIN,BWG,ARO/C1", "202 PS,TPN")
    path = tmp_path / "event.trf"
    path.write_text(text)
    rows = _json(capsys, str(path))
    assert list(rows[0]["tiebreaks"]) == ["PS", "TPN"]
    assert [r["number"] for r in rows][3:] == [4, 2]  # PS 4.0 vs 3.0


def test_unknown_code_in_record_202_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "event.trf"
    path.write_text(EXAMPLE26.read_text().replace("202 BH/C1,BH,SB,DE", "202 BH/C1,BHX,SB,DE"))
    assert _run(str(path)) == ExitCode.BAD_INPUT
    assert "record 202" in capsys.readouterr().err
    assert _run(str(path), "--tiebreaks", "SB") == 0  # the option overrides the file


def test_exclude_and_round(capsys: pytest.CaptureFixture[str]) -> None:
    rows = _json(capsys, str(EXAMPLE16), "--exclude", "1,3", "--tiebreaks", "WIN")
    assert [r["number"] for r in rows] == [5, 2, 4]
    assert [r["rank"] for r in rows] == [1, 2, 2]
    rows = _json(capsys, str(EXAMPLE16), "--round", "1", "--tiebreaks", "TPN")
    assert [(r["number"], r["points"]) for r in rows] == [(1, 1), (5, 1), (2, 0.5), (4, 0.5), (3, 0)]


def test_text_output_with_crosstable(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(str(EXAMPLE16), "--crosstable") == 0
    out = capsys.readouterr().out
    assert "standings after round 4" in out and "C.07 2026" in out
    assert "Cedar, Carla" in out and "1b0" in out and "5w½" in out
    lines = out.splitlines()
    assert lines[1].split()[:4] == ["Rk", "No", "Name", "Pts"]
    assert lines[2].split()[:2] == ["1", "1"]


def test_an_unknown_code_in_the_option_is_a_usage_error_listing_the_known(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(str(EXAMPLE16), "--tiebreaks", "BH,XYZ") == ExitCode.USAGE
    err = capsys.readouterr().err
    assert "'XYZ'" in err and "BH, FB, SB" in err and "Traceback" not in err


def test_a_bad_file_is_bad_input_and_bad_options_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.trf"
    path.write_text("".join(line for line in EXAMPLE16.read_text().splitlines(True) if "Elm, Eva" not in line))
    assert _run(str(path)) == ExitCode.BAD_INPUT
    assert "opponent 5 is not a player" in capsys.readouterr().err
    assert _run(str(EXAMPLE16), "--round", "7") == ExitCode.USAGE
    assert "--round" in capsys.readouterr().err
    assert _run(str(EXAMPLE16), "--exclude", "x") == ExitCode.USAGE
    assert _run(str(EXAMPLE16), "--exclude", "42") == ExitCode.USAGE
    assert "42" in capsys.readouterr().err


def test_an_unreadable_file_and_undecodable_bytes_have_their_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(str(tmp_path / "missing.trf")) == ExitCode.UNREADABLE
    assert "cannot read" in capsys.readouterr().err
    binary = tmp_path / "binary.trf"
    binary.write_bytes(b"\xff\xfe\x00bad")  # a NUL byte: text in no encoding TRF files use
    assert _run(str(binary)) == ExitCode.BAD_INPUT
