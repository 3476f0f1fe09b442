-- Who paused, resumed or capped a show's waiting room, and when. The room's live
-- state (serving, paused, cap) lives in the queue store (Redis or in process);
-- this is the durable record of what operators did to it.
create table waiting_room_changes (
  id bigserial primary key,
  show_id text not null references shows (id),
  actor_id text not null references users (id),
  change jsonb not null,
  changed_at timestamptz not null default bo_now()
);
create index waiting_room_changes_show on waiting_room_changes (show_id, changed_at);
