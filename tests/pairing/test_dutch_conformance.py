"""The Dutch engine against the reference corpus, the worked FIDE examples, and `swissbot pair`."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from bot.cli import pair as cli_pair
from bot.cli.exit_codes import ExitCode
from pairing import trf
from pairing.errors import NoValidPairing
from pairing.systems.dutch import pair
from tests.support.corpus import expected_lines, pair_lines
from tests.support.data import corpus
from tests.support.paths import SHARED

CORPUS = corpus() / "dutch"
EXAMPLES = SHARED / "reference" / "fide-examples"

# Identical cases (pairs, colours, board order, bye) reached so far; it may only go up.
RATCHET = 422


def _expected(path: Path) -> list[str]:
    return expected_lines(path)


def _pair_lines(path: Path) -> list[str]:
    return pair_lines(pair, path)


@pytest.mark.slow
def test_corpus_conformance(capsys: pytest.CaptureFixture[str]) -> None:
    cases = sorted(CORPUS.glob("*.trf"))
    assert len(cases) == 422
    differing = [case.stem for case in cases if _pair_lines(case) != _expected(case.with_suffix(".pairs"))]
    identical = len(cases) - len(differing)
    summary = f"dutch conformance: {identical}/{len(cases)} identical ({100 * identical / len(cases):.1f} %)"
    with capsys.disabled():
        print(f"\n{summary}; differing: {' '.join(differing) or 'none'}")
    assert identical >= RATCHET, f"{summary}, below the ratchet {RATCHET}; differing: {differing}"


@pytest.mark.parametrize("name", ["r1", "r2", "r3", "r4", "dutch_2025_C5", "dutch_2025_C9", "baku10b"])
def test_worked_examples(name: str) -> None:
    assert _pair_lines(EXAMPLES / f"{name}.trf") == _expected(EXAMPLES / f"{name}.out")


def test_baku_from_system_code_uses_the_fide_group_size() -> None:
    # Record 192 *_BAKU without 250/XXA: GA = 2 * ceil(N / 4) = 6 of 10 players (the FIDE text), so round 1
    # pairs 1-4, 2-5, 3-6 and 7-9, 8-10 like the explicit-record example baku10b.
    assert _pair_lines(EXAMPLES / "baku10.trf") == _expected(EXAMPLES / "baku10b.out")


def _trf(*players: str, rounds: int = 3) -> str:
    return "012 Test\n" + "".join(p + "\n" for p in players) + f"XXR {rounds}\nXXC white1\n"


def _player(number: int, points: str, *games: str) -> str:
    head = f"001 {number:4d}      {f'Player {number}':<33} 2000".ljust(80) + f"{points:>4} {number:4d}"
    return head + "".join(f"  {g}" for g in games)


FOUR_ROUND_ONE = _trf(*(_player(n, "0.0") for n in range(1, 5)))


def test_round_one_pairs_top_half_against_bottom_half() -> None:
    assert pair(trf.parse(FOUR_ROUND_ONE)).lines() == ["2", "1 3", "4 2"]


def test_forbidden_pair_moves_to_the_next_transposition() -> None:
    # S1 = {1, 2}, S2 = {3, 4}; 1-3 is forbidden (XXP), so the next transposition 4-3 gives 1-4 and 2-3.
    # Colours (rule 5): 1 is odd and gets the initial White; 2 is even and gets Black.
    text = FOUR_ROUND_ONE + "XXP 1 3\n"
    assert pair(trf.parse(text)).lines() == ["2", "1 4", "3 2"]


def test_no_valid_pairing_is_reported() -> None:
    # Two players who already met cannot be paired again.
    text = _trf(_player(1, "1.0", "   2 w 1"), _player(2, "0.0", "   1 b 0"))
    with pytest.raises(NoValidPairing):
        pair(trf.parse(text))


def _run(tmp_path: Path, content: str | bytes | None, *extra: str) -> int:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    cli_pair.register(sub)
    path = tmp_path / "event.trf"
    if isinstance(content, str):
        path.write_text(content)
    elif isinstance(content, bytes):
        path.write_bytes(content)
    args = parser.parse_args(["pair", *extra, str(path)])
    code: int = args.handler(args)
    return code


def test_cli_pairs_and_prints(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(tmp_path, FOUR_ROUND_ONE, "--system", "dutch") == ExitCode.OK
    assert capsys.readouterr().out == "2\n1 3\n4 2\n"


def test_cli_no_valid_pairing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _trf(_player(1, "1.0", "   2 w 1"), _player(2, "0.0", "   1 b 0"))
    assert _run(tmp_path, text) == ExitCode.FAILED
    assert "no valid pairing" in capsys.readouterr().err


def test_cli_bad_input_names_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = FOUR_ROUND_ONE.replace("001    3      Player 3", "001    x      Player 3")
    assert _run(tmp_path, text) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err
    assert "line 4" in err and "Traceback" not in err


def test_cli_unknown_system(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(tmp_path, FOUR_ROUND_ONE, "--system", "monrad") == ExitCode.USAGE
    assert "unknown system" in capsys.readouterr().err


def test_cli_unreadable_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(tmp_path, None) == ExitCode.UNREADABLE
    assert "cannot read" in capsys.readouterr().err
    # a NUL byte: text in no encoding TRF files use
    assert _run(tmp_path, b"012 \xff\xfe\x00 broken\n") == ExitCode.BAD_INPUT
    assert "line 1:" in capsys.readouterr().err
