-- The analytics tables on the ClickHouse cluster `events`: what the service runs at start with
-- CLICKHOUSE_CLUSTER=events (every statement ON CLUSTER, each idempotent), printed by `npm run docs`
-- (this file, for the cluster `events`) and `shortlink migrate clickhouse --print` (any
-- CLICKHOUSE_CLUSTER). Generated from shared/analytics/events/event-schema.ts: edit the schema, not
-- this file. The {shard}, {replica} and {database} macros come from the servers' configuration.
-- Each table is a Replicated local table per shard (<name>_local) behind a Distributed table of the
-- single-node name, sharded by organisation; the rollup's view reads and writes the local tables.
-- The view below counts from t0 = 0 (a new cluster); the service sets t0 to its start instead and
-- counts the events stored before it into the rollup itself (docs/scale-out.md).

CREATE TABLE IF NOT EXISTS analytics_events_local ON CLUSTER events (
  org_id String,
  event_id UUID,
  schema_version UInt8 DEFAULT 1,
  created_at DateTime64(6, 'UTC'),
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
  bot_category LowCardinality(Nullable(String)),
  visitor_id Nullable(String),
  ingested_at DateTime64(6, 'UTC') DEFAULT now64(6),
  keep_rank UInt64 MATERIALIZED 18446744073709551615 - toUInt64(toUnixTimestamp64Micro(ingested_at)),
  INDEX ingested_at_minmax ingested_at TYPE minmax GRANULARITY 1,
  INDEX short_code_bloom short_code TYPE bloom_filter GRANULARITY 4
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/analytics_events', '{replica}', keep_rank)
PARTITION BY toYYYYMM(created_at)
ORDER BY (org_id, created_at, event_id)
SETTINGS replicated_deduplication_window = 100000;

CREATE TABLE IF NOT EXISTS analytics_events ON CLUSTER events AS analytics_events_local
ENGINE = Distributed(events, currentDatabase(), analytics_events_local, cityHash64(org_id));

ALTER TABLE analytics_events_local ON CLUSTER events ADD COLUMN IF NOT EXISTS org_id String FIRST,
  ADD COLUMN IF NOT EXISTS event_id UUID AFTER org_id,
  ADD COLUMN IF NOT EXISTS schema_version UInt8 DEFAULT 1 AFTER event_id,
  ADD COLUMN IF NOT EXISTS created_at DateTime64(6, 'UTC') AFTER schema_version,
  ADD COLUMN IF NOT EXISTS short_code String AFTER created_at,
  ADD COLUMN IF NOT EXISTS short_url_id String AFTER short_code,
  ADD COLUMN IF NOT EXISTS event_type LowCardinality(String) AFTER short_url_id,
  ADD COLUMN IF NOT EXISTS click_source LowCardinality(String) AFTER event_type,
  ADD COLUMN IF NOT EXISTS referrer Nullable(String) AFTER click_source,
  ADD COLUMN IF NOT EXISTS referrer_domain LowCardinality(Nullable(String)) AFTER referrer,
  ADD COLUMN IF NOT EXISTS country LowCardinality(Nullable(String)) AFTER referrer_domain,
  ADD COLUMN IF NOT EXISTS country_code LowCardinality(Nullable(String)) AFTER country,
  ADD COLUMN IF NOT EXISTS city LowCardinality(Nullable(String)) AFTER country_code,
  ADD COLUMN IF NOT EXISTS region LowCardinality(Nullable(String)) AFTER city,
  ADD COLUMN IF NOT EXISTS browser_name LowCardinality(Nullable(String)) AFTER region,
  ADD COLUMN IF NOT EXISTS browser_version LowCardinality(Nullable(String)) AFTER browser_name,
  ADD COLUMN IF NOT EXISTS os_name LowCardinality(Nullable(String)) AFTER browser_version,
  ADD COLUMN IF NOT EXISTS os_version LowCardinality(Nullable(String)) AFTER os_name,
  ADD COLUMN IF NOT EXISTS device_type LowCardinality(Nullable(String)) AFTER os_version,
  ADD COLUMN IF NOT EXISTS device_brand LowCardinality(Nullable(String)) AFTER device_type,
  ADD COLUMN IF NOT EXISTS device_model LowCardinality(Nullable(String)) AFTER device_brand,
  ADD COLUMN IF NOT EXISTS utm_source Nullable(String) AFTER device_model,
  ADD COLUMN IF NOT EXISTS utm_medium LowCardinality(Nullable(String)) AFTER utm_source,
  ADD COLUMN IF NOT EXISTS utm_campaign Nullable(String) AFTER utm_medium,
  ADD COLUMN IF NOT EXISTS bot_category LowCardinality(Nullable(String)) AFTER utm_campaign,
  ADD COLUMN IF NOT EXISTS visitor_id Nullable(String) AFTER bot_category,
  ADD COLUMN IF NOT EXISTS ingested_at DateTime64(6, 'UTC') DEFAULT now64(6) AFTER visitor_id;

ALTER TABLE analytics_events ON CLUSTER events ADD COLUMN IF NOT EXISTS org_id String FIRST,
  ADD COLUMN IF NOT EXISTS event_id UUID AFTER org_id,
  ADD COLUMN IF NOT EXISTS schema_version UInt8 DEFAULT 1 AFTER event_id,
  ADD COLUMN IF NOT EXISTS created_at DateTime64(6, 'UTC') AFTER schema_version,
  ADD COLUMN IF NOT EXISTS short_code String AFTER created_at,
  ADD COLUMN IF NOT EXISTS short_url_id String AFTER short_code,
  ADD COLUMN IF NOT EXISTS event_type LowCardinality(String) AFTER short_url_id,
  ADD COLUMN IF NOT EXISTS click_source LowCardinality(String) AFTER event_type,
  ADD COLUMN IF NOT EXISTS referrer Nullable(String) AFTER click_source,
  ADD COLUMN IF NOT EXISTS referrer_domain LowCardinality(Nullable(String)) AFTER referrer,
  ADD COLUMN IF NOT EXISTS country LowCardinality(Nullable(String)) AFTER referrer_domain,
  ADD COLUMN IF NOT EXISTS country_code LowCardinality(Nullable(String)) AFTER country,
  ADD COLUMN IF NOT EXISTS city LowCardinality(Nullable(String)) AFTER country_code,
  ADD COLUMN IF NOT EXISTS region LowCardinality(Nullable(String)) AFTER city,
  ADD COLUMN IF NOT EXISTS browser_name LowCardinality(Nullable(String)) AFTER region,
  ADD COLUMN IF NOT EXISTS browser_version LowCardinality(Nullable(String)) AFTER browser_name,
  ADD COLUMN IF NOT EXISTS os_name LowCardinality(Nullable(String)) AFTER browser_version,
  ADD COLUMN IF NOT EXISTS os_version LowCardinality(Nullable(String)) AFTER os_name,
  ADD COLUMN IF NOT EXISTS device_type LowCardinality(Nullable(String)) AFTER os_version,
  ADD COLUMN IF NOT EXISTS device_brand LowCardinality(Nullable(String)) AFTER device_type,
  ADD COLUMN IF NOT EXISTS device_model LowCardinality(Nullable(String)) AFTER device_brand,
  ADD COLUMN IF NOT EXISTS utm_source Nullable(String) AFTER device_model,
  ADD COLUMN IF NOT EXISTS utm_medium LowCardinality(Nullable(String)) AFTER utm_source,
  ADD COLUMN IF NOT EXISTS utm_campaign Nullable(String) AFTER utm_medium,
  ADD COLUMN IF NOT EXISTS bot_category LowCardinality(Nullable(String)) AFTER utm_campaign,
  ADD COLUMN IF NOT EXISTS visitor_id Nullable(String) AFTER bot_category,
  ADD COLUMN IF NOT EXISTS ingested_at DateTime64(6, 'UTC') DEFAULT now64(6) AFTER visitor_id;

DROP VIEW IF EXISTS analytics_rollup_15m_mv ON CLUSTER events;

CREATE TABLE IF NOT EXISTS analytics_rollup_15m_v2_local ON CLUSTER events (
  org_id String,
  event_type LowCardinality(String),
  dimension LowCardinality(String),
  people UInt8,
  value Nullable(String),
  slot DateTime('UTC'),
  events UInt64
)
ENGINE = ReplicatedSummingMergeTree('/clickhouse/tables/{shard}/{database}/analytics_rollup_15m_v2', '{replica}', events)
PARTITION BY toYYYYMM(slot)
ORDER BY (org_id, event_type, dimension, people, value, slot)
SETTINGS allow_nullable_key = 1, replicated_deduplication_window = 100000;

CREATE TABLE IF NOT EXISTS analytics_rollup_15m_v2 ON CLUSTER events AS analytics_rollup_15m_v2_local
ENGINE = Distributed(events, currentDatabase(), analytics_rollup_15m_v2_local, cityHash64(org_id));

CREATE TABLE IF NOT EXISTS analytics_rollup_v2_backfill_local ON CLUSTER events (
  partition_id String,
  t0_micros Int64,
  done UInt8
)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/{database}/analytics_rollup_v2_backfill', '{replica}', done)
ORDER BY partition_id;

CREATE TABLE IF NOT EXISTS analytics_rollup_v2_backfill ON CLUSTER events AS analytics_rollup_v2_backfill_local
ENGINE = Distributed(events, currentDatabase(), analytics_rollup_v2_backfill_local, cityHash64(partition_id));

CREATE MATERIALIZED VIEW IF NOT EXISTS analytics_rollup_15m_v2_mv ON CLUSTER events TO analytics_rollup_15m_v2_local AS
SELECT org_id AS org_id, event_type AS event_type, d.1 AS dimension, d.3 AS people, d.2 AS value, slot, sum(n) AS events
FROM (
  SELECT org_id, event_type, toDateTime(toStartOfFifteenMinutes(created_at), 'UTC') AS slot, short_code, country_code, device_type, browser_name, os_name, referrer_domain, click_source, utm_source, utm_medium, utm_campaign,
    isNull(bot_category) AS person, count() AS n
  FROM analytics_events_local
  WHERE ingested_at >= fromUnixTimestamp64Micro(0, 'UTC')
    AND (org_id, created_at, event_id) NOT IN (
    SELECT org_id, created_at, event_id FROM merge(currentDatabase(), '^analytics_events_local$')
    WHERE org_id IN (SELECT org_id FROM analytics_events_local)
      AND created_at >= (SELECT min(created_at) FROM analytics_events_local)
      AND created_at <= (SELECT max(created_at) FROM analytics_events_local)
      AND ingested_at < (SELECT min(ingested_at) FROM analytics_events_local))
  GROUP BY org_id, event_type, slot, short_code, country_code, device_type, browser_name, os_name, referrer_domain, click_source, utm_source, utm_medium, utm_campaign, person)
ARRAY JOIN arrayConcat([tuple('time', CAST(NULL AS Nullable(String)), toUInt8(0)), tuple('shortCode', CAST(short_code AS Nullable(String)), toUInt8(0)), tuple('countryCode', CAST(country_code AS Nullable(String)), toUInt8(0)), tuple('deviceType', CAST(device_type AS Nullable(String)), toUInt8(0)), tuple('browserName', CAST(browser_name AS Nullable(String)), toUInt8(0)), tuple('osName', CAST(os_name AS Nullable(String)), toUInt8(0)), tuple('referrerDomain', CAST(referrer_domain AS Nullable(String)), toUInt8(0)), tuple('clickSource', CAST(click_source AS Nullable(String)), toUInt8(0)), tuple('utmSource', CAST(utm_source AS Nullable(String)), toUInt8(0)), tuple('utmMedium', CAST(utm_medium AS Nullable(String)), toUInt8(0)), tuple('utmCampaign', CAST(utm_campaign AS Nullable(String)), toUInt8(0))], if(person, [tuple('time', CAST(NULL AS Nullable(String)), toUInt8(1)), tuple('shortCode', CAST(short_code AS Nullable(String)), toUInt8(1)), tuple('countryCode', CAST(country_code AS Nullable(String)), toUInt8(1)), tuple('deviceType', CAST(device_type AS Nullable(String)), toUInt8(1)), tuple('browserName', CAST(browser_name AS Nullable(String)), toUInt8(1)), tuple('osName', CAST(os_name AS Nullable(String)), toUInt8(1)), tuple('referrerDomain', CAST(referrer_domain AS Nullable(String)), toUInt8(1)), tuple('clickSource', CAST(click_source AS Nullable(String)), toUInt8(1)), tuple('utmSource', CAST(utm_source AS Nullable(String)), toUInt8(1)), tuple('utmMedium', CAST(utm_medium AS Nullable(String)), toUInt8(1)), tuple('utmCampaign', CAST(utm_campaign AS Nullable(String)), toUInt8(1))], [])) AS d
GROUP BY org_id, event_type, dimension, people, value, slot;

ALTER TABLE analytics_events_local ON CLUSTER events MODIFY SETTING merge_selector_base = 10;

ALTER TABLE analytics_rollup_15m_v2_local ON CLUSTER events MODIFY SETTING deduplicate_merge_projection_mode = 'rebuild', lightweight_mutation_projection_mode = 'rebuild';

ALTER TABLE analytics_rollup_15m_v2_local ON CLUSTER events ADD PROJECTION IF NOT EXISTS by_day (SELECT org_id, event_type, dimension, people, toStartOfDay(slot) AS t, value, sum(events)
  GROUP BY org_id, event_type, dimension, people, t, value);

ALTER TABLE analytics_rollup_15m_v2_local ON CLUSTER events ADD PROJECTION IF NOT EXISTS by_hour (SELECT org_id, event_type, dimension, people, toStartOfHour(slot) AS t, value, sum(events)
  GROUP BY org_id, event_type, dimension, people, t, value);
