// The Links page: the API's list filters (the same DSL) and paging in the URL's search params (so
// a filtered page can be bookmarked and Back works), bulk archive/restore of the selected rows.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { createRoute, Link, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useId, useState } from 'react';
import type { ResponseOf } from '../../../contract/schemas.ts';
import { ApiError, call } from '../api.ts';
import { keys, queries } from '../data/queries.ts';
import { useWrite } from '../data/use-write.ts';
import { appRoute } from '../routes/root.tsx';
import { may, useSession } from '../session.ts';
import { Button } from '../ui/Button.tsx';
import { Feedback } from '../ui/Feedback.tsx';
import { Field, FormError } from '../ui/Field.tsx';
import { Table } from '../ui/Table.tsx';

export interface LinksSearch {
  q?: string;
  page?: number;
  size?: number;
}

const PAGE_SIZES = [20, 50, 100];

export const linksRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/links',
  validateSearch: (s: Record<string, unknown>): LinksSearch => ({
    q: typeof s.q === 'string' && s.q !== '' ? s.q : undefined,
    page: typeof s.page === 'number' && Number.isInteger(s.page) && s.page > 0 ? s.page : undefined,
    size: typeof s.size === 'number' && PAGE_SIZES.includes(s.size) ? s.size : undefined,
  }),
  staticData: { nav: { label: 'Links' } },
  component: LinksPage,
});

type LinkRow = ResponseOf<'links'>['data'][number];

function LinksPage() {
  const search = linksRoute.useSearch();
  const navigate = useNavigate({ from: '/links' });
  const view = useSession();
  const canWrite = may(view, 'links:write');
  const [filter, setFilter] = useState(search.q ?? '');
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const sizeId = useId();
  const page = search.page ?? 0;
  const size = search.size ?? 20;
  const list = useQuery({ ...queries.linkPage(search.q, page, size), placeholderData: keepPreviousData });
  const filterError = list.error instanceof ApiError ? list.error.message : undefined;

  const applyFilter = (e: FormEvent) => {
    e.preventDefault();
    setSelected(new Set());
    void navigate({ search: { q: filter.trim() || undefined, size: search.size } });
  };
  const goTo = (p: number) => void navigate({ search: { ...search, page: p > 0 ? p : undefined } });
  const toggle = (code: string) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(code)) next.delete(code);
      else next.add(code);
      return next;
    });
  const bulk = useWrite({
    run: (isActive: boolean) => call('bulkActive', { body: { shortCodes: [...selected], isActive } }),
    invalidates: [keys.links()],
    said: (r, isActive) =>
      `${r.updated.length} ${r.updated.length === 1 ? 'link' : 'links'} ${isActive ? 'restored' : 'archived'}.${r.failed.length ? ` Not changed: ${r.failed.map((f) => `${f.shortCode} (${f.message})`).join(', ')}.` : ''}`,
    onDone: () => setSelected(new Set()),
  });

  const data = list.data;
  const rows = data?.data ?? [];
  const allSelected = rows.length > 0 && rows.every((l) => selected.has(l.shortCode));
  return (
    <>
      <h1>Links</h1>
      {canWrite ? (
        <p>
          <Link to="/links/new" className="button-link">
            New link
          </Link>
        </p>
      ) : null}
      <form onSubmit={applyFilter} className="filters" aria-label="Filter links">
        <Field
          label="Filter"
          value={filter}
          onChange={setFilter}
          error={filterError}
          placeholder="isActive=true AND createdVia=INTERNAL"
          hint={
            <>
              The API's list filter: <code>field=value</code> terms joined by <code>AND</code>, <code>OR</code> and parentheses; fields <code>shortCode</code>,{' '}
              <code>url</code>, <code>shortLinkName</code>, <code>smartLink</code>, <code>isActive</code>, <code>cloakEnabled</code>,{' '}
              <code>enableCustomMetadata</code>, <code>createdBy</code>, <code>updatedBy</code>, <code>createdVia</code>, <code>lastModifiedVia</code>; quote
              values with spaces.
            </>
          }
        />
        <div className="field">
          <label htmlFor={sizeId}>Links per page</label>
          <select id={sizeId} value={size} onChange={(e) => void navigate({ search: { q: search.q, size: Number(e.target.value) } })}>
            {PAGE_SIZES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </div>
        <Button type="submit">Apply filter</Button>
      </form>
      {canWrite ? (
        <fieldset className="bulk">
          <legend className="visually-hidden">Bulk actions</legend>
          <Button disabled={selected.size === 0} onClick={() => bulk.mutate(false)}>
            Archive selected
          </Button>
          <Button variant="secondary" disabled={selected.size === 0} onClick={() => bulk.mutate(true)}>
            Restore selected
          </Button>
          <Feedback outcome={bulk.outcome} inline />
        </fieldset>
      ) : null}
      <FormError message={list.isError && !filterError ? 'The links could not be loaded.' : undefined} />
      <Table<LinkRow>
        busy={list.isFetching}
        caption={data ? `${data.page.totalElements} ${data.page.totalElements === 1 ? 'link' : 'links'}${search.q ? ' matching the filter' : ''}` : 'Links'}
        rows={rows}
        rowKey={(l) => l.shortCode}
        columns={[
          canWrite && {
            heading: 'Select',
            headingCell: (
              <input
                type="checkbox"
                aria-label="Select every link on this page"
                checked={allSelected}
                onChange={() => setSelected(allSelected ? new Set() : new Set(rows.map((l) => l.shortCode)))}
              />
            ),
            cell: (l) => (
              <input type="checkbox" aria-label={`Select ${l.shortCode}`} checked={selected.has(l.shortCode)} onChange={() => toggle(l.shortCode)} />
            ),
          },
          {
            heading: 'Short link',
            cell: (l) => (
              <Link to="/links/$code" params={{ code: l.shortCode }}>
                {l.smartLink}
              </Link>
            ),
          },
          { heading: 'Destination', className: 'url', cell: (l) => l.url },
          { heading: 'Name', cell: (l) => l.shortLinkName ?? '' },
          { heading: 'Status', cell: (l) => (l.isActive ? 'Active' : 'Archived') },
          {
            heading: 'Created',
            cell: (l) => (
              <>
                <time dateTime={l.createdAt}>{new Date(l.createdAt).toLocaleString()}</time>
                <br />
                <span className="hint">
                  by {l.createdBy} ({l.createdVia === 'INTERNAL' ? 'dashboard' : 'API'})
                </span>
              </>
            ),
          },
          {
            heading: 'Analytics',
            cell: (l) => (
              <Link to="/analytics" search={{ shortCode: l.shortCode }} aria-label={`Analytics of ${l.shortCode}`}>
                Analytics
              </Link>
            ),
          },
        ]}
      />
      {data ? (
        <nav className="pager" aria-label="Pages">
          <Button variant="secondary" disabled={page === 0} onClick={() => goTo(page - 1)}>
            Previous page
          </Button>
          <span>
            Page {data.page.totalPages === 0 ? 0 : page + 1} of {data.page.totalPages}
          </span>
          <Button variant="secondary" disabled={page + 1 >= data.page.totalPages} onClick={() => goTo(page + 1)}>
            Next page
          </Button>
        </nav>
      ) : null}
    </>
  );
}
