-- Link rules: expiry by time (expires_at) or by clicks (max_clicks), where an expired link sends
-- its visitors (expired_url), a password (argon2id hash only) and targeting rules in order
-- ([{conditions: [{type, value}], url}], checked and normalised by the save).
alter table links add column expires_at timestamptz;
alter table links add column max_clicks integer check (max_clicks >= 1);
alter table links add column expired_url text;
alter table links add column password_hash text;
alter table links add column rules jsonb not null default '[]'::jsonb;
-- Secrets the service makes for itself, one row each, random at creation (gen_random_uuid draws
-- from the server's strong random source). link_password_cookie signs the cookies of the right
-- password of a protected link, so every redirector of every host accepts every other's.
create table service_secrets (
  name text primary key,
  value text not null
);
insert into service_secrets (name, value)
values ('link_password_cookie', replace(gen_random_uuid()::text || gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));
