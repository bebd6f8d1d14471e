-- swissbot schema, version 6: OAuth linking and bulk pairing.
-- oauth_states: a /link started with Lichess's OAuth page (single use, bound to the Discord user, expiring);
-- the PKCE verifier stays here until the callback. player_tokens: a member's challenge:write token, encrypted
-- (Fernet; never in clear text), marked invalid when Lichess no longer accepts it. bulks: one bulk pairing
-- attempt; its games are rows of `games` linked by bulk_games, written in one transaction with the attempt.

CREATE TABLE oauth_states (
    state TEXT PRIMARY KEY,
    discord_id INTEGER NOT NULL,
    display_name TEXT NOT NULL,
    verifier TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
);

CREATE TABLE player_tokens (
    player_id INTEGER PRIMARY KEY REFERENCES players (id),
    lichess_id TEXT NOT NULL CHECK (lichess_id = lower(lichess_id)),
    token TEXT NOT NULL CHECK (substr(token, 1, 3) NOT IN ('lio', 'lip')),  -- sealed, never a clear token
    scopes TEXT NOT NULL,
    expires_at TEXT,
    invalid_at TEXT,
    created_at TEXT NOT NULL
);

CREATE TABLE bulks (
    id INTEGER PRIMARY KEY,
    event_id INTEGER NOT NULL REFERENCES events (id),
    round INTEGER NOT NULL CHECK (round >= 1),
    status TEXT NOT NULL CHECK (status IN ('creating', 'created', 'failed')),
    lichess_id TEXT UNIQUE,
    start_clocks_at TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    CHECK (status != 'created' OR lichess_id IS NOT NULL)
);
CREATE INDEX bulks_round ON bulks (event_id, round);

CREATE TABLE bulk_games (
    game_id INTEGER PRIMARY KEY REFERENCES games (id),
    bulk_id INTEGER NOT NULL REFERENCES bulks (id),
    white TEXT NOT NULL,
    black TEXT NOT NULL
);
