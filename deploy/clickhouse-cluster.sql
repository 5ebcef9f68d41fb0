-- ClickHouse cluster layout for the events table (production at scale).
-- Same columns as shared/analytics/clickhouse-sql.ts (the single-node DDL the service creates);
-- run this instead, once, before starting the service with CLICKHOUSE_URL pointing at any node.
-- Cluster name `events` and the {shard}/{replica} macros come from the servers' config.

CREATE TABLE IF NOT EXISTS analytics_events_local ON CLUSTER events (
  org_id String,
  event_id UUID,
  created_at DateTime64(6, 'UTC'),
  ingested_at DateTime64(6, 'UTC') DEFAULT now64(6),
  schema_version UInt8 DEFAULT 1,
  short_code String,
  short_url_id String,
  event_type LowCardinality(String),
  click_source LowCardinality(String),
  referrer Nullable(String),
  referrer_domain LowCardinality(Nullable(String)),
  country LowCardinality(Nullable(String)),
  country_code LowCardinality(Nullable(String)),
  city LowCardinality(Nullable(String)),
  region LowCardinality(Nullable(String)),
  browser_name LowCardinality(Nullable(String)),
  browser_version LowCardinality(Nullable(String)),
  os_name LowCardinality(Nullable(String)),
  os_version LowCardinality(Nullable(String)),
  device_type LowCardinality(Nullable(String)),
  device_brand LowCardinality(Nullable(String)),
  device_model LowCardinality(Nullable(String)),
  utm_source Nullable(String),
  utm_medium LowCardinality(Nullable(String)),
  utm_campaign Nullable(String),
  keep_rank UInt64 MATERIALIZED 18446744073709551615 - toUInt64(toUnixTimestamp64Micro(ingested_at)),
  INDEX ingested_at_minmax ingested_at TYPE minmax GRANULARITY 1,
  INDEX short_code_bloom short_code TYPE bloom_filter GRANULARITY 4
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/analytics_events', '{replica}', keep_rank)
PARTITION BY toYYYYMM(created_at)
ORDER BY (org_id, created_at, event_id)
SETTINGS replicated_deduplication_window = 100000;

-- Sharded by organisation: every read of the API is one organisation's, so it touches one shard,
-- and every copy of an event (retries, backfill) lands on the same shard, where FINAL collapses it.
CREATE TABLE IF NOT EXISTS analytics_events ON CLUSTER events AS analytics_events_local
ENGINE = Distributed(events, currentDatabase(), analytics_events_local, cityHash64(org_id));
