// The capability folders of shared/ are layers: no folder reaches itself through the folders
// its product modules import (test modules are left out: a contract suite may use test support).
// Run by test/architecture.test.ts beside .dependency-cruiser.cjs.
const base = require('./.dependency-cruiser.cjs');

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular-capabilities',
      comment: 'A capability folder of shared/ never depends on itself through another one; a helper two of them need moves down.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^shared/[^/]+$' },
      to: { path: '^shared/[^/]+$', circular: true },
    },
  ],
  options: { ...base.options, exclude: { path: `${base.options.exclude.path}|(\\.test\\.ts|\\.contract\\.ts)$|^test/` } },
};
