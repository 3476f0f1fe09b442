-- One instance at a time runs each background task on this database (issue #25: the
-- sweeper, the reconciler, the outbox relays and the other per-shard loops, one at a
-- time per shard across instances). A task's row names the instance holding it and
-- until when; src/workers/taskLease.ts takes or renews it with one conditional
-- upsert before a pass (a pass that cannot get it is skipped), renews it while the
-- pass runs and releases it when the instance stops. A holder that died stops
-- renewing: its lease runs out and another instance takes it. The rows' own leases
-- (outbox.lease_until, `skip locked`) stay the correctness guarantee; this only keeps
-- instances from doing the same pass side by side.
create table worker_leases (
  task text primary key,
  holder text not null,
  lease_until timestamptz not null
);
