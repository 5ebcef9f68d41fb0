// Invariant: browser tests drive Debian's Chromium (/usr/bin/chromium, or CHROMIUM_PATH) through
// playwright-core, headless, as root with --no-sandbox. Pages are found by role and label, as a
// person finds them. Accessibility is checked with axe-core evaluated in the page (the dashboard's
// CSP refuses the inline script page.addScriptTag would add); serious and critical violations
// fail. Without Chromium the suites skip with a message, except under CI, where they fail.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

const require = createRequire(import.meta.url);
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
const ROOT = join(import.meta.dirname, '..', '..');

if (!hasChromium) {
  if (process.env.CI === 'true') throw new Error(`browser tests need Chromium at ${CHROMIUM} (.ci/run installs the chromium package)`);
  process.stderr.write(`browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)\n`);
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run', '--no-default-browser-check'],
  });
}

export async function newPage(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
  const page = await context.newPage();
  // A step that waits longer than this has failed; say which locator instead of the test's timeout.
  page.setDefaultTimeout(10_000);
  return { context, page };
}

let axeSource: string | null = null;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** Serious and critical axe-core violations of the page as it is now (an empty list passes). */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const found = await page.evaluate(async () => {
    const w = window as unknown as {
      axe: { run(): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] }> };
    };
    const r = await w.axe.run();
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => JSON.stringify(n.target)) }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Signs in through the sign-in page; with `totp`, also gives the code it returns. */
export async function signIn(page: Page, base: string, email: string, password: string, totp?: () => string): Promise<void> {
  await page.goto(`${base}/sign-in`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  if (totp) {
    await page.getByLabel(/Code from your authenticator app/).fill(totp());
    await page.getByRole('button', { name: 'Continue' }).click();
  }
  await page.getByRole('heading', { level: 1, name: 'Links' }).waitFor();
}

/**
 * Saves a PNG of the page as .tmp/screenshots/<name>, and as docs/images/<name> (the README's
 * pictures) when UPDATE_SCREENSHOTS=1, so an ordinary test run leaves the tracked files alone.
 */
export async function screenshot(page: Page, name: string): Promise<string> {
  const files = [join(ROOT, '.tmp', 'screenshots', name), ...(process.env.UPDATE_SCREENSHOTS === '1' ? [join(ROOT, 'docs', 'images', name)] : [])];
  for (const file of files) {
    mkdirSync(dirname(file), { recursive: true });
    await page.screenshot({ path: file, fullPage: false });
  }
  return files[0] ?? '';
}
