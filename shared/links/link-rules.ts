// Invariant: a link's rules are stored as checked, normalised data (RuleSpec) and compiled once
// per built Link (buildLink/reviveLink, i.e. once per cache fill) into a flat program over
// precomputed values; a redirect only walks it. A compiled rule's destination has the link's
// UTM tags applied and is null when it is no safe http(s) URL. The compiled form never reaches a
// cache tier's JSON (toJSON). A rule holds when all its conditions hold; the first rule that
// holds wins. A visitor fact a link's rules do not name is never computed (the country above all:
// it costs a database lookup).
import { z } from 'zod';
import { DEVICE_CLASSES, type DeviceClass, MAX_RULE_CONDITIONS, MAX_RULES, RULE_CONDITION_TYPES, type RuleConditionType } from './model/link-rules-model.ts';
import { safeWebUrl } from './safe-url.ts';
import { hasControlCharacter, isHttpUrl, MAX_URL_LENGTH } from './url-rules.ts';

const MAX_QUERY_PARAM_LENGTH = 256;

/** ISO 8601 with a time and a zone (Z or ±hh:mm), as every instant of the API. */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Milliseconds of an ISO 8601 instant with its zone, or null when it is not one. */
export function instantMs(text: string): number | null {
  if (!INSTANT.test(text)) return null;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : null;
}

const ZONELESS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?$/;

/**
 * An instant a link body carries (expiresAt): with its zone, or zone-less meaning UTC (DECISIONS:
 * timestamps in). The text with its zone (`Z` added to a zone-less one), or null when it is not one.
 */
export function zonedInstant(text: string): string | null {
  const zoned = ZONELESS.test(text) ? `${text}Z` : text;
  return instantMs(zoned) === null ? null : zoned;
}

/** The rule a condition's value must follow, by type; null when the value is fine. Values are normalised by normaliseValue. */
function valueProblem(type: RuleConditionType, value: string): string | null {
  switch (type) {
    case 'device':
      return (DEVICE_CLASSES as readonly string[]).includes(value) ? null : `must be one of ${DEVICE_CLASSES.join(', ')}`;
    case 'countryCode':
      return /^[A-Za-z]{2}$/.test(value) ? null : 'must be an ISO 3166-1 alpha-2 country code';
    case 'language':
      return /^[A-Za-z]{2,8}$/.test(value) ? null : 'must be a primary language tag (2 to 8 letters, e.g. en)';
    case 'queryParam': {
      const name = value.split('=', 1)[0] ?? '';
      if (name === '' || value.length > MAX_QUERY_PARAM_LENGTH || hasControlCharacter(value) || /[&#\s]/.test(value)) {
        return `must be name or name=value (a non-empty name, at most ${MAX_QUERY_PARAM_LENGTH} characters, no &, # or spaces)`;
      }
      return null;
    }
    case 'after':
    case 'before':
      return instantMs(value) === null ? 'must be an ISO 8601 instant with its zone, e.g. 2026-12-01T00:00:00Z' : null;
  }
}

function normaliseValue(type: RuleConditionType, value: string): string {
  if (type === 'countryCode') return value.toUpperCase();
  if (type === 'language') return value.toLowerCase();
  if (type === 'after' || type === 'before') return new Date(instantMs(value) as number).toISOString();
  return value;
}

const URL_RULE = `must be an absolute http or https URL of at most ${MAX_URL_LENGTH} characters`;

export const ruleConditionRequestSchema = z
  .object({ type: z.enum(RULE_CONDITION_TYPES), value: z.string() })
  .superRefine((c, ctx) => {
    const problem = valueProblem(c.type, c.value);
    if (problem !== null) ctx.addIssue({ code: 'custom', path: ['value'], message: problem, input: c.value });
  })
  .transform((c) => ({ type: c.type, value: normaliseValue(c.type, c.value) }));

export const ruleRequestSchema = z.object({
  conditions: z
    .array(ruleConditionRequestSchema)
    .min(1, `must hold between 1 and ${MAX_RULE_CONDITIONS} conditions`)
    .max(MAX_RULE_CONDITIONS, `must hold between 1 and ${MAX_RULE_CONDITIONS} conditions`),
  url: z
    .string()
    .refine((s) => !hasControlCharacter(s) && isHttpUrl(s), URL_RULE)
    .meta({ minLength: 1, maxLength: MAX_URL_LENGTH }),
});

export const rulesRequestSchema = z.array(ruleRequestSchema).max(MAX_RULES, `must hold at most ${MAX_RULES} rules`);

/** A rule as stored (jsonb) and as the API returns it. */
export const ruleSpecSchema = z.object({
  conditions: z.array(z.object({ type: z.enum(RULE_CONDITION_TYPES), value: z.string() })),
  url: z.string(),
});
export type RuleSpec = z.infer<typeof ruleSpecSchema>;

/** Rules of a stored jsonb value; a rule that is not well-formed is skipped (as malformed deep links are). */
export function parseRules(value: unknown): RuleSpec[] {
  if (!Array.isArray(value)) return [];
  const out: RuleSpec[] = [];
  for (const item of value as unknown[]) {
    const parsed = ruleSpecSchema.safeParse(item);
    if (parsed.success) out.push(parsed.data);
  }
  return out;
}

/** What a compiled rule may ask about the visitor; each is computed at most once per request, and only when asked. */
export interface Visitor {
  /** Whether the visitor's device is of this class. */
  isDevice(device: DeviceClass): boolean;
  /** ISO country code, upper-case; null when unknown. */
  countryCode(): string | null;
  /** Primary tag of the most preferred language, lower-case; null when none. */
  language(): string | null;
  /** Whether the request's query has `name` (value null: with any value) or `name=value`. */
  hasQueryParam(name: string, value: string | null): boolean;
}

export interface CompiledRule {
  readonly index: number;
  /** The rule's URL with the link's UTM tags applied, as a safe absolute http(s) URL; null if it is none. */
  readonly destination: string | null;
}

/** What a compiled condition checks (its kind in the flat program). */
const DEVICE = 0;
const COUNTRY = 1;
const LANGUAGE = 2;
const QUERY = 3;
const AFTER = 4;
const BEFORE = 5;

/**
 * A link's rules, compiled into one flat program: per condition its kind, its text (device class,
 * country, language, query parameter name), the wanted query value and its instant, and per rule
 * where its conditions end. A redirect walks these few arrays instead of a closure and a context
 * per condition: with a thousand links of ten rules in the cache, the objects per condition cost
 * about 3 µs a click in cache misses (bench/README.md). Never serialised: a cache tier stores the
 * RuleSpecs and compiles again.
 */
export class CompiledRules {
  static readonly NONE = new CompiledRules([], false, [], [], [], [], []);

  constructor(
    readonly rules: readonly CompiledRule[],
    /** Some rule names a country: only then is the visitor's country looked up. */
    readonly needsCountry: boolean,
    private readonly ends: readonly number[],
    private readonly kinds: readonly number[],
    private readonly texts: readonly string[],
    private readonly wanted: readonly (string | null)[],
    private readonly times: readonly number[],
  ) {}

  /** The first rule that holds, or null. */
  match(visitor: Visitor, nowMs: number): CompiledRule | null {
    let c = 0;
    for (let r = 0; r < this.ends.length; r++) {
      const end = this.ends[r] as number;
      while (c < end && this.#holds(c, visitor, nowMs)) c++;
      if (c === end) return this.rules[r] as CompiledRule;
      c = end;
    }
    return null;
  }

  #holds(c: number, v: Visitor, nowMs: number): boolean {
    const text = this.texts[c] as string;
    switch (this.kinds[c]) {
      case DEVICE:
        return v.isDevice(text as DeviceClass);
      case COUNTRY:
        return v.countryCode() === text;
      case LANGUAGE:
        return v.language() === text;
      case QUERY:
        return v.hasQueryParam(text, this.wanted[c] as string | null);
      case AFTER:
        return nowMs >= (this.times[c] as number);
      default:
        return nowMs < (this.times[c] as number);
    }
  }

  toJSON(): undefined {
    return undefined;
  }
}

const KIND: Readonly<Record<RuleConditionType, number>> = {
  device: DEVICE,
  countryCode: COUNTRY,
  language: LANGUAGE,
  queryParam: QUERY,
  after: AFTER,
  before: BEFORE,
};

/** Compiles stored rules; `withUtm` applies the link's UTM tags to a rule's URL. */
export function compileRules(specs: readonly RuleSpec[], withUtm: (url: string) => string): CompiledRules {
  if (specs.length === 0) return CompiledRules.NONE;
  const ends: number[] = [];
  const kinds: number[] = [];
  const texts: string[] = [];
  const wanted: (string | null)[] = [];
  const times: number[] = [];
  const rules = specs.map((spec, index): CompiledRule => {
    for (const { type, value } of spec.conditions) {
      const eq = type === 'queryParam' ? value.indexOf('=') : -1;
      kinds.push(KIND[type]);
      texts.push(eq < 0 ? value : value.slice(0, eq));
      wanted.push(eq < 0 ? null : value.slice(eq + 1));
      times.push(type === 'after' || type === 'before' ? Date.parse(value) : 0);
    }
    ends.push(kinds.length);
    return { index, destination: safeWebUrl(withUtm(spec.url)) };
  });
  return new CompiledRules(rules, kinds.includes(COUNTRY), ends, kinds, texts, wanted, times);
}
