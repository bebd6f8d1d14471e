"""The pairing engine: FIDE Swiss systems over immutable data, no I/O."""
