-- The ratings board as of one match, so that a restarted server counts only the results
-- stored since (see ratings.rs). One row; a server writes it every few seconds while the
-- ladder plays. It is derived data: deleting it costs only a slower start.
CREATE TABLE board_checkpoint (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    -- Every match below this id is counted in `body`.
    applied_upto BIGINT NOT NULL,
    -- Games counted: checked against the stored games before the checkpoint is used.
    games BIGINT NOT NULL,
    body TEXT NOT NULL,
    written_ms BIGINT NOT NULL
);
