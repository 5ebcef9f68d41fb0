-- analytics.events messages are composed from the analytics store when they are sent, never
-- written per event batch: an endpoint keeps its position in the store's sync order
-- ((ingested_at, event_id), as microseconds and a UUID), and a message keeps only the range of
-- positions it carries; its events are read again from the store for every attempt and replay.
-- A position starts where the endpoint begins to want analytics.events (added with it, given it,
-- enabled again): the events stored from then on. An endpoint with analytics.events is composed for by one
-- worker at a time (analytics_lease_*); an empty read backs off up to 5 s (analytics_idle_ms).
alter table webhook_endpoints
  add column analytics_after_micros bigint not null default (extract(epoch from clock_timestamp()) * 1000000)::bigint,
  add column analytics_after_event uuid not null default '00000000-0000-0000-0000-000000000000',
  add column analytics_lease_owner text,
  add column analytics_lease_until timestamptz,
  add column analytics_idle_ms integer not null default 1000;

alter table webhook_messages
  add column range_after_micros bigint,
  add column range_after_event uuid,
  add column range_until_micros bigint,
  add column range_until_event uuid;
