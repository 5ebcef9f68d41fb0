-- Dashboard: who created an API key and when it was last used (minute precision); custom-domain
-- verification (a domain added on the dashboard is PENDING until its DNS TXT record is found).
alter table api_keys add column created_by text;
alter table api_keys add column last_used_at timestamptz;
