// The link editor's rule builder: ordered rules (move up and down, at most MAX_RULES), each of
// conditions and a URL; an error lands next to the condition or rule the server's path names.
import {
  DEVICE_CLASSES,
  MAX_RULES,
  RULE_CONDITION_TYPES,
  RULE_CONDITIONS,
  type RuleConditionType,
} from '../../../../../shared/links/model/link-rules-model.ts';
import { Button } from '../../ui/Button.tsx';
import { SelectField } from '../../ui/Choice.tsx';
import { Field } from '../../ui/Field.tsx';
import type { RulesPartProps } from './AccessSection.tsx';
import { type ConditionForm, NEW_CONDITION, type RuleForm } from './rules-form.ts';

const TYPE_OPTIONS = RULE_CONDITION_TYPES.map((t) => ({ value: t, label: RULE_CONDITIONS[t].label }));
const DEVICE_OPTIONS = DEVICE_CLASSES.map((d) => ({ value: d, label: d }));
const isConditionType = (v: string): v is RuleConditionType => (RULE_CONDITION_TYPES as readonly string[]).includes(v);

function ConditionRow({
  rule,
  index,
  condition: c,
  errors: e,
  onChange,
  onRemove,
}: {
  rule: number;
  index: number;
  condition: ConditionForm;
  errors: RulesPartProps['errors'];
  onChange(patch: Partial<ConditionForm>): void;
  onRemove(): void;
}) {
  const name = `Rule ${rule + 1}, condition ${index + 1}`;
  const path = `rules[${rule}].conditions[${index}]`;
  return (
    <div className="condition">
      <SelectField
        label={name}
        value={c.type}
        onChange={(type) => {
          if (isConditionType(type)) onChange({ type, value: type === 'device' ? NEW_CONDITION.value : '' });
        }}
        error={e[`${path}.type`]}
        options={TYPE_OPTIONS}
      />
      {c.type === 'device' ? (
        <SelectField label={`${name}: device`} value={c.value} onChange={(value) => onChange({ value })} error={e[`${path}.value`]} options={DEVICE_OPTIONS} />
      ) : (
        <Field
          label={`${name}: value`}
          value={c.value}
          onChange={(value) => onChange({ value })}
          error={e[`${path}.value`]}
          hint={RULE_CONDITIONS[c.type].hint ?? undefined}
        />
      )}
      <Button variant="secondary" onClick={onRemove}>
        Remove condition {index + 1} of rule {rule + 1}
      </Button>
    </div>
  );
}

export function RulesSection({ form, onChange, errors: e, disabled }: RulesPartProps) {
  const setRules = (rules: RuleForm[]) => onChange({ ...form, rules });
  const setRule = (i: number, patch: Partial<RuleForm>) => setRules(form.rules.map((r, k) => (k === i ? { ...r, ...patch } : r)));
  const setCondition = (i: number, j: number, patch: Partial<ConditionForm>) =>
    setRule(i, { conditions: (form.rules[i]?.conditions ?? []).map((c, k) => (k === j ? { ...c, ...patch } : c)) });
  const move = (i: number, by: number) => {
    const next = [...form.rules];
    const [r] = next.splice(i, 1);
    if (r) next.splice(i + by, 0, r);
    setRules(next);
  };
  return (
    <fieldset disabled={disabled}>
      <legend>Rules</legend>
      <p>The first rule whose conditions all hold sends the visitor to its URL; deep links apply only when none holds.</p>
      {e.rules ? (
        <p className="error" role="alert">
          {e.rules}
        </p>
      ) : null}
      {form.rules.map((r, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a rule's position is its identity (the API's errors name it)
        <fieldset key={i} className="deep-link">
          <legend>Rule {i + 1}</legend>
          {e[`rules[${i}].conditions`] ? (
            <p className="error" role="alert">
              {e[`rules[${i}].conditions`]}
            </p>
          ) : null}
          {r.conditions.map((c, j) => (
            <ConditionRow
              // biome-ignore lint/suspicious/noArrayIndexKey: as above
              key={j}
              rule={i}
              index={j}
              condition={c}
              errors={e}
              onChange={(patch) => setCondition(i, j, patch)}
              onRemove={() => setRule(i, { conditions: r.conditions.filter((_, k) => k !== j) })}
            />
          ))}
          <Button variant="secondary" onClick={() => setRule(i, { conditions: [...r.conditions, NEW_CONDITION] })}>
            Add a condition to rule {i + 1}
          </Button>
          <Field label={`Rule ${i + 1}: send to URL`} type="url" value={r.url} onChange={(url) => setRule(i, { url })} error={e[`rules[${i}].url`]} />
          <p>
            <Button variant="secondary" disabled={i === 0} onClick={() => move(i, -1)}>
              Move rule {i + 1} up
            </Button>{' '}
            <Button variant="secondary" disabled={i === form.rules.length - 1} onClick={() => move(i, 1)}>
              Move rule {i + 1} down
            </Button>{' '}
            <Button variant="secondary" onClick={() => setRules(form.rules.filter((_, k) => k !== i))}>
              Remove rule {i + 1}
            </Button>
          </p>
        </fieldset>
      ))}
      <Button variant="secondary" disabled={form.rules.length >= MAX_RULES} onClick={() => setRules([...form.rules, { conditions: [NEW_CONDITION], url: '' }])}>
        Add a rule
      </Button>
    </fieldset>
  );
}
