-- A team's latest games in order (the team page): with (team, match) alone the database
-- sorted every seat of the team's latest matches by game index for each page shown.
CREATE INDEX game_seats_team_game ON game_seats(team_id, match_id, game_index);
DROP INDEX game_seats_team;
