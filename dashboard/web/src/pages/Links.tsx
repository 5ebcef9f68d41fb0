// The Links page: the API's list filters (the same DSL) and paging in the URL's search params (so
// a filtered page can be bookmarked and Back works), bulk archive/restore of the selected rows.
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { createRoute, Link, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useId, useState } from 'react';
import { ApiError, call } from '../api.ts';
import { appRoute } from '../routes/root.tsx';
import { may, useSession } from '../session.ts';
import { Field, FormError } from '../ui/Field.tsx';

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
  component: LinksPage,
});

function LinksPage() {
  const search = linksRoute.useSearch();
  const navigate = useNavigate({ from: '/links' });
  const view = useSession();
  const canWrite = may(view, 'links:write');
  const client = useQueryClient();
  const [filter, setFilter] = useState(search.q ?? '');
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [bulkMessage, setBulkMessage] = useState('');
  const sizeId = useId();
  const page = search.page ?? 0;
  const size = search.size ?? 20;
  const list = useQuery({
    queryKey: ['links', search.q ?? '', page, size],
    queryFn: () => call('links', { query: { query: search.q, page, size } }),
    placeholderData: keepPreviousData,
  });
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
  const bulk = async (isActive: boolean) => {
    setBulkMessage('');
    try {
      const r = await call('bulkActive', { body: { shortCodes: [...selected], isActive } });
      const verb = isActive ? 'restored' : 'archived';
      setBulkMessage(
        `${r.updated.length} ${r.updated.length === 1 ? 'link' : 'links'} ${verb}.${r.failed.length ? ` Not changed: ${r.failed.map((f) => `${f.shortCode} (${f.message})`).join(', ')}.` : ''}`,
      );
      setSelected(new Set());
      await client.invalidateQueries({ queryKey: ['links'] });
    } catch (err) {
      setBulkMessage(err instanceof ApiError ? err.message : 'The change could not be saved.');
    }
  };

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
        <button type="submit">Apply filter</button>
      </form>
      {canWrite ? (
        <fieldset className="bulk">
          <legend className="visually-hidden">Bulk actions</legend>
          <button type="button" disabled={selected.size === 0} onClick={() => void bulk(false)}>
            Archive selected
          </button>
          <button type="button" className="secondary" disabled={selected.size === 0} onClick={() => void bulk(true)}>
            Restore selected
          </button>
          <span role="status">{bulkMessage}</span>
        </fieldset>
      ) : null}
      <FormError message={list.isError && !filterError ? 'The links could not be loaded.' : undefined} />
      <table aria-busy={list.isFetching}>
        <caption>
          {data ? `${data.page.totalElements} ${data.page.totalElements === 1 ? 'link' : 'links'}${search.q ? ' matching the filter' : ''}` : 'Links'}
        </caption>
        <thead>
          <tr>
            {canWrite ? (
              <th scope="col">
                <input
                  type="checkbox"
                  aria-label="Select every link on this page"
                  checked={allSelected}
                  onChange={() => setSelected(allSelected ? new Set() : new Set(rows.map((l) => l.shortCode)))}
                />
              </th>
            ) : null}
            <th scope="col">Short link</th>
            <th scope="col">Destination</th>
            <th scope="col">Name</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
            <th scope="col">Analytics</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((l) => (
            <tr key={l.shortCode}>
              {canWrite ? (
                <td>
                  <input type="checkbox" aria-label={`Select ${l.shortCode}`} checked={selected.has(l.shortCode)} onChange={() => toggle(l.shortCode)} />
                </td>
              ) : null}
              <td>
                <Link to="/links/$code" params={{ code: l.shortCode }}>
                  {l.smartLink}
                </Link>
              </td>
              <td className="url">{l.url}</td>
              <td>{l.shortLinkName ?? ''}</td>
              <td>{l.isActive ? 'Active' : 'Archived'}</td>
              <td>
                <time dateTime={l.createdAt}>{new Date(l.createdAt).toLocaleString()}</time>
                <br />
                <span className="hint">
                  by {l.createdBy} ({l.createdVia === 'INTERNAL' ? 'dashboard' : 'API'})
                </span>
              </td>
              <td>
                <Link to="/analytics" search={{ shortCode: l.shortCode }} aria-label={`Analytics of ${l.shortCode}`}>
                  Analytics
                </Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {data ? (
        <nav className="pager" aria-label="Pages">
          <button type="button" className="secondary" disabled={page === 0} onClick={() => goTo(page - 1)}>
            Previous page
          </button>
          <span>
            Page {data.page.totalPages === 0 ? 0 : page + 1} of {data.page.totalPages}
          </span>
          <button type="button" className="secondary" disabled={page + 1 >= data.page.totalPages} onClick={() => goTo(page + 1)}>
            Next page
          </button>
        </nav>
      ) : null}
    </>
  );
}
