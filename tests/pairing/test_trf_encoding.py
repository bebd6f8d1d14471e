"""TRF files in UTF-8, Windows-1252 and Latin-1: decoding their bytes, and writing them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairing import trf
from pairing.model import Player, Tournament
from pairing.systems.dutch import pair
from tests.support.data import corpus

CORPUS = corpus() / "dutch"
# Three 3-1-0 cases of the corpus (record 162), of 12 and 20 players, pairing round 3 or 4.
TWIN_CASES = ["0044.trf", "0096.trf", "0152.trf"]
LATIN_1_NAMES = [
    "Müller, Jürgen",
    "Østergård, Åse",
    "Pérez Núñez, José",
    "Françoise, Élodie",
    "Groß, Stéphane",
    "Ólafsdóttir, Þóra",
    "Çelik, Ümit",
    "Ærø, Søren",
    "Löwe, Zoë",
    "Doñana, Iñaki",
]
WINDOWS_1252_NAMES = ["Žižek, Slavoj", "€uro, Bänk", "Šebek, Œdipe", "Ÿvain, Mañana"]


def _with_names(text: str, names: list[str]) -> str:
    """The TRF text with each player's name (columns 15-47) replaced, in turn, by one of `names`."""
    lines = re.split(r"(\r\n|\r|\n)", text)
    count = 0
    for index, line in enumerate(lines):
        if line.startswith("001"):
            name = names[count % len(names)]
            lines[index] = f"{line[:14]}{name:<33}{line[47:]}"
            count += 1
    assert count
    return "".join(lines)


def _names(t: Tournament) -> list[str]:
    return [p.name for p in t.players]


def test_the_names_are_latin_1_and_not_ascii() -> None:
    for name in LATIN_1_NAMES:
        assert name.encode("latin-1") != name.encode("utf-8")
    for name in WINDOWS_1252_NAMES:
        with pytest.raises(UnicodeEncodeError):
            name.encode("latin-1")
        name.encode("windows-1252")


@pytest.mark.parametrize("case", TWIN_CASES)
def test_a_latin_1_file_reads_and_pairs_like_its_utf_8_twin(case: str) -> None:
    original = (CORPUS / case).read_text(encoding="utf-8")
    text = _with_names(original, LATIN_1_NAMES)
    latin_1, utf_8 = text.encode("latin-1"), text.encode("utf-8")
    assert latin_1 != utf_8
    with pytest.raises(UnicodeDecodeError):
        latin_1.decode("utf-8")

    assert trf.decode(latin_1) == text == trf.decode(utf_8)
    from_latin_1, from_utf_8 = trf.parse(trf.decode(latin_1)), trf.parse(trf.decode(utf_8))
    assert from_latin_1 == from_utf_8
    assert set(_names(from_latin_1)) <= set(LATIN_1_NAMES)
    assert "Müller, Jürgen" in _names(from_latin_1)

    pairing = pair(from_latin_1)
    assert pairing == pair(from_utf_8)
    assert pairing == pair(trf.parse(original))  # the names change nothing in the pairing


def test_a_utf_8_bom_is_dropped() -> None:
    text = _with_names((CORPUS / TWIN_CASES[0]).read_text(encoding="utf-8"), LATIN_1_NAMES)
    assert trf.decode(b"\xef\xbb\xbf" + text.encode("utf-8")) == text


def test_a_windows_1252_file_reads_its_euro_and_caron_names() -> None:
    text = _with_names((CORPUS / TWIN_CASES[0]).read_text(encoding="utf-8"), WINDOWS_1252_NAMES)
    data = text.encode("windows-1252")
    assert b"\x80" in data and b"\x9e" in data  # € and ž: bytes Latin-1 has as control codes only
    assert trf.decode(data) == text
    t = trf.parse(trf.decode(data))
    assert set(_names(t)) == set(WINDOWS_1252_NAMES)
    assert t == trf.parse(text)


def test_a_byte_no_encoding_reads_is_an_error_naming_the_line() -> None:
    text = _with_names((CORPUS / TWIN_CASES[0]).read_text(encoding="utf-8"), LATIN_1_NAMES)
    lines = text.split("\n")
    number = next(i for i, line in enumerate(lines, start=1) if line.startswith("001    3"))
    data = "\n".join(lines).encode("latin-1")
    start = data.index(b"001    3")
    broken = data[: start + 20] + b"\x81" + data[start + 21 :]
    with pytest.raises(trf.TrfError, match=rf"line {number}: column 21: byte 0x81 is text in neither") as caught:
        trf.decode(broken)
    assert caught.value.line == number


@pytest.mark.parametrize("ending", [b"\n", b"\r", b"\r\n"])
def test_the_line_of_a_bad_byte_counts_every_line_end(ending: bytes) -> None:
    data = ending.join([b"012 Caf\xe9", b"", b"XXR 3", b"001    1      Bad \x9d name"])
    with pytest.raises(trf.TrfError, match=r"^line 4: column 19: byte 0x9D"):
        trf.decode(data)


def test_invalid_utf_8_after_a_bom_is_an_error() -> None:
    with pytest.raises(trf.TrfError, match=r"line 2: column 6: byte 0xFC is not UTF-8, as the file's BOM says"):
        trf.decode(b"\xef\xbb\xbf012 Cup\n012 M\xfcller\n")


@pytest.mark.parametrize("data", ["012 Cup\n".encode("utf-16"), b"012 Cup\n012 \x00\n"])
def test_utf_16_and_nul_bytes_are_refused(data: bytes) -> None:
    with pytest.raises(trf.TrfError, match="UTF-16"):
        trf.decode(data)


def test_read_takes_a_latin_1_file(tmp_path: Path) -> None:
    text = _with_names((CORPUS / TWIN_CASES[0]).read_text(encoding="utf-8"), LATIN_1_NAMES)
    path = tmp_path / "latin1.trf"
    path.write_bytes(text.encode("latin-1"))
    assert trf.read(str(path)) == trf.parse(text)


def _tournament(names: list[str]) -> Tournament:
    text = _with_names((CORPUS / TWIN_CASES[0]).read_text(encoding="utf-8"), names)
    return trf.parse(text)


def test_the_writer_writes_utf_8_by_default_and_latin_1_on_request() -> None:
    t = _tournament(LATIN_1_NAMES)
    assert trf.dump_bytes(t) == trf.dumps(t).encode("utf-8")
    latin_1 = trf.dump_bytes(t, "latin-1")
    assert b"M\xfcller, J\xfcrgen" in latin_1
    assert trf.parse(trf.decode(latin_1)) == trf.parse(trf.dumps(t))
    windows = trf.dump_bytes(_tournament(WINDOWS_1252_NAMES), "windows-1252")
    assert b"\x8ei\x9eek" in windows


def test_a_name_latin_1_cannot_write_is_an_error_naming_the_player() -> None:
    t = _tournament(["Dvořák, Antonín"])
    text = trf.dumps(t)
    number = next(i for i, line in enumerate(text.split("\n"), start=1) if line.startswith("001"))
    with pytest.raises(trf.TrfError, match=rf"^line {number}: player 1: 'ř' \(U\+0159\) cannot be written in Latin-1"):
        trf.dump_bytes(t, "latin-1")
    assert trf.dump_bytes(t).decode("utf-8") == text


def test_a_header_latin_1_cannot_write_names_the_record() -> None:
    with pytest.raises(trf.TrfError, match=r"^line 2: record 022: '€'"):
        trf.encode("012 Cup\r\n022 €-City\r\n", "latin-1")


def test_an_unknown_encoding_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown TRF encoding 'cp437'"):
        trf.encode("012 Cup\n", "cp437")  # type: ignore[arg-type]


# Latin-1 letters only: no byte of 0x80-0xBF, so no run of them is also valid UTF-8.
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" + "".join(
    chr(c)
    for c in range(0xC0, 0x100)
    if c not in (0xD7, 0xF7)  # not the multiplication and division signs
)
names = st.text(alphabet=LETTERS + " ,-'", min_size=1, max_size=33).map(str.strip).filter(bool)


@settings(max_examples=100, deadline=None)
@given(st.lists(names, min_size=2, max_size=8), st.sampled_from(trf.ENCODINGS))
def test_any_latin_1_name_survives_writing_and_reading(chosen: list[str], encoding: trf.Encoding) -> None:
    players = tuple(Player(number=i, name=name, rating=2000 - i) for i, name in enumerate(chosen, start=1))
    t = Tournament(players=players, total_rounds=3)
    back = trf.parse(trf.decode(trf.dump_bytes(t, encoding)))
    assert _names(back) == chosen
