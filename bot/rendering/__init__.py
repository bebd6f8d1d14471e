"""Rendering of rounds, standings and crosstables for Discord and the console (pure: no network)."""
