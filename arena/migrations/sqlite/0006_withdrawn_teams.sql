-- A team the organiser took out of the ladder (a student who left the course, a team
-- disqualified): the reason, possibly empty. NULL while the team plays. Its games stay, since
-- other teams' ratings were earned against them.
ALTER TABLE teams ADD COLUMN withdrawn TEXT;
