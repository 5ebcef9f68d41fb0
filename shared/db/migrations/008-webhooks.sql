-- Webhooks (Standard Webhooks). An endpoint receives the event types it lists. Its secret signs
-- every message, so it is kept recoverable: sealed with WEBHOOK_SECRETS_KEY (AES-256-GCM,
-- `sealed:v1:` prefix) when that key is set, else as is (docs/webhooks.md). After a rotation the
-- previous secret also signs until previous_secret_until (24 h).
create table webhook_endpoints (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references organizations (id),
  url text not null,
  event_types text[] not null,
  secret text not null,
  secret_last4 text not null,
  previous_secret text,
  previous_secret_until timestamptz,
  enabled boolean not null default true,
  -- Why it was disabled (e.g. 'GONE' after a 410), null when enabled or disabled by a person.
  disabled_reason text,
  created_at timestamptz not null default now(),
  removed_at timestamptz,
  -- analytics.events: at most one message a second per endpoint.
  next_analytics_at timestamptz not null default now()
);
create index webhook_endpoints_org on webhook_endpoints (org_id) where removed_at is null;

-- The outbox: one row per (event, endpoint), written in the transaction of the change. Its id is
-- the webhook-id of every attempt and replay; body is the exact JSON sent.
create table webhook_messages (
  id text primary key,
  endpoint_id uuid not null references webhook_endpoints (id),
  org_id uuid not null,
  type text not null,
  body text not null,
  event_count integer not null default 1,
  created_at timestamptz not null default now(),
  status text not null default 'PENDING' check (status in ('PENDING', 'DELIVERED', 'FAILED', 'DROPPED')),
  -- Failed attempts since it was queued or replayed (the retry schedule's position).
  failures integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  -- A worker owns a claimed message until lease_until; nobody else sends it meanwhile.
  lease_owner text,
  lease_until timestamptz,
  delivered_at timestamptz,
  last_attempt_at timestamptz,
  -- Set by a replay: the attempts after it are logged as replays.
  replayed_at timestamptz
);
create index webhook_messages_due on webhook_messages (next_attempt_at) where status = 'PENDING';
create index webhook_messages_endpoint on webhook_messages (endpoint_id, created_at);

-- Every attempt, kept 30 days: status (null when no answer), duration, the first 1 KiB answered.
create table webhook_attempts (
  id bigserial primary key,
  message_id text not null references webhook_messages (id) on delete cascade,
  endpoint_id uuid not null,
  attempted_at timestamptz not null default now(),
  status_code integer,
  error text,
  duration_ms integer not null,
  response_body text not null default '',
  replay boolean not null default false
);
create index webhook_attempts_endpoint on webhook_attempts (endpoint_id, attempted_at desc);
create index webhook_attempts_age on webhook_attempts (attempted_at);
