-- A deleted link's row is removed from links, and its code is kept here for good: a code is
-- never given out again, to any organisation (a QR code printed for it must never lead
-- elsewhere). Save refuses a tombstoned code as TAKEN and generation draws another.
create table deleted_short_codes (
  short_code text collate "C" primary key,
  org_id uuid not null references organizations (id),
  link_id uuid not null,
  deleted_at timestamptz not null default clock_timestamp(),
  deleted_by text not null
);
