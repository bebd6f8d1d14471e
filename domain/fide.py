"""FIDE-rated events: a member's FIDE profile and the TRF header an arbiter's report needs, with their rules."""

from __future__ import annotations

import re
from dataclasses import dataclass

FIDE_ID = re.compile(r"[1-9][0-9]{0,10}")  # FIDE ids are whole numbers; TRF's field holds 11 digits
FEDERATION = re.compile(r"[A-Z]{3}")  # FIDE's three-letter federation codes
TITLES = ("GM", "IM", "WGM", "FM", "WIM", "CM", "WFM", "WCM")  # the TRF 001 record's titles
RATING_TYPES = ("standard", "rapid", "blitz")  # FIDE's rating lists
FIRST_BIRTH_YEAR = 1900
LAST_BIRTH_YEAR = 2100


@dataclass(frozen=True)
class FideProfile:
    """What a FIDE-rated event's report needs of a player (each part optional)."""

    fide_id: str | None = None
    federation: str | None = None
    title: str | None = None
    birth_year: int | None = None

    def problems(self) -> list[str]:
        """Every reason the profile cannot be recorded, one sentence each."""
        problems = []
        if self.fide_id is not None and FIDE_ID.fullmatch(self.fide_id) is None:
            problems.append(f"'{self.fide_id[:20]}' is not a FIDE id (a whole number of at most 11 digits)")
        if self.federation is not None and FEDERATION.fullmatch(self.federation) is None:
            problems.append(f"'{self.federation[:20]}' is not a federation code (three capital letters, e.g. NED)")
        if self.title is not None and self.title not in TITLES:
            problems.append(f"'{self.title[:20]}' is not a FIDE title ({', '.join(TITLES)})")
        if self.birth_year is not None and not FIRST_BIRTH_YEAR <= self.birth_year <= LAST_BIRTH_YEAR:
            problems.append(f"the birth year {self.birth_year} is not between {FIRST_BIRTH_YEAR} and {LAST_BIRTH_YEAR}")
        return problems


def normalised_profile(
    fide_id: str | None, federation: str | None, title: str | None, birth_year: int | None
) -> FideProfile:
    """A profile as typed: blanks are none, federation and title in capitals."""

    def clean(text: str | None, upper: bool = False) -> str | None:
        value = (text or "").strip()
        return (value.upper() if upper else value) or None

    return FideProfile(clean(fide_id), clean(federation, True), clean(title, True), birth_year)


@dataclass(frozen=True)
class TrfHeader:
    """The TRF header records an arbiter's report needs beyond what the event knows (022, 032, 102, 112, 122) and
    the FIDE rating list it is rated for (None: the event is not FIDE-rated)."""

    city: str = ""
    federation: str = ""
    chief_arbiter: str = ""
    deputy_arbiters: tuple[str, ...] = ()
    time_control: str = ""  # as text, e.g. "3 minutes + 2 seconds per move"
    rating_type: str | None = None

    @property
    def fide_rated(self) -> bool:
        """The event is rated by FIDE."""
        return self.rating_type is not None

    def problems(self) -> list[str]:
        """Every reason the header cannot be recorded, one sentence each."""
        problems = []
        if self.federation and FEDERATION.fullmatch(self.federation) is None:
            problems.append(f"'{self.federation[:20]}' is not a federation code (three capital letters, e.g. NED)")
        if self.rating_type is not None and self.rating_type not in RATING_TYPES:
            problems.append(f"the rating type is one of {', '.join(RATING_TYPES)}")
        texts = (self.city, self.chief_arbiter, *self.deputy_arbiters, self.time_control)
        if any(len(text) > 80 or "\n" in text or "\r" in text for text in texts):
            problems.append("a TRF header field is one line of at most 80 characters")
        return problems

    def as_json(self) -> dict[str, object]:
        """The header as stored (JSON object)."""
        return {
            "city": self.city,
            "federation": self.federation,
            "chief_arbiter": self.chief_arbiter,
            "deputy_arbiters": list(self.deputy_arbiters),
            "time_control": self.time_control,
            "rating_type": self.rating_type,
        }

    @staticmethod
    def from_json(data: dict[str, object]) -> TrfHeader:
        """The header from its stored JSON object (missing keys: empty)."""
        deputies = data.get("deputy_arbiters") or []
        rating = data.get("rating_type")
        return TrfHeader(
            city=str(data.get("city") or ""),
            federation=str(data.get("federation") or ""),
            chief_arbiter=str(data.get("chief_arbiter") or ""),
            deputy_arbiters=tuple(str(d) for d in deputies) if isinstance(deputies, list) else (),
            time_control=str(data.get("time_control") or ""),
            rating_type=None if rating is None else str(rating),
        )
