"""Pairings, results, standings and crosstables as text that fits Discord's limits (no discord import)."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from bot.director.models import BoardView, Crosstable, PlayerRef, RoundView, ShownBye, StandingRow
from domain.entry import EntryStatus
from domain.event import Event
from domain.result import Result
from pairing.model import RecordKind
from pairing.standings.ranking import format_value, text_table
from pairing.tiebreaks.codes import SCORE_LIKE, UnknownTiebreak, parse_tiebreak

MESSAGE_LIMIT = 2000
EMBED_TITLE_LIMIT = 256
EMBED_DESCRIPTION_LIMIT = 4096
EMBED_FIELD_VALUE_LIMIT = 1024
EMBED_FOOTER_LIMIT = 2048
EMBED_TOTAL_LIMIT = 6000
EMBEDS_PER_MESSAGE = 10
NAME_WIDTH = 20
CODE_OPEN = "```\n"
CODE_CLOSE = "```"
ELLIPSIS = "…"

BYE_LABELS: dict[ShownBye, str] = {RecordKind.PAB: "bye (1)", RecordKind.HALF_BYE: "bye (½)"}
STATUS_MARKS = {"withdrawn": "wd", "absent": "abs", "banned": "rm", "disqualified": "dq"}
RESULT_LABELS = {
    Result.WHITE_WINS: "1-0",
    Result.BLACK_WINS: "0-1",
    Result.DRAW: "½-½",
    Result.WHITE_WINS_FORFEIT: "+ -",
    Result.BLACK_WINS_FORFEIT: "- +",
    Result.DOUBLE_FORFEIT: "- -",
}


@dataclass(frozen=True)
class EmbedPage:
    """The text of one embed: a title, a description and a footer, each within its limit."""

    title: str
    description: str
    footer: str = ""

    @property
    def size(self) -> int:
        """The characters Discord counts towards the 6000 per message."""
        return len(self.title) + len(self.description) + len(self.footer)


@dataclass(frozen=True)
class MessagePage:
    """One Discord message: content (≤2000) and up to 10 embeds (≤6000 together)."""

    content: str = ""
    embeds: tuple[EmbedPage, ...] = ()


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, with an ellipsis when cut."""
    return text if len(text) <= limit else text[: max(0, limit - 1)] + ELLIPSIS


def format_points(points: Fraction) -> str:
    """Points as chess players write them: 3, 3½, ½."""
    whole, rest = divmod(points, 1)
    if rest == 0:
        return str(int(whole))
    if rest == Fraction(1, 2):
        return f"{int(whole)}½" if whole else "½"
    return f"{float(points):g}"


def format_tiebreak(code: str, value: Fraction) -> str:
    """A tie-break value by pairing's rule: exact decimals, one at least for the score-like ones (BH, SB, ...)."""
    return format_value(value, _decimals(code))


@functools.cache
def _decimals(code: str) -> int:
    """The least decimals a tie-break is shown with (a code is parsed once, not once a value)."""
    try:
        return 1 if parse_tiebreak(code).name in SCORE_LIKE else 0
    except UnknownTiebreak:
        return 0


def player_label(player: PlayerRef, *, mention: bool) -> str:
    """A player in an embed line: a mention when asked and known, else the name and rating."""
    if mention and player.discord_id:
        return f"<@{player.discord_id}>"
    return f"{escape_markdown(player.name)} ({player.rating})" if player.rating else escape_markdown(player.name)


def escape_markdown(text: str) -> str:
    """Text shown as is in Discord markdown (Lichess names may hold underscores)."""
    for char in ("\\", "*", "_", "~", "`", "|", ">", "[", "]"):
        text = text.replace(char, "\\" + char)
    return text


def result_label(board: BoardView) -> str:
    """A board's result, or an ellipsis while the game is on."""
    return RESULT_LABELS[board.result] if board.result else "…"


def board_line(board: BoardView, *, mention: bool = True) -> str:
    """One board as an embed line: number, white, result, black, the game link."""
    white = player_label(board.white, mention=mention)
    black = player_label(board.black, mention=mention)
    link = f" · [game]({board.url})" if board.url else ""
    detail = f" · {escape_markdown(board.detail)}" if board.detail else ""
    return f"`{board.number:>3}` {white} **{result_label(board)}** {black}{link}{detail}"


def bye_line(player: PlayerRef, kind: ShownBye, *, mention: bool = True) -> str:
    """A player without a game this round."""
    return f"`  -` {player_label(player, mention=mention)} {BYE_LABELS[kind]}"


def round_lines(round: RoundView, *, mention: bool = True) -> list[str]:
    """Every board of a round, then its byes, one line each."""
    lines = [board_line(board, mention=mention) for board in round.boards]
    lines += [bye_line(bye.player, bye.kind, mention=mention) for bye in round.byes]
    return lines


def round_title(event: Event, round: RoundView) -> str:
    """The title of a round's message."""
    done = sum(1 for board in round.boards if board.result is not None)
    state = "complete" if round.decided else f"{done}/{len(round.boards)} results"
    return clip(f"{event.name} — {event.round_name(round.number)} ({state})", EMBED_TITLE_LIMIT)


def pack_lines(lines: Sequence[str], limit: int) -> list[str]:
    """Join lines into chunks of at most `limit` characters; a line longer than that is clipped."""
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    for raw in lines:
        line = clip(raw, limit)
        extra = len(line) + (1 if current else 0)
        if current and size + extra > limit:
            chunks.append("\n".join(current))
            current, size = [], 0
            extra = len(line)
        current.append(line)
        size += extra
    if current or not chunks:
        chunks.append("\n".join(current))
    return chunks


def embed_messages(title: str, lines: Sequence[str], footer: str = "") -> list[MessagePage]:
    """Lines spread over embeds (≤4096 each) and messages (≤6000 and ≤10 embeds each)."""
    title = clip(title, EMBED_TITLE_LIMIT)
    footer = clip(footer, EMBED_FOOTER_LIMIT)
    chunks = pack_lines(lines, description_limit(title, footer))
    messages: list[MessagePage] = []
    embeds: list[EmbedPage] = []
    total = 0
    for index, chunk in enumerate(chunks):
        page_title = title if index == 0 else clip(f"{title} (continued)", EMBED_TITLE_LIMIT)
        embed = EmbedPage(page_title, chunk, footer)
        if embeds and (total + embed.size > EMBED_TOTAL_LIMIT or len(embeds) == EMBEDS_PER_MESSAGE):
            messages.append(MessagePage(embeds=tuple(embeds)))
            embeds, total = [], 0
        embeds.append(embed)
        total += embed.size
    messages.append(MessagePage(embeds=tuple(embeds)))
    return messages


def round_messages(event: Event, round: RoundView, *, mention: bool = True) -> list[MessagePage]:
    """A round as the channel shows it: its boards with links and results, in as few messages as fit."""
    footer = _how_boards_start(round)
    if round.decided:
        footer = "All results are in."
    return embed_messages(round_title(event, round), round_lines(round, mention=mention), footer)


def _how_boards_start(round: RoundView) -> str:
    """How each board's game starts: a bulk pairing's clock by itself, an open challenge when both join."""
    bulk = [b.number for b in round.boards if b.bulk]
    if not bulk:
        return "Click your game link to join; the clock starts when both players move."
    if len(bulk) == len(round.boards):
        return "Your game is ready on Lichess: its clock starts by itself."
    others = [b.number for b in round.boards if not b.bulk]
    return (
        f"Boards {_numbers(bulk)}: the game is ready and its clock starts by itself. Boards {_numbers(others)}: click"
        " your game link to join; the clock starts when both players move."
    )


def _numbers(numbers: Sequence[int]) -> str:
    return ", ".join(str(n) for n in numbers)


MAX_PINGS = 100  # Discord's limit on the users a message's `allowed_mentions` names


def mention_messages(prefix: str, discord_ids: Iterable[int]) -> list[str]:
    """Message contents that ping every player, each within 2000 characters and naming at most MAX_PINGS users."""
    return [content for content, _ in mention_pages(prefix, discord_ids)]


def mention_pages(prefix: str, discord_ids: Iterable[int]) -> list[tuple[str, list[int]]]:
    """`mention_messages` with the users each message mentions, for its `allowed_mentions` (the only ones pinged:
    the prefix, which may hold an event's name, is never parsed for mentions)."""
    ids = [discord_id for discord_id in dict.fromkeys(discord_ids) if discord_id]
    if not ids:
        return [(clip(prefix, MESSAGE_LIMIT), [])] if prefix else []
    pages: list[tuple[str, list[int]]] = []
    current, pinged = clip(prefix, MESSAGE_LIMIT // 2), list[int]()
    for discord_id in ids:
        mention = f"<@{discord_id}>"
        candidate = f"{current} {mention}" if current else mention
        if len(candidate) > MESSAGE_LIMIT or len(pinged) == MAX_PINGS:
            pages.append((current, pinged))
            candidate, pinged = mention, list[int]()
        current = candidate
        pinged.append(discord_id)
    pages.append((current, pinged))
    return pages


def round_players(round: RoundView) -> list[int]:
    """The Discord ids of everyone in a round (boards, then byes)."""
    ids = [p.discord_id for board in round.boards for p in (board.white, board.black)]
    ids += [bye.player.discord_id for bye in round.byes]
    return [discord_id for discord_id in ids if discord_id]


def align(header: Sequence[str], rows: Sequence[Sequence[str]], left: Iterable[int] = (1,)) -> list[str]:
    """A monospace table: the header, a rule, then the rows; columns in `left` are left-aligned."""
    return text_table([header, *rows], left=left, gap=1, rule=True).split("\n")


def standings_table(rows: Sequence[StandingRow], tiebreaks: Sequence[str]) -> tuple[list[str], list[list[str]]]:
    """The standings as a header and cell rows (shared by the text and the image renderers)."""
    codes = list(tiebreaks)
    header = ["#", "Player", "Rtg", "Pts", *codes]
    cells = []
    for row in rows:
        rank = str(row.rank) if row.rank is not None else "-"
        name = clip(row.player.name, NAME_WIDTH)
        if row.status is not EntryStatus.ACTIVE:
            name = f"{name} ({STATUS_MARKS.get(row.status.value, row.status.value)})"
        values = [format_tiebreak(code, row.tiebreaks[code]) if code in row.tiebreaks else "" for code in codes]
        cells.append([rank, name, str(row.player.rating or ""), format_points(row.points), *values])
    return header, cells


def standings_lines(rows: Sequence[StandingRow], tiebreaks: Sequence[str]) -> list[str]:
    """The standings as monospace lines: header, rule, one line per player (Discord's code blocks, the
    console and standings.txt all show this table)."""
    header, cells = standings_table(rows, tiebreaks)
    return align(header, cells)


def crosstable_table(table: Crosstable) -> tuple[list[str], list[list[str]]]:
    """The crosstable as a header and cell rows: number, player, one cell per round, points."""
    header = ["No", "Player", *(f"R{n}" for n in range(1, table.rounds + 1)), "Pts"]
    cells = []
    for player, rounds, points in table.rows:
        padded = list(rounds) + [""] * (table.rounds - len(rounds))
        cells.append(
            [str(player.number), clip(player.name, NAME_WIDTH), *padded[: table.rounds], format_points(points)]
        )
    return header, cells


def crosstable_lines(table: Crosstable) -> list[str]:
    """The crosstable as monospace lines."""
    header, cells = crosstable_table(table)
    return align(header, cells)


def code_pages(lines: Sequence[str], limit: int = MESSAGE_LIMIT, *, heading: int = 2, prefix: str = "") -> list[str]:
    """Monospace lines as code blocks of at most `limit` characters each, repeating the first `heading` lines.

    `prefix` (a title line) goes before the first block only.
    """
    head = list(lines[:heading])
    body = list(lines[heading:]) or [""]
    first_prefix = f"{prefix}\n" if prefix else ""
    wrap = len(CODE_OPEN) + len(CODE_CLOSE) + 1
    head_size = sum(len(line) + 1 for line in head)
    pages: list[str] = []
    current: list[str] = []
    size = 0
    for raw in body:
        budget = limit - wrap - head_size - (len(first_prefix) if not pages else 0)
        line = clip(raw, max(1, budget - 1))
        if current and size + len(line) + 1 > budget:
            pages.append(_code_page(head + current, first_prefix if not pages else ""))
            current, size = [], 0
        current.append(line)
        size += len(line) + 1
    pages.append(_code_page(head + current, first_prefix if not pages else ""))
    return pages


def _code_page(lines: Sequence[str], prefix: str) -> str:
    return f"{prefix}{CODE_OPEN}" + "\n".join(lines) + f"\n{CODE_CLOSE}"


def standings_title(event: Event, *, final: bool) -> str:
    """The heading of a standings message."""
    if final:
        return clip(f"{event.name} — final standings", EMBED_TITLE_LIMIT)
    after = f"after round {event.current_round}" if event.current_round else "before round 1"
    return clip(f"{event.name} — standings {after}", EMBED_TITLE_LIMIT)


def standings_embeds(event: Event, rows: Sequence[StandingRow], *, final: bool) -> list[MessagePage]:
    """The standings as code-block embeds, paged within every embed and message limit."""
    title = standings_title(event, final=final)
    footer = legend(event.settings.tiebreaks)
    lines = standings_lines(rows, event.settings.tiebreaks)
    blocks = code_pages(lines, description_limit(title, footer))
    return embed_messages(title, blocks, footer)


def description_limit(title: str, footer: str) -> int:
    """The longest description an embed with this title and footer can carry alone in a message."""
    return min(EMBED_DESCRIPTION_LIMIT, EMBED_TOTAL_LIMIT - len(title) - len(footer) - len(" (continued)"))


def legend(tiebreaks: Sequence[str]) -> str:
    """A one-line note naming the tie-breaks in order."""
    return "Tie-breaks: " + ", ".join(tiebreaks) if tiebreaks else ""
