"""Persistence: SQLite schema, migrations and repository functions."""
