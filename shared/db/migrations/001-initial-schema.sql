-- Organisations, API keys, mobile apps, custom domains, links and monthly usage.
create table organizations (
  id uuid primary key default gen_random_uuid(),
  name text not null,
  plan text not null check (plan in ('FREE', 'PRO', 'BUSINESS', 'ENTERPRISE')),
  timezone text not null default 'Europe/Berlin',
  suspended boolean not null default false,
  -- Per-org overrides of the plan table; null = plan default.
  links_per_month integer check (links_per_month >= 0),
  clicks_per_month integer check (clicks_per_month >= 0),
  crud_per_min integer check (crud_per_min > 0),
  analytics_per_min integer check (analytics_per_min > 0),
  export_per_min integer check (export_per_min > 0),
  is_demo boolean not null default false,
  created_at timestamptz not null default now()
);

create table api_keys (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references organizations (id),
  label text not null,
  key_hash text not null unique,
  scopes text[] not null,
  created_at timestamptz not null default now(),
  revoked_at timestamptz,
  -- Labels stay unique per organisation even after revocation: createdBy 'api-key:<label>' must
  -- keep naming exactly one key.
  unique (org_id, label)
);

create table mobile_apps (
  id bigserial primary key,
  mobile_app_id text not null unique check (mobile_app_id ~ '^[A-Za-z0-9+/]{12}$'),
  org_id uuid not null references organizations (id),
  name text not null,
  platform text not null check (platform in ('IOS', 'ANDROID', 'WEB')),
  store_url text not null,
  active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index mobile_apps_org on mobile_apps (org_id);

create table domains (
  id bigserial primary key,
  org_id uuid not null references organizations (id),
  host text not null check (host = lower(host)),
  is_primary boolean not null default false,
  active boolean not null default true,
  created_at timestamptz not null default now(),
  removed_at timestamptz
);
create unique index domains_active_host on domains (host) where active;
create unique index domains_one_primary on domains (org_id) where active and is_primary;

create table links (
  id uuid primary key default gen_random_uuid(),
  seq bigserial not null unique,
  org_id uuid not null references organizations (id),
  -- Unique across the whole service (DECISIONS): the default domain resolves every code.
  short_code text collate "C" not null unique,
  url text not null,
  short_link_name text,
  domain_id bigint references domains (id),
  is_active boolean not null default true,
  cloak_enabled boolean not null default false,
  utm_source text,
  utm_medium text,
  utm_campaign text,
  enable_custom_metadata boolean not null default false,
  custom_metadata_title text,
  custom_metadata_description text,
  custom_metadata_image_url text,
  -- [{appRowId, mobileAppId, deeplinkUrl, fallbackUrl, linkBehaviour, fallbackEnabled}]
  deep_links jsonb not null default '[]'::jsonb,
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default clock_timestamp(),
  created_by text not null,
  updated_by text not null,
  created_via text not null check (created_via in ('INTERNAL', 'EXTERNAL')),
  last_modified_via text not null check (last_modified_via in ('INTERNAL', 'EXTERNAL'))
);
create index links_org_created on links (org_id, created_at desc, id desc);

-- Durable monthly usage per organisation (billing cycle = calendar month, UTC).
create table usage_counters (
  org_id uuid not null references organizations (id),
  period_start date not null,
  links integer not null default 0,
  clicks bigint not null default 0,
  primary key (org_id, period_start)
);
