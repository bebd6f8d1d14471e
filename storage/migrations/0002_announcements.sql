-- swissbot schema, version 2: why an event finished, and when each round's pairings and results were
-- announced (so a restart between finishing a round and announcing it still announces it, once).

ALTER TABLE events ADD COLUMN finish_reason TEXT;
ALTER TABLE rounds ADD COLUMN pairings_announced_at TEXT;
ALTER TABLE rounds ADD COLUMN results_announced_at TEXT;

-- Version 1 kept these in the audit log only.
UPDATE events SET finish_reason = (
    SELECT a.reason FROM audit_log a
    WHERE a.event_id = events.id AND a.action = 'finish'
    ORDER BY a.id DESC LIMIT 1
) WHERE status = 'finished';

UPDATE rounds SET pairings_announced_at = (
    SELECT MIN(a.at) FROM audit_log a
    WHERE a.event_id = rounds.event_id AND a.action = 'round.announce' AND a.subject = 'round:' || rounds.number
);

-- A round finished under version 1 had its standings posted then (or lost for good): not again.
UPDATE rounds SET results_announced_at = finished_at WHERE status = 'finished';
