-- swissbot schema, version 1. Times are ISO-8601 text in UTC; Discord ids are INTEGER snowflakes.

CREATE TABLE schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL
);

CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    guild_id INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    system TEXT NOT NULL,
    rounds INTEGER NOT NULL CHECK (rounds >= 1),
    clock_limit INTEGER NOT NULL CHECK (clock_limit >= 0),
    clock_increment INTEGER NOT NULL CHECK (clock_increment >= 0),
    rated INTEGER NOT NULL CHECK (rated IN (0, 1)),
    start_at TEXT,
    round_interval INTEGER CHECK (round_interval IS NULL OR round_interval > 0),
    round_times TEXT NOT NULL DEFAULT '[]',            -- JSON list of ISO times (fixed schedule)
    rating_min INTEGER,
    rating_max INTEGER,
    team TEXT,
    tiebreaks TEXT NOT NULL DEFAULT '[]',              -- JSON list of C.07 codes
    rules TEXT NOT NULL DEFAULT '[]',                  -- JSON list of Lichess rules
    early_draw_policy TEXT NOT NULL CHECK (early_draw_policy IN ('replay', 'forfeit', 'review')),
    early_draw_moves INTEGER NOT NULL CHECK (early_draw_moves >= 0),
    no_show_seconds INTEGER NOT NULL CHECK (no_show_seconds > 0),
    max_byes INTEGER NOT NULL CHECK (max_byes >= 0),
    late_join_bye INTEGER NOT NULL CHECK (late_join_bye IN (0, 1)),
    acceleration INTEGER NOT NULL CHECK (acceleration IN (0, 1)),
    initial_colour TEXT NOT NULL CHECK (initial_colour IN ('w', 'b')),
    status TEXT NOT NULL CHECK (status IN ('draft', 'open', 'running', 'paused', 'finished', 'cancelled')),
    created_by INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT,
    next_round_at TEXT
);
CREATE INDEX events_guild ON events (guild_id, status);

CREATE TABLE players (
    id INTEGER PRIMARY KEY,
    discord_id INTEGER NOT NULL UNIQUE,
    display_name TEXT NOT NULL,
    lichess_id TEXT UNIQUE CHECK (lichess_id IS NULL OR lichess_id = lower(lichess_id)),
    lichess_name TEXT,
    linked_at TEXT,
    created_at TEXT NOT NULL,
    CHECK ((lichess_id IS NULL) = (lichess_name IS NULL) AND (lichess_id IS NULL) = (linked_at IS NULL))
);

CREATE TABLE link_codes (
    discord_id INTEGER PRIMARY KEY,
    lichess_id TEXT NOT NULL CHECK (lichess_id = lower(lichess_id)),
    code TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
);

CREATE TABLE entries (
    event_id INTEGER NOT NULL REFERENCES events (id),
    player_id INTEGER NOT NULL REFERENCES players (id),
    number INTEGER CHECK (number IS NULL OR number >= 1),
    rating INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'withdrawn', 'absent', 'banned', 'disqualified')),
    joined_round INTEGER NOT NULL CHECK (joined_round >= 1),
    late_bye_round INTEGER CHECK (late_bye_round IS NULL OR late_bye_round < joined_round),
    accelerated INTEGER NOT NULL DEFAULT 0 CHECK (accelerated IN (0, 1)),
    joined_at TEXT NOT NULL,
    PRIMARY KEY (event_id, player_id),
    UNIQUE (event_id, number)
);

CREATE TABLE rounds (
    event_id INTEGER NOT NULL REFERENCES events (id),
    number INTEGER NOT NULL CHECK (number >= 1),
    status TEXT NOT NULL CHECK (status IN ('paired', 'playing', 'finished')),
    paired_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT,
    PRIMARY KEY (event_id, number)
);

CREATE TABLE boards (
    id INTEGER PRIMARY KEY,
    event_id INTEGER NOT NULL,
    round INTEGER NOT NULL,
    board_no INTEGER NOT NULL CHECK (board_no >= 1),
    white_id INTEGER NOT NULL,
    black_id INTEGER NOT NULL CHECK (black_id <> white_id),
    result TEXT CHECK (result IN ('1-0', '0-1', '1/2-1/2', '+/-', '-/+', '-/-')),
    result_kind TEXT CHECK (result_kind IN ('played', 'forfeit', 'double_forfeit')),
    game_id TEXT,                                      -- the Lichess game that decided the result
    game_data TEXT,                                    -- its raw JSON
    decided_at TEXT,
    UNIQUE (event_id, round, board_no),
    FOREIGN KEY (event_id, round) REFERENCES rounds (event_id, number),
    FOREIGN KEY (event_id, white_id) REFERENCES entries (event_id, player_id),
    FOREIGN KEY (event_id, black_id) REFERENCES entries (event_id, player_id),
    CHECK ((result IS NULL) = (result_kind IS NULL) AND (result IS NULL) = (decided_at IS NULL)),
    CHECK (result IS NULL
        OR (result IN ('1-0', '0-1', '1/2-1/2') AND result_kind = 'played')
        OR (result IN ('+/-', '-/+') AND result_kind = 'forfeit')
        OR (result = '-/-' AND result_kind = 'double_forfeit'))
);

-- Every paired round gives each entry exactly one record: a board or one of these.
CREATE TABLE round_byes (
    event_id INTEGER NOT NULL,
    round INTEGER NOT NULL,
    player_id INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('pab', 'full_bye', 'half_bye', 'zero_bye', 'not_paired')),
    PRIMARY KEY (event_id, round, player_id),
    FOREIGN KEY (event_id, player_id) REFERENCES entries (event_id, player_id)
);

CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    board_id INTEGER NOT NULL REFERENCES boards (id),
    attempt INTEGER NOT NULL CHECK (attempt >= 1),
    challenge_name TEXT NOT NULL UNIQUE,
    lichess_id TEXT UNIQUE,
    status TEXT NOT NULL CHECK (status IN ('creating', 'created', 'finished', 'aborted', 'replaced', 'failed')),
    data TEXT,                                         -- the raw game JSON, last seen
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (board_id, attempt),
    CHECK (status IN ('creating', 'failed') OR lichess_id IS NOT NULL)
);
CREATE INDEX games_status ON games (status);

CREATE TABLE bye_requests (
    event_id INTEGER NOT NULL,
    player_id INTEGER NOT NULL,
    round INTEGER NOT NULL CHECK (round >= 1),
    requested_at TEXT NOT NULL,
    PRIMARY KEY (event_id, player_id, round),
    FOREIGN KEY (event_id, player_id) REFERENCES entries (event_id, player_id)
);

CREATE TABLE forbidden_pairs (
    event_id INTEGER NOT NULL REFERENCES events (id),
    player_a INTEGER NOT NULL REFERENCES players (id),
    player_b INTEGER NOT NULL REFERENCES players (id),
    created_at TEXT NOT NULL,
    PRIMARY KEY (event_id, player_a, player_b),
    CHECK (player_a < player_b)
);

CREATE TABLE bans (
    guild_id INTEGER NOT NULL,
    player_id INTEGER NOT NULL REFERENCES players (id),
    until TEXT NOT NULL,
    count INTEGER NOT NULL CHECK (count >= 1),
    reason TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (guild_id, player_id)
);

CREATE TABLE event_messages (
    event_id INTEGER NOT NULL REFERENCES events (id),
    kind TEXT NOT NULL,
    round INTEGER NOT NULL DEFAULT 0,
    channel_id INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    PRIMARY KEY (event_id, kind, round)
);

CREATE TABLE audit_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    event_id INTEGER,
    subject TEXT NOT NULL,
    before TEXT,                                       -- JSON
    after TEXT,                                        -- JSON
    reason TEXT
);
CREATE INDEX audit_event ON audit_log (event_id, id);

CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN
    SELECT RAISE(ABORT, 'the audit log is append-only');
END;

CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN
    SELECT RAISE(ABORT, 'the audit log is append-only');
END;
