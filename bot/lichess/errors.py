"""The gateway's errors: each a `SwissbotError` whose message is fit for a user and never contains a token."""

from __future__ import annotations

from bot.errors import SwissbotError


class LichessError(SwissbotError):
    """Base of every gateway error; messages never contain the token."""


class LichessUnavailable(LichessError):
    """Lichess could not be reached or kept failing (network, timeout, 5xx) after the retries."""

    def __init__(self, message: str = "Lichess is not answering right now; try again in a minute.") -> None:
        super().__init__(message)


class LichessRateLimited(LichessError):
    """Lichess kept answering 429 (too many requests) after the pauses."""

    def __init__(self, message: str = "Lichess is rate-limiting the bot; try again in a few minutes.") -> None:
        super().__init__(message)


class LichessBadRequest(LichessError):
    """Lichess refused the request's parameters (HTTP 400)."""


class LichessAuthError(LichessError):
    """The bot's token is missing, invalid or lacks a scope (HTTP 401/403)."""


class LichessNotFound(LichessError):
    """Lichess does not know the requested object (HTTP 404)."""


class LichessUserNotFound(LichessNotFound):
    """No Lichess account has this name."""

    def __init__(self, username: str) -> None:
        super().__init__(f"No Lichess account is named {username!r}.")
        self.username = username


class LichessTokensRefused(LichessBadRequest):
    """Lichess refused a bulk pairing because of some players' tokens (`{"tokens": {token: why}}`).

    `tokens` maps each refused token to Lichess's reason; the message names no token.
    """

    def __init__(self, tokens: dict[str, str]) -> None:
        super().__init__(f"Lichess refused {len(tokens)} player token(s) in the bulk pairing.")
        self.tokens = tokens

    def __repr__(self) -> str:
        return f"LichessTokensRefused({len(self.tokens)} token(s))"


class LichessOAuthRefused(LichessBadRequest):
    """Lichess refused an OAuth exchange or a member's token (invalid code, revoked token, ...)."""
