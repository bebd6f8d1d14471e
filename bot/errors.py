"""Domain errors of the director: each carries a one-line message fit for a user."""

from __future__ import annotations

from datetime import datetime

from storage.errors import DatabaseTrouble, DatabaseUnavailable


class SwissbotError(Exception):
    """A use case refused: the message is shown to the user as is."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class NotLinked(SwissbotError):
    """The Discord user has no verified Lichess account."""

    def __init__(self, message: str = "Link your Lichess account first (/link).") -> None:
        super().__init__(message)


class AlreadyLinked(SwissbotError):
    """The Discord user, or the Lichess account, is already linked to someone."""


class LinkCodeMissing(SwissbotError):
    """The one-time code is not (yet) in the Lichess profile bio, or it expired."""


class LichessAccountRefused(SwissbotError):
    """A closed, flagged or BOT account."""


class NotOrganiser(SwissbotError):
    """An organiser use case called by a member."""

    def __init__(self, message: str = "Only an organiser can do that.") -> None:
        super().__init__(message)


class EventNotFound(SwissbotError):
    """No event with that id."""


class JoiningClosed(SwissbotError):
    """The event no longer accepts entries (or does not yet)."""


class AlreadyJoined(SwissbotError):
    """The player is already in the event."""


class NotEntered(SwissbotError):
    """The player is not in the event."""


class RatingOutOfRange(SwissbotError):
    """The player's rating for the event's speed is outside its limits."""


class Banned(SwissbotError):
    """The player is banned from joining new events of the club until `until`."""

    def __init__(self, until: datetime, message: str | None = None) -> None:
        super().__init__(message or f"You cannot join events of this club until {until:%Y-%m-%d %H:%M} UTC (no-show).")
        self.until = until


class NotTeamMember(SwissbotError):
    """The event requires membership of a Lichess team."""


class ByeLimitReached(SwissbotError):
    """The player asked for more byes than the event allows (or for a round that cannot take one)."""


class RoundNotFound(SwissbotError):
    """No such round in the event."""


class BoardNotFound(SwissbotError):
    """No such board in the round."""


class InvalidSetting(SwissbotError):
    """An event setting or an argument that makes no sense."""


class InvalidState(SwissbotError):
    """The event is not in a state that allows this (e.g. pausing a finished event)."""


def user_sentence(error: BaseException) -> str | None:
    """The sentence to show for an error the user or the host can act on (a refusal, a database in trouble);
    None for an unexpected one (a bug: the details go to the log)."""
    if isinstance(error, SwissbotError):
        return error.message
    if isinstance(error, DatabaseTrouble | DatabaseUnavailable):
        text = str(error).strip()
        return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")
    return None
