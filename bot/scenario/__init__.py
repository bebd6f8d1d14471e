"""`swissbot scenario`: scripted events run through the real director, scheduler, storage and local Lichess."""
