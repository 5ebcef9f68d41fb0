// Invariant: destination_previews holds at most one row per destination URL: the last
// successful fetch (or an empty row when no fetch of that URL ever succeeded). A failed fetch
// never overwrites values a successful one stored. A stored preview that changes what redirects
// show commits together with a link invalidation, in the outbox, for every link whose
// destination is that URL. PreviewStore is the port; Postgres is its adapter.
import { enqueueInvalidations } from '../bus/invalidation-outbox.ts';
import type { Sql } from '../db/database.ts';

export interface StoredPreview {
  url: string;
  title: string | null;
  description: string | null;
  imageUrl: string | null;
  frameRefused: boolean;
  /** Postgres text form of fetched_at. */
  fetchedAt: string;
}

export type PreviewValues = Pick<StoredPreview, 'title' | 'description' | 'imageUrl' | 'frameRefused'>;

export interface PreviewStore {
  load(url: string): Promise<StoredPreview | null>;
  /** True when a row exists that was fetched (or attempted) less than maxAgeMs ago. */
  isFresh(url: string, maxAgeMs: number): Promise<boolean>;
  /** Stores a successful fetch; with `announce`, the links of that destination are invalidated with it. */
  store(url: string, values: PreviewValues, announce: boolean): Promise<void>;
  /** Records a failed attempt: an empty row when none exists, else only the attempt time. */
  recordFailure(url: string): Promise<void>;
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

export class PostgresPreviewStore implements PreviewStore {
  constructor(private readonly sql: Sql) {}

  async load(url: string): Promise<StoredPreview | null> {
    const [row] = await this.sql<Row[]>`select * from destination_previews where url = ${url}`;
    return row ? fromRow(row) : null;
  }

  async isFresh(url: string, maxAgeMs: number): Promise<boolean> {
    const [row] = await this.sql<{ fresh: boolean }[]>`
      select fetched_at > now() - make_interval(secs => ${maxAgeMs / 1000}) as fresh from destination_previews where url = ${url}`;
    return row?.fresh ?? false;
  }

  async store(url: string, values: PreviewValues, announce: boolean): Promise<void> {
    await this.sql.begin(async (tx) => {
      await tx`
        insert into destination_previews (url, title, description, image_url, frame_refused, fetched_at)
        values (${url}, ${values.title}, ${values.description}, ${values.imageUrl}, ${values.frameRefused}, now())
        on conflict (url) do update set title = excluded.title, description = excluded.description,
          image_url = excluded.image_url, frame_refused = excluded.frame_refused, fetched_at = excluded.fetched_at`;
      if (!announce) return;
      const codes = await tx<{ short_code: string }[]>`select short_code from links where url = ${url}`;
      await enqueueInvalidations(
        tx,
        codes.map((r) => ({ kind: 'link' as const, shortCode: r.short_code })),
      );
    });
  }

  async recordFailure(url: string): Promise<void> {
    await this.sql`
      insert into destination_previews (url, fetched_at) values (${url}, now())
      on conflict (url) do update set fetched_at = excluded.fetched_at`;
  }
}
