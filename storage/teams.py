"""Team Swiss events: the teams and their rosters, the team event as the pairing engine reads it, a team round stored.

A team has a pairing number, a name (unique in the event, case aside), the Discord role it was formed from
(optional) and a roster of the event's entries in board order; the players beyond the event's `team_boards` are
reserves. Teams are formed and changed before the event starts; their pairing numbers are given at round 1 by
strength (`number_teams`). Every change is one transaction with its audit line, and a refusal stores nothing.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from domain.entry import EntryStatus
from domain.event import EDITABLE
from domain.rounds import RoundSummary, planned_byes
from pairing.model import RecordKind, Tournament
from pairing.team.matches import team_strength
from pairing.team.model import Team, TeamEvent, TeamRules
from pairing.team.trf import to_tournament
from storage import audit
from storage.db import Connection, Database, execute, executemany, fetchall, fetchone, utc_text
from storage.entries import load_entries
from storage.errors import InvalidPairing, NotFound, TeamRefused
from storage.events import load_event
from storage.history import History, load_history
from storage.rounds import check_next, check_running, insert_round


@dataclass(frozen=True)
class TeamRow:
    """A stored team: its roster as player ids in board order (reserves after the event's boards)."""

    id: int
    event_id: int
    number: int
    name: str
    role_id: int | None
    players: tuple[int, ...]


async def load_teams(conn: Connection, event_id: int) -> list[TeamRow]:
    """An event's teams by pairing number, inside an open transaction."""
    rows = await fetchall(conn, "SELECT * FROM teams WHERE event_id = ? ORDER BY number, id", (event_id,))
    members: dict[int, list[int]] = {}
    for row in await fetchall(
        conn,
        "SELECT team_id, player_id FROM team_players WHERE event_id = ? ORDER BY team_id, board_order",
        (event_id,),
    ):
        members.setdefault(int(row["team_id"]), []).append(int(row["player_id"]))
    return [
        TeamRow(
            id=int(r["id"]),
            event_id=int(r["event_id"]),
            number=int(r["number"]),
            name=str(r["name"]),
            role_id=None if r["role_id"] is None else int(r["role_id"]),
            players=tuple(members.get(int(r["id"]), ())),
        )
        for r in rows
    ]


async def list_teams(db: Database, event_id: int) -> list[TeamRow]:
    """An event's teams by pairing number."""
    async with db.snapshot() as conn:
        return await load_teams(conn, event_id)


async def _editable(conn: Connection, event_id: int) -> int:
    """The event's boards a match; TeamRefused unless it is a team event not started yet."""
    event = await load_event(conn, event_id)
    if not event.settings.pairing_system.team:
        raise TeamRefused(f"{event.name} is not a team event (its system is {event.settings.system})")
    if event.status not in EDITABLE or event.current_round > 0:
        raise TeamRefused(f"{event.name} has started: its teams can no longer change")
    return event.settings.team_boards


async def _check_roster(
    conn: Connection, event_id: int, players: Sequence[int], boards: int, *, team_id: int | None = None
) -> None:
    entries = {e.player_id: e for e in await load_entries(conn, event_id)}
    repeated = sorted({p for p in players if players.count(p) > 1})
    if repeated:
        raise TeamRefused(f"{entries[repeated[0]].name if repeated[0] in entries else repeated[0]} is listed twice")
    for pid in players:
        entry = entries.get(pid)
        if entry is None or entry.status is not EntryStatus.ACTIVE:
            raise TeamRefused(f"player {pid} has not joined this event")
    taken = await fetchall(
        conn,
        "SELECT tp.player_id, t.name FROM team_players tp JOIN teams t ON t.id = tp.team_id"
        " WHERE tp.event_id = ? AND tp.team_id IS NOT ?",
        (event_id, team_id),
    )
    for row in taken:
        if int(row["player_id"]) in players:
            raise TeamRefused(f"{entries[int(row['player_id'])].name} is already in team {row['name']}")
    if len(players) < boards:
        raise TeamRefused(f"a team needs at least {boards} players (the event's boards), got {len(players)}")


async def add_team(
    db: Database,
    event_id: int,
    name: str,
    players: Sequence[int],
    *,
    at: datetime,
    actor: str,
    role_id: int | None = None,
) -> TeamRow:
    """Form a team of the event's entries (player ids in board order); TeamRefused, storing nothing, for a
    player in another team or not joined, fewer players than the boards, or a name already taken."""
    name = " ".join(name.split())
    async with db.transaction() as conn:
        boards = await _editable(conn, event_id)
        if not name:
            raise TeamRefused("a team needs a name")
        same = await fetchone(
            conn, "SELECT name FROM teams WHERE event_id = ? AND name = ? COLLATE NOCASE", (event_id, name)
        )
        if same is not None:
            raise TeamRefused(f"there is already a team {same['name']} in this event")
        await _check_roster(conn, event_id, list(players), boards)
        row = await fetchone(
            conn, "SELECT COALESCE(MAX(number), 0) + 1 AS n FROM teams WHERE event_id = ?", (event_id,)
        )
        number = int(row["n"]) if row is not None else 1
        team_id = await execute(
            conn,
            "INSERT INTO teams (event_id, number, name, role_id, created_at) VALUES (?, ?, ?, ?, ?)",
            (event_id, number, name, role_id, utc_text(at)),
        )
        await executemany(
            conn,
            "INSERT INTO team_players (team_id, event_id, player_id, board_order) VALUES (?, ?, ?, ?)",
            [(team_id, event_id, pid, order) for order, pid in enumerate(players, start=1)],
        )
        await audit.append(
            conn, at=at, actor=actor, action="team.add", subject=f"team:{name}", event_id=event_id,
            after={"number": number, "name": name, "role_id": role_id, "players": list(players)},
        )  # fmt: skip
        return next(t for t in await load_teams(conn, event_id) if t.id == team_id)


async def _team_named(conn: Connection, event_id: int, name: str) -> TeamRow:
    wanted = " ".join(name.split()).casefold()
    for found in await load_teams(conn, event_id):
        if found.name.casefold() == wanted or (wanted.startswith("#") and wanted[1:] == str(found.number)):
            return found
    raise NotFound(f"there is no team {name} in this event")


async def remove_team(db: Database, event_id: int, name: str, *, at: datetime, actor: str) -> TeamRow:
    """Remove a team before the event starts (its players stay entered)."""
    async with db.transaction() as conn:
        await _editable(conn, event_id)
        gone = await _team_named(conn, event_id, name)
        await execute(conn, "DELETE FROM team_players WHERE team_id = ?", (gone.id,))
        await execute(conn, "DELETE FROM teams WHERE id = ?", (gone.id,))
        await audit.append(
            conn, at=at, actor=actor, action="team.remove", subject=f"team:{gone.name}", event_id=event_id,
            before={"number": gone.number, "name": gone.name, "players": list(gone.players)},
        )  # fmt: skip
        return gone


async def reorder_team(
    db: Database, event_id: int, name: str, players: Sequence[int], *, at: datetime, actor: str
) -> TeamRow:
    """Set a team's roster anew (board order; players may come and go) before the event starts."""
    async with db.transaction() as conn:
        boards = await _editable(conn, event_id)
        old = await _team_named(conn, event_id, name)
        await _check_roster(conn, event_id, list(players), boards, team_id=old.id)
        await execute(conn, "DELETE FROM team_players WHERE team_id = ?", (old.id,))
        await executemany(
            conn,
            "INSERT INTO team_players (team_id, event_id, player_id, board_order) VALUES (?, ?, ?, ?)",
            [(old.id, event_id, pid, order) for order, pid in enumerate(players, start=1)],
        )
        await audit.append(
            conn, at=at, actor=actor, action="team.roster", subject=f"team:{old.name}", event_id=event_id,
            before=list(old.players), after=list(players),
        )  # fmt: skip
        return next(t for t in await load_teams(conn, event_id) if t.id == old.id)


async def number_teams(db: Database, event_id: int, order: Sequence[int], *, at: datetime, actor: str) -> None:
    """Give the teams (ids, best first) their pairing numbers 1..n; nothing changes when they have them."""
    async with db.transaction() as conn:
        current = {t.id: t.number for t in await load_teams(conn, event_id)}
        wanted = {team_id: number for number, team_id in enumerate(order, start=1)}
        if set(wanted) != set(current):
            raise TeamRefused("the new numbering does not name every team once")
        if wanted == current:
            return
        await executemany(conn, "UPDATE teams SET number = ? WHERE id = ?", [(n, t) for t, n in wanted.items()])
        await audit.append(
            conn, at=at, actor=actor, action="team.number", subject="teams", event_id=event_id,
            before={str(t): n for t, n in sorted(current.items())},
            after={str(t): n for t, n in sorted(wanted.items())},
        )  # fmt: skip


# --- the team event -------------------------------------------------------------------------------------------


def team_rules(history: History) -> TeamRules:
    """The event's team rules (its boards; the rest C.04.6's defaults: match points 2/1/0, Type A colours)."""
    return TeamRules(boards=history.event.settings.team_boards)


def team_event(history: History, teams: Sequence[TeamRow], tournament: Tournament) -> TeamEvent:
    """The team event over a players' tournament built from `history` (rosters as starting numbers, in board
    order; players not numbered are left out, and so is a team left with fewer of them than the boards)."""
    numbers = {e.player.id: n for n, e in history.numbered.items()}
    rules = team_rules(history)
    ratings = {e.player.id: e.rating for e in history.numbered.values()}
    built = tuple(
        Team(
            t.number,
            t.name,
            tuple(numbers[p] for p in t.players if p in numbers),
            team_strength((ratings[p] for p in t.players if p in ratings), rules.boards),
        )
        for t in teams
    )
    # A team whose players left before the start (no starting number) is short for good: it is no team of play.
    return TeamEvent(tournament, tuple(t for t in built if len(t.players) >= rules.boards), rules)


def team_tournament(history: History, teams: Sequence[TeamRow], tournament: Tournament) -> Tournament:
    """The players' tournament with the team records in its header (`pairing.team.to_tournament`), for TRF."""
    return to_tournament(team_event(history, teams, tournament))


def seeded_order(history: History, teams: Sequence[TeamRow]) -> list[int]:
    """The teams' ids by strength (the average of their best boards' ratings), then name: pairing order."""
    ratings = {e.player.id: e.rating for e in history.entries}
    boards = history.event.settings.team_boards
    return [
        t.id
        for t in sorted(teams, key=lambda t: (-team_strength((ratings.get(p, 0) for p in t.players), boards), t.name))
    ]


async def store_team_round(
    db: Database,
    event_id: int,
    round_number: int,
    boards: Sequence[tuple[int, int]],
    byes: Mapping[int, RecordKind],
    *,
    at: datetime,
    actor: str,
    defaulted: Collection[int] = (),
) -> RoundSummary:
    """Store a team round as its board games (White's and Black's starting numbers, board order), the byes the
    pairing gave (a PAB to every board player of the team that has it) and the fixed records, in one transaction;
    `defaulted` players (absent, on a board their team could not fill) keep no fixed record: their board is
    decided by forfeit. Players placed nowhere (reserves, players in no team) are not paired. The same round
    again returns the stored one; refused like `rounds.store_pairing`."""
    async with db.transaction() as conn:
        history = await load_history(conn, event_id)
        check_running(history)
        if history.rounds and round_number == history.next_round - 1:
            stored = history.rounds[-1]
            if tuple((b.white_number, b.black_number) for b in stored.boards) == tuple(boards):
                return stored
        check_next(history, round_number)
        planned = planned_byes(history.numbered, history.requested, round_number)
        all_byes = {**{n: k for n, k in planned.items() if n not in defaulted}, **byes}
        placed = [n for pair in boards for n in pair]
        twice = sorted({n for n in placed if placed.count(n) > 1} | (set(placed) & set(all_byes)))
        unknown = sorted((set(placed) | set(all_byes)) - set(history.numbered))
        if twice or unknown:
            raise InvalidPairing(f"the team round places player(s) {twice or unknown} twice or unknown")
        system = history.event.settings.system
        return await insert_round(conn, history, round_number, boards, all_byes, at=at, actor=actor, system=system)
