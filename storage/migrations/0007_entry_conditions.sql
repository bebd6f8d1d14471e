-- swissbot schema, version 7 (club-week members): an event's minimum number of rated games at its speed
-- (NULL: none; a provisional rating is refused either way), and SB computed as Lichess does (1) or as FIDE does (0).

ALTER TABLE events ADD COLUMN min_rated_games INTEGER CHECK (min_rated_games IS NULL OR min_rated_games >= 0);
ALTER TABLE events ADD COLUMN lichess_sb INTEGER NOT NULL DEFAULT 0 CHECK (lichess_sb IN (0, 1));
