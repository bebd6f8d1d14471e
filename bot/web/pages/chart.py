"""A small SVG line chart of the leaders' scores round by round, drawn on the server (no script, no fonts)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from html import escape

WIDTH, HEIGHT = 480, 220
LEFT, RIGHT, TOP, BOTTOM = 36, 120, 12, 28
COLOURS = ("#1b6ac9", "#c0392b", "#27ae60", "#8e44ad", "#d35400")


@dataclass(frozen=True)
class Series:
    """One player's score after each round (index 0: after round 1)."""

    label: str
    scores: tuple[Fraction, ...]


def score_chart(series: Sequence[Series], rounds: int, title: str = "Leaders' scores by round") -> str:
    """An accessible inline SVG: one polyline per player, rounds on x, points on y, the labels at the right."""
    top = max((max(s.scores, default=Fraction(0)) for s in series), default=Fraction(0))
    ymax = max(float(top), 1.0)
    span_x = WIDTH - LEFT - RIGHT
    span_y = HEIGHT - TOP - BOTTOM

    def x(round_index: int) -> float:
        return LEFT + (span_x * round_index / rounds if rounds else 0)

    def y(points: Fraction) -> float:
        return TOP + span_y * (1 - float(points) / ymax)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" class="chart" '
        f'aria-labelledby="chart-title"><title id="chart-title">{escape(title)}</title>',
        f'<line x1="{LEFT}" y1="{TOP + span_y}" x2="{LEFT + span_x}" y2="{TOP + span_y}" stroke="#888"/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + span_y}" stroke="#888"/>',
        f'<text x="{LEFT - 6}" y="{TOP + 4}" text-anchor="end" font-size="11">{ymax:g}</text>',
        f'<text x="{LEFT - 6}" y="{TOP + span_y + 4}" text-anchor="end" font-size="11">0</text>',
    ]
    for r in range(1, rounds + 1):
        parts.append(f'<text x="{x(r):.1f}" y="{HEIGHT - 8}" text-anchor="middle" font-size="11">R{r}</text>')
    for index, item in enumerate(series):
        colour = COLOURS[index % len(COLOURS)]
        points = [(x(0), y(Fraction(0)))] + [(x(r), y(s)) for r, s in enumerate(item.scores, start=1)]
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{path}"/>')
        last_x, last_y = points[-1]
        label = escape(item.label)
        parts.append(f'<text x="{last_x + 6:.1f}" y="{last_y + 4:.1f}" font-size="11" fill="{colour}">{label}</text>')
    parts.append("</svg>")
    return "".join(parts)
