"""The two tables of the FIDE Rating Regulations (8.1a and 8.1b) that rating tie-breaks use."""

from __future__ import annotations

import bisect
from fractions import Fraction

# 8.1a: fractional score p (in hundredths, 50..100) -> rating difference dp.
_DP_FROM_HALF = (
    0, 7, 14, 21, 29, 36, 43, 50, 57, 65, 72, 80, 87, 95, 102, 110, 117, 125, 133, 141, 149, 158, 166, 175, 184,
    193, 202, 211, 220, 230, 240, 251, 262, 273, 284, 296, 309, 322, 336, 351, 366, 383, 401, 422, 444, 470, 501,
    538, 589, 677, 800,
)  # fmt: skip

# 8.1b: upper bounds of the rating difference for the expected score of the higher-rated player,
# 0.50, 0.51, ..., 0.99; a difference above the last bound expects 1.00.
_PD_UPPER = (
    3, 10, 17, 25, 32, 39, 46, 53, 61, 68, 76, 83, 91, 98, 106, 113, 121, 129, 137, 145, 153, 162, 170, 179, 188,
    197, 206, 215, 225, 235, 245, 256, 267, 278, 290, 302, 315, 328, 344, 357, 374, 391, 411, 432, 456, 484, 517,
    559, 619, 735,
)  # fmt: skip


def dp(p: Fraction) -> int:
    """Rating difference for a fractional score p (0..1), p rounded to hundredths half up (table 8.1a)."""
    hundredths = int(p * 100 + Fraction(1, 2))
    hundredths = min(100, max(0, hundredths))
    if hundredths >= 50:
        return _DP_FROM_HALF[hundredths - 50]
    return -_DP_FROM_HALF[50 - hundredths]


def expected(difference: int) -> Fraction:
    """Expected score against an opponent rated `difference` points lower (table 8.1b, no 400 cut)."""
    if difference < 0:
        return 1 - expected(-difference)
    step = bisect.bisect_left(_PD_UPPER, difference)
    return Fraction(50 + step, 100)
