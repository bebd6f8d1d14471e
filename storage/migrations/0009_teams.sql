-- swissbot schema, version 9: Team Swiss events (FIDE C.04.6). An event's number of boards a match, its teams
-- (pairing number, name, the Discord role it was formed from) and their rosters in board order: the players
-- beyond the event's boards are reserves. A player is in at most one team of an event, and only as an entry.

ALTER TABLE events ADD COLUMN team_boards INTEGER NOT NULL DEFAULT 4 CHECK (team_boards BETWEEN 1 AND 20);

CREATE TABLE teams (
    id INTEGER PRIMARY KEY,
    event_id INTEGER NOT NULL REFERENCES events (id),
    number INTEGER NOT NULL CHECK (number >= 1),
    name TEXT NOT NULL CHECK (length(trim(name)) > 0),
    role_id INTEGER,
    created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX teams_name ON teams (event_id, name COLLATE NOCASE);

CREATE TABLE team_players (
    team_id INTEGER NOT NULL REFERENCES teams (id),
    event_id INTEGER NOT NULL,
    player_id INTEGER NOT NULL,
    board_order INTEGER NOT NULL CHECK (board_order >= 1),
    PRIMARY KEY (team_id, player_id),
    UNIQUE (team_id, board_order),
    UNIQUE (event_id, player_id),
    FOREIGN KEY (event_id, player_id) REFERENCES entries (event_id, player_id)
);
