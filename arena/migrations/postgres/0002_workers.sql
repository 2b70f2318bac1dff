-- Workers that play ladder matches from other machines (`croupier arena worker`). A worker's
-- token is distinct from every team's: it may lease matches and report games, nothing else.
CREATE TABLE workers (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    -- SHA-256 of the worker's token; the token itself is never stored.
    token_hash BYTEA NOT NULL,
    created_ms BIGINT NOT NULL,
    -- The last time the worker leased, reported or beat (shown on the admin page).
    seen_ms BIGINT
);
