-- Open Graph preview of destination URLs, fetched in the background after a save.
create table if not exists destination_previews (
  url text primary key,
  title text,
  description text,
  image_url text,
  frame_refused boolean not null default false,
  fetched_at timestamptz not null
);
