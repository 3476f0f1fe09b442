-- The live seat map's change feed (docs/live-map.md). Every seat write lands a
-- row here through a trigger, so no move can forget to; a publisher (any instance,
-- one at a time) gives committed rows the show's next map version in one
-- transaction, and readers follow the published rows by batch number.

-- The map's version: grows by one per published batch that changes the show.
-- Written only by publish_seat_changes(); read with the seats in one statement.
alter table shows add column map_version bigint not null default 0;

-- No primary key: the publisher finds its rows by the partial index and updates
-- them by ctid (it alone changes them, under its lock), and each index costs every
-- seat write (docs/live-map.md, measured).
create table seat_changes (
  show_id text not null,
  seat_id text not null,
  -- As the map shows it: available, held or booked (paying shows as held).
  status text not null check (status in ('available', 'held', 'booked')),
  -- show_seats.version of the write: taken under the seat's row lock, so it grows
  -- in commit order for one seat (the publisher's ordering key).
  seat_version bigint not null,
  changed_at timestamptz not null default clock_timestamp(),
  -- Set together by the publisher.
  map_version bigint,
  published_seq bigint,
  published_at timestamptz
);
create index seat_changes_unpublished on seat_changes (seat_version) where published_seq is null;
create index seat_changes_published on seat_changes (published_seq) where published_seq is not null;

-- The last published batch number. Batches are consecutive (a rolled-back publish
-- rolls this back too), so a reader that finds one missing knows it was deleted.
create table seat_feed (
  id boolean primary key default true check (id),
  published_seq bigint not null default 0
);
insert into seat_feed default values;

-- Only rows whose map status or hold changed: entering payment (held -> paying)
-- and a declined payment (paying -> held) change nothing a viewer sees. A claim of
-- an expired hold (held -> held, another hold) is logged: the map showed it free.
create function log_seat_changes() returns trigger language plpgsql as $$
begin
  insert into seat_changes (show_id, seat_id, status, seat_version)
  select n.show_id, n.seat_id, case n.status when 'paying' then 'held' else n.status end, n.version
    from new_seats n join old_seats o on o.show_id = n.show_id and o.seat_id = n.seat_id
   where (case n.status when 'paying' then 'held' else n.status end) <> (case o.status when 'paying' then 'held' else o.status end)
      or n.hold_id is distinct from o.hold_id;
  return null;
end
$$;

create trigger show_seats_log_changes after update on show_seats
  referencing old table as old_seats new table as new_seats
  for each statement execute function log_seat_changes();

-- One publish pass: every committed, unpublished change (up to p_limit, oldest
-- seat_version first) gets its show's next map version and this batch's number.
-- Serialized across instances by an advisory lock: a background pass that finds it
-- taken publishes nothing (the holder is publishing); with p_wait (a map read that
-- wants its reader's own writes counted) it waits for the holder, then publishes.
-- Also forgets published changes older than p_keep_seconds (null: not now). Returns the batch
-- number, or null when nothing was published.
create function publish_seat_changes(p_limit integer, p_keep_seconds integer, p_wait boolean)
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
  delete from seat_changes
   where p_keep_seconds is not null and published_seq is not null
     and published_seq < coalesce(
       (select c.published_seq from seat_changes c
         where c.published_seq is not null and c.published_at > clock_timestamp() - make_interval(secs => p_keep_seconds)
         order by c.published_seq limit 1),
       (select f.published_seq from seat_feed f));
  perform 1 from seat_changes where published_seq is null limit 1;
  if not found then
    return query select null::bigint, 0, 0; return;
  end if;
  update seat_feed set published_seq = published_seq + 1 returning published_seq into v_batch;
  -- Oldest seat_version first, so a cut by p_limit never publishes a seat's later
  -- change before its earlier one (docs/live-map.md, the proof).
  with pending as materialized (
    select c.ctid as row_id, c.show_id from seat_changes c
     where c.published_seq is null
     order by c.seat_version
     limit p_limit
  ), versioned as (
    update shows s set map_version = s.map_version + 1
     where s.id in (select p.show_id from pending p)
    returning s.id, s.map_version
  ), published as (
    update seat_changes c
       set map_version = v.map_version, published_seq = v_batch, published_at = clock_timestamp()
      from pending p join versioned v on v.id = p.show_id
     where c.ctid = p.row_id
    returning c.show_id
  )
  select count(*), count(distinct show_id) into v_changes, v_shows from published;
  return query select v_batch, v_changes, v_shows;
end
$$;
