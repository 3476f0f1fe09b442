-- The live seat map's change feed (docs/live-map.md). Every seat write lands a
-- row in seat_changes through a trigger, so no move can forget to; a publisher
-- (any instance, one at a time) turns the committed rows into one delta per show
-- with the show's next map version, in one transaction, and deletes them; readers
-- follow the deltas by batch number.

-- The map's version: grows by one per published batch that changes the show.
-- Written only by publish_seat_changes(); read with the seats in one statement.
alter table shows add column map_version bigint not null default 0;

-- Changes not published yet (the publisher deletes what it publishes). No primary
-- key: the publisher takes rows by the index and deletes them by ctid (it alone
-- deletes, under its lock), and every index costs every seat write.
create table seat_changes (
  show_id text not null,
  seat_id text not null,
  -- As the map shows it: available, held or booked (paying shows as held).
  status text not null check (status in ('available', 'held', 'booked')),
  -- show_seats.version of the write: taken under the seat's row lock, so it grows
  -- in commit order for one seat (the publisher's ordering key).
  seat_version bigint not null,
  changed_at timestamptz not null default clock_timestamp()
);
create index seat_changes_order on seat_changes (seat_version);

-- Published deltas: what the stream sends, one per show per batch.
create table seat_deltas (
  published_seq bigint not null,
  show_id text not null,
  map_version bigint not null,
  -- [{seat, status}]: the latest status of every seat the batch changed.
  changes jsonb not null,
  oldest_change_at timestamptz not null,
  published_at timestamptz not null default clock_timestamp(),
  primary key (published_seq, show_id)
);

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

-- One publish pass: the committed changes (up to p_limit, oldest seat_version
-- first) become one delta per show with the show's next map version and this
-- batch's number, and leave seat_changes. Serialized across instances by an
-- advisory lock: a background pass that finds it taken publishes nothing (the
-- holder is publishing); with p_wait (a map read that wants its reader's own
-- writes counted) it waits for the holder, then publishes. Also forgets deltas
-- older than p_keep_seconds (null: not now). Returns the batch number, or null
-- when nothing was published.
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
