-- Dashboard accounts: users (argon2id password hashes, TOTP), their memberships (one role per
-- organisation), invitations (hashed one-time tokens), server-side sessions (hashed ids),
-- single-use recovery codes (hashed) and the sign-in attempts the throttling counts.
alter table organizations add column require_2fa boolean not null default false;

create table users (
  id uuid primary key default gen_random_uuid(),
  email text not null unique check (email = lower(email)),
  password_hash text not null,
  -- Base32 TOTP secret once 2FA is enabled; pending_totp_secret while it is being set up.
  totp_secret text,
  pending_totp_secret text,
  -- The last accepted 30 s step: a code is accepted once.
  totp_last_step bigint,
  password_changed_at timestamptz not null default now(),
  created_at timestamptz not null default now()
);

create table memberships (
  org_id uuid not null references organizations (id),
  user_id uuid not null references users (id) on delete cascade,
  role text not null check (role in ('owner', 'admin', 'member', 'viewer')),
  created_at timestamptz not null default now(),
  primary key (org_id, user_id)
);
create index memberships_user on memberships (user_id);

create table invites (
  id uuid primary key default gen_random_uuid(),
  org_id uuid not null references organizations (id),
  -- null: the person following the invite chooses the e-mail (the demo organisation's owner invite).
  email text check (email = lower(email)),
  role text not null check (role in ('owner', 'admin', 'member', 'viewer')),
  token_hash text not null unique,
  invited_by text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  accepted_at timestamptz,
  revoked_at timestamptz
);
create index invites_org on invites (org_id);

create table sessions (
  id_hash text primary key,
  user_id uuid not null references users (id) on delete cascade,
  org_id uuid references organizations (id),
  csrf_token text not null,
  -- 'second_factor': the password was right, the TOTP step is next; 'full': signed in.
  stage text not null check (stage in ('second_factor', 'full')),
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  user_agent text
);
create index sessions_user on sessions (user_id);

create table recovery_codes (
  user_id uuid not null references users (id) on delete cascade,
  code_hash text not null,
  used_at timestamptz,
  primary key (user_id, code_hash)
);

create table sign_in_attempts (
  email text not null,
  address text not null,
  ok boolean not null,
  at timestamptz not null default now()
);
create index sign_in_attempts_email on sign_in_attempts (email, at);
create index sign_in_attempts_address on sign_in_attempts (address, at);

create table sign_in_locks (
  email text primary key,
  locked_until timestamptz not null
);
