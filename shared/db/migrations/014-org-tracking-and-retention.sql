-- An organisation's tracking switches (what its events keep of the visitor) and its own raw
-- event retention. The defaults keep every field, ignore DNT and keep events for as long as the
-- service does (ANALYTICS_RETENTION_DAYS), as before these columns existed.
alter table organizations
  add column track_referrer boolean not null default true,
  add column track_user_agent boolean not null default true,
  add column track_geo text not null default 'city' check (track_geo in ('city', 'country', 'none')),
  add column honour_dnt boolean not null default false,
  add column retention_days integer check (retention_days between 1 and 36500);
