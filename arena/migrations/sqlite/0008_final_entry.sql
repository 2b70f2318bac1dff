-- The version (by its number) a team chose to enter in the final; NULL: its latest valid one.
ALTER TABLE teams ADD COLUMN final_entry BIGINT;
