"""Typed errors of the storage layer; each message is fit to show a user."""

from __future__ import annotations


class StorageError(Exception):
    """Base of every storage error."""


class DatabaseUnavailable(StorageError):
    """The database file cannot be opened or is not a swissbot database."""


class SchemaTooNew(DatabaseUnavailable):
    """The database was written by a newer swissbot than this one."""

    def __init__(self, found: int, known: int) -> None:
        self.found = found
        self.known = known
        super().__init__(
            f"the database has schema version {found}, but this swissbot knows only up to {known}: upgrade swissbot"
        )


class DatabaseError(StorageError):
    """An unexpected database failure (disk full, locked too long, corrupt file)."""


class DatabaseTrouble(DatabaseError):
    """A database failure with a known cause and remedy (locked, full, read-only); nothing was changed."""

    def __reduce__(self) -> tuple[type[DatabaseTrouble], tuple[()]]:
        # Each kind says its own sentence: it crosses from a worker process (a pickle) as its type alone.
        return type(self), ()


class DatabaseLocked(DatabaseTrouble):
    """Another process holds the database longer than the busy timeout."""

    def __init__(self) -> None:
        super().__init__(
            "the database is locked by another program (another swissbot or a tool that has the file open): "
            "close it and try again; nothing was changed"
        )


class DatabaseFull(DatabaseTrouble):
    """The disk (or the database's size limit) is full."""

    def __init__(self) -> None:
        super().__init__(
            "the disk holding the database is full: free some space on it and try again; nothing was changed"
        )


class DatabaseReadOnly(DatabaseTrouble):
    """The database file (or its folder) cannot be written."""

    def __init__(self) -> None:
        super().__init__(
            "the database is read-only: give swissbot write access to the file and its folder, then try again; "
            "nothing was changed"
        )


def classify(exc: Exception) -> DatabaseError:
    """The storage error for an sqlite3 error: a known trouble with its remedy, else a plain DatabaseError."""
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        return DatabaseLocked()
    if "disk is full" in text or "database or disk is full" in text:
        return DatabaseFull()
    if "readonly" in text or "read-only" in text:
        return DatabaseReadOnly()
    return DatabaseError(f"database error: {exc}")


class InvalidInput(StorageError):
    """A value that cannot be stored (a naive time, bad settings, malformed JSON)."""


class NotFound(StorageError):
    """The event, player, entry, round, board or game does not exist."""


class WrongStatus(StorageError):
    """The event, entry or round is not in a state that allows this change."""


class AlreadyJoined(StorageError):
    """The player already has an active entry in the event."""


class EntryBarred(StorageError):
    """The player was banned or disqualified from the event and cannot rejoin."""


class RoundNotNext(StorageError):
    """A pairing for a round that is not the next one to pair."""


class RoundIncomplete(StorageError):
    """The round still has boards without a result."""


class InvalidPairing(StorageError):
    """A pairing that does not place exactly the players who should play."""


class ConflictingResult(StorageError):
    """A board already has a different result; use a correction to change it."""


class ByeNotAllowed(StorageError):
    """A requested bye for a round already paired, out of range, or over the event's limit."""


class AccountTaken(StorageError):
    """The Lichess account is linked to another Discord user, or the user has another account."""


class GameInProgress(StorageError):
    """The board already has a Lichess game being created or played."""


class TeamRefused(StorageError):
    """A team that cannot be formed, changed or removed (a player in two teams, too few players, a taken name)."""
