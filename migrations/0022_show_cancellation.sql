-- Cancelling a show (docs/show-cancellation.md). The catalog marks the show
-- cancelled (public listings leave it out); the show's inventory database keeps
-- the cancellation itself, which stops the sale there and which the cancellation
-- worker works through, resumably, until every booking is cancelled and refunded.

alter table shows add column cancelled_at timestamptz;
alter table shows add column cancel_reason text;

create table show_cancellations (
  show_id text primary key,
  reason text not null,
  cancelled_at timestamptz not null default now(),
  -- Set by the worker once no confirmed booking and no payment in flight is left.
  completed_at timestamptz
);
create index show_cancellations_open on show_cancellations (show_id) where completed_at is null;

-- Who cancelled a cancelled booking: its buyer, or the organiser (the show was cancelled).
alter table bookings add column cancelled_by text check (cancelled_by in ('buyer', 'organiser'));
-- The worker walks a show's confirmed bookings; progress counts a show's bookings.
create index bookings_show on bookings (show_id, status);

-- claim_seats as in 0009, with one check added at the top: a cancelled show sells
-- nothing. The check runs under a shared advisory lock on the show that the
-- cancellation takes exclusively (src/db/showCancellations.ts): a claim that read
-- "not cancelled" commits before the cancellation releases every hold, so no claim
-- that started before the cancellation committed can leave a live hold behind it.
create or replace function claim_seats(
  p_show text, p_hold text, p_user text, p_seats text[]
) returns table (outcome text, taken text[], expires_at timestamptz, amount bigint, currency text,
                seat_limit integer, seats_had bigint, opens_at timestamptz)
language plpgsql as $$
declare
  v_show shows%rowtype;
  v_now timestamptz := bo_now();
  v_verdict record;
  v_taken text[];
begin
  perform pg_advisory_xact_lock_shared(hashtextextended('show-cancel/' || p_show, 0));
  if exists (select 1 from show_cancellations c where c.show_id = p_show) then
    return query select 'show_cancelled', null::text[], null::timestamptz, null::bigint, null::text, null::integer, null::bigint, null::timestamptz; return;
  end if;

  select * into v_show from shows where id = p_show;
  if not found then
    return query select 'show_not_found', null::text[], null::timestamptz, null::bigint, null::text, null::integer, null::bigint, null::timestamptz; return;
  end if;
  if cardinality(p_seats) > v_show.per_user_limit then
    return query select 'too_many_seats', null::text[], null::timestamptz, null::bigint, null::text, v_show.per_user_limit, null::bigint, null::timestamptz; return;
  end if;
  if v_now < v_show.sale_opens_at then
    return query select 'sale_not_open', null::text[], null::timestamptz, null::bigint, null::text, null::integer, null::bigint, v_show.sale_opens_at; return;
  end if;
  if v_now >= v_show.starts_at then
    return query select 'sale_closed', null::text[], null::timestamptz, null::bigint, null::text, null::integer, null::bigint, null::timestamptz; return;
  end if;

  -- Fast refusal: seats already taken in this statement's snapshot are refused
  -- without locking anything, so losers of a hot seat do not queue behind its row
  -- lock (nor take a transaction id and wait for a commit). Refusing a seat that was
  -- committed as taken when the request arrived is a correct answer.
  select coalesce(array_agg(s.seat_id order by s.seat_id), '{}') into v_taken
    from show_seats s
   where s.show_id = p_show and s.seat_id = any (p_seats)
     and not (s.status = 'available' or (s.status = 'held' and s.hold_expires_at <= v_now));
  if cardinality(v_taken) > 0 then
    return query select 'seat_unavailable', v_taken, null::timestamptz, null::bigint, null::text, null::integer, null::bigint, null::timestamptz; return;
  end if;

  perform pg_advisory_xact_lock(hashtextextended(p_show || '/' || p_user, 0));

  -- The claim. Every requested seat row is locked in ascending seat order (so two
  -- overlapping multi-seat claims wait in one order and never deadlock), judged on
  -- its newest version, and updated only when all of them are free and the buyer
  -- stays within the limit. Otherwise nothing changes.
  with requested as materialized (
    select s.seat_id, s.tier,
           s.status = 'available' or (s.status = 'held' and s.hold_expires_at <= v_now) as free
      from show_seats s
     where s.show_id = p_show and s.seat_id = any (p_seats)
     order by s.seat_id
       for update
  ), verdict as (
    select coalesce(array_agg(r.seat_id order by r.seat_id) filter (where not r.free), '{}') as taken,
           count(*) = cardinality(p_seats) as all_known,
           bool_and(r.free) as all_free,
           sum((v_show.price_tiers ->> r.tier)::bigint)::bigint as amount,
           (select count(*) from show_seats o
             where o.show_id = p_show and o.holder_id = p_user
               and (o.status in ('paying', 'booked') or (o.status = 'held' and o.hold_expires_at > v_now))) as had
      from requested r
  ), judged as (
    select v.*, v.had + cardinality(p_seats) <= v_show.per_user_limit as within_limit from verdict v
  ), claimed as (
    update show_seats s
       set status = 'held', hold_id = p_hold, holder_id = p_user,
           hold_expires_at = v_now + make_interval(secs => v_show.hold_ttl_seconds),
           version = nextval('seat_version_seq')
      from judged v
     where v.all_known and v.all_free and v.within_limit
       and s.show_id = p_show and s.seat_id = any (p_seats)
    returning s.seat_id
  )
  select v.*, (select count(*) from claimed) as claimed into v_verdict from judged v;

  if not v_verdict.all_known then
    return query select 'unknown_seats', null::text[], null::timestamptz, null::bigint, null::text, null::integer, null::bigint, null::timestamptz; return;
  end if;
  if not v_verdict.all_free then
    return query select 'seat_unavailable', v_verdict.taken, null::timestamptz, null::bigint, null::text, null::integer, null::bigint, null::timestamptz; return;
  end if;
  if not v_verdict.within_limit then
    return query select 'limit_exceeded', null::text[], null::timestamptz, null::bigint, null::text,
                        v_show.per_user_limit, v_verdict.had, null::timestamptz; return;
  end if;
  if v_verdict.claimed <> cardinality(p_seats) then
    -- Cannot happen while the rows are locked; if it ever does, undo everything.
    raise exception 'claim_seats changed % of % seats', v_verdict.claimed, cardinality(p_seats);
  end if;

  insert into holds (id, show_id, user_id, seats, amount, currency, expires_at)
  values (p_hold, p_show, p_user, p_seats, v_verdict.amount, v_show.currency,
          v_now + make_interval(secs => v_show.hold_ttl_seconds));

  return query select 'held', '{}'::text[], v_now + make_interval(secs => v_show.hold_ttl_seconds),
                      v_verdict.amount, v_show.currency, null::integer, null::bigint, null::timestamptz;
end
$$;
