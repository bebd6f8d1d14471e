"""One table of exit codes for the whole CLI: every command documents the codes it returns, and returns them."""

from __future__ import annotations

import ast
import importlib
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from bot.cli import COMMANDS, build_parser, main
from bot.cli.exit_codes import MEANINGS, ExitCode, describe
from pairing import trf
from pairing.errors import PairingError
from pairing.model import Colour, Outcome, Player, RoundRecord, Tournament
from tests.support.paths import ROOT

CLI = ROOT / "bot" / "cli"
# What a command returns through `TrfFileError.report()` (bot/cli/trf_files.py).
THROUGH_TRF_FILES = {ExitCode.BAD_INPUT, ExitCode.UNREADABLE}


def command_module(name: str) -> ModuleType:
    return importlib.import_module(f"bot.cli.{name.replace('-', '_')}")


def codes_returned(path: Path) -> set[ExitCode]:
    """The ExitCode members a command module names outside its EXITS table, and those its TRF reading returns."""
    tree = ast.parse(path.read_text())
    found: set[ExitCode] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "EXITS" for t in node.targets):
            node.value = ast.Constant(None)  # the documentation itself does not count
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "ExitCode":
            found.add(ExitCode[node.attr])
        if isinstance(node, ast.Attribute) and node.attr == "report":
            found |= THROUGH_TRF_FILES
    return found


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_command_documents_exactly_the_codes_it_returns(name: str) -> None:
    module = command_module(name)
    documented = set(module.EXITS)
    assert documented <= set(ExitCode)
    path = Path(module.__file__ or "")
    assert codes_returned(path) == documented, name


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_command_help_lists_its_codes(name: str) -> None:
    parser = build_parser(name)
    sub = next(a for a in parser._actions if isinstance(a.choices, dict))
    assert isinstance(sub.choices, dict)
    description = sub.choices[name].description or ""
    assert description.endswith(describe(command_module(name).EXITS)), name


def test_no_command_returns_a_bare_number() -> None:
    for path in sorted(CLI.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Return) and isinstance(node.value, ast.Constant):
                assert not isinstance(node.value.value, int), f"{path.name}:{node.lineno} returns a bare number"


def readme_table() -> Iterator[tuple[int, str, str]]:
    text = (ROOT / "README.md").read_text()
    section = text.split("### Exit codes", 1)[1].split("\n#", 1)[0]
    for line in section.splitlines():
        match = re.fullmatch(r"\| (\d+) \| `(\w+)` \| (.+) \|", line.strip())
        if match:
            yield int(match[1]), match[2], match[3]


def test_the_readme_documents_the_table_as_it_is() -> None:
    assert list(readme_table()) == [(int(code), code.name, MEANINGS[code]) for code in ExitCode]


# --- each command's cases return their documented codes --------------------------------------------------------


def _write(path: Path, rounds: tuple[tuple[RoundRecord, ...], tuple[RoundRecord, ...]], total: int) -> str:
    players = (Player(1, "Ann", 1800, rounds=rounds[0]), Player(2, "Bob", 1700, rounds=rounds[1]))
    path.write_text(trf.dumps(Tournament(players, total)))
    return str(path)


def _met_once(path: Path, total: int = 2) -> str:
    """Two players who met in round 1: round 2 has no valid pairing."""
    win = (RoundRecord.played(2, Colour.WHITE, Outcome.WIN),)
    loss = (RoundRecord.played(1, Colour.BLACK, Outcome.LOSS),)
    return _write(path, (win, loss), total)


def _met_twice(path: Path) -> str:
    """Two players paired against each other in both rounds: a discrepancy ([C1])."""
    a = (RoundRecord.played(2, Colour.WHITE, Outcome.WIN), RoundRecord.played(2, Colour.BLACK, Outcome.DRAW))
    b = (RoundRecord.played(1, Colour.BLACK, Outcome.LOSS), RoundRecord.played(1, Colour.WHITE, Outcome.DRAW))
    return _write(path, (a, b), 2)


def _fresh(path: Path) -> str:
    return _write(path, ((), ()), 2)


def _bad(path: Path) -> str:
    path.write_text("XXR 2\n001 this is not a player line\n")
    return str(path)


def _check(name: str, code: ExitCode, argv: list[str]) -> None:
    assert code in command_module(name).EXITS or code is ExitCode.USAGE
    assert main([name, *argv]) == code


def test_pair_returns_its_codes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _check("pair", ExitCode.OK, [_fresh(tmp_path / "fresh.trf")])
    _check("pair", ExitCode.FAILED, [_met_once(tmp_path / "met.trf")])
    _check("pair", ExitCode.USAGE, ["--system", "nope", _fresh(tmp_path / "fresh.trf")])
    _check("pair", ExitCode.BAD_INPUT, [_bad(tmp_path / "bad.trf")])
    _check("pair", ExitCode.BAD_INPUT, [_met_once(tmp_path / "done.trf", total=1)])  # every round paired
    _check("pair", ExitCode.UNREADABLE, [str(tmp_path / "missing.trf")])

    def give_up(*_: object) -> None:
        raise PairingError("too hard")

    monkeypatch.setattr("pairing.systems.pair", give_up)
    _check("pair", ExitCode.ENGINE_GAVE_UP, [_fresh(tmp_path / "fresh.trf")])


def test_check_returns_its_codes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _check("check", ExitCode.OK, [_met_once(tmp_path / "one.trf")])
    _check("check", ExitCode.FAILED, [_met_twice(tmp_path / "twice.trf")])
    _check("check", ExitCode.BAD_INPUT, [_bad(tmp_path / "bad.trf")])
    _check("check", ExitCode.UNREADABLE, [str(tmp_path / "missing.trf")])

    def missing(*_: object, **__: object) -> None:
        raise ImportError("no engine")

    monkeypatch.setattr("pairing.checker.check_tournament", missing)
    _check("check", ExitCode.ENGINE_MISSING, [_met_once(tmp_path / "one.trf")])


def test_generate_returns_its_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--players", "6", "--rounds", "2", "-o"]
    _check("generate", ExitCode.OK, [*args, str(tmp_path / "g.trf")])
    _check("generate", ExitCode.USAGE, ["--players", "1", "--rounds", "2", "-o", str(tmp_path / "x.trf")])
    _check("generate", ExitCode.UNWRITABLE, [*args, str(tmp_path / "no" / "dir.trf")])


def test_standings_returns_its_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _check("standings", ExitCode.OK, [_met_once(tmp_path / "one.trf")])
    _check("standings", ExitCode.USAGE, ["--tiebreaks", "XYZ", _met_once(tmp_path / "one.trf")])
    _check("standings", ExitCode.BAD_INPUT, [_bad(tmp_path / "bad.trf")])
    _check("standings", ExitCode.UNREADABLE, [str(tmp_path / "missing.trf")])


def test_demo_refuses_too_small_an_event_as_usage(capsys: pytest.CaptureFixture[str]) -> None:
    _check("demo", ExitCode.USAGE, ["--players", "1"])


@pytest.mark.parametrize("name", ["sandbox", "discord-sandbox"])
def test_the_sandboxes_tell_a_bad_port_from_one_they_cannot_listen_on(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _check(name, ExitCode.USAGE, ["--port", "70000"])
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        _check(name, ExitCode.CANNOT_LISTEN, ["--port", str(taken.getsockname()[1])])


@pytest.mark.slow  # the demo's services start before its pages are served
def test_the_demo_names_serve_when_its_port_is_taken(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        argv = ["--serve", str(port), "--players", "2", "--rounds", "1", "--out", str(tmp_path / "out")]
        _check("demo", ExitCode.CANNOT_LISTEN, argv)
    assert (
        capsys.readouterr()
        .err.strip()
        .endswith(
            f"127.0.0.1:{port} is already in use (another program, or "
            "another swissbot, listens there); give --serve another port"
        )
    )
