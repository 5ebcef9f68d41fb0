// Invariant: a command line is described once, as a table of commands with their options, and
// everything else is derived from that table: the parser's option list, the check that a command
// gets only its own options and all of its required ones, and every help text (the overview, one
// group's, one command's). Nothing here touches a backend.

export interface OptionSpec {
  /** The long name, without `--`. */
  name: string;
  /** The value's placeholder (e.g. `ID`); absent: a flag that takes no value. */
  value?: string;
  required?: boolean;
  help: string;
}

export interface CommandSpec {
  /** One or two words, e.g. `org create`, `usage`. */
  name: string;
  summary: string;
  options: readonly OptionSpec[];
}

export type Values = Record<string, string | boolean | undefined>;

/** A mistake in how the command line was written (exit 2, with usage). */
export class UsageError extends Error {}

/** Options every command accepts. */
export const GLOBAL_OPTIONS: readonly OptionSpec[] = [
  { name: 'json', help: 'print exactly one JSON object on stdout' },
  { name: 'help', help: 'print this help and exit' },
];

type ParseOption = { type: 'string' | 'boolean'; short?: string };

/** The option list for node:util parseArgs: the union of every command's options. */
export function parserOptions(commands: readonly CommandSpec[]): Record<string, ParseOption> {
  const out: Record<string, ParseOption> = { help: { type: 'boolean', short: 'h' }, json: { type: 'boolean' } };
  for (const c of commands) for (const o of c.options) out[o.name] = { type: o.value === undefined ? 'boolean' : 'string' };
  return out;
}

/** Throws a UsageError for an option the command does not take, or a required one missing. */
export function checkOptions(command: CommandSpec, values: Values): void {
  const allowed = new Set([...GLOBAL_OPTIONS, ...command.options].map((o) => o.name));
  for (const [name, v] of Object.entries(values)) {
    if (v !== undefined && !allowed.has(name)) throw new UsageError(`--${name} does not apply to '${command.name}'`);
  }
  for (const o of command.options) {
    const v = values[o.name];
    if (o.required && (typeof v !== 'string' || v.trim() === '')) throw new UsageError(`--${o.name} is required`);
  }
}

const synopsisOf = (o: OptionSpec): string => {
  const text = o.value === undefined ? `--${o.name}` : `--${o.name} ${o.value}`;
  return o.required ? text : `[${text}]`;
};

/** One line: the command and its options, e.g. `org suspend --org ID`. */
export function synopsis(command: CommandSpec): string {
  return [command.name, ...command.options.map(synopsisOf)].join(' ');
}

/** The overview: every command (or those of one group) with its synopsis and summary. */
export function overview(invocation: string, commands: readonly CommandSpec[], group?: string): string {
  const shown = group === undefined ? commands : commands.filter((c) => c.name.split(' ')[0] === group);
  const lines = [`usage: ${invocation} <command> [options] [--json]`, '', 'commands:'];
  for (const c of shown) lines.push(`  ${synopsis(c)}`, `      ${c.summary}`);
  lines.push('', `'${invocation} <command> --help' describes one command's options.`);
  return lines.join('\n');
}

/** One command's help: synopsis, summary, and every option (its own, then the global ones). */
export function commandHelp(invocation: string, command: CommandSpec): string {
  const all = [...command.options, ...GLOBAL_OPTIONS];
  const labels = all.map((o) => (o.value === undefined ? `--${o.name}` : `--${o.name} ${o.value}`));
  const width = Math.max(...labels.map((l) => l.length));
  const lines = [`usage: ${invocation} ${synopsis(command)} [--json]`, '', command.summary, '', 'options:'];
  for (const [i, o] of all.entries()) lines.push(`  ${(labels[i] ?? '').padEnd(width)}  ${o.help}${o.required ? ' (required)' : ''}`);
  return lines.join('\n');
}

export type Resolution<C extends CommandSpec> =
  | { kind: 'command'; command: C }
  | { kind: 'group'; group: string }
  | { kind: 'none' }
  | { kind: 'unknown'; words: string };

/** Which command the positional words name: a command, a group's first word alone, or nothing. */
export function resolveCommand<C extends CommandSpec>(commands: readonly C[], words: readonly string[]): Resolution<C> {
  if (words.length === 0) return { kind: 'none' };
  const joined = words.join(' ');
  const command = commands.find((c) => c.name === joined);
  if (command) return { kind: 'command', command };
  if (words.length === 1 && commands.some((c) => c.name.split(' ')[0] === words[0])) return { kind: 'group', group: words[0] ?? '' };
  return { kind: 'unknown', words: joined };
}
