"""Standings and crosstables as PNG images (Pillow's built-in font: no font file needed)."""

from __future__ import annotations

import io
import re
from collections.abc import Sequence

from PIL import Image, ImageDraw, ImageFont

from bot.director.models import Crosstable, StandingRow
from bot.rendering.text import crosstable_table, legend, standings_table, standings_title
from domain.event import Event

FONT_SIZE = 15
TITLE_SIZE = 20
PADDING = 16
CELL_GAP = 14
ROW_GAP = 6
BACKGROUND = (255, 255, 255)
INK = (30, 30, 30)
MUTED = (110, 110, 110)
STRIPE = (242, 244, 247)
RULE = (190, 190, 190)


def table_png(
    title: str, header: Sequence[str], rows: Sequence[Sequence[str]], *, note: str = "", left: Sequence[int] = (1,)
) -> bytes:
    """A table as a PNG: a title, a header row, striped rows; columns in `left` are left-aligned."""
    title, note = _drawable(title), _drawable(note)
    header = [_drawable(cell) for cell in header]
    rows = [[_drawable(cell) for cell in row] for row in rows]
    font = ImageFont.load_default(size=FONT_SIZE)
    bold = ImageFont.load_default(size=TITLE_SIZE)
    columns = len(header)
    widths = [0] * columns
    for row in [header, *rows]:
        for index, cell in enumerate(row):
            widths[index] = max(widths[index], int(font.getlength(cell)) + 1)
    row_height = _line_height(font) + ROW_GAP
    title_height = _line_height(bold) + ROW_GAP * 2
    note_height = row_height if note else 0
    table_width = sum(widths) + CELL_GAP * (columns - 1)
    width = max(table_width, int(bold.getlength(title)), int(font.getlength(note))) + 2 * PADDING
    height = PADDING * 2 + title_height + row_height * (len(rows) + 1) + note_height
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.text((PADDING, PADDING), title, font=bold, fill=INK)
    top = PADDING + title_height
    for index, row in enumerate([header, *rows]):
        y = top + index * row_height
        if index > 0 and index % 2 == 0:
            draw.rectangle(
                (PADDING // 2, y - ROW_GAP // 2, width - PADDING // 2, y + row_height - ROW_GAP // 2), fill=STRIPE
            )
        x = PADDING
        for column, cell in enumerate(row):
            offset = 0 if column in left else widths[column] - int(font.getlength(cell))
            draw.text((x + offset, y), cell, font=font, fill=MUTED if index == 0 else INK)
            x += widths[column] + CELL_GAP
        if index == 0:
            draw.line(
                (PADDING, y + row_height - ROW_GAP // 2, width - PADDING, y + row_height - ROW_GAP // 2), fill=RULE
            )
    if note:
        draw.text((PADDING, top + row_height * (len(rows) + 1)), note, font=font, fill=MUTED)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def _drawable(text: str) -> str:
    """Text the built-in font can draw (it has no ½ and no dashes beyond ASCII)."""
    text = re.sub(r"(\d)½", r"\1.5", text).replace("½", "0.5")
    return text.replace("—", "-").replace("\u2013", "-").replace("…", "...")


def _line_height(font: ImageFont.FreeTypeFont | ImageFont.ImageFont) -> int:
    """The height of a line of text, descenders included."""
    return int(font.getbbox("ÁÉgjpqy|")[3]) + 2


def standings_png(event: Event, rows: Sequence[StandingRow], *, final: bool) -> bytes:
    """The standings of an event as a PNG."""
    header, cells = standings_table(rows, event.settings.tiebreaks)
    return table_png(standings_title(event, final=final), header, cells, note=legend(event.settings.tiebreaks))


def crosstable_png(event: Event, table: Crosstable) -> bytes:
    """The crosstable of an event as a PNG."""
    header, cells = crosstable_table(table)
    return table_png(f"{event.name} — crosstable", header, cells)
