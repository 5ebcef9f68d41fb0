// The link editor's plain sections: destination (URL, short code of a new link, name, domain,
// active, cloaking), UTM tags, and the preview override with its plan gate.
import { CheckField, SelectField } from '../../ui/Choice.tsx';
import { Field } from '../../ui/Field.tsx';
import type { LinkForm, SectionProps } from './link-form.ts';

/** A setter of one field of the form. */
const setter =
  (onChange: SectionProps['onChange']) =>
  <K extends keyof LinkForm>(key: K) =>
  (value: LinkForm[K]) =>
    onChange({ [key]: value } as Pick<LinkForm, K>);

export function DestinationSection({ form, onChange, errors: e, disabled, isNew, hosts }: SectionProps & { isNew: boolean; hosts: readonly string[] }) {
  const set = setter(onChange);
  return (
    <fieldset disabled={disabled}>
      <legend>Destination</legend>
      <Field label="Destination URL" type="url" value={form.url} onChange={set('url')} error={e.url} required />
      {isNew ? (
        <Field
          label="Short code (optional)"
          value={form.shortCode}
          onChange={set('shortCode')}
          error={e.shortCode}
          hint="7 to 50 letters, digits, _ or -; left empty, one is made up."
        />
      ) : null}
      <Field label="Name" value={form.shortLinkName} onChange={set('shortLinkName')} error={e.shortLinkName} />
      <SelectField
        label="Domain"
        value={form.customDomain}
        onChange={set('customDomain')}
        error={e.customDomain}
        options={[
          { value: '', label: !isNew && form.customDomain === '' ? 'Default short domain' : 'Default (primary domain, if any)' },
          ...hosts.map((h) => ({ value: h, label: h })),
        ]}
      />
      <CheckField label="Active (an archived link answers 410)" checked={form.isActive} onChange={set('isActive')} />
      <CheckField label="Cloaking (show the destination inside the short link's page)" checked={form.cloakEnabled} onChange={set('cloakEnabled')} />
    </fieldset>
  );
}

export function UtmSection({ form, onChange, errors: e, disabled }: SectionProps) {
  const set = setter(onChange);
  return (
    <fieldset disabled={disabled}>
      <legend>UTM tags</legend>
      <Field label="UTM source" value={form.utmSource} onChange={set('utmSource')} error={e.utmSource} />
      <Field label="UTM medium" value={form.utmMedium} onChange={set('utmMedium')} error={e.utmMedium} />
      <Field label="UTM campaign" value={form.utmCampaign} onChange={set('utmCampaign')} error={e.utmCampaign} />
    </fieldset>
  );
}

export function PreviewSection({ form, onChange, errors: e, disabled, freePlan }: SectionProps & { freePlan: boolean }) {
  const set = setter(onChange);
  return (
    <fieldset disabled={disabled}>
      <legend>Link preview</legend>
      <CheckField
        label="Override the preview (title, description, image)"
        checked={form.enableCustomMetadata}
        onChange={set('enableCustomMetadata')}
        error={e.enableCustomMetadata}
        hint={freePlan ? 'The FREE plan has no preview override (PRO and above).' : undefined}
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
  );
}
