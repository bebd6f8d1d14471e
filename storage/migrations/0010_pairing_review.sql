-- swissbot schema, version 10: correcting a round's pairing before it is played (issue #27). An event's hold
-- between a round's pairing and its games (`pairing_review`, minutes; 0: none); a round's end of hold
-- (`review_until`: its games are created only after it, or when an organiser confirms, which clears it) and
-- whether an organiser corrected its pairing (`manual`: the TRF export names it, `swissbot check` does not
-- compare it with the engine).

ALTER TABLE events ADD COLUMN pairing_review INTEGER NOT NULL DEFAULT 0 CHECK (pairing_review BETWEEN 0 AND 1440);
ALTER TABLE rounds ADD COLUMN review_until TEXT;
ALTER TABLE rounds ADD COLUMN manual INTEGER NOT NULL DEFAULT 0 CHECK (manual IN (0, 1));

-- FIDE-rated events: a member's FIDE profile (id, federation, title, birth year; shown only in the organisers'
-- TRF export) and an event's TRF header for the arbiter's report (JSON: city, federation, chief and deputy
-- arbiters, time control as text, rating type).
ALTER TABLE players ADD COLUMN fide_id TEXT CHECK (fide_id IS NULL OR (fide_id GLOB '[1-9]*' AND length(fide_id) <= 11));
ALTER TABLE players ADD COLUMN federation TEXT CHECK (federation IS NULL OR length(federation) = 3);
ALTER TABLE players ADD COLUMN title TEXT;
ALTER TABLE players ADD COLUMN birth_year INTEGER;
ALTER TABLE events ADD COLUMN trf_header TEXT NOT NULL DEFAULT '{}';
