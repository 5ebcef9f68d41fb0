// Invariant: the admin command line does what the spec calls dashboard-only, against the same
// DATA_DIR / DATABASE_URL as the server (attaching to a running embedded cluster). It needs no
// bus: every change queues its invalidation in the outbox in its own transaction, and the
// running servers' relays publish it. Its commands live in one table (admin-commands.ts); help
// (`--help`, `<group> --help`, `<command> --help`) prints on stdout and exits 0 without opening
// a backend. With --json a command prints exactly one JSON object on stdout; any error exits
// non-zero with its message on stderr (usage errors: exit 2, with the usage).
import { parseArgs } from 'node:util';
import { commonSchema, dashboardPublicUrl, loadConfigOrExit } from '../shared/config/config.ts';
import { AppError, AppErrorList } from '../shared/errors/app-error.ts';
import { linkServiceDeps } from '../shared/links/save-link.ts';
import { openBackends, type Backends } from '../shared/runtime/open-backends.ts';
import { lockDataDir, type DataDirLock } from '../shared/runtime/data-dir-lock.ts';
import { ADMIN_COMMANDS, type AdminCommand } from './admin-commands.ts';
import { checkOptions, commandHelp, overview, parserOptions, resolveCommand, UsageError, type Values } from './command-table.ts';

const INVOCATION = 'npm run -s admin --';

function fail(message: string, usage: string): never {
  process.stderr.write(`${message}\n\n${usage}\n`);
  process.exit(2);
}

let parsed: { values: Values; positionals: string[] };
try {
  parsed = parseArgs({ args: process.argv.slice(2), options: parserOptions(ADMIN_COMMANDS), allowPositionals: true, strict: true }) as {
    values: Values;
    positionals: string[];
  };
} catch (err) {
  fail((err as Error).message, overview(INVOCATION, ADMIN_COMMANDS));
}
const { values, positionals } = parsed;
const help = values.help === true || positionals[0] === 'help';
const resolved = resolveCommand(ADMIN_COMMANDS, positionals[0] === 'help' ? positionals.slice(1) : positionals);

if (resolved.kind === 'unknown') fail(`unknown command '${resolved.words}'`, overview(INVOCATION, ADMIN_COMMANDS));
if (resolved.kind !== 'command') {
  const group = resolved.kind === 'group' ? resolved.group : undefined;
  const usage = overview(INVOCATION, ADMIN_COMMANDS, group);
  if (help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  fail(group === undefined ? 'a command is required' : `'${group}' needs a subcommand`, usage);
}
const command: AdminCommand = resolved.command;
if (help) {
  process.stdout.write(`${commandHelp(INVOCATION, command)}\n`);
  process.exit(0);
}
try {
  checkOptions(command, values);
} catch (err) {
  fail((err as Error).message, commandHelp(INVOCATION, command));
}

const config = loadConfigOrExit(commonSchema);
let backends: Backends | null = null;
let dataDirLock: DataDirLock | null = null;
let exitCode = 0;
try {
  backends = await openBackends(config);
  const opened = backends;
  const result = await command.run(
    {
      sql: backends.db.sql,
      links: linkServiceDeps(backends.db.sql, config, { linkClicks: backends.linkClicks }),
      dashboardUrl: dashboardPublicUrl(config),
      webhooks: { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE, secretsKey: config.WEBHOOK_SECRETS_KEY },
      analytics: async () => {
        // The embedded analytics store belongs to one process: not while `npm start` runs on DATA_DIR.
        if (opened.analyticsEmbedded) dataDirLock ??= lockDataDir(config.DATA_DIR);
        const { store } = await opened.analytics();
        await store.rollupBackfill;
        return store;
      },
      retention: config,
      now: Date.now,
    },
    values,
  );
  process.stdout.write(values.json ? `${JSON.stringify(result.json)}\n` : `${result.text}\n`);
} catch (err) {
  exitCode = err instanceof UsageError ? 2 : 1;
  const message =
    err instanceof UsageError
      ? `${err.message}\n\n${commandHelp(INVOCATION, command)}`
      : err instanceof AppError
        ? `${err.code}: ${err.message}`
        : err instanceof AppErrorList
          ? err.errors.map((e) => `${e.code}: ${e.message}`).join('\n')
          : `error: ${(err as Error).message}`;
  process.stderr.write(`${message}\n`);
} finally {
  await backends?.close();
  (dataDirLock as DataDirLock | null)?.release();
}
process.exit(exitCode);
