-- swissbot schema, version 5: the pairing system that paired each round (an event's `auto` choice can change
-- from round to round with the number of players). Rounds paired before version 5 were all paired by Dutch.

ALTER TABLE rounds ADD COLUMN system TEXT NOT NULL DEFAULT 'dutch';
