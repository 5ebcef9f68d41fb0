// The link editor's deep links: per entry the app (an app removed since stays listed as removed),
// its deep link and fallback URLs, where it opens, and whether the fallback applies; errors by the
// entry's position, as the API names them.
import type { ResponseOf } from '../../../../contract/schemas.ts';
import { Button } from '../../ui/Button.tsx';
import { CheckField, SelectField } from '../../ui/Choice.tsx';
import { Field } from '../../ui/Field.tsx';
import { type DeepLinkForm, NEW_DEEP_LINK, type SectionProps } from './link-form.ts';

type App = ResponseOf<'apps'>['apps'][number];

export function DeepLinksSection({ form, onChange, errors: e, disabled, apps }: SectionProps & { apps: readonly App[] }) {
  const setDeep = (i: number, patch: Partial<DeepLinkForm>) => onChange({ deepLinks: form.deepLinks.map((d, j) => (j === i ? { ...d, ...patch } : d)) });
  return (
    <fieldset disabled={disabled}>
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
              ...apps.map((a) => ({ value: a.mobileAppId, label: `${a.name} (${a.platform})` })),
              ...(d.mobileAppId && !apps.some((a) => a.mobileAppId === d.mobileAppId) ? [{ value: d.mobileAppId, label: `${d.mobileAppId} (removed)` }] : []),
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
          <CheckField label="Use the fallback URL when the app is missing" checked={d.fallbackEnabled} onChange={(v) => setDeep(i, { fallbackEnabled: v })} />
          <Button variant="secondary" onClick={() => onChange({ deepLinks: form.deepLinks.filter((_, j) => j !== i) })}>
            Remove deep link {i + 1}
          </Button>
        </fieldset>
      ))}
      <Button variant="secondary" onClick={() => onChange({ deepLinks: [...form.deepLinks, NEW_DEEP_LINK] })}>
        Add a deep link
      </Button>
    </fieldset>
  );
}
