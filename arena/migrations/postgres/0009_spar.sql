-- Sparring: house agents a team may spar against, and who asked for a spar match.
-- A house agent plays as entrant -id (a version id is positive), so a spar's stored entrants
-- name the same agent whatever arena.toml later lists.
CREATE TABLE house_agents (
    id BIGSERIAL PRIMARY KEY,
    name TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    UNIQUE (name, sha256)
);
ALTER TABLE matches ADD COLUMN requested_by BIGINT;
CREATE INDEX matches_requested ON matches(requested_by, created_ms) WHERE requested_by IS NOT NULL;
