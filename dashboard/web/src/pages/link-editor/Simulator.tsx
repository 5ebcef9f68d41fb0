// The link editor's simulator: asks the server's resolve what the redirector does with the saved
// link for a chosen visitor (device, country, Accept-Language, query, time). Nothing is recorded;
// a refused value is explained next to its field.
import { useState } from 'react';
import type { ResponseOf } from '../../../../contract/schemas.ts';
import { RESOLVE_KIND_TEXT } from '../../../../../shared/redirects/model/outcomes.ts';
import { call } from '../../api.ts';
import { useWrite } from '../../data/use-write.ts';
import { Button } from '../../ui/Button.tsx';
import { SelectField } from '../../ui/Choice.tsx';
import { Field, FormError } from '../../ui/Field.tsx';
import { useFormErrors } from '../../ui/use-form-errors.ts';
import { instantOf } from './rules-form.ts';

const VISITORS = [
  {
    value: 'desktop',
    label: 'Desktop browser',
    ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
  },
  {
    value: 'iphone',
    label: 'iPhone',
    ua: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  },
  {
    value: 'ipad',
    label: 'iPad',
    ua: 'Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  },
  {
    value: 'android',
    label: 'Android phone',
    ua: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36',
  },
  {
    value: 'android-tablet',
    label: 'Android tablet',
    ua: 'Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
  },
  { value: 'crawler', label: 'Link-preview crawler', ua: 'facebookexternalhit/1.1' },
];

const VISITOR_FIELDS = ['visitor.countryCode', 'visitor.acceptLanguage', 'visitor.query', 'visitor.at'];

/** What the simulator says of a resolve answer. */
function verdict(r: ResponseOf<'resolveLink'>): string {
  return `${RESOLVE_KIND_TEXT[r.kind] ?? r.kind}${r.matchedRule === undefined ? '' : ` (rule ${r.matchedRule + 1})`}${r.location === undefined ? '' : `: ${r.location}`}`;
}

export function Simulator({ shortCode }: { shortCode: string }) {
  const [visitor, setVisitor] = useState({ device: 'desktop', countryCode: '', acceptLanguage: '', query: '', at: '' });
  const errors = useFormErrors();
  const e = errors.errors;
  const sim = useWrite({
    run: () =>
      call('resolveLink', {
        body: {
          shortCode,
          visitor: {
            userAgent: VISITORS.find((v) => v.value === visitor.device)?.ua ?? '',
            countryCode: visitor.countryCode.trim() === '' ? null : visitor.countryCode.trim(),
            acceptLanguage: visitor.acceptLanguage,
            query: visitor.query.replace(/^\?/, ''),
            at: instantOf(visitor.at),
          },
        },
      }),
    onFail: (err) => errors.show(err, VISITOR_FIELDS),
  });
  const set = (key: keyof typeof visitor) => (value: string) => setVisitor((v) => ({ ...v, [key]: value }));
  const simulate = () => {
    errors.clear();
    sim.mutate();
  };
  return (
    <section aria-labelledby="sim-h" className="qr-box">
      <h2 id="sim-h">Simulate a visit</h2>
      <p>What the redirector does with the saved link for this visitor. Nothing is recorded.</p>
      <SelectField
        label="Visitor's device"
        value={visitor.device}
        onChange={set('device')}
        options={VISITORS.map((v) => ({ value: v.value, label: v.label }))}
      />
      <Field
        label="Visitor's country"
        value={visitor.countryCode}
        onChange={set('countryCode')}
        error={e['visitor.countryCode']}
        hint="Two letters, e.g. DE."
      />
      <Field
        label="Accept-Language"
        value={visitor.acceptLanguage}
        onChange={set('acceptLanguage')}
        error={e['visitor.acceptLanguage']}
        hint="e.g. de-DE,en;q=0.8"
      />
      <Field label="Query string" value={visitor.query} onChange={set('query')} error={e['visitor.query']} hint="e.g. ref=mail" />
      <Field label="Visit time" type="datetime-local" value={visitor.at} onChange={set('at')} error={e['visitor.at']} hint="Empty: now." />
      <FormError message={e['']} />
      <Button onClick={simulate} disabled={sim.isPending}>
        Simulate
      </Button>
      <p role="status" aria-live="polite">
        {sim.data && !sim.isPending ? verdict(sim.data) : ''}
      </p>
    </section>
  );
}
