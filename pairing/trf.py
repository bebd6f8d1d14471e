"""Read and write the FIDE Tournament Report File (TRF16 with TRF(x) and TRF26 records)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Literal

from pairing.colours import colour_states, initial_colour_shown
from pairing.model import (
    Colour,
    Outcome,
    Player,
    Points,
    RecordKind,
    RoundRecord,
    Scoring,
    Tournament,
    format_points,
)

ENGINE_TAGS = frozenset(
    {"XXR", "142", "XXC", "152", "162", "XXA", "250", "XXP", "260", "240", "XXS", "XXW"}
    | {"BBW", "BBD", "BBL", "BBZ", "BBF", "BBU"}
)
_PLAYED_CODES = {"1": Outcome.WIN, "=": Outcome.DRAW, "0": Outcome.LOSS}
_UNRATED_CODES = {"W": Outcome.WIN, "D": Outcome.DRAW, "L": Outcome.LOSS}
_BYE_CODES = {
    "H": RecordKind.HALF_BYE,
    "F": RecordKind.FULL_BYE,
    "U": RecordKind.PAB,
    "Z": RecordKind.ZERO_BYE,
}


# An arbiter's manual pairing: "XXM r1 r2 ...", the rounds whose pairing an arbiter corrected by hand. TRF26 has no
# record for it; like the engines' own XXR/XXC/XXS, an XX record is one pairing programs other than its writer
# skip, and it is a header record, so this reader keeps it in `Tournament.header` and writes it back unchanged.
MANUAL_TAG = "XXM"


def manual_rounds(tournament: Tournament) -> frozenset[int]:
    """The rounds the file's `XXM` records name as paired by hand (TrfError for a value that is not a round)."""
    found: set[int] = set()
    for line in tournament.header:
        if line[:3] == MANUAL_TAG:
            for word in line[4:].split():
                if not word.isdigit() or int(word) < 1:
                    raise TrfError(None, f"XXM takes round numbers, got {word!r}")
                found.add(int(word))
    return frozenset(found)


def manual_record(rounds: Iterable[int]) -> str:
    """The `XXM` record naming these rounds as paired by hand."""
    return f"{MANUAL_TAG} " + " ".join(str(r) for r in sorted(set(rounds)))


class TrfError(ValueError):
    """A TRF file that cannot be read; the message names the line and the problem."""

    def __init__(self, line: int | None, message: str) -> None:
        self.line = line
        self.detail = message
        super().__init__(f"line {line}: {message}" if line is not None else message)


@dataclass
class _Builder:
    players: dict[int, Player] = field(default_factory=dict)
    player_lines: dict[int, int] = field(default_factory=dict)
    header: list[str] = field(default_factory=list)
    name: str = ""
    total_rounds: int | None = None
    initial_colour: Colour | None = None
    scoring: Scoring = field(default_factory=Scoring)
    acceleration: dict[int, list[Points]] = field(default_factory=dict)
    forbidden: list[tuple[frozenset[int], int, int]] = field(default_factory=list)
    byes: list[tuple[int, RecordKind, int, int]] = field(default_factory=list)
    id_width: int = 4


def _lines(text: str) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(re.split(r"\r\n|\r|\n", text), start=1):
        if line.strip():
            yield number, line


def _col(line: str, first: int, last: int) -> str:
    """The 1-based inclusive column range of a line, stripped."""
    return line[first - 1 : last].strip()


def _int(text: str, lineno: int, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise TrfError(lineno, f"{what} must be a whole number, got {text!r}") from None


def _points(text: str, lineno: int, what: str) -> Points:
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise TrfError(lineno, f"{what} must be a number like 1.5, got {text!r}") from None


def _parse_round(block: str, lineno: int, round_number: int, width: int = 4) -> RoundRecord:
    block = block.ljust(6 + width)
    opp_text = block[2 : 2 + width].strip()
    colour_text, code = block[3 + width].strip().lower(), block[5 + width].strip().upper()
    where = f"round {round_number}"
    opponent = _int(opp_text, lineno, f"{where}: opponent") if opp_text else 0
    colour: Colour | None
    if colour_text in ("", "-"):
        colour = None
    elif colour_text in ("w", "b"):
        colour = Colour(colour_text)
    else:
        raise TrfError(lineno, f"{where}: colour must be w, b or -, got {block[3 + width]!r}")
    if opponent == 0:
        if colour is not None:
            raise TrfError(lineno, f"{where}: a bye has no colour")
        if code in _BYE_CODES:
            return RoundRecord(_BYE_CODES[code])
        if code == "+":
            return RoundRecord(RecordKind.PAB)
        if code == "-":
            return RoundRecord(RecordKind.ZERO_BYE)
        if code == "":
            return RoundRecord(RecordKind.NOT_PAIRED)
        raise TrfError(lineno, f"{where}: result {code!r} needs an opponent")
    if code in _PLAYED_CODES or code in _UNRATED_CODES:
        if colour is None:
            raise TrfError(lineno, f"{where}: a played game needs a colour (w or b)")
        outcome = _PLAYED_CODES.get(code) or _UNRATED_CODES[code]
        return RoundRecord.played(opponent, colour, outcome, rated=code in _PLAYED_CODES)
    if code == "+":
        return RoundRecord.forfeit(opponent, colour, won=True)
    if code == "-":
        return RoundRecord.forfeit(opponent, colour, won=False)
    if code == "":
        raise TrfError(lineno, f"{where}: a game against {opponent} has no result")
    raise TrfError(lineno, f"{where}: unknown result code {code!r}")


def _parse_player(line: str, lineno: int, width: int = 4) -> Player:
    """A 001 record whose ids are `width` digits wide (4, or as `XXW` says; later columns shift right)."""
    if len(line.rstrip()) < 4 + width:
        raise TrfError(lineno, "player record is too short")
    shift = width - 4
    if line[4 + width : 5 + width].isdigit():
        raise TrfError(lineno, f"the starting rank is wider than {width} digits (add 'XXW n' for wider ids)")
    number = _int(_col(line, 5, 4 + width), lineno, "starting rank")
    if not 1 <= number < 10**width:
        raise TrfError(lineno, f"starting rank must be between 1 and {10**width - 1}, got {number}")
    rating_text = _col(line, 49 + shift, 52 + shift)
    points_text = _col(line, 81 + shift, 84 + shift)
    rank_text = _col(line, 86 + shift, 89 + shift)
    rounds: list[RoundRecord] = []
    tail = line[89 + shift :].rstrip()
    step = 6 + width
    for index in range(0, len(tail), step):
        block = tail[index : index + step]
        if not block.strip():
            rounds.append(RoundRecord(RecordKind.NOT_PAIRED))
            continue
        rounds.append(_parse_round(block, lineno, index // step + 1, width))
    return Player(
        number=number,
        name=_col(line, 15 + shift, 47 + shift),
        rating=_int(rating_text, lineno, "rating") if rating_text else 0,
        title=_col(line, 11 + shift, 13 + shift),
        sex=_col(line, 10 + shift, 10 + shift),
        federation=_col(line, 54 + shift, 56 + shift),
        fide_id=_col(line, 58 + shift, 68 + shift),
        birth_date=_col(line, 70 + shift, 79 + shift),
        rounds=tuple(rounds),
        declared_points=_points(points_text, lineno, "points") if points_text else None,
        rank=_int(rank_text, lineno, "rank") if rank_text else None,
    )


_SCORING_162_ITEM = re.compile(r"\s*([A-Za-z])\s*(-?\d+(?:\.\d*)?)")


def _parse_scoring_162(line: str, lineno: int, scoring: Scoring) -> Scoring:
    """Record 162: letter-value pairs; the format puts the letters at columns 6, 15, 24, ... but any spacing reads."""
    changes: dict[str, Points] = {}
    rest = line[3:].rstrip()
    position = 0
    while position < len(rest):
        match = _SCORING_162_ITEM.match(rest, position)
        if match is None:
            column = 4 + position + len(rest[position:]) - len(rest[position:].lstrip())
            raise TrfError(lineno, f"record 162: expected a letter and its points at column {column}")
        position = match.end()
        letter, value = match.group(1).upper(), _points(match.group(2), lineno, "score")
        if letter == "W":
            changes["win"] = value
        elif letter == "D":
            changes["draw"] = value
        elif letter == "L":
            changes["loss"] = value
        elif letter in ("A", "Z"):  # the format's A (absence); bbpPairings reads Z
            changes["zero_bye"] = value
            changes["forfeit_loss"] = value
        elif letter == "P":
            changes["pab"] = value
        elif letter != "X":
            raise TrfError(lineno, f"unknown scoring letter {letter!r} (known: W D L A P X)")
    if not changes:
        raise TrfError(lineno, "scoring record 162 lists no values")
    return replace(scoring, **changes)


_BB_FIELDS = {"BBW": "win", "BBD": "draw", "BBL": "loss", "BBZ": "zero_bye", "BBF": "forfeit_loss", "BBU": "pab"}
_XXS_FIELDS = {
    "WW": ("win",),
    "BW": ("win",),
    "WD": ("draw",),
    "BD": ("draw",),
    "WL": ("loss",),
    "BL": ("loss",),
    "W": ("win",),
    "D": ("draw",),
    "ZPB": ("zero_bye",),
    "HPB": ("half_bye",),
    "FPB": ("full_bye",),
    "PAB": ("pab",),
    "FW": ("forfeit_win",),
    "FL": ("forfeit_loss",),
}


def _parse_xxs(line: str, lineno: int, scoring: Scoring) -> Scoring:
    changes: dict[str, Points] = {}
    for item in line[3:].split():
        code, _, value = item.partition("=")
        fields = _XXS_FIELDS.get(code.upper())
        if fields is None or not value:
            raise TrfError(lineno, f"XXS entry {item!r} is not CODE=VALUE with a known code")
        for name in fields:
            changes[name] = _points(value, lineno, code)
    return replace(scoring, **changes)


def _ids(text: str, lineno: int) -> list[int]:
    return [_int(t, lineno, "player id") for t in text.split()]


def _parse_header(tag: str, line: str, lineno: int, b: _Builder) -> None:
    rest = line[3:].strip()
    if tag == "XXW":
        if b.players:
            raise TrfError(lineno, "XXW must come before the player records (001)")
        b.id_width = _int(rest, lineno, "id width")
        if not 4 <= b.id_width <= 9:
            raise TrfError(lineno, f"XXW takes an id width from 4 to 9, got {b.id_width}")
    elif tag in ("XXR", "142"):
        b.total_rounds = _int(rest, lineno, "number of rounds")
        if b.total_rounds < 1:
            raise TrfError(lineno, "number of rounds must be at least 1")
    elif tag == "XXC":
        words = rest.lower().split()
        for word in words:
            if word == "white1":
                b.initial_colour = Colour.WHITE
            elif word == "black1":
                b.initial_colour = Colour.BLACK
            elif word != "rank":
                raise TrfError(lineno, f"XXC takes 'white1', 'black1' or 'rank', got {word!r}")
    elif tag == "152":
        letter = rest.upper()[:1]
        if letter not in ("W", "B"):
            raise TrfError(lineno, f"record 152 takes W or B, got {rest!r}")
        b.initial_colour = Colour.WHITE if letter == "W" else Colour.BLACK
    elif tag == "162":
        b.scoring = _parse_scoring_162(line, lineno, b.scoring)
    elif tag in _BB_FIELDS:
        b.scoring = replace(b.scoring, **{_BB_FIELDS[tag]: _points(line[4:].strip(), lineno, tag)})
    elif tag == "XXS":
        b.scoring = _parse_xxs(line, lineno, b.scoring)
    elif tag == "XXA":
        number = _int(_col(line, 5, 8), lineno, "player id")
        values = [_points(v, lineno, "acceleration points") for v in line[8:].split()]
        b.acceleration[number] = values
    elif tag == "250":
        _parse_250(line, lineno, b)
    elif tag == "XXP":
        ids = _ids(rest, lineno)
        if len(ids) < 2:
            raise TrfError(lineno, "XXP needs at least two player ids")
        b.forbidden.append((frozenset(ids), 1, 9999))
    elif tag == "260":
        first, last = _int(_col(line, 5, 7), lineno, "first round"), _int(_col(line, 9, 11), lineno, "last round")
        ids = _ids(line[11:], lineno)
        if len(ids) < 2:
            raise TrfError(lineno, "record 260 needs at least two player ids")
        b.forbidden.append((frozenset(ids), first, last))
    elif tag == "240":
        kind = _BYE_CODES.get(_col(line, 5, 5).upper())
        if kind is None or kind is RecordKind.PAB:
            raise TrfError(lineno, "record 240 takes bye type F, H or Z")
        round_number = _int(_col(line, 7, 9), lineno, "round")
        b.byes.extend((pid, kind, round_number, lineno) for pid in _ids(line[9:], lineno))


def _parse_250(line: str, lineno: int, b: _Builder) -> None:
    points = _points(_col(line, 10, 13) or "0", lineno, "acceleration points")
    first, last = _int(_col(line, 15, 17), lineno, "first round"), _int(_col(line, 19, 21), lineno, "last round")
    low, high = _int(_col(line, 23, 26), lineno, "first id"), _int(_col(line, 28, 31), lineno, "last id")
    if first > last or low > high:
        raise TrfError(lineno, "record 250 has an empty round or id range")
    for pid in range(low, high + 1):
        values = b.acceleration.setdefault(pid, [])
        values.extend([Fraction(0)] * (last - len(values)))
        for r in range(first, last + 1):
            values[r - 1] = points


def parse(text: str, *, require_rounds: bool = True) -> Tournament:
    """Parse TRF text into a tournament; raise TrfError naming the line on bad input."""
    b = _Builder()
    for lineno, line in _lines(text):
        tag = line[:3]
        if tag == "###":
            continue
        if tag == "001":
            player = _parse_player(line, lineno, b.id_width)
            if player.number in b.players:
                raise TrfError(lineno, f"starting rank {player.number} appears twice")
            b.players[player.number] = player
            b.player_lines[player.number] = lineno
        elif tag in ENGINE_TAGS:
            _parse_header(tag, line, lineno, b)
        elif re.fullmatch(r"[0-9A-Z]{3}", tag) and (len(line) == 3 or line[3] == " "):
            if tag == "012":
                b.name = line[4:].strip()
            b.header.append(line.rstrip())
        else:
            raise TrfError(lineno, f"not a TRF record: {line[:20]!r}")
    if not b.players:
        raise TrfError(None, "the file has no player records (001)")
    _apply_byes(b)
    # In a team event (records 310 or TRF16's 013) every board player of the team with the PAB shows a U.
    _check_symmetry(b, one_pab=not any(line[:3] in ("310", "013") for line in b.header))
    present = max(len(p.rounds) for p in b.players.values())
    if b.total_rounds is None:
        if require_rounds:
            raise TrfError(None, "the number of rounds is missing (add 'XXR n' or '142 n')")
        b.total_rounds = max(present, 1)
    players = tuple(sorted(b.players.values(), key=lambda p: p.number))
    tournament = Tournament(
        players=players,
        total_rounds=b.total_rounds,
        scoring=b.scoring,
        initial_colour=b.initial_colour,
        acceleration={pid: tuple(v) for pid, v in b.acceleration.items()},
        name=b.name,
        header=tuple(b.header),
    )
    for pid in tournament.acceleration:
        if pid not in b.players:
            raise TrfError(None, f"acceleration given for unknown player {pid}")
    current = tournament.round_to_pair
    groups = []
    for group, first, last in b.forbidden:
        unknown = sorted(group - b.players.keys())
        if unknown:
            raise TrfError(None, f"forbidden pairing names unknown player {unknown[0]}")
        if first <= current <= last:
            groups.append(group)
    tournament = replace(tournament, forbidden=tuple(groups))
    if tournament.initial_colour is None:
        tournament = replace(tournament, initial_colour=infer_initial_colour(tournament))
    return tournament


def _apply_byes(b: _Builder) -> None:
    for pid, kind, round_number, lineno in b.byes:
        player = b.players.get(pid)
        if player is None:
            raise TrfError(lineno, f"bye for unknown player {pid}")
        rounds = list(player.rounds) + [RoundRecord(RecordKind.NOT_PAIRED)] * (round_number - len(player.rounds))
        current = rounds[round_number - 1]
        if current.kind is not RecordKind.NOT_PAIRED and current.kind is not kind:
            raise TrfError(lineno, f"player {pid} already has a record in round {round_number}")
        rounds[round_number - 1] = RoundRecord(kind)
        b.players[pid] = replace(player, rounds=tuple(rounds))


def _check_symmetry(b: _Builder, one_pab: bool = True) -> None:
    pab_rounds: dict[int, int] = {}
    for pid, player in b.players.items():
        lineno = b.player_lines[pid]
        for r, rec in enumerate(player.rounds, start=1):
            if rec.kind is RecordKind.PAB and one_pab:
                if r in pab_rounds:
                    raise TrfError(lineno, f"round {r}: two pairing-allocated byes ({pab_rounds[r]} and {pid})")
                pab_rounds[r] = pid
            if rec.opponent is None:
                continue
            if rec.opponent == pid:
                raise TrfError(lineno, f"round {r}: player {pid} is paired with himself")
            other = b.players.get(rec.opponent)
            if other is None:
                raise TrfError(lineno, f"round {r}: opponent {rec.opponent} is not a player of this file")
            theirs = other.rounds[r - 1] if r <= len(other.rounds) else None
            if theirs is None or theirs.opponent != pid:
                raise TrfError(lineno, f"round {r}: player {pid} lists {rec.opponent}, who does not list {pid}")
            if rec.is_played and (not theirs.is_played or theirs.colour is rec.colour):
                raise TrfError(lineno, f"round {r}: {pid} and {rec.opponent} disagree on the game's colours or result")


def infer_initial_colour(tournament: Tournament) -> Colour:
    """The initial colour under which the engine's colour rule gives the first round's colours; White if unknown.

    Scans the rounds in order and, in each, the boards by the rank of their higher player, and returns at the
    first board whose colours the initial colour decides (any board of the first round with colours).
    """
    for r in range(1, tournament.rounds_completed + 1):
        paired = [
            p.number
            for p in tournament.players
            if p.record(r).opponent is not None or p.record(r).kind is RecordKind.PAB
        ]
        states = colour_states(tournament.views(r), paired)
        by_number = {state.number: state for state in states}
        for state in states:
            rec = tournament.player(state.number).record(r)
            if rec.opponent is None or rec.colour is None:
                continue
            other = by_number[rec.opponent]
            white, black = (state, other) if rec.colour is Colour.WHITE else (other, state)
            initial = initial_colour_shown(white, black)
            if initial is not None:
                return initial
    return Colour.WHITE


_RESULT_CODE = {
    (RecordKind.PLAYED, Outcome.WIN, True): "1",
    (RecordKind.PLAYED, Outcome.DRAW, True): "=",
    (RecordKind.PLAYED, Outcome.LOSS, True): "0",
    (RecordKind.PLAYED, Outcome.WIN, False): "W",
    (RecordKind.PLAYED, Outcome.DRAW, False): "D",
    (RecordKind.PLAYED, Outcome.LOSS, False): "L",
}
_BYE_WRITE = {
    RecordKind.PAB: "U",
    RecordKind.FULL_BYE: "F",
    RecordKind.HALF_BYE: "H",
    RecordKind.ZERO_BYE: "Z",
    RecordKind.NOT_PAIRED: " ",
}


def format_record(rec: RoundRecord, width: int = 4) -> str:
    """A round block of a 001 line (6 + `width` characters; 10 in plain TRF16)."""
    if rec.kind is RecordKind.PLAYED:
        assert rec.opponent is not None and rec.colour is not None and rec.outcome is not None
        return f"  {rec.opponent:{width}d} {rec.colour.value} {_RESULT_CODE[(rec.kind, rec.outcome, rec.rated)]}"
    if rec.kind in (RecordKind.FORFEIT_WIN, RecordKind.FORFEIT_LOSS):
        assert rec.opponent is not None
        colour = rec.colour.value if rec.colour is not None else "-"
        return f"  {rec.opponent:{width}d} {colour} {'+' if rec.kind is RecordKind.FORFEIT_WIN else '-'}"
    return f"  {'0' * width} - {_BYE_WRITE[rec.kind]}"


def format_player(player: Player, scoring: Scoring, width: int = 4) -> str:
    """A 001 player record in the TRF16 column layout, ids `width` digits wide (the `XXW` extension)."""
    points = sum((scoring.points(r) for r in player.rounds), Fraction(0))
    rating = f"{player.rating:4d}" if player.rating else "    "
    # The rank field stays 4 wide under XXW (the reference engine's layout), so it is capped.
    rank = min(player.rank or player.number, 9999)
    line = (
        f"001 {player.number:{width}d} {player.sex[:1] or ' '}{player.title[:3]:>3} {player.name[:33]:<33} {rating} "
        f"{player.federation[:3]:<3} {player.fide_id[:11]:>11} {player.birth_date[:10]:<10} "
        f"{format_points(points)} {rank:4d}"
    )
    return (line + "".join(format_record(r, width) for r in player.rounds)).rstrip()


def id_width(tournament: Tournament) -> int:
    """The id width a TRF of this tournament needs: 4, or 7 (more if needed) when an id exceeds 9999."""
    digits = len(str(max((p.number for p in tournament.players), default=1)))
    return 4 if digits <= 4 else max(7, digits)


def _field_162(value: Points) -> str:
    """A value of record 162: dd.d in four columns; ValueError if it does not fit."""
    if (value * 10).denominator != 1 or not -10 < value < 100:
        raise ValueError(f"record 162 writes points as dd.d, from -9.9 to 99.9; cannot write {float(value):g}")
    return format_points(value)


def format_scoring_162(scoring: Scoring) -> str | None:
    """Record 162 for the values that differ from 1/½/0, or None if none does.

    Letters at columns 6, 15, 24, ..., each value right-aligned in the four columns after its letter. W, D, L
    when not 1, 0.5, 0; A (zero-point bye and forfeit loss) when either is not 0, with the zero-point bye's
    value (a different forfeit loss goes to XXS FL); P when the PAB's points are set.
    """
    default = Scoring()
    letters: list[tuple[str, Points]] = []
    if scoring.win != default.win:
        letters.append(("W", scoring.win))
    if scoring.draw != default.draw:
        letters.append(("D", scoring.draw))
    if scoring.loss != default.loss:
        letters.append(("L", scoring.loss))
    if scoring.zero_bye != default.zero_bye or scoring.forfeit_loss != default.forfeit_loss:
        letters.append(("A", scoring.zero_bye))
    if scoring.pab is not None:
        letters.append(("P", scoring.pab))
    if not letters:
        return None
    return "162  " + "    ".join(f"{letter}{_field_162(value)}" for letter, value in letters)


def _format_scoring(scoring: Scoring) -> list[str]:
    if scoring.is_default:
        return []
    record_162 = format_scoring_162(scoring)
    lines = [] if record_162 is None else [record_162]
    extra = {
        "HPB": scoring.half_bye,
        "FPB": scoring.full_bye,
        "FW": scoring.forfeit_win,
        "FL": scoring.forfeit_loss if scoring.forfeit_loss != scoring.zero_bye else None,
    }
    written = [f"{code}={format_points(v).strip()}" for code, v in extra.items() if v is not None]
    if written:
        lines.append("XXS " + " ".join(written))
    return lines


def dumps(tournament: Tournament) -> str:
    """Write a tournament as canonical TRF (LF line ends): header, engine records, players."""
    lines = list(tournament.header)
    if not any(line.startswith("012") for line in lines) and tournament.name:
        lines.insert(0, f"012 {tournament.name}")
    scoring = _format_scoring(tournament.scoring)
    lines.extend(line for line in scoring if line.startswith("162"))
    width = id_width(tournament)
    if width != 4:
        lines.append(f"XXW {width}")
    lines.extend(format_player(p, tournament.scoring, width) for p in tournament.players)
    lines.append(f"XXR {tournament.total_rounds}")
    if tournament.initial_colour is not None:
        lines.append(f"XXC {'white1' if tournament.initial_colour is Colour.WHITE else 'black1'}")
    lines.extend(line for line in scoring if line.startswith("XXS"))
    for pid in sorted(tournament.acceleration):
        values = tournament.acceleration[pid]
        lines.append(f"XXA {pid:4d}" + "".join(f" {format_points(v)}" for v in values))
    lines.extend("XXP " + " ".join(str(pid) for pid in sorted(group)) for group in tournament.forbidden)
    return "\n".join(lines) + "\n"


Encoding = Literal["utf-8", "latin-1", "windows-1252"]
ENCODINGS: tuple[Encoding, ...] = ("utf-8", "latin-1", "windows-1252")
_ENCODING_NAMES = {"utf-8": "UTF-8", "latin-1": "Latin-1", "windows-1252": "Windows-1252"}
_UTF8_BOM = b"\xef\xbb\xbf"
_LINE_BREAK = re.compile(rb"\r\n|\r|\n")


def _position(data: bytes, offset: int) -> tuple[int, int]:
    """The 1-based line (counted as `parse` counts them) and byte column of a byte offset."""
    breaks = list(_LINE_BREAK.finditer(data, 0, offset))
    start = breaks[-1].end() if breaks else 0
    return len(breaks) + 1, offset - start + 1


def decode(data: bytes) -> str:
    """A TRF file's text from its bytes: UTF-8 (a BOM is dropped), else Windows-1252, which reads Latin-1 too.

    A file that is not valid UTF-8 is read as Windows-1252: it gives every printable Latin-1 character the
    same byte, and adds characters such as € and ž at 0x80-0x9F, where Latin-1 has only control codes. A byte
    none of the three reads as text (0x81, 0x8D, 0x8F, 0x90, 0x9D; a NUL, as in UTF-16 files) or invalid
    UTF-8 after a UTF-8 BOM is a TrfError naming the line and column.
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise TrfError(1, "the file is UTF-16; save it as UTF-8, Windows-1252 or Latin-1")
    if data.startswith(_UTF8_BOM):
        body = data[len(_UTF8_BOM) :]
        try:
            return _no_nul(body, body.decode("utf-8"))
        except UnicodeDecodeError as error:
            line, column = _position(body, error.start)
            raise TrfError(
                line, f"column {column}: byte 0x{body[error.start]:02X} is not UTF-8, as the file's BOM says"
            ) from None
    try:
        return _no_nul(data, data.decode("utf-8"))
    except UnicodeDecodeError:
        pass
    try:
        return _no_nul(data, data.decode("windows-1252"))
    except UnicodeDecodeError as error:
        line, column = _position(data, error.start)
        raise TrfError(
            line, f"column {column}: byte 0x{data[error.start]:02X} is text in neither UTF-8, Windows-1252 nor Latin-1"
        ) from None


def _no_nul(data: bytes, text: str) -> str:
    offset = data.find(b"\x00")
    if offset >= 0:
        line, column = _position(data, offset)
        raise TrfError(line, f"column {column}: a NUL byte; the file is not text (UTF-16?)")
    return text


def encode(text: str, encoding: Encoding = "utf-8") -> bytes:
    """TRF text as bytes in UTF-8, Latin-1 or Windows-1252; a character the encoding lacks is a TrfError."""
    if encoding not in _ENCODING_NAMES:
        raise ValueError(f"unknown TRF encoding {encoding!r} (known: {', '.join(ENCODINGS)})")
    try:
        return text.encode(encoding)
    except UnicodeEncodeError as error:
        line_start = max(text.rfind("\n", 0, error.start), text.rfind("\r", 0, error.start)) + 1
        lineno = len(re.findall(r"\r\n|\r|\n", text[:line_start])) + 1
        line = re.split(r"\r\n|\r|\n", text[line_start:], maxsplit=1)[0]
        char = text[error.start]
        where = f"player {line[4:8].strip()}" if line.startswith("001") else f"record {line[:3]}"
        raise TrfError(
            lineno,
            f"{where}: {char!r} (U+{ord(char):04X}) cannot be written in {_ENCODING_NAMES[encoding]}; write UTF-8",
        ) from None


def dump_bytes(tournament: Tournament, encoding: Encoding = "utf-8") -> bytes:
    """The tournament as a TRF file's bytes (`dumps`, then `encode`)."""
    return encode(dumps(tournament), encoding)


def dumps_bbp(tournament: Tournament) -> str:
    """Write the form cyanfish's bbpPairings reads: points as BBW/BBD/BBL/BBZ/BBF/BBU lines, not records 162/XXS.

    Raise ValueError for a scoring that form cannot express (byes or forfeit wins worth other than the fork's
    fixed values: a half-point bye a draw, a full-point bye and a forfeit win a win).
    """
    sc = tournament.scoring
    if (sc.half_bye_points, sc.full_bye_points, sc.forfeit_win_points) != (sc.draw, sc.win, sc.win):
        raise ValueError("bbpPairings values half-point byes as draws and full-point byes and forfeit wins as wins")
    lines = [line for line in dumps(tournament).splitlines() if not line.startswith(("162", "XXS"))]
    default = Scoring()
    values = [("BBW", sc.win), ("BBD", sc.draw), ("BBL", sc.loss), ("BBZ", sc.zero_bye), ("BBF", sc.forfeit_loss)]
    if sc.pab_points != sc.win:
        values.append(("BBU", sc.pab_points))
    if sc != default:
        lines.extend(f"{tag} {format_points(value)}" for tag, value in values)
    return "\n".join(lines) + "\n"


def read(path: str) -> Tournament:
    """Read a TRF file (UTF-8, Windows-1252 or Latin-1, any line ends)."""
    with open(path, "rb") as handle:
        return parse(decode(handle.read()))
