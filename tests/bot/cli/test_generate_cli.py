"""`swissbot generate`: a whole tournament paired by the engine, written as TRF that `check` and `pair` accept."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bot.cli import main
from bot.cli.exit_codes import ExitCode
from pairing import checker, trf


def generate(tmp_path: Path, *args: str) -> Path:
    out = tmp_path / "event.trf"
    assert main(["generate", *args, "-o", str(out)]) == 0
    return out


@pytest.mark.parametrize(
    "args",
    [
        ["--players", "15", "--rounds", "5", "--seed", "4"],
        ["--players", "16", "--rounds", "6", "--seed", "5", "--points", "3/1/0"],
        ["--players", "13", "--rounds", "5", "--seed", "6", "--points", "3/1/0", "--pab", "1"],
        ["--players", "24", "--rounds", "5", "--seed", "7", "--baku"],
    ],
)
def test_a_generated_event_passes_the_checker(tmp_path: Path, args: list[str]) -> None:
    path = generate(tmp_path, *args)
    tournament = trf.read(str(path))
    assert tournament.rounds_completed == int(args[args.index("--rounds") + 1])
    assert checker.check_tournament(tournament, "dutch") == []
    assert main(["check", str(path)]) == 0


def test_the_same_arguments_give_the_same_file(tmp_path: Path) -> None:
    first = generate(tmp_path, "--players", "11", "--rounds", "4", "--seed", "9").read_bytes()
    again = generate(tmp_path, "--players", "11", "--rounds", "4", "--seed", "9").read_bytes()
    other = generate(tmp_path, "--players", "11", "--rounds", "4", "--seed", "10").read_bytes()
    assert first == again != other


def test_3_1_0_points_write_record_162_at_the_format_columns(tmp_path: Path) -> None:
    path = generate(tmp_path, "--players", "10", "--rounds", "3", "--points", "3/1/0")
    (line,) = [x for x in path.read_text().splitlines() if x.startswith("162")]
    assert line[5] == "W" and line[14] == "D"
    assert line[6:10] == " 3.0" and line[15:19] == " 1.0"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "1", "--rounds", "3"], "at least two players"),
        (["--players", "8", "--rounds", "3", "--points", "1/2/0"], "win >= draw >= loss"),
        (["--players", "8", "--rounds", "3", "--points", "3/1/0", "--baku"], "Baku"),
    ],
)
def test_bad_arguments_are_one_sentence_and_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert main(["generate", *args, "-o", str(tmp_path / "x.trf")]) == ExitCode.USAGE
    err = capsys.readouterr().err.strip()
    assert err.startswith("swissbot generate: ") and message in err and "\n" not in err
    assert not (tmp_path / "x.trf").exists()


def test_a_latin1_twin_pairs_like_the_utf8_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    generated = trf.read(str(generate(tmp_path, "--players", "9", "--rounds", "4", "--seed", "2")))
    renamed = [replace(p, name=p.name.replace("Player", "Müller")) for p in generated.players]
    event = replace(generated, players=tuple(renamed)).truncated(3)
    outputs = []
    for encoding in ("utf-8", "latin-1"):
        path = tmp_path / f"{encoding}.trf"
        path.write_bytes(trf.dump_bytes(event, encoding))
        assert main(["pair", str(path)]) == 0
        outputs.append(capsys.readouterr().out)
    assert (tmp_path / "utf-8.trf").read_bytes() != (tmp_path / "latin-1.trf").read_bytes()
    assert outputs[0] == outputs[1] and outputs[0].strip()


@pytest.mark.parametrize("system", ["dutch", "burstein", "dubov", "fast", "auto"])
def test_check_finds_nothing_in_events_generate_made_with_each_system(tmp_path: Path, system: str) -> None:
    path = generate(tmp_path, "--system", system, "--players", "23", "--rounds", "6", "--seed", "8")
    assert trf.read(str(path)).rounds_completed == 6
    assert main(["check", "--system", system, str(path)]) == 0
