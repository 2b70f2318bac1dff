-- Games stored compactly (croupier_tournament::compact): the actions as positions in the
-- legal list, fuel per seat, and only what the match and the rules do not give. `record`
-- is then empty; rows written before this migration keep their JSON record and no
-- `compact`, and are read as they are.
ALTER TABLE games ADD COLUMN compact BLOB;
