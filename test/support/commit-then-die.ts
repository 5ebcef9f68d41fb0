// Invariant: TEST-ONLY writer process. It commits one change through the product's own
// repository (which queues the change's invalidation in the same transaction) and kills itself
// with SIGKILL the moment the commit returns, before anything else can run: a writer that
// crashes between its commit and any publish it might have done.
// Usage: node --import tsx test/support/commit-then-die.ts <DATABASE_URL> <orgId> <PLAN>
import { connect } from '../../shared/db/database.ts';
import { setPlan } from '../../shared/orgs/org-repository.ts';
import { isPlan } from '../../shared/orgs/plans.ts';

const [url, orgId, plan] = process.argv.slice(2);
if (!url || !orgId || !plan || !isPlan(plan)) {
  process.stderr.write('usage: commit-then-die.ts <DATABASE_URL> <orgId> <PLAN>\n');
  process.exit(2);
}
const sql = connect(url, 1);
await setPlan(sql, orgId, plan);
process.kill(process.pid, 'SIGKILL');
