"""The file commands' shared TRF reader: the tournament, or one message and the exit code to return."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli.exit_codes import ExitCode
from bot.cli.trf_files import TrfFileError, read_trf
from pairing import trf
from pairing.model import Player, Tournament

TWO = Tournament(players=(Player(1, "Ann", 1800), Player(2, "Bob", 1700)), total_rounds=3)


def test_a_good_file_gives_its_tournament(tmp_path: Path) -> None:
    path = tmp_path / "ok.trf"
    path.write_text(trf.dumps(TWO))
    tournament = read_trf(str(path), require_rounds=True)
    assert [p.name for p in tournament.players] == ["Ann", "Bob"] and tournament.total_rounds == 3


@pytest.mark.parametrize("kind", ["missing", "directory"])
def test_an_unreadable_file_is_exit_5(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "x.trf"
    if kind == "directory":
        path.mkdir()
    with pytest.raises(TrfFileError) as caught:
        read_trf(str(path), require_rounds=False)
    assert caught.value.exit_code == ExitCode.UNREADABLE
    assert str(caught.value).startswith(f"{path}: cannot read the file: ")


def test_bad_input_is_exit_3_naming_the_file_and_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.trf"
    text = trf.dumps(TWO)
    path.write_text(text.replace("001    2", "001    x"))
    with pytest.raises(TrfFileError) as caught:
        read_trf(str(path), require_rounds=False)
    line = next(i for i, x in enumerate(text.splitlines(), start=1) if x.startswith("001    2"))
    assert caught.value.exit_code == ExitCode.BAD_INPUT and str(caught.value).startswith(f"{path}: line {line}:")


def test_the_number_of_rounds_is_required_only_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "norounds.trf"
    path.write_text("".join(x for x in trf.dumps(TWO).splitlines(True) if not x.startswith("XXR")))
    assert read_trf(str(path), require_rounds=False).total_rounds == 1
    with pytest.raises(TrfFileError) as caught:
        read_trf(str(path), require_rounds=True)
    assert caught.value.exit_code == ExitCode.BAD_INPUT and "number of rounds is missing" in str(caught.value)


def test_report_prints_one_line_and_returns_the_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert TrfFileError("f.trf: line 3: bad", ExitCode.BAD_INPUT).report("swissbot pair: ") == ExitCode.BAD_INPUT
    assert capsys.readouterr().err == "swissbot pair: f.trf: line 3: bad\n"


def test_a_latin1_file_reads_like_its_utf8_twin(tmp_path: Path) -> None:
    players = (Player(1, "Müller, Jürgen", 1800), Player(2, "Østergård, Åse", 1700))
    accented = Tournament(players=players, total_rounds=3)
    utf8, latin1 = tmp_path / "utf8.trf", tmp_path / "latin1.trf"
    utf8.write_bytes(trf.dump_bytes(accented, "utf-8"))
    latin1.write_bytes(trf.dump_bytes(accented, "latin-1"))
    assert utf8.read_bytes() != latin1.read_bytes()
    assert read_trf(str(latin1), require_rounds=True) == read_trf(str(utf8), require_rounds=True)


def test_a_byte_no_encoding_reads_is_exit_3_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "x.trf"
    path.write_bytes(trf.dumps(TWO).encode().replace(b"Bob", b"B\x81b"))
    with pytest.raises(TrfFileError) as caught:
        read_trf(str(path), require_rounds=False)
    line = next(i for i, x in enumerate(trf.dumps(TWO).splitlines(), start=1) if "Bob" in x)
    assert caught.value.exit_code == ExitCode.BAD_INPUT and str(caught.value).startswith(f"{path}: line {line}:")
