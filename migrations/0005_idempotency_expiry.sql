-- Stored Idempotency-Key answers expire (IDEMPOTENCY_TTL_HOURS, 24 h by default);
-- the workers sweep the old ones oldest first, in bounded batches, by this index.
create index idempotency_keys_created_at on idempotency_keys (created_at);
