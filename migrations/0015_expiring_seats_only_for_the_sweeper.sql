-- The held seats' expiry index serves the sweeper (`status = 'held' and
-- hold_expires_at <= now`), and only it. Its predicate was `status = 'held'` alone,
-- which every statement that picks one hold's held seats also says (entering
-- payment, releasing: `status = 'held' and show_id = $1 and hold_id = $2`): when
-- the statistics say few seats are held (a show analyzed when it was created,
-- before its on-sale), the planner took this index for those statements and read
-- every held seat of every show to find the hold's one or two — 673 buffers per
-- booking on average in bench:bookings (2,000 seats held, then paid for), growing
-- with the number of seats held at once. With `hold_expires_at is not null` in the
-- predicate, only a statement that bounds hold_expires_at can use it; the others
-- go through the hold's index (migrations/0014). A held seat always has an expiry
-- (claim_seats sets it), so the index holds the same rows as before.
drop index show_seats_expiring;
create index show_seats_expiring on show_seats (hold_expires_at) where status = 'held' and hold_expires_at is not null;
