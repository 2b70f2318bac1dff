-- Workers that play ladder matches from other machines (`croupier arena worker`). A worker's
-- token is distinct from every team's: it may lease matches and report games, nothing else.
CREATE TABLE workers (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    -- SHA-256 of the worker's token; the token itself is never stored.
    token_hash BLOB NOT NULL,
    created_ms INTEGER NOT NULL,
    -- The last time the worker leased, reported or beat (shown on the admin page).
    seen_ms INTEGER
);
