"""The event's domain model: events, settings, entries, results and rounds, with their rules (no I/O)."""
