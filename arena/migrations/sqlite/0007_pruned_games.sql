-- When the storage budget (`[storage]`, storage.rs) dropped this game's logs, or its replay
-- too (then `record` is empty and `compact` NULL). NULL for a game kept whole. Its seats,
-- the results the ratings are made of, are never dropped.
ALTER TABLE games ADD COLUMN pruned_ms BIGINT;
