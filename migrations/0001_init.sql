-- The one clock. Every judgement about time (expired? honoured? sale open?) reads
-- bo_now(), never an application server's clock, so several instances agree and
-- tests can move time forward by changing clock.offset_interval.
create table clock (
  id boolean primary key default true check (id),
  offset_interval interval not null default '0'
);
insert into clock default values;

create function bo_now() returns timestamptz
  language sql stable
  as $$ select now() + offset_interval from clock $$;

-- Signing keys and other secrets that every instance must share.
create table secrets (
  name text primary key,
  value text not null,
  created_at timestamptz not null default now()
);

create table users (
  id text primary key,
  email text not null,
  password_hash text not null,
  name text,
  role text not null default 'user' check (role in ('user', 'staff', 'admin')),
  created_at timestamptz not null default now()
);
create unique index users_email_key on users (lower(email));

create table venues (
  id text primary key,
  name text not null,
  city text not null,
  timezone text not null default 'UTC',
  created_at timestamptz not null default now()
);
create index venues_city on venues (lower(city));

create table halls (
  id text primary key,
  venue_id text not null references venues (id),
  name text not null,
  seat_count integer not null,
  created_at timestamptz not null default now()
);

-- The physical seats of a hall; immutable once the hall exists.
create table hall_seats (
  hall_id text not null references halls (id),
  seat_id text not null,
  position integer not null,
  row_label text not null,
  number integer not null,
  section text,
  tier text not null,
  accessible boolean not null default false,
  primary key (hall_id, seat_id)
);

create table events (
  id text primary key,
  title text not null,
  kind text not null default 'other',
  duration_minutes integer,
  created_at timestamptz not null default now()
);

create table shows (
  id text primary key,
  event_id text not null references events (id),
  hall_id text not null references halls (id),
  starts_at timestamptz not null,
  sale_opens_at timestamptz not null,
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  price_tiers jsonb not null,
  hold_ttl_seconds integer not null default 600 check (hold_ttl_seconds >= 1),
  per_user_limit integer not null default 10 check (per_user_limit >= 1),
  cancel_until_minutes_before integer not null default 120 check (cancel_until_minutes_before >= 0),
  waiting_room boolean not null default false,
  created_at timestamptz not null default now()
);
create index shows_starts_at on shows (starts_at);
create index shows_event on shows (event_id, starts_at);

-- Every change to a show's seats takes a new number from this sequence, so the
-- map's version (the largest number among its seats) only grows. A sequence never
-- blocks, unlike a counter row on the show that every hold would queue behind.
create sequence seat_version_seq;

-- One row per seat per show: where correctness lives (see docs/locking.md).
-- status: available -> held -> paying -> booked; 'held' with hold_expires_at in the
-- past is free for the next claim (lazy expiry).
create table show_seats (
  show_id text not null references shows (id),
  seat_id text not null,
  tier text not null,
  status text not null default 'available'
    check (status in ('available', 'held', 'paying', 'booked')),
  hold_id text,
  holder_id text,
  hold_expires_at timestamptz,
  booking_id text,
  version bigint not null default nextval('seat_version_seq'),
  primary key (show_id, seat_id),
  check ((status = 'available') = (hold_id is null)),
  check (status <> 'held' or hold_expires_at is not null)
);
create index show_seats_expiring on show_seats (hold_expires_at) where status = 'held';
create index show_seats_holder on show_seats (show_id, holder_id) where holder_id is not null;

-- No foreign key to shows: a key-share lock on the hot show's row from every hold
-- would pile up multixacts at exactly the moment the show is busiest. The claim
-- reads the show itself and only writes holds for shows that exist.
create table holds (
  id text primary key,
  show_id text not null,
  user_id text not null references users (id),
  seats text[] not null,
  amount bigint not null,
  currency text not null,
  status text not null default 'active'
    check (status in ('active', 'paying', 'confirmed', 'released', 'expired')),
  expires_at timestamptz not null,
  extended boolean not null default false,
  created_at timestamptz not null default now()
);
create index holds_user_show on holds (user_id, show_id);
create index holds_open_expiry on holds (expires_at) where status = 'active';

create table bookings (
  id text primary key,
  hold_id text not null references holds (id),
  user_id text not null references users (id),
  show_id text not null references shows (id),
  amount bigint not null,
  currency text not null,
  status text not null check (status in ('pending', 'confirmed', 'failed', 'cancelled', 'refunded')),
  created_at timestamptz not null default now()
);

-- The safety net: whatever the application does, one seat of one show can belong
-- to at most one confirmed booking. A second sale fails with 23505.
create table booking_seats (
  booking_id text not null references bookings (id),
  show_id text not null,
  seat_id text not null,
  sold boolean not null default false,
  primary key (booking_id, seat_id)
);
create unique index booking_seats_sold_once on booking_seats (show_id, seat_id) where sold;
