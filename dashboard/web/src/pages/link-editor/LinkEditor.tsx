// The link editor: every field the API's save takes, in sections (destination, UTM, preview with
// its plan gate, deep links, expiry and password, rules), saved through the same save path; errors
// land next to their fields and nothing typed is lost. An existing link also offers its QR code
// for download, the simulator, and (to those who may write) its deletion.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createRoute, Link, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { DOWNLOADS, pathOf } from '../../../../contract/routes.ts';
import { ApiError, call } from '../../api.ts';
import { keys, queries } from '../../data/queries.ts';
import { useWrite } from '../../data/use-write.ts';
import { appRoute } from '../../routes/root.tsx';
import { may, useSession } from '../../session.ts';
import { Button } from '../../ui/Button.tsx';
import { Feedback } from '../../ui/Feedback.tsx';
import { FormError } from '../../ui/Field.tsx';
import { useFormErrors } from '../../ui/use-form-errors.ts';
import { AccessSection } from './AccessSection.tsx';
import { DeepLinksSection } from './DeepLinksSection.tsx';
import { DeleteSection } from './DeleteSection.tsx';
import { DestinationSection, PreviewSection, UtmSection } from './DetailsSections.tsx';
import { bodyOf, EMPTY, fieldNames, formOf, formProblems, type LinkForm, type LinkView } from './link-form.ts';
import { RulesSection } from './RulesSection.tsx';
import { Simulator } from './Simulator.tsx';

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
  const link = useQuery({ ...queries.link(code ?? ''), enabled: code !== null, retry: false });
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

function QrSection({ link }: { link: LinkView }) {
  const qr = (format: 'png' | 'svg') => pathOf(DOWNLOADS.linkQr, { code: link.shortCode, format });
  return (
    <section aria-labelledby="qr-h" className="qr-box">
      <h2 id="qr-h">Short link and QR code</h2>
      <p>
        <a href={link.smartLink}>{link.smartLink}</a> · {link.isActive ? 'Active' : 'Archived'} · created by {link.createdBy} (
        {link.createdVia === 'INTERNAL' ? 'dashboard' : 'API'}), last changed by {link.updatedBy}
      </p>
      <p>
        <a href={qr('png')} download>
          Download QR code (PNG)
        </a>{' '}
        ·{' '}
        <a href={qr('svg')} download>
          Download QR code (SVG)
        </a>
      </p>
    </section>
  );
}

/** The server's refusal with the plan gate and an unknown app name put by their fields (they name none themselves). */
function placed(err: unknown, form: LinkForm): unknown {
  const first = err instanceof ApiError ? err.errors[0] : undefined;
  if (!(err instanceof ApiError) || !first) return err;
  if (first.code === 'FE001') return new ApiError(err.status, [{ ...first, details: { field: 'enableCustomMetadata' } }]);
  if (first.code === 'DL001') {
    const i = form.deepLinks.findIndex((d) => d.mobileAppId === String(first.details?.mobileAppId ?? ''));
    return new ApiError(err.status, [{ ...first, details: { field: `deepLinks[${Math.max(i, 0)}].mobileAppId` } }]);
  }
  return err;
}

function LinkFormView({ initial, existing }: { initial: LinkForm; existing: LinkView | null }) {
  const view = useSession();
  const canWrite = may(view, 'links:write');
  const navigate = useNavigate();
  const client = useQueryClient();
  const apps = useQuery(queries.apps());
  const domains = useQuery(queries.domains());
  const [form, setForm] = useState<LinkForm>(initial);
  const [hasPassword, setHasPassword] = useState(existing?.passwordProtected === true);
  const errors = useFormErrors();
  const e = errors.errors;
  const patch = (p: Partial<LinkForm>) => setForm((f) => ({ ...f, ...p }));
  const activeApps = (apps.data?.apps ?? []).filter((a) => a.active);
  const hosts = (domains.data?.domains ?? []).filter((d) => d.status === 'ACTIVE').map((d) => d.host);

  const save = useWrite({
    run: () => call('saveLink', { body: bodyOf(form, existing === null, hosts) }),
    invalidates: [keys.links()],
    said: (r) => `Saved: ${r.smartLink}`,
    onDone: async (r) => {
      client.setQueryData(keys.link(r.shortCode), r);
      // A password typed is never kept in the page once saved.
      setForm((f) => ({ ...f, access: { ...f.access, password: '', removePassword: false } }));
      setHasPassword(r.passwordProtected === true);
      if (existing === null) await navigate({ to: '/links/$code', params: { code: r.shortCode } });
    },
    onFail: (err) => errors.show(placed(err, form), fieldNames(form)),
  });
  const submit = (ev: FormEvent) => {
    ev.preventDefault();
    save.setOutcome(null);
    const problems = formProblems(form);
    if (Object.keys(problems).length > 0) return errors.set(problems);
    errors.clear();
    save.mutate();
  };

  const sectionProps = { form, onChange: patch, errors: e, disabled: !canWrite };
  const access = { form: form.access, onChange: (a: LinkForm['access']) => patch({ access: a }), errors: e, disabled: !canWrite };
  return (
    <>
      <h1>{existing ? `Link ${existing.shortCode}` : 'New link'}</h1>
      <p>
        <Link to="/links">Back to the links</Link>
      </p>
      {existing ? <QrSection link={existing} /> : null}
      <form onSubmit={submit} noValidate>
        <FormError message={e['']} />
        <DestinationSection {...sectionProps} isNew={existing === null} hosts={hosts} />
        <UtmSection {...sectionProps} />
        <PreviewSection {...sectionProps} freePlan={view.org?.plan === 'FREE'} />
        <DeepLinksSection {...sectionProps} apps={activeApps} />
        <AccessSection {...access} hasPassword={hasPassword} />
        <RulesSection {...access} />
        {canWrite ? (
          <Button type="submit" disabled={save.isPending}>
            {existing ? 'Save changes' : 'Create link'}
          </Button>
        ) : (
          <p>Your role can see links but not change them.</p>
        )}
        <Feedback outcome={save.outcome} />
      </form>
      {existing ? <Simulator shortCode={existing.shortCode} /> : null}
      {existing && canWrite ? <DeleteSection link={existing} /> : null}
    </>
  );
}
