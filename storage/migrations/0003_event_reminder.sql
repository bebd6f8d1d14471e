-- swissbot schema, version 3: an event's own reminder lead time (seconds before a round starts; NULL: the
-- bot's configured default, 0: no reminder).

ALTER TABLE events ADD COLUMN reminder_seconds INTEGER CHECK (reminder_seconds IS NULL OR reminder_seconds >= 0);
