// Invariant: destination_previews holds at most one row per destination URL: the last
// successful fetch (or an empty row when no fetch of that URL ever succeeded). A failed fetch
// never overwrites values a successful one stored.
import type { Sql, Tx } from '../db/database.ts';

export interface StoredPreview {
  url: string;
  title: string | null;
  description: string | null;
  imageUrl: string | null;
  frameRefused: boolean;
  /** Postgres text form of fetched_at. */
  fetchedAt: string;
}

interface Row {
  url: string;
  title: string | null;
  description: string | null;
  image_url: string | null;
  frame_refused: boolean;
  fetched_at: string;
}

const fromRow = (r: Row): StoredPreview => ({
  url: r.url,
  title: r.title,
  description: r.description,
  imageUrl: r.image_url,
  frameRefused: r.frame_refused,
  fetchedAt: r.fetched_at,
});

export async function loadPreview(sql: Sql, url: string): Promise<StoredPreview | null> {
  const [row] = await sql<Row[]>`select * from destination_previews where url = ${url}`;
  return row ? fromRow(row) : null;
}

/** True when a row exists that was fetched (or attempted) less than maxAgeMs ago. */
export async function previewIsFresh(sql: Sql, url: string, maxAgeMs: number): Promise<boolean> {
  const [row] = await sql<{ fresh: boolean }[]>`
    select fetched_at > now() - make_interval(secs => ${maxAgeMs / 1000}) as fresh from destination_previews where url = ${url}`;
  return row?.fresh ?? false;
}

export async function storePreview(
  sql: Sql | Tx,
  url: string,
  values: { title: string | null; description: string | null; imageUrl: string | null; frameRefused: boolean },
): Promise<void> {
  await sql`
    insert into destination_previews (url, title, description, image_url, frame_refused, fetched_at)
    values (${url}, ${values.title}, ${values.description}, ${values.imageUrl}, ${values.frameRefused}, now())
    on conflict (url) do update set title = excluded.title, description = excluded.description,
      image_url = excluded.image_url, frame_refused = excluded.frame_refused, fetched_at = excluded.fetched_at`;
}

/** Records a failed attempt: an empty row when none exists, else only the attempt time. */
export async function storeFailedAttempt(sql: Sql, url: string): Promise<void> {
  await sql`
    insert into destination_previews (url, fetched_at) values (${url}, now())
    on conflict (url) do update set fetched_at = excluded.fetched_at`;
}

export async function shortCodesForUrl(sql: Sql | Tx, url: string): Promise<string[]> {
  const rows = await sql<{ short_code: string }[]>`select short_code from links where url = ${url}`;
  return rows.map((r) => r.short_code);
}
