"""Read a TRF file straight into the Fast engine's columns (`FastEvent`), without a `Tournament` model.

`swissbot pair --system fast` on 100,000 players x 30 rounds spent most of its time and memory building one
`RoundRecord` per player-round. This reader copies the player records (001), padded to one width, into one buffer,
letting each line go once copied, and takes each round's opponent, colour and result characters as strided slices
of it; codes are mapped with `translate`, opponent numbers and the checks are computed for all players at once in
32-bit lanes of one integer, so no Python object is made per player-round.

It reads the plain files only and returns None for anything else, which the caller then reads with
`pairing.trf.parse` (so every error message and every rarer record keeps one home there): records other than 001,
comments, XXR/142, XXC/152, the scoring records (162, XXS, BB*), XXW and inert header lines; a missing initial
colour (XXC/152; the model infers it); starting ranks other than 1..n; any character the model reader would reject
or read in an unusual way (an opponent field with a space between digits, an unknown code or colour); an
asymmetric round, a self-pairing or two PABs in a round. On the files it accepts it gives the event, the number of
rounds and the round to pair that `FastEvent.from_tournament(trf.parse(text))` and the model give.
"""

from __future__ import annotations

import mmap
import re
import sys
from array import array
from dataclasses import dataclass
from itertools import pairwise
from operator import eq, ne

from pairing import trf
from pairing.model import Colour
from pairing.systems import fast

# Header records this reader handles itself (through `trf`'s own header parser); any other engine record or a
# 240/250/260/XXA/XXP/team record sends the file to the model reader.
_HEADER_TAGS = frozenset({"XXR", "142", "XXC", "152", "162", "XXS", "XXW", "BBW", "BBD", "BBL", "BBZ", "BBF", "BBU"})
_OTHER_ENGINE_TAGS = trf.ENGINE_TAGS - _HEADER_TAGS
_TEAM_TAGS = frozenset({"310", "013"})
_TAG = re.compile(r"[0-9A-Z]{3}")
_NUMBER = re.compile(r"\s*-?\d+(?:\.\d*)?\s*")
_INVALID = 255


def _table(pairs: dict[int, int], default: int = _INVALID) -> bytes:
    return bytes(pairs.get(i, default) for i in range(256))


# A result key is the upper-cased code character, plus 128 when the opponent field is not zero.
_WITH_OPPONENT = 128
_RESULTS = _table(
    {
        ord(" "): fast.NOT_PAIRED,
        ord("H"): fast.HALF_BYE,
        ord("F"): fast.FULL_BYE,
        ord("U"): fast.PAB,
        ord("+"): fast.PAB,
        ord("Z"): fast.ZERO_BYE,
        ord("-"): fast.ZERO_BYE,
        _WITH_OPPONENT + ord("1"): fast.WIN,
        _WITH_OPPONENT + ord("W"): fast.WIN,
        _WITH_OPPONENT + ord("="): fast.DRAW,
        _WITH_OPPONENT + ord("D"): fast.DRAW,
        _WITH_OPPONENT + ord("0"): fast.LOSS,
        _WITH_OPPONENT + ord("L"): fast.LOSS,
        _WITH_OPPONENT + ord("+"): fast.FORFEIT_WIN,
        _WITH_OPPONENT + ord("-"): fast.FORFEIT_LOSS,
    }
)
_ZERO_TO_FLAG = _table({0: 0}, _WITH_OPPONENT)  # an opponent byte (0 or not) to the flag of the result key
_COLOUR_CLASS = _table({ord(" "): 0, ord("-"): 0, ord("w"): 1, ord("b"): 2})
# A side key is the result code + 16 x the colour class; the side is WHITE/BLACK for a game over the board, 3 for a
# forfeit (its colour is free), 0 for a record without an opponent, _INVALID where the model reader raises.
_SIDES = _table(
    {code + 16 * cls: 0 for code in (0, 6, 7, 8, 9) for cls in (0,)}
    | {code + 16 * cls: cls or _INVALID for code in (fast.WIN, fast.DRAW, fast.LOSS) for cls in (0, 1, 2)}
    | {code + 16 * cls: 3 for code in (fast.FORFEIT_WIN, fast.FORFEIT_LOSS) for cls in (0, 1, 2)}
)
_PARTNER_SIDE = _table({0: 0, fast.WHITE: fast.BLACK, fast.BLACK: fast.WHITE, 3: 3})
_GAME_COLOURS = _table({fast.WHITE: fast.WHITE, fast.BLACK: fast.BLACK}, fast.NO_COLOUR)
_IS_GAME = _table({fast.WHITE: 1, fast.BLACK: 1}, 0)
_DIGIT_OR_SPACE = _table({ord(" "): 0} | {ord(str(d)): 1 for d in range(10)})
_IS_DIGIT = _table({ord(str(d)): 1 for d in range(10)}, 0)
_IS_SPACE = _table({ord(" "): 1}, 0)
_DIGIT_VALUE = _table({ord(" "): 0} | {ord(str(d)): d for d in range(10)})
_IS_NONZERO = _table({0: 0}, 1)
_TIMES_16 = _table({c: 16 * c for c in range(3)})


@dataclass(frozen=True)
class FastFile:
    """A TRF file read into columns: the event, its number of rounds, and the round to pair next."""

    event: fast.FastEvent
    total_rounds: int
    round_to_pair: int


def read_event(lines: list[str]) -> FastFile | None:
    """The event of a file's lines (`split_lines`) in columns, or None when it is not a plain file this reader takes
    (see the module). Empties `lines` as it goes, so that the file is not held twice at its peak."""
    builder = trf._Builder()
    records: list[str] = []
    for lineno, line in enumerate(lines, start=1):
        tag = line[:3]
        if tag == "001":
            records.append(line)
        elif tag == "###" or not line.strip():
            continue
        elif tag in _HEADER_TAGS:
            if records and tag == "XXW":
                return None
            try:
                trf._parse_header(tag, line, lineno, builder)
            except trf.TrfError:
                return None
        elif tag in _OTHER_ENGINE_TAGS or tag in _TEAM_TAGS or not _inert_header(tag, line):
            return None
    lines.clear()
    if not records or builder.total_rounds is None or builder.initial_colour is None:
        return None
    n = len(records)
    columns = _columns(records, builder.id_width)
    if columns is None:
        return None
    opponents, results, colours, completed = columns
    event = fast.FastEvent(
        numbers=range(1, n + 1),
        opponents=opponents,
        results=results,
        colours=colours,
        scoring=builder.scoring,
        initial_colour=builder.initial_colour or Colour.WHITE,
    )
    return FastFile(event, builder.total_rounds, completed + 1)


def split_lines(text: str) -> list[str]:
    """The file's lines as the model reader splits them (at CR LF, CR or LF only)."""
    lines = text.splitlines()
    breaks = text.count("\n") + text.count("\r") - text.count("\r\n")
    if len(lines) == breaks + (not text.endswith(("\n", "\r"))) - (not text):
        return lines  # no other character `splitlines` breaks at (\v, \f, \x1c-\x1e, \x85, \u2028, \u2029)
    return re.split(r"\r\n|\r|\n", text)


def _inert_header(tag: str, line: str) -> bool:
    """Whether the model reader keeps the line as a header record."""
    return _TAG.fullmatch(tag) is not None and (len(line) == 3 or line[3] == " ")


def _columns(records: list[str], width: int) -> tuple[list[array[int]], list[bytes], list[bytes], int] | None:
    """Opponents, results and colours, round by round, of the 001 records (emptied); with the last round paired."""
    shift = width - 4
    first = 89 + shift  # the 0-based offset of the first round's block
    step = 6 + width
    lines = [line.rstrip() for line in records]
    records.clear()
    if min(map(len, lines)) < 4 + width:
        return None
    numbers = _numbers(lines, width)
    if numbers is None:
        return None
    n = len(lines)
    order = sorted(range(n), key=numbers.__getitem__)
    if any(map(ne, (numbers[i] for i in order), range(1, n + 1))):
        return None  # starting ranks that are not 1..n (gaps or repeats): the model reader's business
    if not _header_fields_read(lines, shift):
        return None
    rounds = max((max(0, len(line) - first) + step - 1) // step for line in lines)
    size = first + rounds * step
    # The records one after the other, `size` bytes each (Latin-1, any other character as "?", so that a character
    # is one byte); each line is let go once copied, so the file is not held twice. The rounds' characters are
    # then strided slices of this buffer.
    joined = mmap.mmap(-1, n * size)
    for position, i in enumerate(order):
        line, lines[i] = lines[i], ""
        joined[position * size : (position + 1) * size] = line[:size].ljust(size).encode("latin-1", "replace")
    del line, lines
    try:
        return _rounds(joined, n, size, first, step, rounds, width)
    finally:
        joined.close()


def _rounds(
    joined: mmap.mmap, n: int, size: int, first: int, step: int, rounds: int, width: int
) -> tuple[list[array[int]], list[bytes], list[bytes], int] | None:
    """The columns of every round of the joined records; with the last round paired."""
    lanes = _Lanes(n)
    opponents: list[array[int]] = []
    results: list[bytes] = []
    colours: list[bytes] = []
    completed = 0
    for r in range(rounds):
        got = _round(joined, size, first + r * step, width, lanes)
        if got is None:
            return None
        opponent_index, result, colour, paired = got
        opponents.append(opponent_index)
        results.append(result)
        colours.append(colour)
        if paired:
            completed = r + 1
    return opponents, results, colours, completed


def _numbers(lines: list[str], width: int) -> list[int] | None:
    """The starting ranks of the records, or None for one the model reader would reject or read otherwise."""
    if any(line[4 + width : 5 + width].isdigit() for line in lines):
        return None
    fields = [line[4 : 4 + width] for line in lines]
    if not all(field.strip().isdigit() and field.isascii() for field in fields):
        return None
    return list(map(int, fields))


_WHOLE_NUMBER = re.compile(r" *(?:-?\d+)? *")
_POINTS_NUMBER = re.compile(r" *(?:-?\d+(?:\.\d*)?)? *")


def _header_fields_read(lines: list[str], shift: int) -> bool:
    """Whether every record's rating, points and rank read as the model reader reads them (else it decides)."""
    ratings = [line[48 + shift : 52 + shift] for line in lines]
    points = [line[80 + shift : 84 + shift] for line in lines]
    ranks = [line[85 + shift : 89 + shift] for line in lines]
    return (
        all(map(_WHOLE_NUMBER.fullmatch, ratings))
        and all(map(_POINTS_NUMBER.fullmatch, points))
        and all(map(_WHOLE_NUMBER.fullmatch, ranks))
    )


class _Lanes:
    """Arithmetic on all players at once: one 32-bit lane per player in a big integer (native byte order)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.ones = self.spread(b"\x01" * n)
        self.full = self.ones * 0xFFFFFFFF
        self.numbers = array("i", range(1, n + 1))

    def spread(self, values: bytes) -> int:
        """Bytes, one per player, as lanes."""
        buffer = bytearray(4 * self.n)
        buffer[0 if sys.byteorder == "little" else 3 :: 4] = values
        return int.from_bytes(buffer, sys.byteorder)

    def unpack(self, lanes: int) -> array[int]:
        """The lanes as signed 32-bit integers."""
        out = array("i")
        out.frombytes(lanes.to_bytes(4 * self.n, sys.byteorder))
        return out


def _or(a: bytes, b: bytes) -> bytes:
    """Byte-wise OR of two equally long byte strings."""
    return (int.from_bytes(a, "little") | int.from_bytes(b, "little")).to_bytes(len(a), "little")


def _round(
    joined: mmap.mmap, size: int, start: int, width: int, lanes: _Lanes
) -> tuple[array[int], bytes, bytes, bool] | None:
    """One round: the opponent indices of the games over the board (-1 for none), the result codes, the colour
    codes, and whether anybody was paired; None where the model reader would raise or read the round otherwise."""
    raw = [joined[start + 2 + k :: size] for k in range(width)]
    colour_text = joined[start + 3 + width :: size]
    code_text = joined[start + 5 + width :: size]
    if any(column.translate(_DIGIT_OR_SPACE).find(_INVALID) >= 0 for column in raw):
        return None
    # A space after a digit ("12  ", "1 2") is read otherwise by the model reader (or refused): leave it to it.
    for left, right in pairwise(raw):
        if int.from_bytes(left.translate(_IS_DIGIT), "big") & int.from_bytes(right.translate(_IS_SPACE), "big"):
            return None
    digits = [column.translate(_DIGIT_VALUE) for column in raw]
    packed = 0
    for column in digits:
        packed = packed * 10 + lanes.spread(column)
    opponent_numbers = lanes.unpack(packed)
    n = lanes.n
    if max(opponent_numbers) > n or any(map(eq, opponent_numbers, lanes.numbers)):
        return None
    nonzero = bytes(n)
    for column in digits:
        nonzero = _or(nonzero, column)
    keys = _or(code_text.upper(), nonzero.translate(_ZERO_TO_FLAG))
    result = keys.translate(_RESULTS)
    if result.find(_INVALID) >= 0 or result.count(fast.PAB) > 1:
        return None
    colour_class = colour_text.lower().translate(_COLOUR_CLASS)
    if colour_class.find(_INVALID) >= 0:
        return None
    side = _or(result, colour_class.translate(_TIMES_16)).translate(_SIDES)
    if side.find(_INVALID) >= 0:
        return None
    # Each opponent lists the player back, on the other side of the same game (index 0 is the "opponent" of a
    # record without one: number 0, side 0): number and side (0 to 3) checked together as number * 4 + side.
    listed = array("i", [0]) + lanes.unpack(packed * 4 + lanes.spread(side))
    numbers = lanes.spread(nonzero.translate(_IS_NONZERO)) * 0xFFFFFFFF & _packed(lanes.numbers)
    expected = lanes.unpack(numbers * 4 + lanes.spread(side.translate(_PARTNER_SIDE)))
    if array("i", map(listed.__getitem__, opponent_numbers)) != expected:
        return None
    colour = side.translate(_GAME_COLOURS)
    games = lanes.spread(colour.translate(_IS_GAME)) * 0xFFFFFFFF
    # Players of a game get their opponent's index (number - 1), the others -1.
    index = ((packed & games) + (lanes.ones & ~games) - lanes.ones) | (lanes.full & ~games)
    paired = nonzero.count(0) < n or result.find(fast.PAB) >= 0
    return array("l", lanes.unpack(index)), result, colour, paired


def _packed(values: array[int]) -> int:
    """An array of 32-bit integers as lanes."""
    return int.from_bytes(values.tobytes(), sys.byteorder)
