// Invariant: the first start of an empty installation creates exactly one demo organisation
// (BUSINESS, so every feature can be tried) with one API key, and returns the key once; later
// starts find the demo organisation and return null (the key cannot be shown again).
import type { Sql } from '../db/database.ts';
import { createOrganization, findDemoOrganization } from '../orgs/org-repository.ts';
import { createApiKey } from './key-repository.ts';

export interface DemoCredentials {
  orgId: string;
  key: string;
}

export async function ensureDemoOrganization(sql: Sql): Promise<DemoCredentials | null> {
  const [{ n } = { n: 0 }] = await sql<{ n: number }[]>`select count(*)::int as n from organizations`;
  if (n > 0 || (await findDemoOrganization(sql))) return null;
  const org = await createOrganization(sql, { name: 'Demo organisation', plan: 'BUSINESS', isDemo: true });
  const { key } = await createApiKey(sql, org.id, 'demo');
  return { orgId: org.id, key };
}
