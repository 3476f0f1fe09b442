-- The change log without WAL (issue #26, bench/results/2026-12-04-feed-cost.md):
-- seat_changes becomes UNLOGGED, so a seat write's change row (and its index entry,
-- and the publisher's delete) is not written to the WAL. What that gives up: crash
-- recovery empties an unlogged table, and a promoted standby starts with it empty
-- (unlogged tables are not replicated). Changes committed but not yet published
-- then never reach a delta, and viewers would keep a stale map. So the publisher
-- notices a server start it has not published since and tells every reader to
-- resynchronize: it skips one batch number (readers treat a missing batch as a gap
-- and drop their viewers to a fresh snapshot) and moves every show's map version
-- on (a map read before the restart and one after may differ by the lost changes:
-- they must not share a version or an ETag). A clean restart keeps the table, but
-- is not told apart from a crash: it costs one resync, which is harmless.
alter table seat_changes set unlogged;

-- The server start the last publish ran under.
alter table seat_feed add column server_started_at timestamptz;
update seat_feed set server_started_at = pg_postmaster_start_time();

-- As in 0011, with the restart check first (under the publisher's lock, in its transaction).
create or replace function publish_seat_changes(p_limit integer, p_keep_seconds integer, p_wait boolean)
returns table (batch bigint, changes integer, shows integer)
language plpgsql as $$
declare
  v_batch bigint;
  v_changes integer;
  v_shows integer;
begin
  if p_wait then
    perform set_config('lock_timeout', '2s', true);
    perform pg_advisory_xact_lock(hashtextextended('boxoffice.publish_seat_changes', 0));
  elsif not pg_try_advisory_xact_lock(hashtextextended('boxoffice.publish_seat_changes', 0)) then
    return query select null::bigint, 0, 0; return;
  end if;
  -- A server start since the last publish: unpublished changes may be lost. One
  -- batch number is skipped (no deltas): every reader resynchronizes.
  update seat_feed set published_seq = published_seq + 1, server_started_at = pg_postmaster_start_time()
   where server_started_at is distinct from pg_postmaster_start_time();
  if found then
    update shows set map_version = map_version + 1;
  end if;
  if p_keep_seconds is not null then
    delete from seat_deltas
     where published_seq < coalesce(
       (select d.published_seq from seat_deltas d
         where d.published_at > clock_timestamp() - make_interval(secs => p_keep_seconds)
         order by d.published_seq limit 1),
       (select f.published_seq from seat_feed f));
  end if;
  perform 1 from seat_changes limit 1;
  if not found then
    return query select null::bigint, 0, 0; return;
  end if;
  update seat_feed set published_seq = published_seq + 1 returning published_seq into v_batch;
  -- Oldest seat_version first, so a cut by p_limit never publishes a seat's later
  -- change before its earlier one (docs/live-map.md, the proof).
  with pending as materialized (
    select c.ctid as row_id, c.show_id, c.seat_id, c.status, c.seat_version, c.changed_at
      from seat_changes c
     order by c.seat_version
     limit p_limit
  ), taken as (
    delete from seat_changes c where c.ctid = any (array(select p.row_id from pending p))
  ), latest as (
    select distinct on (p.show_id, p.seat_id) p.show_id, p.seat_id, p.status
      from pending p
     order by p.show_id, p.seat_id, p.seat_version desc
  ), versioned as (
    update shows s set map_version = s.map_version + 1
     where s.id in (select p.show_id from pending p)
    returning s.id, s.map_version
  ), published as (
    insert into seat_deltas (published_seq, show_id, map_version, changes, oldest_change_at)
    select v_batch, l.show_id, v.map_version,
           jsonb_agg(jsonb_build_object('seat', l.seat_id, 'status', l.status) order by l.seat_id),
           (select min(p.changed_at) from pending p where p.show_id = l.show_id)
      from latest l join versioned v on v.id = l.show_id
     group by l.show_id, v.map_version
    returning 1
  )
  select (select count(*) from pending), (select count(*) from published) into v_changes, v_shows;
  return query select v_batch, v_changes, v_shows;
end
$$;
