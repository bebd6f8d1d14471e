"""The members' Lichess tokens, encrypted at rest with Fernet (key from `SWISSBOT_TOKEN_KEY`)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from cryptography.fernet import Fernet, InvalidToken

TOKEN_KEY_ENV = "SWISSBOT_TOKEN_KEY"


class VaultError(ValueError):
    """The key is unusable, or a stored secret was not made with it."""


class TokenVault:
    """Seals and opens tokens; never prints them or its key."""

    def __init__(self, key: str) -> None:
        try:
            self._fernet = Fernet(key.strip().encode())
        except (ValueError, TypeError):
            raise VaultError(
                f"{TOKEN_KEY_ENV} is not a Fernet key (32 url-safe base64-encoded bytes; see config.example.toml)"
            ) from None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> TokenVault | None:
        """The vault of the key in the environment; None when no key is set."""
        env = os.environ if environ is None else environ
        key = env.get(TOKEN_KEY_ENV, "").strip()
        return cls(key) if key else None

    @staticmethod
    def new_key() -> str:
        """A fresh key (for the demo and tests)."""
        return Fernet.generate_key().decode()

    def seal(self, token: str) -> str:
        """The token encrypted (text, safe to store)."""
        return self._fernet.encrypt(token.encode()).decode()

    def open(self, secret: str) -> str:
        """The token back from what `seal` made."""
        try:
            return self._fernet.decrypt(secret.encode()).decode()
        except InvalidToken:
            raise VaultError("a stored token was not sealed with this key (was SWISSBOT_TOKEN_KEY changed?)") from None

    def __repr__(self) -> str:
        return "TokenVault(<key hidden>)"
