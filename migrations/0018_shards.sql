-- Shards by show (docs/scale-out.md). The same migrations run on the control
-- database and on every shard; a shard keeps a copy of each of its shows' rows, and
-- no inventory table may point into a table only the control database fills.

-- Inventory rows name accounts, events and halls that live on the control database:
-- no foreign key can reach them from a shard. The control database checks events and
-- halls when a show is created or changed (src/app/catalog.ts); a hold's account is
-- the signed token's, checked as src/app/accounts.ts accountExists says.
alter table holds drop constraint if exists holds_user_id_fkey;
alter table bookings drop constraint if exists bookings_user_id_fkey;
alter table shows drop constraint if exists shows_event_id_fkey;
alter table shows drop constraint if exists shows_hall_id_fkey;
alter table waiting_room_changes drop constraint if exists waiting_room_changes_actor_id_fkey;

-- How many buyers a show is expected to draw, in any unit the operator keeps to:
-- a new show goes to the shard with the least of it among shows not yet started.
alter table shows add column expected_demand integer not null default 0 check (expected_demand >= 0);

-- Where each show's inventory lives (control database only; empty on a shard).
-- epoch grows with every move; state 'moving' while a move copies the show, when its
-- purchase routes answer 503 OVERLOADED.
create table show_placement (
  show_id text primary key,
  shard text not null,
  epoch bigint not null default 1,
  state text not null default 'active' check (state in ('active', 'moving')),
  changed_at timestamptz not null default now()
);
create index show_placement_shard on show_placement (shard);

-- Shows made before shards: their inventory is in this database, named shard 'main'
-- (with SHARD_URLS, name this database 'main' among the shards to keep serving them).
insert into show_placement (show_id, shard) select id, 'main' from shows;
