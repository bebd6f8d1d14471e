"""Lichess in its own shapes: the gateway, the game stream, the typed payloads and errors."""

LICHESS_URL = "https://lichess.org"
TOKEN_ENV = "LICHESS_TOKEN"
