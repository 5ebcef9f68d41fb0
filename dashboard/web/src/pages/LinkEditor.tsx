// The link editor: every field the API's save takes (deep links, preview override with its plan
// gate, cloaking, UTM, custom domain, and the rules part in LinkRules.tsx: expiry, click limit,
// password, rules, the simulator), saved through the same save path; errors land next to their
// fields and nothing typed is lost. An existing link also offers its QR code for download.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createRoute, Link, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import type { BodyOf, ResponseOf } from '../../../contract/schemas.ts';
import { ApiError, call } from '../api.ts';
import { appRoute } from '../routes/root.tsx';
import { may, useSession } from '../session.ts';
import { CheckField, SelectField } from '../ui/Choice.tsx';
import { Field, FormError } from '../ui/Field.tsx';
import { useFormErrors } from '../ui/use-form-errors.ts';
import { AccessFields, EMPTY_RULES, RuleBuilder, type RulesForm, rulesBodyOf, rulesFieldNames, rulesFormOf, Simulator } from './LinkRules.tsx';

type LinkView = ResponseOf<'link'>;

interface DeepLinkForm {
  mobileAppId: string;
  deeplinkUrl: string;
  fallbackUrl: string;
  linkBehaviour: string;
  fallbackEnabled: boolean;
}

interface LinkForm {
  url: string;
  shortCode: string;
  shortLinkName: string;
  customDomain: string;
  isActive: boolean;
  cloakEnabled: boolean;
  utmSource: string;
  utmMedium: string;
  utmCampaign: string;
  enableCustomMetadata: boolean;
  customMetadataTitle: string;
  customMetadataDescription: string;
  customMetadataImageUrl: string;
  deepLinks: DeepLinkForm[];
  access: RulesForm;
}

const EMPTY: LinkForm = {
  url: '',
  shortCode: '',
  shortLinkName: '',
  customDomain: '',
  isActive: true,
  cloakEnabled: false,
  utmSource: '',
  utmMedium: '',
  utmCampaign: '',
  enableCustomMetadata: false,
  customMetadataTitle: '',
  customMetadataDescription: '',
  customMetadataImageUrl: '',
  deepLinks: [],
  access: EMPTY_RULES,
};

function formOf(l: LinkView): LinkForm {
  const host = new URL(l.smartLink).host;
  return {
    url: l.url,
    shortCode: l.shortCode,
    shortLinkName: l.shortLinkName ?? '',
    customDomain: l.smartLink.startsWith('https://') ? host : '',
    isActive: l.isActive,
    cloakEnabled: l.cloakEnabled,
    utmSource: l.utmSource ?? '',
    utmMedium: l.utmMedium ?? '',
    utmCampaign: l.utmCampaign ?? '',
    enableCustomMetadata: l.enableCustomMetadata,
    customMetadataTitle: l.customMetadataTitle ?? '',
    customMetadataDescription: l.customMetadataDescription ?? '',
    customMetadataImageUrl: l.customMetadataImageUrl ?? '',
    deepLinks: l.deepLinks.map((d) => ({
      mobileAppId: d.mobileAppId,
      deeplinkUrl: d.deeplinkUrl ?? '',
      fallbackUrl: d.fallbackUrl ?? '',
      linkBehaviour: d.linkBehaviour ?? '',
      fallbackEnabled: d.fallbackEnabled,
    })),
    access: rulesFormOf(l),
  };
}

const orNull = (s: string): string | null => (s.trim() === '' ? null : s);

function bodyOf(f: LinkForm, isNew: boolean, domains: readonly string[]): BodyOf<'saveLink'> {
  return {
    url: f.url,
    ...(isNew ? (f.shortCode.trim() === '' ? {} : { shortCode: f.shortCode.trim() }) : { shortCode: f.shortCode }),
    shortLinkName: orNull(f.shortLinkName),
    ...(f.customDomain !== '' && domains.includes(f.customDomain) ? { customDomain: f.customDomain } : {}),
    isActive: f.isActive,
    cloakEnabled: f.cloakEnabled,
    utmSource: orNull(f.utmSource),
    utmMedium: orNull(f.utmMedium),
    utmCampaign: orNull(f.utmCampaign),
    enableCustomMetadata: f.enableCustomMetadata,
    customMetadataTitle: orNull(f.customMetadataTitle),
    customMetadataDescription: orNull(f.customMetadataDescription),
    customMetadataImageUrl: orNull(f.customMetadataImageUrl),
    deepLinks: f.deepLinks.map((d) => ({
      mobileAppId: d.mobileAppId,
      deeplinkUrl: orNull(d.deeplinkUrl),
      fallbackUrl: orNull(d.fallbackUrl),
      linkBehaviour: d.linkBehaviour === 'app' || d.linkBehaviour === 'webBrowser' ? d.linkBehaviour : null,
      fallbackEnabled: d.fallbackEnabled,
    })),
    ...rulesBodyOf(f.access),
  };
}

export const newLinkRoute = createRoute({ getParentRoute: () => appRoute, path: '/links/new', component: () => <Editor code={null} /> });

export const editLinkRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/links/$code',
  component: function EditLink() {
    const { code } = editLinkRoute.useParams();
    return <Editor key={code} code={code} />;
  },
});

function Editor({ code }: { code: string | null }) {
  const link = useQuery({ queryKey: ['link', code], queryFn: () => call('link', { params: { code: code ?? '' } }), enabled: code !== null, retry: false });
  if (code === null) return <LinkFormView initial={EMPTY} existing={null} />;
  if (link.isPending)
    return (
      <>
        <h1>Link {code}</h1>
        <p role="status">Loading…</p>
      </>
    );
  if (link.isError)
    return (
      <>
        <h1>Link {code}</h1>
        <p className="error" role="alert">
          {link.error instanceof ApiError ? link.error.message : 'The link could not be loaded.'}
        </p>
        <Link to="/links">Back to the links</Link>
      </>
    );
  return <LinkFormView initial={formOf(link.data)} existing={link.data} />;
}

function LinkFormView({ initial, existing }: { initial: LinkForm; existing: LinkView | null }) {
  const view = useSession();
  const canWrite = may(view, 'links:write');
  const navigate = useNavigate();
  const client = useQueryClient();
  const apps = useQuery({ queryKey: ['apps'], queryFn: () => call('apps') });
  const domains = useQuery({ queryKey: ['domains'], queryFn: () => call('domains') });
  const [form, setForm] = useState<LinkForm>(initial);
  const [hasPassword, setHasPassword] = useState(existing?.passwordProtected === true);
  const [saved, setSaved] = useState('');
  const [busy, setBusy] = useState(false);
  const errors = useFormErrors();
  const e = errors.errors;
  const set =
    <K extends keyof LinkForm>(key: K) =>
    (value: LinkForm[K]) =>
      setForm((f) => ({ ...f, [key]: value }));
  const setDeep = (i: number, patch: Partial<DeepLinkForm>) =>
    setForm((f) => ({ ...f, deepLinks: f.deepLinks.map((d, j) => (j === i ? { ...d, ...patch } : d)) }));
  const activeApps = (apps.data?.apps ?? []).filter((a) => a.active);
  const hosts = (domains.data?.domains ?? []).filter((d) => d.status === 'ACTIVE').map((d) => d.host);
  const fields = [
    'url',
    'shortCode',
    'shortLinkName',
    'customDomain',
    'utmSource',
    'utmMedium',
    'utmCampaign',
    'enableCustomMetadata',
    'customMetadataTitle',
    'customMetadataDescription',
    'customMetadataImageUrl',
    ...form.deepLinks.flatMap((_, i) => ['mobileAppId', 'deeplinkUrl', 'fallbackUrl', 'linkBehaviour'].map((k) => `deepLinks[${i}].${k}`)),
    ...rulesFieldNames(form.access),
  ];

  const submit = async (ev: FormEvent) => {
    ev.preventDefault();
    setBusy(true);
    setSaved('');
    errors.clear();
    try {
      const r = await call('saveLink', { body: bodyOf(form, existing === null, hosts) });
      await client.invalidateQueries({ queryKey: ['links'] });
      client.setQueryData(['link', r.shortCode], r);
      // A password typed is never kept in the page once saved.
      setForm((f) => ({ ...f, access: { ...f.access, password: '', removePassword: false } }));
      setHasPassword(r.passwordProtected === true);
      setSaved(`Saved: ${r.smartLink}`);
      if (existing === null) await navigate({ to: '/links/$code', params: { code: r.shortCode } });
    } catch (err) {
      // The plan gate and an unknown app name no field themselves: put them next to theirs.
      const first = err instanceof ApiError ? err.errors[0] : undefined;
      if (err instanceof ApiError && first?.code === 'FE001') {
        errors.show(new ApiError(err.status, [{ ...first, details: { field: 'enableCustomMetadata' } }]), fields);
      } else if (err instanceof ApiError && first?.code === 'DL001') {
        const i = form.deepLinks.findIndex((d) => d.mobileAppId === String(first.details?.mobileAppId ?? ''));
        errors.show(new ApiError(err.status, [{ ...first, details: { field: `deepLinks[${Math.max(i, 0)}].mobileAppId` } }]), fields);
      } else errors.show(err, fields);
    } finally {
      setBusy(false);
    }
  };

  const title = existing ? `Link ${existing.shortCode}` : 'New link';
  return (
    <>
      <h1>{title}</h1>
      <p>
        <Link to="/links">Back to the links</Link>
      </p>
      {existing ? (
        <section aria-labelledby="qr-h" className="qr-box">
          <h2 id="qr-h">Short link and QR code</h2>
          <p>
            <a href={existing.smartLink}>{existing.smartLink}</a> · {existing.isActive ? 'Active' : 'Archived'} · created by {existing.createdBy} (
            {existing.createdVia === 'INTERNAL' ? 'dashboard' : 'API'}), last changed by {existing.updatedBy}
          </p>
          <p>
            <a href={`/api/links/${encodeURIComponent(existing.shortCode)}/qr.png`} download>
              Download QR code (PNG)
            </a>{' '}
            ·{' '}
            <a href={`/api/links/${encodeURIComponent(existing.shortCode)}/qr.svg`} download>
              Download QR code (SVG)
            </a>
          </p>
        </section>
      ) : null}
      <form onSubmit={submit} noValidate>
        <FormError message={e['']} />
        <fieldset disabled={!canWrite}>
          <legend>Destination</legend>
          <Field label="Destination URL" type="url" value={form.url} onChange={set('url')} error={e.url} required />
          {existing ? null : (
            <Field
              label="Short code (optional)"
              value={form.shortCode}
              onChange={set('shortCode')}
              error={e.shortCode}
              hint="7 to 50 letters, digits, _ or -; left empty, one is made up."
            />
          )}
          <Field label="Name" value={form.shortLinkName} onChange={set('shortLinkName')} error={e.shortLinkName} />
          <SelectField
            label="Domain"
            value={form.customDomain}
            onChange={set('customDomain')}
            error={e.customDomain}
            options={[
              { value: '', label: existing && form.customDomain === '' ? 'Default short domain' : 'Default (primary domain, if any)' },
              ...hosts.map((h) => ({ value: h, label: h })),
            ]}
          />
          <CheckField label="Active (an archived link answers 410)" checked={form.isActive} onChange={set('isActive')} />
          <CheckField label="Cloaking (show the destination inside the short link's page)" checked={form.cloakEnabled} onChange={set('cloakEnabled')} />
        </fieldset>
        <fieldset disabled={!canWrite}>
          <legend>UTM tags</legend>
          <Field label="UTM source" value={form.utmSource} onChange={set('utmSource')} error={e.utmSource} />
          <Field label="UTM medium" value={form.utmMedium} onChange={set('utmMedium')} error={e.utmMedium} />
          <Field label="UTM campaign" value={form.utmCampaign} onChange={set('utmCampaign')} error={e.utmCampaign} />
        </fieldset>
        <fieldset disabled={!canWrite}>
          <legend>Link preview</legend>
          <CheckField
            label="Override the preview (title, description, image)"
            checked={form.enableCustomMetadata}
            onChange={set('enableCustomMetadata')}
            error={e.enableCustomMetadata}
            hint={view.org?.plan === 'FREE' ? 'The FREE plan has no preview override (PRO and above).' : undefined}
          />
          <Field label="Preview title" value={form.customMetadataTitle} onChange={set('customMetadataTitle')} error={e.customMetadataTitle} />
          <Field
            label="Preview description"
            value={form.customMetadataDescription}
            onChange={set('customMetadataDescription')}
            error={e.customMetadataDescription}
          />
          <Field
            label="Preview image URL"
            type="url"
            value={form.customMetadataImageUrl}
            onChange={set('customMetadataImageUrl')}
            error={e.customMetadataImageUrl}
          />
        </fieldset>
        <fieldset disabled={!canWrite}>
          <legend>Deep links</legend>
          {form.deepLinks.length === 0 ? <p>No deep links: every visitor goes to the destination URL.</p> : null}
          {form.deepLinks.map((d, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: entries have no identity of their own; their position is what the API's errors name
            <fieldset key={i} className="deep-link">
              <legend>Deep link {i + 1}</legend>
              <SelectField
                label="App"
                value={d.mobileAppId}
                onChange={(v) => setDeep(i, { mobileAppId: v })}
                error={e[`deepLinks[${i}].mobileAppId`]}
                options={[
                  { value: '', label: 'Choose an app' },
                  ...activeApps.map((a) => ({ value: a.mobileAppId, label: `${a.name} (${a.platform})` })),
                  ...(d.mobileAppId && !activeApps.some((a) => a.mobileAppId === d.mobileAppId)
                    ? [{ value: d.mobileAppId, label: `${d.mobileAppId} (removed)` }]
                    : []),
                ]}
              />
              <Field label="Deep link URL" value={d.deeplinkUrl} onChange={(v) => setDeep(i, { deeplinkUrl: v })} error={e[`deepLinks[${i}].deeplinkUrl`]} />
              <Field
                label="Fallback URL"
                type="url"
                value={d.fallbackUrl}
                onChange={(v) => setDeep(i, { fallbackUrl: v })}
                error={e[`deepLinks[${i}].fallbackUrl`]}
              />
              <SelectField
                label="Open in"
                value={d.linkBehaviour}
                onChange={(v) => setDeep(i, { linkBehaviour: v })}
                error={e[`deepLinks[${i}].linkBehaviour`]}
                options={[
                  { value: '', label: 'Default' },
                  { value: 'app', label: 'The app' },
                  { value: 'webBrowser', label: 'The web browser' },
                ]}
              />
              <CheckField
                label="Use the fallback URL when the app is missing"
                checked={d.fallbackEnabled}
                onChange={(v) => setDeep(i, { fallbackEnabled: v })}
              />
              <button type="button" className="secondary" onClick={() => setForm((f) => ({ ...f, deepLinks: f.deepLinks.filter((_, j) => j !== i) }))}>
                Remove deep link {i + 1}
              </button>
            </fieldset>
          ))}
          <button
            type="button"
            className="secondary"
            onClick={() =>
              setForm((f) => ({
                ...f,
                deepLinks: [...f.deepLinks, { mobileAppId: '', deeplinkUrl: '', fallbackUrl: '', linkBehaviour: '', fallbackEnabled: false }],
              }))
            }
          >
            Add a deep link
          </button>
        </fieldset>
        <AccessFields form={form.access} onChange={set('access')} errors={e} disabled={!canWrite} hasPassword={hasPassword} />
        <RuleBuilder form={form.access} onChange={set('access')} errors={e} disabled={!canWrite} />
        {canWrite ? (
          <button type="submit" disabled={busy}>
            {existing ? 'Save changes' : 'Create link'}
          </button>
        ) : (
          <p>Your role can see links but not change them.</p>
        )}
        <p role="status">{saved}</p>
      </form>
      {existing ? <Simulator shortCode={existing.shortCode} /> : null}
    </>
  );
}
