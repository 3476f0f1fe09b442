-- Best available, the waiting list and show cancellation met after they were written
-- apart (0020, 0021, 0022); this joins them:
--
-- 1. Best available refuses a cancelled show exactly as claim_seats does (0022): under
--    the show's sale lock taken shared, which the cancellation takes exclusively, so a
--    best-available claim that saw no cancellation commits its hold before the
--    cancellation releases every hold. The chooser itself (0020) is unchanged: it is
--    renamed, and claim_best_seats checks first, then calls it.
alter function claim_best_seats(text, text, text, integer, text, text, bigint)
  rename to claim_best_seats_of_a_show_on_sale;

create function claim_best_seats(
  p_show text, p_hold text, p_user text, p_count integer,
  p_section text, p_tier text, p_max_price bigint
) returns table (outcome text, seats text[], expires_at timestamptz, amount bigint, currency text,
                seat_limit integer, seats_had bigint, opens_at timestamptz)
language plpgsql as $$
begin
  perform pg_advisory_xact_lock_shared(hashtextextended('show-cancel/' || p_show, 0));
  if exists (select 1 from show_cancellations c where c.show_id = p_show) then
    return query select 'show_cancelled', null::text[], null::timestamptz, null::bigint, null::text, null::integer, null::bigint, null::timestamptz;
    return;
  end if;
  return query select * from claim_best_seats_of_a_show_on_sale(p_show, p_hold, p_user, p_count, p_section, p_tier, p_max_price);
end
$$;

-- 2. A waiting list's offer picks its seats from where each seat sits as the show's
--    own seat rows say (row_no, seat_no: 0020), not from the hall: a shard keeps no
--    halls (docs/scale-out.md), so the hall join of 0021 found no seat there. Same
--    choice: adjacent free seats in one row, the first row in layout order, the
--    lowest numbers.
create or replace function waitlist_adjacent_free_seats(p_show text, p_count integer)
returns text[]
language sql stable
as $$
  with free as (
    select s.seat_id, s.row_no, s.seat_no,
           s.seat_no - row_number() over (partition by s.row_no order by s.seat_no) as run
      from show_seats s
     where s.show_id = p_show
       and (s.status = 'available' or (s.status = 'held' and s.hold_expires_at <= bo_now()))
  ), runs as (
    select row_no, run, min(seat_no) as first_seat,
           (array_agg(seat_id order by seat_no))[1:p_count] as seats
      from free
     group by row_no, run
    having count(*) >= p_count
  )
  select coalesce((select r.seats from runs r order by r.row_no, r.first_seat limit 1), '{}')
$$;

-- 3. A waiting-list entry names its buyer, whose account lives on the control
--    database: no foreign key can reach it from a shard (as 0018 did for holds).
alter table waitlist_entries drop constraint if exists waitlist_entries_user_id_fkey;
