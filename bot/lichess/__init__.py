"""Lichess: the gateway, its typed payloads and errors, and the adjudication of a finished game."""

LICHESS_URL = "https://lichess.org"
TOKEN_ENV = "LICHESS_TOKEN"
