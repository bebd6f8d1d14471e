-- swissbot schema, version 11 (issue #24): the posts that must reach an event's channel, kept until Discord took
-- them. A row is written (in the transaction of the change that calls for it) before the post is tried, and
-- completed (`sent_at`) after Discord answered; a pending row is tried again by a job, also after a restart.
-- What it posts is rendered from the database when it is sent: `results`: round `round`'s results (its message
-- edited in place); `standings`: the standings after round `round`; `final`: the final standings.
-- At most one pending row per post: a later change to the same post is carried by the one pending.

CREATE TABLE outbox (
    id INTEGER PRIMARY KEY,
    event_id INTEGER NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('results', 'standings', 'final')),
    round INTEGER NOT NULL CHECK (round >= 0),
    created_at TEXT NOT NULL,
    sent_at TEXT
);
CREATE UNIQUE INDEX outbox_pending ON outbox (event_id, kind, round) WHERE sent_at IS NULL;
