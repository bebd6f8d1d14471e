"""The event's web pages: standings, pairings, crosstable and each player's games, server-rendered (Jinja2)."""
