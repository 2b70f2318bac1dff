-- Each team's and worker's name under Unicode TS #39's confusable skeleton (names.rs), unique,
-- so that "Аlpha" (Cyrillic А) cannot be added beside "Alpha", even by two requests at once.
-- Rows from before are given their key when the database is opened; a key that two of them
-- already share stays NULL on the later one (NULLs never clash), and the server says so.
ALTER TABLE teams ADD COLUMN name_key TEXT;
CREATE UNIQUE INDEX teams_name_skeleton ON teams(name_key);
ALTER TABLE workers ADD COLUMN name_key TEXT;
CREATE UNIQUE INDEX workers_name_skeleton ON workers(name_key);
