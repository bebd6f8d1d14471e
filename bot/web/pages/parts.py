"""What the event pages show of one state of an event, made once per change beside its tables (in a worker process).

`page_parts` is a view of the director's tables cache (`bot.director.tables.TablesCache.derive`, registered by
`site.page_routes`): a worker computes it in the same call as the standings, from the same history, so a page of
a new version is only its template around these finished pieces (the standings' and the crosstable's rows as
HTML, the leaders' chart, the players' links). It imports no aiohttp and no director use case, so a worker
process loads little.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import jinja2
from markupsafe import escape

from bot.director.models import StandingRow
from bot.director.tables import Derive, EventTables
from bot.rendering.text import STATUS_MARKS, format_points, format_tiebreak
from bot.web.pages.chart import Series, score_chart
from domain.entry import Entry
from domain.event import Event
from pairing.model import RecordKind
from pairing.standings.crosstable import CrosstableCell
from storage.history import History

PAGES_VIEW = "pages"  # the name of the pages' view in the tables cache
LEADERS = 5
KIND_TEXT = {
    RecordKind.PAB: "pairing-allocated bye",
    RecordKind.FULL_BYE: "full-point bye",
    RecordKind.HALF_BYE: "half-point bye",
    RecordKind.ZERO_BYE: "absent (zero-point bye)",
    RecordKind.NOT_PAIRED: "not paired",
}


@functools.cache
def templates() -> jinja2.Environment:
    """The pages' Jinja2 environment (one a process: the endpoint's and a worker's)."""
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("bot.web.pages", "templates"),
        autoescape=jinja2.select_autoescape(default=True),
        undefined=jinja2.StrictUndefined,
    )
    environment.filters["points"] = format_points
    return environment


@dataclass(frozen=True)
class PlayerLink:
    """A player as the pages link them: starting number, Lichess name and rating."""

    number: int
    name: str
    rating: int
    lichess_id: str
    status: str = ""


@dataclass(frozen=True)
class PageParts:
    """One state of an event as its pages show it: the players' links by number, the standings' rows and the
    crosstable's rows (HTML, escaped), the crosstable's number of rounds, the leaders' chart (SVG, or empty)."""

    players: Mapping[int, PlayerLink]
    standings_rows: str
    crosstable_rows: str
    crosstable_rounds: int
    chart: str


def pages_view(lichess_url: str) -> Derive:
    """The pages' view for the tables cache, linking players to that Lichess."""
    return functools.partial(page_parts, lichess_url)


def page_parts(lichess_url: str, history: History, tables: EventTables) -> PageParts:
    """The pieces of the event's pages for one state of the event (pure; runs in a worker)."""
    event = history.event
    players = links(history.entries)
    rows, records = tables.standings, tables.records
    anchors = {n: player_anchor(p, event.id) for n, p in players.items()}
    standings = standings_rows(standings_table(rows, event), anchors, players, lichess_url)
    texts = {ref.number: cells for ref, cells, _ in tables.crosstable.rows}
    crosstable = crosstable_rows(rows, records, anchors, players, texts)
    rounds = max((len(records.get(row.player.number, ())) for row in rows), default=0)
    return PageParts(players, standings, crosstable, rounds, leaders_chart(event, rows, records))


def player_anchor(player: PlayerLink, event_id: int) -> str:
    """A player's link to his page, with his status (`macros.html`'s `player`, escaped)."""
    status = f' <span class="muted">({escape(player.status)})</span>' if player.status else ""
    return f'<a href="/events/{event_id}/players/{player.number}">{escape(player.name)}</a>{status}'


def standings_rows(
    table: Sequence[Mapping[str, Any]], anchors: Mapping[int, str], players: Mapping[int, PlayerLink], lichess: str
) -> str:
    """The standings' rows as HTML (strings, names and links escaped)."""
    site = escape(lichess)
    out = ["\n"]
    for row in table:
        number = row["number"]
        player = players.get(number)
        name = anchors[number] if player else escape(row["name"])
        values = "".join(f"<td>{value}</td>" for value in row["tiebreaks"])  # formatted numbers: nothing to escape
        account = (
            f'<a href="{site}/@/{escape(player.lichess_id)}" rel="noopener">@{escape(player.name)}</a>'
            if player
            else ""
        )
        out.append(
            f"\n  <tr>\n    <td>{row['rank']}</td><td>{number}</td>\n"
            f'    <th scope="row" class="name">{name}</th>\n'
            f"    <td>{row['rating']}</td><td>{escape(row['points'])}</td>\n"
            f"    {values}\n"
            f'    <td class="name">{account}</td>\n  </tr>\n'
        )
    return "".join(out)


def crosstable_rows(
    rows: Sequence[StandingRow],
    records: Mapping[int, Sequence[CrosstableCell]],
    anchors: Mapping[int, str],
    players: Mapping[int, PlayerLink],
    texts: Mapping[int, Sequence[str]] | None = None,
) -> str:
    """The crosstable's rows as HTML, opponents by rank (strings, escaped); `texts`: the cells' short forms by
    player, as the tables' crosstable has them (else made again)."""
    rank_of = {row.player.number: row.rank for row in rows}
    known: dict[tuple[str, str], str] = {}  # a cell's HTML by its text and title: most cells repeat
    out = ["\n"]
    for row in rows:
        number = row.player.number
        player = players.get(number)
        rank = row.rank if row.rank is not None else ""
        head = (
            f'{number}</td><th scope="row" class="name">{anchors[number]}</th><td>{player.rating}'
            if player
            else '</td><th scope="row" class="name">?</th><td>'
        )
        cells = []
        shorts = texts.get(number) if texts is not None else None
        for i, cell in enumerate(records.get(number, ())):
            text, title = cell_text(cell, rank_of, shorts[i] if shorts is not None else None)
            html = known.get((text, title))
            if html is None:  # numbers, colour letters, results and fixed words: nothing to escape
                html = known[text, title] = f'<td title="{title}">{text}</td>'
            cells.append(html)
        points = escape(format_points(row.points))
        out.append(f"\n  <tr><td>{rank}</td><td>{head}</td>\n  {''.join(cells)}<td>{points}</td></tr>\n")
    return "".join(out)


def leaders_chart(event: Event, rows: Sequence[StandingRow], records: Mapping[int, Sequence[CrosstableCell]]) -> str:
    """The leaders' scores round by round as an SVG chart (empty before the first round)."""
    if not records or not event.current_round:
        return ""
    leaders = [row for row in rows if row.rank is not None][:LEADERS]
    series = [Series(row.player.name, running_scores(records.get(row.player.number, ()))) for row in leaders]
    return score_chart(series, max(len(s.scores) for s in series) if series else 0)


def links(entries: Sequence[Entry]) -> dict[int, PlayerLink]:
    """The numbered players' links by starting number."""
    return {
        e.number: PlayerLink(
            e.number,
            e.player.name,
            e.rating,
            e.player.lichess_id or e.player.name.lower(),
            STATUS_MARKS.get(e.status.value, ""),
        )
        for e in entries
        if e.number is not None
    }


def standings_table(rows: Sequence[StandingRow], event: Event) -> list[dict[str, Any]]:
    """The standings' rows as the page shows them (every tie-break formatted)."""
    codes = event.settings.tiebreaks
    return [
        {
            "rank": row.rank if row.rank is not None else "",
            "number": row.player.number,
            "name": row.player.name,
            "rating": row.player.rating or "",
            "points": format_points(row.points),
            "status": STATUS_MARKS.get(row.status.value, ""),
            "tiebreaks": [format_tiebreak(c, row.tiebreaks[c]) if c in row.tiebreaks else "" for c in codes],
        }
        for row in rows
    ]


def running_scores(cells: Sequence[CrosstableCell]) -> tuple[Fraction, ...]:
    """The score after each round."""
    total, out = Fraction(0), []
    for cell in cells:
        total += cell.points
        out.append(total)
    return tuple(out)


def cell_text(cell: CrosstableCell, rank_of: Mapping[int, int | None], text: str | None = None) -> tuple[str, str]:
    """A crosstable cell's text (the opponent's rank, colour and result, or the TRF bye letter) and its long title
    (`text`: the cell's short form, if made already)."""
    text = cell.text if text is None else text
    opponent = cell.opponent
    if opponent is None:
        return text, KIND_TEXT.get(cell.kind, "")
    rank = rank_of.get(opponent)
    shown = f"{rank if rank is not None else opponent}{text[len(str(opponent)) :]}"
    kind = cell.kind
    if kind is RecordKind.FORFEIT_WIN:
        return shown, f"against no. {opponent}, won by forfeit"
    if kind is RecordKind.FORFEIT_LOSS:
        return shown, f"against no. {opponent}, lost by forfeit"
    return shown, f"against no. {opponent}"
