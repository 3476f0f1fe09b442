-- A show whose inventory was moved to another database leaves this row behind on
-- the database it left (src/db/showMove.ts), in the transaction that deletes its
-- rows. A claim that waited for the move's row locks finds the show's seats gone;
-- this row tells it why ("moved": retry, the placement has changed) rather than
-- "unknown seats". A show moved back here loses its row in the copy's transaction.
create table shows_moved_away (
  show_id text primary key,
  moved_at timestamptz not null default clock_timestamp()
);
