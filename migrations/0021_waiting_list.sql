-- The waiting list of a sold-out show (docs/waiting-list.md). One row per buyer per
-- show; `position` is the place in line, given once per join and never reused.
-- status is what the list itself decided: 'waiting' (in line), 'offered' (a hold was
-- made for them: hold_id; whether that offer is still open, lapsed or became a
-- booking is the hold's own state, read with it), 'left' (they left the line).
create table waitlist_entries (
  show_id text not null,
  user_id text not null references users (id),
  position integer not null check (position >= 1),
  count integer not null check (count >= 1),
  status text not null default 'waiting' check (status in ('waiting', 'offered', 'left')),
  hold_id text,
  joined_at timestamptz not null default now(),
  primary key (show_id, user_id),
  unique (show_id, position),
  check ((status = 'offered') = (hold_id is not null))
);
-- The offer pass reads the line in order, only the entries still waiting.
create index waitlist_entries_waiting on waitlist_entries (show_id, position) where status = 'waiting';
-- An offered hold is paid without an admission token: found by its hold id.
create index waitlist_entries_hold on waitlist_entries (hold_id) where hold_id is not null;

-- The seats an offer of p_count seats would take: p_count free seats (available, or
-- held past their expiry) with consecutive numbers in one row, rows in the hall's
-- layout order (the first row listed first), the lowest numbers of the first run that
-- fits; empty when none fits. A read: the offer statement locks and re-checks them
-- (src/db/seatTransitions.ts offerSeats). Deliberately small and self-contained:
-- once best available (claim_best_seats, migrations/0020) is merged, offers should
-- pick their seats with it instead, and this function be dropped.
create function waitlist_adjacent_free_seats(p_show text, p_count integer)
returns text[]
language sql stable
as $$
  with free as (
    select h.seat_id, h.section, h.row_label, h.number, h.position,
           h.number - row_number() over (partition by h.section, h.row_label order by h.number) as run
      from show_seats s
      join shows sh on sh.id = s.show_id
      join hall_seats h on h.hall_id = sh.hall_id and h.seat_id = s.seat_id
     where s.show_id = p_show
       and (s.status = 'available' or (s.status = 'held' and s.hold_expires_at <= bo_now()))
  ), runs as (
    select section, row_label, run, min(position) as first_position,
           (array_agg(seat_id order by number))[1:p_count] as seats
      from free
     group by section, row_label, run
    having count(*) >= p_count
  )
  -- Positions run through the layout row by row, so the lowest first position is the
  -- first row listed, and within it the lowest numbers.
  select coalesce((select r.seats from runs r order by r.first_position limit 1), '{}')
$$;

-- The offer worker asks "any free seat?" of every listed (sold-out) show several times
-- a second; this answers from the few available rows, not the show's every seat. A
-- seat enters it only when it becomes available, so a claim adds nothing to it.
create index show_seats_available on show_seats (show_id, seat_id) where status = 'available';
