-- swissbot schema, version 8: which acceleration an accelerated event uses: FIDE's Baku method, or US Chess
-- rule 28R1 (added score) or 28R2 (non-winners). Events from before are Baku, the only method then.

ALTER TABLE events ADD COLUMN acceleration_method TEXT NOT NULL DEFAULT 'baku'
    CHECK (acceleration_method IN ('baku', 'us-28r1', 'us-28r2'));
