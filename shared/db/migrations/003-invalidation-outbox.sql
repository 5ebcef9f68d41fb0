-- Transactional outbox of cache invalidations: every write that changes what a redirect answers
-- inserts its invalidation here in the same transaction; a relay publishes the rows on the bus
-- and deletes them. Rows older than any cache TTL are pruned undelivered.
create table invalidation_outbox (
  id bigserial primary key,
  message text not null,
  created_at timestamptz not null default now()
);
