-- swissbot schema, version 4: when an event's end (its final standings) was announced, so a restart between
-- finishing the event and announcing it still announces it, once.

ALTER TABLE events ADD COLUMN finish_announced_at TEXT;

-- An event finished under version 3 had its end posted then (or lost for good): not again. Except when its
-- last round's results wait to be announced: version 3 announced the end with them, and so does version 4.
UPDATE events SET finish_announced_at = COALESCE(finished_at, created_at)
WHERE status = 'finished' AND NOT EXISTS (
    SELECT 1 FROM rounds r WHERE r.event_id = events.id AND r.status = 'finished' AND r.results_announced_at IS NULL
);
