-- Bookings, payment attempts, refunds, the outbox, webhooks, tickets.

alter table bookings add column payment_method text not null default '';
alter table bookings add column updated_at timestamptz not null default now();
create index bookings_user on bookings (user_id, created_at desc);
create index bookings_hold on bookings (hold_id);

-- Idempotency-Key of POST /v1/bookings, scoped to the caller. While a request
-- runs, its row is 'in_flight' with a lease; an instance that dies mid-request
-- leaves a lease that runs out, and a repeat may then take the key over.
create table idempotency_keys (
  user_id text not null,
  key text not null,
  fingerprint text not null,
  state text not null check (state in ('in_flight', 'done')),
  -- the booking the request created, so a repeat after a crash can answer with it
  booking_id text,
  lease_until timestamptz,
  response_status integer,
  response_body jsonb,
  created_at timestamptz not null default now(),
  primary key (user_id, key)
);

-- One call to the payment provider. Its id is the provider's idempotency key and
-- is written before the call, so a crash after the call can be reconciled.
create table payment_attempts (
  id text primary key,
  booking_id text not null references bookings (id),
  hold_id text not null,
  amount bigint not null,
  currency text not null,
  payment_method text not null,
  status text not null check (status in ('created', 'unknown', 'succeeded', 'failed')),
  provider_payment_id text,
  checks integer not null default 0,
  next_check_at timestamptz not null default now(),
  last_error text,
  created_at timestamptz not null default now(),
  resolved_at timestamptz
);
create index payment_attempts_open on payment_attempts (next_check_at) where status in ('created', 'unknown');
create unique index payment_attempts_booking on payment_attempts (booking_id);

-- At most one refund per booking, whatever asks for it and how often.
create table refunds (
  id text primary key,
  booking_id text not null unique references bookings (id),
  payment_intent text not null,
  amount bigint not null,
  currency text not null,
  reason text not null check (reason in ('cancellation', 'seats_lost')),
  status text not null check (status in ('pending', 'succeeded', 'failed')),
  provider_refund_id text,
  created_at timestamptz not null default now(),
  resolved_at timestamptz
);

-- Side effects written in the same transaction as the change that causes them,
-- delivered at least once by the workers; every handler is idempotent.
create table outbox (
  id bigint generated always as identity primary key,
  topic text not null,
  payload jsonb not null,
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  lease_until timestamptz,
  done_at timestamptz,
  last_error text,
  created_at timestamptz not null default now()
);
create index outbox_due on outbox (next_attempt_at) where done_at is null;

-- Provider webhooks, deduplicated on the provider's event id.
create table webhook_events (
  id text primary key,
  type text not null,
  payload jsonb not null,
  received_at timestamptz not null default now(),
  processed_at timestamptz
);
create index webhook_events_unprocessed on webhook_events (received_at) where processed_at is null;

create table tickets (
  id text primary key,
  booking_id text not null references bookings (id),
  show_id text not null,
  seat_id text not null,
  code text not null,
  qr_key text not null unique,
  status text not null check (status in ('valid', 'void')),
  checked_in_at timestamptz,
  created_at timestamptz not null default now()
);
create unique index tickets_booking_seat on tickets (booking_id, seat_id);
-- The second safety net: one valid ticket per seat of a show.
create unique index tickets_valid_once on tickets (show_id, seat_id) where status = 'valid';

-- Per-show hold tallies, added up in memory by each instance and flushed every
-- second or so: no hot counter row on the claim's path.
create table show_stats (
  show_id text primary key,
  holds_created bigint not null default 0,
  hold_conflicts bigint not null default 0
);
