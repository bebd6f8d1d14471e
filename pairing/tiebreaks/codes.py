"""Tie-break codes of FIDE C.07 in the TRF26 grammar (`BH/C1`, `SB`, `KS/L+1`, `DE/P`, ...)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

DEFAULT_TIEBREAKS: tuple[str, ...] = ("BH/C1", "BH", "SB", "DE", "WIN", "BWG", "ARO/C1")
"""The order this project ships for open Swiss events (fide-swiss.md §5.5)."""

_CUT = "cut"
_LIMIT = "limit"
_FORFEITS = "forfeits"
_FORE = "fore"

# name -> (description, modifiers it accepts)
TIEBREAK_NAMES: dict[str, tuple[str, frozenset[str]]] = {
    "BH": ("Buchholz", frozenset({_CUT, _FORFEITS, _FORE})),
    "FB": ("Fore Buchholz", frozenset({_CUT, _FORFEITS})),
    "SB": ("Sonneborn-Berger", frozenset({_CUT, _FORFEITS, _FORE})),
    "AOB": ("average of opponents' Buchholz", frozenset({_FORE})),
    "PS": ("progressive score", frozenset({_CUT})),
    "DE": ("direct encounter", frozenset({_FORFEITS})),
    "WIN": ("rounds won, with or without playing", frozenset()),
    "WON": ("games won over the board", frozenset()),
    "BPG": ("games played with Black", frozenset()),
    "BWG": ("games won with Black", frozenset()),
    "REP": ("rounds elected to play", frozenset()),
    "STD": ("standard points", frozenset()),
    "TPN": ("starting number, lower first", frozenset()),
    "RTNG": ("rating", frozenset()),
    "ARO": ("average rating of opponents", frozenset({_CUT})),
    "TPR": ("tournament performance rating", frozenset()),
    "PTP": ("perfect tournament performance", frozenset()),
    "APRO": ("average performance rating of opponents", frozenset()),
    "APPO": ("average perfect performance of opponents", frozenset()),
    "KS": ("Koya system", frozenset({_LIMIT, _FORFEITS})),
}
_ALIASES = {"GE": "REP", "BUCHHOLZ": "BH", "SONNEBORN-BERGER": "SB", "SONNEBORNBERGER": "SB"}
KNOWN_TIEBREAKS: tuple[str, ...] = tuple(TIEBREAK_NAMES)
"""Every tie-break name this module computes."""

SCORE_LIKE = frozenset({"BH", "FB", "SB", "AOB", "PS", "DE", "KS", "STD"})
"""Tie-breaks whose values are points (displayed with decimals)."""


class UnknownTiebreak(ValueError):
    """A tie-break code that is not known or has a modifier its tie-break does not take."""

    def __init__(self, code: str, reason: str = "") -> None:
        self.code = code
        self.known = KNOWN_TIEBREAKS
        why = reason or "unknown tie-break"
        super().__init__(
            f"{why}: {code!r}. Known tie-breaks: {', '.join(KNOWN_TIEBREAKS)}; "
            "modifiers /C1 /C2 /M1 /M2 (BH, FB, SB, ARO, PS), /L+n or /L-n (KS), /P (BH, FB, SB, DE, KS), "
            "/F (BH, SB, AOB); example: BH/C1,BH,SB,DE"
        )


@dataclass(frozen=True)
class TiebreakSpec:
    """A parsed tie-break code: the tie-break and its modifiers."""

    name: str
    low: int = 0
    """How many least significant values are dropped (Cut-n, Median-n)."""
    high: int = 0
    """How many most significant values are dropped (Median-n)."""
    limit: int = 0
    """Koya limit shift, in half points."""
    forfeits_played: bool = False
    """/P: forfeits count as games against the scheduled opponent."""
    fore: bool = False
    """/F: computed as if every paired game of the last round were a draw."""

    @cached_property
    def code(self) -> str:
        """The canonical code, e.g. `BH/C1` (made once: the calculator reads it for every value)."""
        parts = [self.name]
        if self.high:
            parts.append(f"M{self.high}")
        elif self.low:
            parts.append(f"C{self.low}")
        if self.limit:
            parts.append(f"L{self.limit:+d}")
        if self.forfeits_played:
            parts.append("P")
        if self.fore:
            parts.append("F")
        return "/".join(parts)

    @property
    def higher_is_better(self) -> bool:
        """False only for TPN (a lower starting number ranks first)."""
        return self.name != "TPN"


_MODIFIER = re.compile(r"(?P<cut>[CM])(?P<n>[12])|L(?P<limit>[+-]?\d{1,2})|(?P<flag>[PF])")


def parse_tiebreak(code: str) -> TiebreakSpec:
    """Parse one code (case-insensitive; `BH-C1` is read as `BH/C1`)."""
    text = code.strip().upper().replace(" ", "")
    if not text:
        raise UnknownTiebreak(code, "empty tie-break code")
    if ":" in text:
        raise UnknownTiebreak(code, "team qualifiers :MP and :GP are not supported")
    parts = text.split("/")
    if len(parts) == 1 and "-" in text and text not in _ALIASES:
        parts = text.split("-", 1)
    name = _ALIASES.get(parts[0], parts[0])
    entry = TIEBREAK_NAMES.get(name)
    if entry is None:
        raise UnknownTiebreak(code)
    allowed = entry[1]
    fields: dict[str, int | bool] = {}
    for part in parts[1:]:
        match = _MODIFIER.fullmatch(part)
        if match is None:
            raise UnknownTiebreak(code, f"unknown modifier /{part}")
        if match["cut"]:
            kind, key = _CUT, "cut"
        elif match["limit"] is not None:
            kind, key = _LIMIT, "limit"
        else:
            kind, key = (_FORFEITS, "P") if match["flag"] == "P" else (_FORE, "F")
        if kind not in allowed:
            raise UnknownTiebreak(code, f"{name} does not take the modifier /{part}")
        if key in fields:
            raise UnknownTiebreak(code, f"modifier /{part} repeats a modifier")
        if key == "cut":
            n = int(match["n"])
            fields["cut"] = True
            fields["low"] = n
            fields["high"] = n if match["cut"] == "M" else 0
        elif key == "limit":
            fields["limit"] = int(match["limit"])
        elif key == "P":
            fields["P"] = True
        else:
            fields["F"] = True
    return TiebreakSpec(
        name=name,
        low=int(fields.get("low", 0)),
        high=int(fields.get("high", 0)),
        limit=int(fields.get("limit", 0)),
        forfeits_played=bool(fields.get("P", False)),
        fore=bool(fields.get("F", False)),
    )


def parse_tiebreaks(text: str | Iterable[str]) -> tuple[str, ...]:
    """Canonical codes of a comma-separated list (or of a sequence of codes); raise UnknownTiebreak."""
    items = text.split(",") if isinstance(text, str) else list(text)
    codes = [item for item in (i.strip() for i in items) if item]
    if codes and codes[0].upper() == "PTS":
        codes = codes[1:]  # TRF26 record 212 starts with the points
    return tuple(parse_tiebreak(c).code for c in codes)
