-- swissbot schema, version 12 (issue #24): every channel post is one durable record, and bulletins are kept
-- until Discord took them.
-- `event_messages` is the record of each post the Discord announcer makes: written before it is sent (what:
-- `kind` and `round`; where: `channel_id`; `nonce`, sent with Discord's `enforce_nonce`) and completed with
-- `message_id` after; a resend of a pending record carries the same nonce, so Discord returns the message it
-- already took instead of posting it twice. `digest` is what the message shows (a hash of its payload), so an
-- edit replayed from the database is made only when the message shows something else.
-- `outbox` gains `bulletin` rows (a line for everyone: a cancellation, a disqualification), their `text` kept,
-- and `opened` rows (the event's card with its Join button).

CREATE TABLE event_messages_new (
    event_id INTEGER NOT NULL REFERENCES events (id),
    kind TEXT NOT NULL,
    round INTEGER NOT NULL DEFAULT 0,
    channel_id INTEGER NOT NULL,
    message_id INTEGER,
    nonce TEXT NOT NULL CHECK (length(nonce) BETWEEN 1 AND 25),
    digest TEXT,
    PRIMARY KEY (event_id, kind, round)
);
INSERT INTO event_messages_new (event_id, kind, round, channel_id, message_id, nonce)
    SELECT event_id, kind, round, channel_id, message_id, 'm' || message_id FROM event_messages;
DROP TABLE event_messages;
ALTER TABLE event_messages_new RENAME TO event_messages;

CREATE TABLE outbox_new (
    id INTEGER PRIMARY KEY,
    event_id INTEGER NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('results', 'standings', 'final', 'bulletin', 'opened')),
    round INTEGER NOT NULL CHECK (round >= 0),
    text TEXT NOT NULL DEFAULT '' CHECK ((kind = 'bulletin') = (text != '')),
    created_at TEXT NOT NULL,
    sent_at TEXT
);
INSERT INTO outbox_new (id, event_id, kind, round, created_at, sent_at)
    SELECT id, event_id, kind, round, created_at, sent_at FROM outbox;
DROP TABLE outbox;
ALTER TABLE outbox_new RENAME TO outbox;
-- At most one pending row per post; the same bulletin pending twice is one.
CREATE UNIQUE INDEX outbox_pending ON outbox (event_id, kind, round, text) WHERE sent_at IS NULL;
