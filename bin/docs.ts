// Invariant: regenerates the README's generated sections from their single sources (the error
// catalog); running it twice changes nothing.
import { readFileSync, writeFileSync } from 'node:fs';
import { withErrorTable } from '../shared/errors/error-table-markdown.ts';

const path = new URL('../README.md', import.meta.url);
const before = readFileSync(path, 'utf8');
const after = withErrorTable(before);
if (after !== before) writeFileSync(path, after);
process.stdout.write(after === before ? 'README.md up to date\n' : 'README.md error table regenerated\n');
