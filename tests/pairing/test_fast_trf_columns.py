"""The compact TRF reader (`pairing.systems.fast_trf`) against the model reader: the same columns, the same pairing."""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction

import pytest

from pairing import generator, trf
from pairing.errors import NoValidPairing
from pairing.model import Colour, Pairing, Scoring, Tournament
from pairing.systems import fast, fast_trf


def _states(seed: int) -> list[Tournament]:
    """Every round's state of a generated event paired by the Fast engine, with byes, forfeits and late entries."""
    rng = random.Random(seed)
    states: list[Tournament] = []

    def pair(state: Tournament) -> Pairing:
        states.append(state)
        return fast.pair(state)

    scoring = Scoring(win=Fraction(3), draw=Fraction(1)) if seed % 4 == 3 else Scoring()
    generator.generate(
        seed,
        rng.randint(7, 40),
        rng.randint(3, 8),
        pair=pair,
        scoring=scoring,
        forfeit_rate=0.08,
        half_bye_rate=0.05,
        absence_rate=0.03,
        withdraw_rate=0.03,
        late_entry_rate=0.08,
    )
    return [replace(s, initial_colour=s.initial_colour or Colour.WHITE) for s in states]


def _model_pairing(text: str) -> list[str]:
    try:
        return fast.pair(trf.parse(text)).lines()
    except NoValidPairing:
        return ["no valid pairing"]


def _compact_pairing(read: fast_trf.FastFile) -> list[str]:
    try:
        return fast.pairing_of(read.event, fast.pair_event(read.event)).lines()
    except NoValidPairing:
        return ["no valid pairing"]


def _assert_same(text: str, data: bytes | None = None) -> None:
    """The file (`text`, as `data` when given in another encoding) reads the same both ways."""
    read = fast_trf.read_event(text.encode() if data is None else data)
    assert read is not None, "a plain file goes the compact way"
    model = trf.parse(trf.decode(data) if data is not None else text)
    expected = fast.FastEvent.from_tournament(model)
    got = read.event
    assert list(got.numbers) == list(expected.numbers)
    assert got.opponents == expected.opponents
    assert got.results == expected.results
    assert got.colours == expected.colours
    assert (got.scoring, got.initial_colour) == (expected.scoring, expected.initial_colour)
    assert (read.total_rounds, read.round_to_pair) == (model.total_rounds, model.round_to_pair)
    assert _compact_pairing(read) == _model_pairing(text)


@pytest.mark.parametrize("seed", range(12))
def test_compact_reader_gives_the_model_readers_columns_and_pairing(seed: int) -> None:
    for state in _states(seed):
        _assert_same(trf.dumps(state))


@pytest.mark.parametrize("seed", range(12, 16))
def test_the_reference_form_with_crlf_line_ends_reads_the_same(seed: int) -> None:
    for state in _states(seed):
        _assert_same(trf.dumps_bbp(state).replace("\n", "\r\n"))


def test_wide_ids_read_the_same() -> None:
    state = _states(20)[-1]
    lines = [line for line in trf.dumps(state).splitlines() if not line.startswith("XXR")]
    header = [line for line in lines if not line.startswith("001")]
    players = [trf.format_player(p, state.scoring, 7) for p in state.players]
    text = "\n".join(["XXW 7", *header, *players, f"XXR {state.total_rounds}"]) + "\n"
    assert trf.parse(text).players == trf.parse(trf.dumps(state)).players
    _assert_same(text)


def test_compact_result_codes_match_the_model() -> None:
    """Every result code, the unrated ones and the TRF26 byes included, reads as the model reads it."""
    text = (
        "XXR 4\nXXC white1\n"
        + "\n".join(
            f"001 {number:4d}      {'Player':<33} 1500".ljust(80) + f" 0.0 {number:4d}{games}"
            for number, games in (
                (1, "     2 w 1     3 b W     0   H     0   Z"),
                (2, "     1 b 0     4 w L     0   F     0   U"),
                (3, "     4 w =     1 w L     4 w +     0   -"),
                (4, "     3 b =     2 b W     3 - -     0    "),
            )
        )
        + "\n"
    )
    _assert_same(text)


@pytest.mark.parametrize(
    ("first", "why"),
    [
        ("     2 w 1", "a well-formed file"),
        ("     3 w 1", "2 does not list 3... and 3 lists nobody"),
        ("     2 b 1", "both Black"),
        ("     1 w 1", "paired with himself"),
        ("     2 x 1", "an unknown colour"),
        ("     2 w Q", "an unknown code"),
        ("     2   1", "a game without colour"),
        ("    2  w 1", "a space after the opponent's digits"),
        ("     0 w H", "a bye with a colour"),
    ],
)
def test_anything_unusual_goes_to_the_model_reader(first: str, why: str) -> None:
    """The compact reader takes the plain file and leaves every oddity to the model reader (which explains it)."""
    text = (
        "XXR 3\nXXC white1\n"
        + f"001    1      {'One':<33} 1500".ljust(80)
        + f" 1.0    1{first}\n"
        + f"001    2      {'Two':<33} 1500".ljust(80)
        + " 0.0    2     1 b 0\n"
        + f"001    3      {'Three':<33} 1500".ljust(80)
        + " 0.0    3     0   U\n"
    )
    read = fast_trf.read_event(text.encode())
    assert (read is not None) == (why == "a well-formed file")
    if read is not None:
        _assert_same(text)


@pytest.mark.parametrize(
    "extra",
    ["240 H   2    1", "XXP 1 2", "XXA    1 1.0", "250    1.0   1   1    1    2", "310 team"],
)
def test_records_the_compact_reader_does_not_take(extra: str) -> None:
    text = (
        "XXR 3\nXXC white1\n"
        + f"001    1      {'One':<33} 1500".ljust(80)
        + " 1.0    1     2 w 1\n"
        + f"001    2      {'Two':<33} 1500".ljust(80)
        + " 0.0    2     1 b 0\n"
        + extra
        + "\n"
    )
    assert fast_trf.read_event(text.encode()) is None


def test_a_file_without_initial_colour_or_with_gaps_in_the_ranks_goes_to_the_model() -> None:
    state = _states(3)[-1]
    text = trf.dumps(state)
    assert fast_trf.read_event(text.encode()) is not None
    assert fast_trf.read_event("\n".join(line for line in text.splitlines() if line[:3] != "XXC").encode()) is None
    gap = replace(state, players=state.players[:-1])
    gapped = trf.dumps(gap)
    last = state.players[-1].number
    if not any(p.record(r).opponent == last for p in gap.players for r in range(1, gap.rounds_completed + 1)):
        assert fast_trf.read_event(gapped.replace(f"001 {1:4d}", f"001 {last + 5:4d}", 1).encode()) is None


def _shuffled_names(seed: int, names: list[str]) -> str:
    """A generated event's file with the players' names replaced (same width), records in reverse order."""
    lines = trf.dumps(_states(seed)[-1]).splitlines()
    records = [line for line in lines if line.startswith("001")]
    others = [line for line in lines if not line.startswith("001")]
    renamed = [line[:14] + f"{names[k % len(names)]:<33}"[:33] + line[47:] for k, line in enumerate(reversed(records))]
    return "\n".join([*others, *renamed]) + "\n"


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "windows-1252"])
def test_names_outside_ascii_read_the_same_in_every_encoding(encoding: str) -> None:
    """A name of accented letters is one character in the model, two bytes in UTF-8: the columns after it must not
    move. The records in reverse order are sorted by their numbers."""
    text = _shuffled_names(5, ["Müller, Jürgen", "Łukasz, Ąę" if encoding != "windows-1252" else "Škoda, Žan", "Ana"])
    _assert_same(text, text.encode(encoding))


def test_line_ends_and_a_short_last_line_read_the_same() -> None:
    """CR alone ends a line too; a last record without a line end and shorter than the rest is blanked past its end."""
    text = trf.dumps(_states(6)[-1])
    lines = [line for line in text.splitlines() if line]
    # Last, a record whose last round is a bye, written without it (a round not paired is blank).
    lines.sort(key=lambda line: (line.startswith("001"), line.rstrip().endswith(("0000 - H", "0000 - Z"))))
    assert lines[-1].rstrip().endswith(("0000 - H", "0000 - Z"))
    lines[-1] = lines[-1].rstrip()[:-10]
    _assert_same("\r".join(lines))


def test_a_nul_byte_goes_to_the_model_reader() -> None:
    """What the model reader refuses to decode (a NUL byte: UTF-16?) is left to it, which explains it."""
    text = trf.dumps(_states(6)[-1])
    assert fast_trf.read_event(text.encode()) is not None
    assert fast_trf.read_event(text.replace("XXR", "XX\0R", 1).encode()) is None
