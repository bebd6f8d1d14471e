"""Read a TRF file straight into the Fast engine's columns (`FastEvent`), without a `Tournament` model.

`swissbot pair --system fast` on 100,000 players x 30 rounds spent most of its time and memory building one
`RoundRecord` per player-round, and then splitting the text into lines and working a round at a time on strings.
This reader takes the file's bytes as one buffer (a file not in ASCII decoded as the model reader decodes it and
held a character a byte: Latin-1, any other character as "?"), finds the line starts with numpy, and reads every
player record (001) at once: the fields before the rounds, then four rounds at a time, are copied for all records
as rows of a window view of the buffer (spaces past the end of a record), and the checks, codes and numbers are
element-wise numpy arithmetic and table look-ups, so no Python object is made per player or per player-round.
Only the few other lines are handled one by one.

It reads the plain files only and returns None for anything else, which the caller then reads with
`pairing.trf.parse` (so every error message and every rarer record keeps one home there): records other than 001,
comments, XXR/142, XXC/152, the scoring records (162, XXS, BB*), XXW and inert header lines; a missing initial
colour (XXC/152; the model infers it); starting ranks other than 1..n; any character the model reader would reject
or read in an unusual way (an opponent field with a space between digits, an unknown code or colour); an
asymmetric round, a self-pairing or two PABs in a round. On the files it accepts it gives the event, the number of
rounds and the round to pair that `FastEvent.from_tournament(trf.parse(text))` and the model give.
"""

from __future__ import annotations

import re
from array import array
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import sliding_window_view

from pairing import trf
from pairing.model import Colour
from pairing.systems import fast

# Header records this reader handles itself (through `trf`'s own header parser); any other engine record or a
# 240/250/260/XXA/XXP/team record sends the file to the model reader.
_HEADER_TAGS = frozenset({"XXR", "142", "XXC", "152", "162", "XXS", "XXW", "BBW", "BBD", "BBL", "BBZ", "BBF", "BBU"})
_OTHER_ENGINE_TAGS = trf.ENGINE_TAGS - _HEADER_TAGS
_TEAM_TAGS = frozenset({"310", "013"})
_TAG = re.compile(r"[0-9A-Z]{3}")
_INVALID = 255
_SPACE = ord(" ")
_SLICE = 1 << 20
_ROUNDS_AT_ONCE = 4

Bytes = npt.NDArray[np.uint8]
Ints = npt.NDArray[np.int64]


def _table(pairs: dict[int, int], default: int = _INVALID) -> Bytes:
    """A byte-to-byte look-up table (256 entries)."""
    return np.array([pairs.get(i, default) for i in range(256)], dtype=np.uint8)


# A result key is the upper-cased code character, plus 128 when the opponent field is not zero.
_WITH_OPPONENT = 128
_UPPER = _table({c: c - 32 if ord("a") <= c <= ord("z") else c for c in range(256)})
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
_COLOUR_CLASS = _table({ord(" "): 0, ord("-"): 0, ord("w"): 1, ord("W"): 1, ord("b"): 2, ord("B"): 2})
# A side key is the result code + 16 x the colour class; the side is WHITE/BLACK for a game over the board, 3 for a
# forfeit (its colour is free), 0 for a record without an opponent, _INVALID where the model reader raises.
_SIDES = _table(
    {code + 16 * cls: 0 for code in (0, 6, 7, 8, 9) for cls in (0,)}
    | {code + 16 * cls: cls or _INVALID for code in (fast.WIN, fast.DRAW, fast.LOSS) for cls in (0, 1, 2)}
    | {code + 16 * cls: 3 for code in (fast.FORFEIT_WIN, fast.FORFEIT_LOSS) for cls in (0, 1, 2)}
)
_PARTNER_SIDE = _table({0: 0, fast.WHITE: fast.BLACK, fast.BLACK: fast.WHITE, 3: 3})
_GAME_COLOURS = _table({fast.WHITE: fast.WHITE, fast.BLACK: fast.BLACK}, fast.NO_COLOUR)
# What `str.isspace` strips at the end of a line, among the characters of one byte.
_TRAILING_SPACE = _table({c: 1 for c in range(256) if chr(c).isspace()}, 0).astype(bool)
_IS_DIGIT = _table({ord(str(d)): 1 for d in range(10)}, 0).astype(bool)
_DIGIT_VALUE = _table({ord(" "): 0} | {ord(str(d)): d for d in range(10)})

# Character classes and states of the number fields' patterns, read by a small automaton over the field's columns:
# class 0 space, 1 minus, 2 digit, 3 point, 4 anything else; state 0 leading spaces, 1 after the minus, 2 in the
# digits, 3 after the point, 4 trailing spaces, 5 refused.
_CLASS = _table({ord(" "): 0, ord("-"): 1, ord("."): 3} | {ord(str(d)): 2 for d in range(10)}, 4)
_REFUSED = 5
# ` *(?:-?\d+(?:\.\d*)?)? *`: a points field. From each state, the next state by class (space, -, digit, ., other).
_POINTS = np.array(
    [[0, 1, 2, 5, 5], [5, 5, 2, 5, 5], [4, 5, 2, 3, 5], [4, 5, 3, 5, 5], [4, 5, 5, 5, 5], [5, 5, 5, 5, 5]],
    dtype=np.uint8,
)
_POINTS_ACCEPT = np.array([1, 0, 1, 1, 1, 0], dtype=bool)
# ` *(?:-?\d+)? *`: a rating or a rank: the same without the point.
_WHOLE = _POINTS.copy()
_WHOLE[2, 3] = _REFUSED
# ` *\d+ *`: a starting rank: no minus, and at least one digit.
_RANK = _WHOLE.copy()
_RANK[0, 1] = _REFUSED
_RANK_ACCEPT = np.array([0, 0, 1, 0, 1, 0], dtype=bool)


@dataclass(frozen=True)
class FastFile:
    """A TRF file read into columns: the event, its number of rounds, and the round to pair next."""

    event: fast.FastEvent
    total_rounds: int
    round_to_pair: int


@dataclass(frozen=True)
class _Records:
    """The 001 records in a byte buffer: where each starts and its length (trailing spaces left out)."""

    buffer: Bytes
    starts: Ints
    lengths: Ints
    shortest: int

    def block(self, start: int, stop: int, group: int = 16) -> Bytes:
        """Columns `start` to `stop` (0-based, `stop` excluded) of every record, a row a record; spaces past its end
        (blanked `group` columns at a time: best when records tend to end at the groups' bounds)."""
        width = stop - start
        index = self.starts + start
        last = len(self.buffer) - width  # the last position a whole window starts at
        if last >= 0:
            # Each row copied whole from a window view of the buffer (contiguous bytes), not element by element.
            rows = sliding_window_view(self.buffer, width)[np.minimum(index, last)]
            for i in np.flatnonzero(index > last).tolist():  # a record ending the file: past its end is masked
                rows[i] = self.buffer.take(np.arange(index[i], index[i] + width), mode="clip")
        else:
            rows = self.buffer.take(index[:, None] + np.arange(width), mode="clip")
        # Spaces past each record's end, `group` columns at a time: a record ending before a group has all of it
        # blanked in place; only the few ending inside one are blanked character by character.
        for low in range(start, stop, group):
            high = min(low + group, stop)
            if high <= self.shortest:
                continue
            rows[self.lengths <= low, low - start : high - start] = _SPACE
            inside = np.flatnonzero((self.lengths > low) & (self.lengths < high))
            if len(inside):
                part = rows[inside, low - start : high - start]
                part[self.lengths[inside, None] <= np.arange(low, high)] = _SPACE
                rows[inside, low - start : high - start] = part
        return rows


def read_event(data: bytes) -> FastFile | None:
    """The event of a file's bytes in columns, or None when it is not a plain file this reader takes (see the
    module), nor text as `trf.decode` reads it. Lines end at CR LF, CR or LF, as the model reader splits them."""
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    text: str | None = None
    if not data.isascii() or b"\0" in data:
        # One character a byte, as the model reader decodes the file (a character outside Latin-1 as "?").
        try:
            text = trf.decode(data)
        except trf.TrfError:
            return None
        data = text.encode("latin-1", "replace")
    if not data:
        return None
    buffer = np.frombuffer(data, dtype=np.uint8)
    breaks = _line_breaks(buffer)
    starts = np.concatenate(([0], breaks + 1))
    ends = np.concatenate((breaks, [len(buffer)]))
    last = len(buffer) - 1
    is_record = ends - starts >= 3
    for offset, character in enumerate(b"001"):
        is_record &= buffer[np.minimum(starts + offset, last)] == character
    builder = trf._Builder()
    record_lines = np.flatnonzero(is_record)
    if not len(record_lines):
        return None
    first_record = int(record_lines[0])
    for index in np.flatnonzero(~is_record).tolist():
        start, end = int(starts[index]), int(ends[index])
        line = data[start:end].decode("ascii") if text is None else text[start:end]
        tag = line[:3]
        if tag == "###" or not line.strip():
            continue
        if tag in _HEADER_TAGS:
            if tag == "XXW" and index > first_record:
                return None
            try:
                trf._parse_header(tag, line, index + 1, builder)
            except trf.TrfError:
                return None
        elif tag in _OTHER_ENGINE_TAGS or tag in _TEAM_TAGS or not _inert_header(tag, line):
            return None
    del text
    if builder.total_rounds is None or builder.initial_colour is None:
        return None
    record_starts = starts[record_lines]
    lengths = _stripped_lengths(buffer, record_starts, ends[record_lines])
    records = _Records(buffer, record_starts, lengths, int(lengths.min()))
    del starts, ends, breaks, is_record
    columns = _columns(records, builder.id_width)
    if columns is None:
        return None
    opponents, results, colours, completed = columns
    n = len(record_starts)
    event = fast.FastEvent(
        numbers=range(1, n + 1),
        opponents=opponents,
        results=results,
        colours=colours,
        scoring=builder.scoring,
        initial_colour=builder.initial_colour or Colour.WHITE,
    )
    return FastFile(event, builder.total_rounds, completed + 1)


def _line_breaks(buffer: Bytes) -> Ints:
    """The positions of the line feeds, found a slice at a time (no temporary the size of the file)."""
    found = [
        np.flatnonzero(buffer[start : start + _SLICE] == ord("\n")) + start for start in range(0, len(buffer), _SLICE)
    ]
    return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)


def _inert_header(tag: str, line: str) -> bool:
    """Whether the model reader keeps the line as a header record."""
    return _TAG.fullmatch(tag) is not None and (len(line) == 3 or line[3] == " ")


def _stripped_lengths(buffer: Bytes, starts: Ints, ends: Ints) -> Ints:
    """The lengths of the lines once trailing white space is stripped (as `str.rstrip`)."""
    ends = ends.copy()
    pending = np.flatnonzero(ends > starts)
    while len(pending):
        spaced = _TRAILING_SPACE[buffer[ends[pending] - 1]]
        pending = pending[spaced]
        ends[pending] -= 1
        pending = pending[ends[pending] > starts[pending]]
    return ends - starts


def _matches(field: Bytes, table: Bytes, accept: npt.NDArray[np.bool_]) -> bool:
    """Whether every record's field (a row a record) is accepted by the automaton `table`."""
    classes = _CLASS.take(field)
    moves = table.reshape(-1)  # the next state of (state, class) at state * 5 + class
    state = np.zeros(len(field), dtype=np.uint8)
    for k in range(field.shape[1]):
        state = moves.take(state * np.uint8(5) + classes[:, k])
    return bool(accept.take(state).all())


def _columns(records: _Records, width: int) -> tuple[list[array[int]], list[bytes], list[bytes], int] | None:
    """Opponents, results and colours, round by round, of the 001 records; with the last round paired."""
    shift = width - 4
    first = 89 + shift  # the 0-based offset of the first round's block
    step = 6 + width
    n = len(records.starts)
    if records.shortest < 4 + width:
        return None
    head = records.block(4, first)  # from the starting rank to the first round, read once
    numbers = _numbers(head, width)
    if numbers is None:
        return None
    own = np.arange(1, n + 1, dtype=np.int32)  # the records' numbers once in number order
    in_order = bool(np.array_equal(numbers, own))  # as files are mostly written
    order = np.arange(n) if in_order else np.argsort(numbers, kind="stable")
    if not in_order and not np.array_equal(numbers[order], own):
        return None  # starting ranks that are not 1..n (gaps or repeats): the model reader's business
    # The rating, points and rank fields, read as the model reader reads them (else it decides).
    if not (
        _matches(head[:, 44 + shift : 48 + shift], _WHOLE, _POINTS_ACCEPT)
        and _matches(head[:, 76 + shift : 80 + shift], _POINTS, _POINTS_ACCEPT)
        and _matches(head[:, 81 + shift : 85 + shift], _WHOLE, _POINTS_ACCEPT)
    ):
        return None
    del head
    rounds = int(((np.maximum(records.lengths - first, 0) + step - 1) // step).max())
    ordered = records if in_order else replace(records, starts=records.starts[order], lengths=records.lengths[order])
    opponents: list[array[int]] = []
    results: list[bytes] = []
    colours: list[bytes] = []
    completed = 0
    # A few rounds are copied at once: a record's rounds are one run of bytes, so a copy of four costs about what a
    # copy of one does (it is reaching the record's place in memory that is slow).
    for chunk_start in range(0, rounds, _ROUNDS_AT_ONCE):
        count = min(_ROUNDS_AT_ONCE, rounds - chunk_start)
        offset = first + chunk_start * step
        chunk = ordered.block(offset, offset + count * step, step)  # records end at a round's bound, mostly
        for r in range(count):
            got = _round(chunk[:, r * step + 2 : (r + 1) * step], width, own)
            if got is None:
                return None
            opponent_index, result, colour, paired = got
            opponents.append(opponent_index)
            results.append(result)
            colours.append(colour)
            if paired:
                completed = chunk_start + r + 1
        del chunk  # before the next one is copied
    return opponents, results, colours, completed


def _numbers(head: Bytes, width: int) -> Ints | None:
    """The starting ranks of the records (`head`: their characters from the fifth on, a row a record), or None for
    one the model reader would reject or read otherwise."""
    after = head[:, width]
    if (_IS_DIGIT[after] | (after >= 128)).any():
        return None  # a digit (or what might be one) right after the field: the model reader's business
    field = head[:, :width]
    if not _matches(field, _RANK, _RANK_ACCEPT):
        return None
    return _value(_DIGIT_VALUE[field]).astype(np.int64)


def _value(digits: Bytes) -> npt.NDArray[np.int32]:
    """The numbers of a field's digit values (a row a record, a space as 0, no space after a digit)."""
    value = digits[:, 0].astype(np.int32)
    for k in range(1, digits.shape[1]):
        value *= 10
        value += digits[:, k]
    return value


def _round(block: Bytes, width: int, numbers: npt.NDArray[np.int32]) -> tuple[array[int], bytes, bytes, bool] | None:
    """One round of the records (`block`: its opponent, colour and result fields, a row a record; `numbers`: theirs,
    1..n): the opponent indices of the games over the board (-1 for none), the result codes, the colour codes, and
    whether anybody was paired; None where the model reader would raise or read the round otherwise."""
    n = len(numbers)
    raw = block[:, :width]
    digits = _DIGIT_VALUE.take(raw)
    if (digits == _INVALID).any():
        return None
    # A space after a digit ("12  ", "1 2"; all are digits or spaces now) is read otherwise by the model reader (or
    # refused): leave it to it.
    spaces = raw == _SPACE
    if (spaces[:, 1:] > spaces[:, :-1]).any():
        return None
    opponent = _value(digits)
    if int(opponent.max()) > n or (opponent == numbers).any():
        return None
    with_opponent = opponent != 0
    result = _RESULTS.take(_UPPER.take(block[:, width + 3]) | (with_opponent.view(np.uint8) << 7))
    # An unknown code or colour, or one the model reader refuses for the result, gives an invalid side.
    side = _SIDES.take(result | (_COLOUR_CLASS.take(block[:, width + 1]) << 4))
    if (side == _INVALID).any():
        return None
    pabs = int(np.count_nonzero(result == fast.PAB))
    if pabs > 1:
        return None
    # Each opponent lists the player back, on the other side of the same game (index 0 is the "opponent" of a
    # record without one: number 0, side 0): number and side (0 to 3) checked together as number * 4 + side.
    listed = np.zeros(n + 1, dtype=np.int32)
    listed[1:] = opponent * 4 + side
    expected = np.where(with_opponent, numbers, 0) * 4 + _PARTNER_SIDE.take(side)
    if not np.array_equal(listed.take(opponent), expected):
        return None
    colour = _GAME_COLOURS.take(side)
    index = np.where(colour != fast.NO_COLOUR, opponent - 1, np.int32(-1))
    paired = bool(pabs or with_opponent.any())
    return array("i", index.astype(np.int32, copy=False).tobytes()), result.tobytes(), colour.tobytes(), paired
