"""What an event's state yields once per change: the standings, each player's crosstable cells and the crosstable.

`compute_tables` is pure (a history in, the tables out) and runs in a worker process (`bot.workers`; a thread where
the application has no pool), never on the event loop. What a front end derives from one state once (the pages' HTML
of the standings and the crosstable: `TablesCache.derive`) is computed there in the same call, from the history the
worker reads from the database file itself (`StoredEvent`), so only the results cross between processes, as plain
data (`Standings`, `Cells`). `TablesCache` keeps the latest tables of each event (and of each
"after round N" view) under the version they were computed for: the id of the event's latest audit line, which moves
with every write that changes what the tables show (entries, rounds and byes, results and corrections, settings, the
start). Posts, `/standings`, `/crosstable`, the pages and the exports read it through `bot.director.queries`.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, overload

from bot.director.lookups import active_entries
from bot.director.models import Crosstable, PlayerRef, StandingRow
from bot.workers import Workers
from domain.entry import STATUS_OF_VALUE, Entry, EntryStatus
from domain.event import EventStatus
from pairing.model import Colour, Outcome, RecordKind, Scoring, Tournament, exact_sum
from pairing.standings.crosstable import CrosstableCell
from pairing.standings.ranking import compute_standings
from storage import events as storage_events
from storage.db import Database
from storage.history import History, get_history, read_history_file, results_tournament

log = logging.getLogger(__name__)

LIVE = frozenset({EventStatus.RUNNING, EventStatus.PAUSED})


_KINDS = tuple(RecordKind)
_COLOURS = (None, *Colour)
_OUTCOMES = (None, *Outcome)
# A cell as it crosses between processes: round, kind, opponent, colour, outcome (indexes into the tuples above;
# 0 for none) and the points' numerator and denominator.
PlainCell = tuple[int, int, int | None, int, int, int, int]
# Indexes by the members' values (strings: an enum member hashes in Python, its value in C).
_KIND_INDEX = {kind.value: i for i, kind in enumerate(_KINDS)}
_COLOUR_INDEX = {colour.value: i for i, colour in enumerate(_COLOURS) if colour is not None}
_OUTCOME_INDEX = {outcome.value: i for i, outcome in enumerate(_OUTCOMES) if outcome is not None}


def _plain(cell: CrosstableCell) -> PlainCell:
    points, colour, outcome = cell.points, cell.colour, cell.outcome
    return (
        cell.round,
        _KIND_INDEX[cell.kind._value_],
        cell.opponent,
        0 if colour is None else _COLOUR_INDEX[colour._value_],
        0 if outcome is None else _OUTCOME_INDEX[outcome._value_],
        points.numerator,
        points.denominator,
    )


def _cell(plain: PlainCell) -> CrosstableCell:
    number, kind, opponent, colour, outcome, top, bottom = plain
    return CrosstableCell(number, _KINDS[kind], opponent, _COLOURS[colour], _OUTCOMES[outcome], Fraction(top, bottom))


class Cells(Mapping[int, tuple[CrosstableCell, ...]]):
    """Each player's crosstable cells by starting number; pickled as plain tuples of ints (a fifteenth of the
    time of the cells' objects) and made again, a player at a time, when read in the other process."""

    __slots__ = ("_keys", "_made", "_plain")

    def __init__(
        self,
        made: Mapping[int, tuple[CrosstableCell, ...]] | None = None,
        plain: Mapping[int, tuple[PlainCell, ...]] | None = None,
    ) -> None:
        self._made: dict[int, tuple[CrosstableCell, ...]] = dict(made or {})
        self._plain: dict[int, tuple[PlainCell, ...]] = dict(plain or {})
        self._keys = tuple(dict.fromkeys([*self._made, *self._plain]))

    def __getitem__(self, number: int) -> tuple[CrosstableCell, ...]:
        made = self._made.get(number)
        if made is None:
            made = self._made[number] = tuple(_cell(c) for c in self._plain[number])
        return made

    def __iter__(self) -> Iterator[int]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, number: object) -> bool:
        return number in self._made or number in self._plain

    def __repr__(self) -> str:
        return f"Cells({dict(self.items())!r})"

    def __reduce__(self) -> tuple[type[Cells], tuple[None, dict[int, tuple[PlainCell, ...]]]]:
        plain = self._plain
        return Cells, (None, {n: plain[n] if n in plain else tuple(map(_plain, self._made[n])) for n in self._keys})


# A standings row as it crosses between processes: rank, number, name, Discord id, rating, the points' numerator
# and denominator, each tie-break's (code, numerator, denominator), the status's value.
PlainRow = tuple[int | None, int, str, int | None, int, int, int, tuple[tuple[str, int, int], ...], str]


def _plain_row(row: StandingRow) -> PlainRow:
    player, points = row.player, row.points
    tiebreaks = tuple((code, value.numerator, value.denominator) for code, value in row.tiebreaks.items())
    return (
        row.rank,
        player.number,
        player.name,
        player.discord_id,
        player.rating,
        points.numerator,
        points.denominator,
        tiebreaks,
        row.status.value,
    )


def _made_rows(plain: Sequence[PlainRow]) -> tuple[StandingRow, ...]:
    """The rows of their plain forms, each distinct value's `Fraction` made once for all of them (2,000 rows hold
    16,000 values, of which a few hundred differ: a `Fraction` normalises by a gcd and is tracked by the garbage
    collector: they were most of the rows' time on the bot's event loop)."""
    values: dict[tuple[int, int], Fraction] = {}

    def value(top: int, bottom: int) -> Fraction:
        found = values.get((top, bottom))
        if found is None:
            found = values[top, bottom] = Fraction(top, bottom)
        return found

    return tuple(
        StandingRow(
            rank,
            PlayerRef(number, name, discord_id, rating),
            value(top, bottom),
            {code: value(a, b) for code, a, b in tiebreaks},
            STATUS_OF_VALUE[status],
        )
        for rank, number, name, discord_id, rating, top, bottom, tiebreaks, status in plain
    )


class Standings(Sequence[StandingRow]):
    """The standings rows; pickled as plain tuples (a fifth of the time of the rows' objects both ways) and made
    again, all at once, when first read in the other process (the event and crosstable pages never read them
    there: their rows cross as HTML)."""

    __slots__ = ("_made", "_plain")

    def __init__(self, made: Sequence[StandingRow] | None = None, plain: Sequence[PlainRow] | None = None) -> None:
        self._made: tuple[StandingRow, ...] | None = tuple(made) if made is not None else None
        self._plain: tuple[PlainRow, ...] = tuple(plain or ())

    def _rows(self) -> tuple[StandingRow, ...]:
        if self._made is None:
            self._made = _made_rows(self._plain)
        return self._made

    @overload
    def __getitem__(self, index: int) -> StandingRow: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[StandingRow, ...]: ...

    def __getitem__(self, index: int | slice) -> StandingRow | tuple[StandingRow, ...]:
        return self._rows()[index]

    def __len__(self) -> int:
        return len(self._made) if self._made is not None else len(self._plain)

    def __iter__(self) -> Iterator[StandingRow]:
        return iter(self._rows())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    __hash__ = None  # type: ignore[assignment]  # like the rows' tuple (its rows hold dicts): unhashable

    def __repr__(self) -> str:
        return f"Standings({self._rows()!r})"

    def __reduce__(self) -> tuple[type[Standings], tuple[None, tuple[PlainRow, ...]]]:
        plain = self._plain if self._made is None else tuple(map(_plain_row, self._made))
        return Standings, (None, plain)


@dataclass(frozen=True)
class EventTables:
    """One state of an event as the front ends show it: standings rows, cells by player, the crosstable."""

    standings: Sequence[StandingRow]
    records: Mapping[int, tuple[CrosstableCell, ...]]
    crosstable: Crosstable
    derived: Mapping[str, Any] = field(default_factory=dict)  # what `TablesCache.derive` made of this state


# A front end's view of one state of an event, computed beside the tables (a module-level function, or a
# `functools.partial` of one on plain data, so that a worker process can run it).
Derive = Callable[[History, EventTables], Any]


@dataclass(frozen=True)
class StoredEvent:
    """An event in a database file, whose history the worker reads itself (`storage.history.read_history_file`;
    `keep`: a worker process keeps its connection, a thread of the bot's process does not)."""

    path: str
    event_id: int
    keep: bool = True


def compute_views(
    source: History | StoredEvent, after_round: int | None, derive: Mapping[str, Derive] | None = None
) -> EventTables:
    """`compute_tables` of a history (given, or read from the database file), with each of `derive` applied to the
    event's current state (not to "after round N")."""
    history = (
        source if isinstance(source, History) else read_history_file(source.path, source.event_id, keep=source.keep)
    )
    tables = compute_tables(history, after_round)
    if after_round is None and derive:
        tables = replace(tables, derived={name: view(history, tables) for name, view in derive.items()})
    return tables


def compute_tables(history: History, after_round: int | None = None) -> EventTables:
    """The standings (disqualified players unranked, listed last), the cells and the crosstable of a history
    (or of its first `after_round` rounds)."""
    if after_round is not None:
        history = replace(history, rounds=[r for r in history.rounds if r.round.number <= after_round])
    settings = history.event.settings
    if not started(history):
        rows = [StandingRow(None, player_ref(e), Fraction(0)) for e in active_entries(history.entries)]
        return EventTables(Standings(rows), Cells(), Crosstable(settings.rounds, ()))
    tournament = results_tournament(history)
    by_number = history.numbered
    disqualified = [n for n, e in by_number.items() if e.status is EntryStatus.DISQUALIFIED]
    ranked = compute_standings(tournament, settings.tiebreaks, exclude=disqualified, lichess_sb=settings.lichess_sb)
    refs = {number: player_ref(entry) for number, entry in by_number.items()}
    standings = [
        StandingRow(r.rank, refs[r.number], r.points, dict(r.tiebreaks), by_number[r.number].status) for r in ranked
    ]
    records, plain, texts = _cells(tournament, len(history.rounds))
    scores = {n: exact_sum(cell.points for cell in cells) for n, cells in records.items()}
    for n in sorted(disqualified):
        standings.append(StandingRow(None, refs[n], scores[n], {}, EntryStatus.DISQUALIFIED))
    crosstable = tuple((refs[p.number], texts[p.number], scores[p.number]) for p in tournament.players)
    return EventTables(Standings(standings), Cells(records, plain), Crosstable(settings.rounds, crosstable))


# A cell as what it holds: round, kind, opponent, colour and outcome (the members' values).
CellKey = tuple[int, str, int | None, str | None, str | None]
_KEPT_CELLS: dict[Scoring, dict[CellKey, tuple[CrosstableCell, PlainCell, str]]] = {}
_KEPT_CELLS_LIMIT = 1 << 15


def _cells(
    tournament: Tournament, rounds: int
) -> tuple[dict[int, tuple[CrosstableCell, ...]], dict[int, tuple[PlainCell, ...]], dict[int, tuple[str, ...]]]:
    """Each player's cells for rounds 1..`rounds` (as `player_cells` makes them), with their plain and short forms;
    each cell is made once a process by what it holds (immutable: a worker that computes an event's tables at every
    change makes only the new results' cells)."""
    scoring = tournament.scoring
    kept = _KEPT_CELLS.setdefault(scoring, {})
    if len(kept) > _KEPT_CELLS_LIMIT:
        kept.clear()
    records: dict[int, tuple[CrosstableCell, ...]] = {}
    plain: dict[int, tuple[PlainCell, ...]] = {}
    texts: dict[int, tuple[str, ...]] = {}
    for player in tournament.players:
        made = []
        for round_number, record in enumerate(player.records(rounds + 1), start=1):
            colour, outcome = record.colour, record.outcome
            key = (
                round_number,
                record.kind._value_,
                record.opponent,
                None if colour is None else colour._value_,
                None if outcome is None else outcome._value_,
            )
            found = kept.get(key)
            if found is None:
                points = scoring.points(record)
                cell = CrosstableCell(round_number, record.kind, record.opponent, colour, outcome, points)
                found = kept[key] = (cell, _plain(cell), cell.text)
            made.append(found)
        records[player.number] = tuple(cell for cell, _, _ in made)
        plain[player.number] = tuple(form for _, form, _ in made)
        texts[player.number] = tuple(text for _, _, text in made)
    return records, plain, texts


def started(history: History) -> bool:
    """Starting numbers are given (before the start, `History.numbered` holds provisional ones)."""
    return any(e.number is not None for e in history.entries)


def player_ref(entry: Entry) -> PlayerRef:
    """A player as the director's views name them."""
    return PlayerRef(entry.number or 0, entry.name, entry.discord_id, entry.rating)


TablesKey = tuple[int, int | None]  # (event id, after round or None for now)


@dataclass
class TablesCache:
    """The latest tables of each event view, by the version they were computed for; readers of a version being
    computed wait for that one computation."""

    workers: Workers = field(default_factory=Workers)
    derive: dict[str, Derive] = field(default_factory=dict)  # set while the application is assembled
    latest: dict[TablesKey, tuple[int, asyncio.Future[EventTables]]] = field(default_factory=dict)
    computed: int = 0  # how many times the tables were computed (tests observe the reuse)

    async def get(self, key: TablesKey, version: int, db: Database) -> EventTables:
        """The tables of `key` at `version`: cached, or read from `db` and computed by a worker (a task of its own,
        so a reader that goes away cancels nobody else's answer)."""
        if db.in_current_task:
            # Inside its transaction the caller reads its own writes, which the worker (reading the file) would not
            # see and a rollback may undo: computed from this connection, and not kept under a version.
            return await self.workers.run(compute_views, await get_history(db, key[0]), key[1], dict(self.derive))
        known = self.latest.get(key)
        if known is None or known[0] != version:
            known = (version, asyncio.ensure_future(self._compute(key, db)))
            if key[1] is not None:  # one "after round N" view an event (the round just announced) is kept
                for other in [k for k in self.latest if k[0] == key[0] and k[1] is not None and k != key]:
                    del self.latest[other]
            self.latest[key] = known
        try:
            return await asyncio.shield(known[1])
        except Exception:
            if self.latest.get(key) is known:
                del self.latest[key]  # a failure is not kept: the next reader tries again
            raise

    async def _compute(self, key: TablesKey, db: Database) -> EventTables:
        event_id, after_round = key
        # The worker reads the history from the file itself (the read and its objects off this process, no pickle
        # of it); a database with no file (in memory) is read here.
        stored = StoredEvent(db.path, event_id, keep=self.workers.running)
        source = stored if os.path.isfile(db.path) else await get_history(db, event_id)
        tables = await self.workers.run(compute_views, source, after_round, dict(self.derive))
        self.computed += 1
        return tables


async def warm_start(db: Database, read: Callable[[int], Awaitable[object]]) -> int:
    """Compute the current tables of every running or paused event once, one event after another (`read`: the
    director's `tables`), so the first reader after a restart finds them made; how many were made. An event that
    fails is logged and skipped (its first reader computes it)."""
    made = 0
    try:
        live = await storage_events.list_events(db, statuses=LIVE)
    except Exception:
        log.exception("could not list the running events at start")
        return made
    for event in live:
        try:
            await read(event.id)
        except Exception:
            log.exception("could not compute the tables of event %d at start", event.id)
        else:
            made += 1
    return made
