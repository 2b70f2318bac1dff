-- The arena's tables (PostgreSQL). Times are Unix milliseconds; seeds are u64 stored as i64 bits.
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE teams (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    -- SHA-256 of the team's token; the token itself is never stored.
    token_hash BYTEA NOT NULL,
    created_ms BIGINT NOT NULL
);
CREATE TABLE versions (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    team_id BIGINT NOT NULL REFERENCES teams(id),
    number BIGINT NOT NULL,
    sha256 TEXT NOT NULL,
    bytes BIGINT NOT NULL,
    uploaded_ms BIGINT NOT NULL,
    -- checking | valid | refused
    status TEXT NOT NULL,
    message TEXT NOT NULL DEFAULT '',
    -- The smoke match: JSON with its verdict and the agent's log (team and organiser only).
    smoke TEXT,
    UNIQUE (team_id, number)
);
CREATE INDEX versions_team ON versions(team_id, uploaded_ms);
CREATE TABLE matches (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- ladder | placement
    kind TEXT NOT NULL,
    seed BIGINT NOT NULL,
    deals BIGINT NOT NULL,
    duplicate BIGINT NOT NULL,
    -- JSON array of version ids, in schedule order.
    entrants TEXT NOT NULL,
    -- queued | leased | done
    state TEXT NOT NULL,
    lease TEXT,
    lease_expires_ms BIGINT,
    attempts BIGINT NOT NULL DEFAULT 0,
    created_ms BIGINT NOT NULL,
    done_ms BIGINT
);
CREATE INDEX matches_state ON matches(state, id);
CREATE TABLE games (
    match_id BIGINT NOT NULL REFERENCES matches(id),
    game_index BIGINT NOT NULL,
    -- The game record as JSON without the agents' logs.
    record TEXT NOT NULL,
    -- The agents' log lines as JSON, (seat, lines) pairs; NULL when none logged.
    logs TEXT,
    finished_ms BIGINT NOT NULL,
    PRIMARY KEY (match_id, game_index)
);
CREATE TABLE game_seats (
    match_id BIGINT NOT NULL,
    game_index BIGINT NOT NULL,
    seat BIGINT NOT NULL,
    version_id BIGINT NOT NULL,
    team_id BIGINT NOT NULL,
    -- win | loss | draw
    result TEXT NOT NULL,
    -- 0 for the best placed entrant of the game, then 1, 2, ...
    place BIGINT NOT NULL,
    -- The verdict of this seat's first fault, or NULL.
    fault TEXT,
    PRIMARY KEY (match_id, game_index, seat)
);
CREATE INDEX game_seats_team ON game_seats(team_id, match_id);
