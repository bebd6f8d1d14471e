"""Rendering within Discord's limits, on a 300-player event."""

from __future__ import annotations

import io
import re
from dataclasses import replace
from datetime import UTC, datetime
from fractions import Fraction

import pytest
from PIL import Image

from bot.demo.console import format_round
from bot.director.models import BoardView, ByeView, Crosstable, PlayerRef, RoundView, StandingRow, shown_bye
from bot.rendering import image, text
from domain.entry import EntryStatus
from domain.event import Event, EventStatus
from domain.result import Result
from domain.rounds import RoundStatus
from domain.settings import EventSettings
from pairing.model import RecordKind

PLAYERS = 300
ROUNDS = 11
RESULTS = list(Result)


def _player(number: int) -> PlayerRef:
    # Lichess names are at most 20 characters; Discord ids are 18-19 digits (the widest case).
    name = f"player_{number:03d}_{'x' * 9}"[:20]
    return PlayerRef(number, name, 900_000_000_000_000_000 + number, 1000 + 3 * number)


def _event(current_round: int = 5) -> Event:
    settings = EventSettings(name="Club Championship " + "Spring " * 3, rounds=ROUNDS)
    placed = replace(settings, guild_id=10, channel_id=20)
    return Event(1, placed, EventStatus.RUNNING, 0, datetime(2026, 3, 1, tzinfo=UTC), current_round=current_round)


def _round(players: int = PLAYERS, decided: bool = False) -> RoundView:
    boards = []
    for index in range(players // 2):
        result = RESULTS[index % len(RESULTS)] if decided or index % 3 else None
        white, black = _player(2 * index + 1), _player(2 * index + 2)
        url = f"https://lichess.org/{index:08d}"
        boards.append(BoardView(index + 1, white, black, f"{index:08d}", url, result, "no-show" if index == 7 else ""))
    byes = (ByeView(_player(players + 1), RecordKind.PAB),) if players % 2 else ()
    return RoundView(1, 5, RoundStatus.PLAYING, None, tuple(boards), byes)


def _standings(players: int = PLAYERS) -> list[StandingRow]:
    rows = []
    for number in range(1, players + 1):
        tiebreaks = {code: Fraction(number * 7 % 97, 4) for code in _event().settings.tiebreaks}
        status = EntryStatus.WITHDRAWN if number == 17 else EntryStatus.ACTIVE
        rows.append(StandingRow(number, _player(number), Fraction((players - number) % 19, 2), tiebreaks, status))
    return rows


def _crosstable(players: int = PLAYERS) -> Crosstable:
    rows = []
    for number in range(1, players + 1):
        cells = tuple(f"{(number + r) % players + 1}{'wb'[r % 2]}{'10='[r % 3]}" for r in range(ROUNDS))
        rows.append((_player(number), cells, Fraction(number % 23, 2)))
    return Crosstable(ROUNDS, tuple(rows))


def _assert_message_limits(pages: list[text.MessagePage]) -> None:
    for page in pages:
        assert len(page.content) <= text.MESSAGE_LIMIT
        assert 1 <= len(page.embeds) <= text.EMBEDS_PER_MESSAGE
        assert sum(embed.size for embed in page.embeds) <= text.EMBED_TOTAL_LIMIT
        for embed in page.embeds:
            assert len(embed.title) <= text.EMBED_TITLE_LIMIT
            assert len(embed.description) <= text.EMBED_DESCRIPTION_LIMIT
            assert len(embed.footer) <= text.EMBED_FOOTER_LIMIT


def test_300_player_round_fits_and_keeps_every_board_and_link() -> None:
    round = _round()
    pages = text.round_messages(_event(), round)
    _assert_message_limits(pages)
    assert len(pages) > 1  # 150 boards with mentions and links cannot fit one message
    lines = [line for page in pages for embed in page.embeds for line in embed.description.splitlines()]
    assert len(lines) == len(round.boards)
    numbers = [int(re.match(r"`\s*(\d+)`", line).group(1)) for line in lines]  # type: ignore[union-attr]
    assert numbers == list(range(1, len(round.boards) + 1))
    for board, line in zip(round.boards, lines, strict=True):
        assert f"[game]({board.url})" in line
        assert f"<@{board.white.discord_id}>" in line and f"<@{board.black.discord_id}>" in line
        assert (text.RESULT_LABELS[board.result] if board.result else "…") in line
    assert "no-show" in lines[7]


def test_round_title_counts_results_and_says_complete() -> None:
    event = _event()
    assert text.round_title(event, _round(10)).endswith("(3/5 results)")
    decided = _round(10, decided=True)
    assert text.round_title(event, decided).endswith("(complete)")
    assert text.round_messages(event, decided)[0].embeds[0].footer == "All results are in."


def test_odd_round_shows_the_bye_and_names_without_mentions() -> None:
    round = _round(7)
    lines = text.round_lines(round, mention=False)
    assert lines[-1] == "`  -` player\\_008\\_xxxxxxxxx (1024) bye (1)"
    assert "<@" not in "".join(lines)


def test_a_round_lists_the_pairing_bye_and_half_point_byes_only() -> None:
    assert {kind: shown_bye(kind) for kind in RecordKind} == {
        kind: kind if kind in (RecordKind.PAB, RecordKind.HALF_BYE) else None for kind in RecordKind
    }
    half = replace(_round(7), byes=(ByeView(_player(9), RecordKind.HALF_BYE),))
    assert text.round_lines(half, mention=False)[-1].endswith(" bye (½)")
    assert format_round(half)[-1].split() == ["player_009_xxxxxxxxx", "bye", "(½)"]


def test_mentions_of_300_players_are_split_within_2000_characters() -> None:
    round = _round(301)
    ids = text.round_players(round)
    assert len(ids) == 301
    pages = text.mention_messages("Round 5 is paired:", ids)
    assert all(len(page) <= text.MESSAGE_LIMIT for page in pages)
    assert pages[0].startswith("Round 5 is paired:")
    found = [int(m) for page in pages for m in re.findall(r"<@(\d+)>", page)]
    assert found == ids


def test_each_ping_message_names_at_most_100_users_and_never_a_mention_in_its_prefix() -> None:
    ids = list(range(1, 400))  # short ids: 2000 characters would hold more than Discord lets a message name
    pages = text.mention_pages("Round 5 of **<@999999>** is paired:", ids)
    assert all(len(users) <= text.MAX_PINGS and len(content) <= text.MESSAGE_LIMIT for content, users in pages)
    assert [u for _, users in pages for u in users] == ids and 999999 not in {u for _, us in pages for u in us}
    for content, users in pages:
        assert [int(m) for m in re.findall(r"<@(\d+)>", content) if int(m) != 999999] == users


def test_300_player_standings_embeds_fit_and_keep_every_player() -> None:
    rows = _standings()
    pages = text.standings_embeds(_event(), rows, final=False)
    _assert_message_limits(pages)
    descriptions = [embed.description for page in pages for embed in page.embeds]
    for description in descriptions:
        assert description.count("```") % 2 == 0  # no code block cut in half
    body = "\n".join(descriptions)
    for row in rows:
        assert row.player.name in body
    assert "player_017_xxxxxxxxx (wd)" in body
    assert pages[0].embeds[0].title.endswith("standings after round 5")
    assert pages[0].embeds[0].footer.startswith("Tie-breaks: BH/C1")


def test_standings_code_pages_fit_a_message_and_repeat_the_header() -> None:
    lines = text.standings_lines(_standings(), _event().settings.tiebreaks)
    pages = text.code_pages(lines, text.MESSAGE_LIMIT, prefix="**Standings**")
    assert len(pages) > 5
    assert pages[0].startswith("**Standings**\n```\n")
    for page in pages:
        assert len(page) <= text.MESSAGE_LIMIT
        assert page.count("```") == 2
        assert page.split("\n")[1 if page is pages[0] else 0] == "```"
        assert lines[0] in page and lines[1] in page
    body_lines = [line for page in pages for line in page.splitlines()[2:] if line not in lines[:2]]
    assert [line for line in body_lines if line != "```" and not line.startswith("```")] == lines[2:]


def test_standings_table_columns() -> None:
    rows = _standings(3)
    lines = text.standings_lines(rows, ("BH", "SB"))
    assert lines[0].split() == ["#", "Player", "Rtg", "Pts", "BH", "SB"]
    assert set(lines[1]) == {"-"}
    assert lines[2].split() == ["1", "player_001_xxxxxxxxx", "1003", "1", "1.75", "1.75"]
    assert lines[3].split()[3] == "½"
    widths = {len(line) for line in lines[2:]}
    assert len(widths) == 1  # aligned


def test_300_player_crosstable_pages_fit_and_keep_every_row() -> None:
    table = _crosstable()
    lines = text.crosstable_lines(table)
    assert lines[0].split()[:3] == ["No", "Player", "R1"] and lines[0].split()[-1] == "Pts"
    pages = text.code_pages(lines)
    assert all(len(page) <= text.MESSAGE_LIMIT for page in pages)
    joined = "\n".join(pages)
    for player, _, _ in table.rows:
        assert player.name in joined


@pytest.mark.parametrize(
    ("points", "shown"),
    [(Fraction(0), "0"), (Fraction(1, 2), "½"), (Fraction(3), "3"), (Fraction(7, 2), "3½"), (Fraction(5, 4), "1.25")],
)
def test_format_points(points: Fraction, shown: str) -> None:
    assert text.format_points(points) == shown


def test_an_overlong_line_is_clipped_not_dropped() -> None:
    chunks = text.pack_lines(["a" * 5000, "b"], 4096)
    assert chunks == ["a" * 4095 + "…", "b"]
    assert text.pack_lines([], 10) == [""]


def test_markdown_in_names_is_escaped() -> None:
    assert text.escape_markdown("a_b*c") == "a\\_b\\*c"


def _png(data: bytes) -> Image.Image:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    picture = Image.open(io.BytesIO(data))
    picture.load()
    return picture


@pytest.mark.slow
def test_standings_png_of_300_players_is_a_valid_image_under_discords_upload_limit() -> None:
    event = _event()
    small = _png(image.standings_png(event, _standings(10), final=False))
    data = image.standings_png(event, _standings(), final=True)
    big = _png(data)
    assert len(data) < 10 * 1024 * 1024
    assert big.height > small.height * 10  # one row per player
    assert big.width >= small.width
    # Something is drawn: the image is not one flat colour.
    assert len(big.convert("L").getcolors(maxcolors=256) or []) > 2


def test_crosstable_png_has_a_column_per_round() -> None:
    event = _event()
    three_rounds = Crosstable(3, tuple((p, cells[:3], pts) for p, cells, pts in _crosstable(20).rows))
    narrow = _png(image.crosstable_png(event, three_rounds))
    wide = _png(image.crosstable_png(event, _crosstable(20)))
    assert wide.width > narrow.width
    assert wide.height == narrow.height


def test_image_text_avoids_glyphs_the_builtin_font_lacks() -> None:
    assert image._drawable("3½ — ½ …") == "3.5 - 0.5 ..."


def test_the_console_and_standings_txt_show_the_discord_table_with_exact_values() -> None:
    from bot.demo.console import format_standings

    codes = ("BH", "ARO/C1")
    rows = [
        StandingRow(1, _player(1), Fraction(5, 2), {"BH": Fraction(7, 2), "ARO/C1": Fraction(1712)}),
        StandingRow(2, _player(2), Fraction(2), {"BH": Fraction(3), "ARO/C1": Fraction(3425, 2)}),
    ]
    lines = format_standings(rows, codes)
    assert lines == text.standings_lines(rows, codes)
    assert format_standings(rows) == lines  # the rows' own tie-breaks when none are named
    assert lines[2].split()[-3:] == ["2½", "3.5", "1712"]
    assert lines[3].split()[-3:] == ["2", "3.0", "1712.5"]
