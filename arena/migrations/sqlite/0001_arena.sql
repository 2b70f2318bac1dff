-- The arena's tables (SQLite). Times are Unix milliseconds; seeds are u64 stored as i64 bits.
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE teams (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    -- SHA-256 of the team's token; the token itself is never stored.
    token_hash BLOB NOT NULL,
    created_ms INTEGER NOT NULL
);
CREATE TABLE versions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    team_id INTEGER NOT NULL REFERENCES teams(id),
    number INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    uploaded_ms INTEGER NOT NULL,
    -- checking | valid | refused
    status TEXT NOT NULL,
    message TEXT NOT NULL DEFAULT '',
    -- The smoke match: JSON with its verdict and the agent's log (team and organiser only).
    smoke TEXT,
    UNIQUE (team_id, number)
);
CREATE INDEX versions_team ON versions(team_id, uploaded_ms);
CREATE TABLE matches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    -- ladder | placement
    kind TEXT NOT NULL,
    seed INTEGER NOT NULL,
    deals INTEGER NOT NULL,
    duplicate INTEGER NOT NULL,
    -- JSON array of version ids, in schedule order.
    entrants TEXT NOT NULL,
    -- queued | leased | done
    state TEXT NOT NULL,
    lease TEXT,
    lease_expires_ms INTEGER,
    attempts INTEGER NOT NULL DEFAULT 0,
    created_ms INTEGER NOT NULL,
    done_ms INTEGER
);
CREATE INDEX matches_state ON matches(state, id);
CREATE TABLE games (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    game_index INTEGER NOT NULL,
    -- The game record as JSON without the agents' logs.
    record TEXT NOT NULL,
    -- The agents' log lines as JSON, (seat, lines) pairs; NULL when none logged.
    logs TEXT,
    finished_ms INTEGER NOT NULL,
    PRIMARY KEY (match_id, game_index)
);
CREATE TABLE game_seats (
    match_id INTEGER NOT NULL,
    game_index INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    version_id INTEGER NOT NULL,
    team_id INTEGER NOT NULL,
    -- win | loss | draw
    result TEXT NOT NULL,
    -- 0 for the best placed entrant of the game, then 1, 2, ...
    place INTEGER NOT NULL,
    -- The verdict of this seat's first fault, or NULL.
    fault TEXT,
    PRIMARY KEY (match_id, game_index, seat)
);
CREATE INDEX game_seats_team ON game_seats(team_id, match_id);
