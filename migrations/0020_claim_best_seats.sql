-- Best available (issue #27): the service chooses `count` adjacent seats in the same
-- single claim as chosen seats. Each seat row carries where it sits, copied from the
-- hall at show creation (src/db/seatTransitions.ts createShowSeats), so the choice
-- never joins the catalog:
--   row_no   the row's rank in the hall's layout order (first row listed = 1; a row is
--            one (section, row label), ranked by its first seat's position);
--   seat_no  the seat's number in its row (adjacent = consecutive numbers);
--   row_mid2 the row's lowest plus highest number: twice its centre, an integer;
--   section  the seat's section (null outside a stadium).
alter table show_seats
  add column row_no integer,
  add column seat_no integer,
  add column row_mid2 integer,
  add column section text;

-- Shows created before this migration: the same values, from their hall.
update show_seats s
   set row_no = p.row_no, seat_no = p.number, row_mid2 = p.mid2, section = p.section
  from (
    select sh.id as show_id, r.seat_id, r.number, r.section, r.mid2,
           dense_rank() over (partition by sh.id order by r.first_pos)::int as row_no
      from shows sh
      join (select h.hall_id, h.seat_id, h.number, h.section,
                   (min(h.number) over w + max(h.number) over w)::int as mid2,
                   min(h.position) over w as first_pos
              from hall_seats h
            window w as (partition by h.hall_id, h.section, h.row_label)) r on r.hall_id = sh.hall_id
  ) p
 where s.show_id = p.show_id and s.seat_id = p.seat_id;

-- The free seats of a show in layout order: best available reads only these, from the
-- first row on, and stops at the first row that has a run long enough; a show with most
-- seats taken is not walked seat by seat. Per section and per tier too, for the filters.
create index show_seats_free_runs on show_seats (show_id, row_no, seat_no) where status = 'available';
create index show_seats_free_runs_by_section on show_seats (show_id, section, row_no, seat_no) where status = 'available';
create index show_seats_free_runs_by_tier on show_seats (show_id, tier, row_no, seat_no) where status = 'available';

-- claim_best_seats: picks `p_count` adjacent seats (one row, consecutive numbers) that
-- match the filters and holds them, all or nothing, in one round trip. The best: the
-- first row in layout order that has such a run; in it, a run that leaves no single
-- free seat alone between taken seats (or the row's end) if one exists, then the run
-- nearest the row's centre, then the lowest number. Free = available, or held past its
-- expiry (lazy expiry, as claim_seats).
--
-- Concurrency: the candidate rows are read without locks. One best-available claimer
-- chooses in a row at a time (a transaction advisory lock per show and row, taken with
-- pg_try_advisory_xact_lock): a row another is choosing in is skipped, never waited
-- for, so a burst of buyers spreads over the best rows instead of all racing for the
-- same seats. In its row the claimer locks exactly the chosen seats with `skip locked`,
-- judged on their newest version; a seat a chosen-seat claim holds meanwhile is counted
-- as taken (what it locked is rolled back: a subtransaction) and it chooses again from
-- a fresh snapshot; at most 32 rounds. When only busy rows, or seats a chosen-seat
-- claim was locking, are left it sleeps a few milliseconds (at most 8 times, 180 ms in
-- all) and looks again: so a run another claim does not take is still found, and
-- not_enough_seats means none is left. The only lock it waits for is the buyer's.
-- The per-user limit is judged under the same per (show, buyer) advisory lock as
-- claim_seats, so chosen and best-available requests of one buyer count together.
create function claim_best_seats(
  p_show text, p_hold text, p_user text, p_count integer,
  p_section text, p_tier text, p_max_price bigint
) returns table (outcome text, seats text[], expires_at timestamptz, amount bigint, currency text,
                seat_limit integer, seats_had bigint, opens_at timestamptz)
language plpgsql
-- The first row with a run is found by reading the free seats' index in order and
-- stopping there; the planner, expecting to read them all, would rather sort a bitmap
-- scan of every free seat of the show (3,034 rows, 67 ms, on a 60,000-seat show 95 %
-- taken, against 18 rows, 1.5 ms, in order). So this function plans without bitmap
-- scans and sorts where another way exists (its other sorts are of one row's seats),
-- and without JIT: those settings inflate costs past the JIT threshold, and compiling
-- took 2 s where running takes a millisecond.
set enable_bitmapscan = off
set enable_sort = off
set jit = off
as $$
declare
  v_show shows%rowtype;
  v_now timestamptz := bo_now();
  v_tiers text[];
  v_all_tiers integer;
  v_had bigint;
  v_excluded text[] := '{}';
  v_busy integer[] := '{}';
  v_mine integer[] := '{}';
  v_rows integer[];
  v_row integer;
  v_try integer;
  v_ids text[];
  v_got text[];
  v_amount bigint;
  v_waits integer := 0;
  v_expires timestamptz;
begin
  select * into v_show from shows where id = p_show;
  if not found then
    return query select 'show_not_found', null::text[], null::timestamptz, null::bigint, null::text, null::integer, null::bigint, null::timestamptz; return;
  end if;
  if p_count < 1 or p_count > v_show.per_user_limit then
    return query select 'too_many_seats', null::text[], null::timestamptz, null::bigint, null::text, v_show.per_user_limit, null::bigint, null::timestamptz; return;
  end if;
  if v_now < v_show.sale_opens_at then
    return query select 'sale_not_open', null::text[], null::timestamptz, null::bigint, null::text, null::integer, null::bigint, v_show.sale_opens_at; return;
  end if;
  if v_now >= v_show.starts_at then
    return query select 'sale_closed', null::text[], null::timestamptz, null::bigint, null::text, null::integer, null::bigint, null::timestamptz; return;
  end if;

  select coalesce(array_agg(t.key) filter (where (p_tier is null or t.key = p_tier)
                                          and (p_max_price is null or t.value::bigint <= p_max_price)), '{}'),
         count(*)
    into v_tiers, v_all_tiers
    from jsonb_each_text(v_show.price_tiers) t;
  if cardinality(v_tiers) = 0 then
    -- No tier of the show matches: no seat can.
    return query select 'not_enough_seats', null::text[], null::timestamptz, null::bigint, null::text, null::integer, null::bigint, null::timestamptz; return;
  end if;
  v_expires := v_now + make_interval(secs => v_show.hold_ttl_seconds);

  perform pg_advisory_xact_lock(hashtextextended(p_show || '/' || p_user, 0));
  select count(*) into v_had from show_seats o
   where o.show_id = p_show and o.holder_id = p_user
     and (o.status in ('paying', 'booked') or (o.status = 'held' and o.hold_expires_at > v_now));

  for v_round in 1..32 loop
    -- The first rows (up to 8), in layout order, with p_count consecutive free seats
    -- that all match: read from a free seats' index in layout order, stopping there.
    -- Only matching seats can be in a run, so only they are read: by section, by the
    -- one tier asked for, or (all tiers, or several under max_price) by layout order.
    if p_section is not null then
      v_rows := array(
        select f.row_no
          from (select s.row_no, s.seat_no, lag(s.seat_no, p_count - 1) over w as back
                  from show_seats s
                 where s.show_id = p_show and s.section = p_section and s.tier = any (v_tiers) and s.status = 'available'
                   and s.seat_id <> all (v_excluded) and s.row_no <> all (v_busy)
                window w as (partition by s.row_no order by s.seat_no)) f
         where f.back = f.seat_no - (p_count - 1)
         group by f.row_no
         order by f.row_no
         limit 8);
    elsif cardinality(v_tiers) = 1 and v_all_tiers > 1 then
      v_rows := array(
        select f.row_no
          from (select s.row_no, s.seat_no, lag(s.seat_no, p_count - 1) over w as back
                  from show_seats s
                 where s.show_id = p_show and s.tier = v_tiers[1] and s.status = 'available'
                   and s.seat_id <> all (v_excluded) and s.row_no <> all (v_busy)
                window w as (partition by s.row_no order by s.seat_no)) f
         where f.back = f.seat_no - (p_count - 1)
         group by f.row_no
         order by f.row_no
         limit 8);
    else
      v_rows := array(
        select f.row_no
          from (select s.row_no, s.seat_no, lag(s.seat_no, p_count - 1) over w as back
                  from show_seats s
                 where s.show_id = p_show and s.tier = any (v_tiers) and s.status = 'available'
                   and s.seat_id <> all (v_excluded) and s.row_no <> all (v_busy)
                window w as (partition by s.row_no order by s.seat_no)) f
         where f.back = f.seat_no - (p_count - 1)
         group by f.row_no
         order by f.row_no
         limit 8);
    end if;
    if cardinality(v_rows) = 0 then
      -- None among the available seats: look again counting seats held past their
      -- expiry that the sweeper has not freed yet (rare, and read without an order).
      v_rows := array(
        select f.row_no
          from (select x.row_no, x.seat_no,
                       lag(x.seat_no, p_count - 1) over w as back,
                       sum(x.ok) over (w rows between p_count - 1 preceding and current row) as oks
                  from (select s.row_no, s.seat_no, s.seat_id, (s.tier = any (v_tiers))::int as ok
                          from show_seats s
                         where s.show_id = p_show and s.status = 'available'
                           and (p_section is null or s.section = p_section)
                        union all
                        select s.row_no, s.seat_no, s.seat_id, (s.tier = any (v_tiers))::int
                          from show_seats s
                         where s.show_id = p_show and s.status = 'held' and s.hold_expires_at is not null
                           and s.hold_expires_at <= v_now and (p_section is null or s.section = p_section)) x
                 where x.seat_id <> all (v_excluded) and x.row_no <> all (v_busy)
                window w as (partition by x.row_no order by x.seat_no)) f
         where f.back = f.seat_no - (p_count - 1) and f.oks = p_count
         group by f.row_no
         order by f.row_no
         limit 8);
    end if;

    if cardinality(v_rows) = 0 then
      if (cardinality(v_busy) > 0 or cardinality(v_excluded) > 0) and v_waits < 8 then
        -- What is left is in rows other best-available claimers are choosing in, or
        -- seats a chosen-seat claim was locking: they finish in milliseconds and may
        -- leave a run. Sleep (5, 10, … 40 ms: 180 ms in all at most), then look again
        -- at everything. Never a blocking wait on another claimer's row: this claim
        -- may hold a row of its own, and two such waits could close a cycle.
        v_waits := v_waits + 1;
        v_busy := '{}';
        v_excluded := '{}';
        perform pg_sleep(0.005 * v_waits);
        continue;
      end if;
      return query select 'not_enough_seats', null::text[], null::timestamptz, null::bigint, null::text, null::integer, null::bigint, null::timestamptz; return;
    end if;

    if v_had + p_count > v_show.per_user_limit then
      return query select 'limit_exceeded', null::text[], null::timestamptz, null::bigint, null::text,
                          v_show.per_user_limit, v_had, null::timestamptz; return;
    end if;

    -- One best-available claimer chooses in a row at a time: a row another is choosing
    -- in is skipped for the next one (never waited for), so a burst of buyers spreads
    -- over the best rows instead of all racing for the same seats.
    v_row := null;
    foreach v_try in array v_rows loop
      if v_try = any (v_mine) or pg_try_advisory_xact_lock(hashtextextended(p_show || '#' || v_try, 0)) then
        v_mine := v_mine || v_try;
        v_row := v_try;
        exit;
      end if;
      v_busy := v_busy || v_try;
    end loop;
    continue when v_row is null;

    -- The best run in that row. Runs of free seats (any tier) are the islands of
    -- consecutive numbers; a placement strands a seat when it leaves exactly one free
    -- seat between itself and its island's end.
    select c.ids into v_ids
      from (select g.seat_no, g.lo, g.hi, g.mid2,
                   lead(g.seat_no, p_count - 1) over r as fwd,
                   sum(g.ok) over (r rows between current row and p_count - 1 following) as oks,
                   array_agg(g.seat_id) over (r rows between current row and p_count - 1 following) as ids
              from (select i.*, min(i.seat_no) over isl as lo, max(i.seat_no) over isl as hi
                      from (select y.*, y.seat_no - row_number() over (order by y.seat_no) as island
                              from (select s.seat_id, s.seat_no, s.row_mid2 as mid2, (s.tier = any (v_tiers))::int as ok
                                      from show_seats s
                                     where s.show_id = p_show and s.row_no = v_row and s.status = 'available'
                                    union all
                                    select s.seat_id, s.seat_no, s.row_mid2, (s.tier = any (v_tiers))::int
                                      from show_seats s
                                     where s.show_id = p_show and s.row_no = v_row and s.status = 'held'
                                       and s.hold_expires_at is not null and s.hold_expires_at <= v_now) y
                             where y.seat_id <> all (v_excluded)) i
                    window isl as (partition by i.island)) g
            window r as (partition by g.lo order by g.seat_no)) c
     where c.fwd = c.seat_no + p_count - 1 and c.oks = p_count
     order by (c.seat_no - c.lo = 1 or c.hi - (c.seat_no + p_count - 1) = 1),
              abs(2 * c.seat_no + p_count - 1 - c.mid2),
              c.seat_no
     limit 1;

    begin
      -- Lock exactly the chosen seats, never waiting (so in no particular order, and
      -- never in a deadlock); judged on their newest version.
      select coalesce(array_agg(l.seat_id), '{}') into v_got
        from (select s.seat_id from show_seats s
               where s.show_id = p_show and s.seat_id = any (v_ids)
                 and (s.status = 'available' or (s.status = 'held' and s.hold_expires_at <= v_now))
                 for update skip locked) l;
      if cardinality(v_got) <> p_count then
        raise exception using errcode = 'BO001', message = 'best seats taken meanwhile';
      end if;

      with claimed as (
        update show_seats s
           set status = 'held', hold_id = p_hold, holder_id = p_user, hold_expires_at = v_expires,
               version = nextval('seat_version_seq')
         where s.show_id = p_show and s.seat_id = any (v_got)
        returning s.tier, s.seat_no, s.seat_id
      )
      select sum((v_show.price_tiers ->> c.tier)::bigint)::bigint, array_agg(c.seat_id order by c.seat_no)
        into v_amount, v_ids from claimed c;

      insert into holds (id, show_id, user_id, seats, amount, currency, expires_at)
      values (p_hold, p_show, p_user, v_ids, v_amount, v_show.currency, v_expires);
    exception when sqlstate 'BO001' then
      -- Someone else is taking some of them: count the ones we could not have as taken.
      v_excluded := v_excluded || array(select unnest(v_ids) except select unnest(v_got));
      v_row := null;
      continue;
    end;

    return query select 'held', v_ids, v_expires, v_amount, v_show.currency, null::integer, null::bigint, null::timestamptz;
    return;
  end loop;
  -- Every round lost a race: the seats are going fast. Answered as no seats, not an error.
  return query select 'not_enough_seats', null::text[], null::timestamptz, null::bigint, null::text, null::integer, null::bigint, null::timestamptz;
end
$$;
