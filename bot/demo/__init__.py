"""`swissbot demo`: simulated club members run a whole event through the real director, scheduler and local Lichess."""
