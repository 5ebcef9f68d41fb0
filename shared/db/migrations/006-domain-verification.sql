-- Custom-domain verification. A domain added on the dashboard is PENDING (and not active, so it
-- serves nothing) until the TXT record _shortlink-challenge.<host> holds its token; then ACTIVE
-- and active. Unverified after 7 days it is FAILED. Domains added by the admin CLI without
-- --verify are ACTIVE at once, as every domain before this migration is.
alter table domains add column status text not null default 'ACTIVE' check (status in ('PENDING', 'ACTIVE', 'FAILED'));
alter table domains add column verification_token text;
alter table domains add column next_check_at timestamptz;
alter table domains add column last_checked_at timestamptz;
alter table domains add column verified_at timestamptz;
alter table domains add column last_check_error text;
-- Whether the host pointed at the default short host at the last check (advice only).
alter table domains add column points_at_default boolean;
-- A host serves one organisation (domains_active_host); an organisation adds a host once.
create unique index domains_org_host on domains (org_id, host) where removed_at is null;
create index domains_due_checks on domains (next_check_at) where status = 'PENDING' and removed_at is null;
