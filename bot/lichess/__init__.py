"""Lichess: the gateway, its typed payloads and errors, and the adjudication of a finished game."""
