"""`swissbot pair --system burstein|fast` reproduces the corpus through the command line, every case."""

from __future__ import annotations

import pytest

from bot.cli import main
from tests.support.corpus import expected_lines
from tests.support.data import corpus

pytestmark = pytest.mark.slow  # the whole corpus through the command line


@pytest.mark.parametrize(("system", "count"), [("burstein", 101), ("fast", 150)])
def test_the_command_reproduces_the_corpus(system: str, count: int, capsys: pytest.CaptureFixture[str]) -> None:
    folder = corpus() / system
    cases = sorted(folder.glob("*.trf"))
    assert len(cases) == count
    differing = []
    for case in cases:
        code = main(["pair", "--system", system, str(case)])
        out = capsys.readouterr().out.split()
        if code != 0 or out != " ".join(expected_lines(case.with_suffix(".pairs"))).split():
            differing.append(case.stem)
    assert differing == [], f"{system}: {len(differing)} of {count} cases differ"
