-- The seats of one hold, found through an index: entering payment, confirming,
-- releasing and returning to held pick a hold's seats by `show_id = $1 and
-- hold_id = $2`, and with no index on hold_id each of those statements walked every
-- seat of the show (the primary key's show_id prefix) to find the hold's one or two:
-- 2,002 rows for a 2,000-seat show by the booking statement's plan, 60,000 for a
-- stadium, twice per paid booking. Seats without a hold are not in it.
create index show_seats_hold on show_seats (hold_id) where hold_id is not null;
