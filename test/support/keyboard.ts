// Invariant: keyboard helpers of the browser tests. `tabTo` presses Tab until focus is on the
// element with a given accessible text; `tabCycle` marks every visible, enabled control of the
// page once their number has settled (a page may still be rendering what it fetched) and presses
// Tab through one full cycle, answering the marks focus never reached and those focused without a
// visible outline. `slack` is the Tab presses allowed past one per control (a date-time input
// takes one per part).
import type { Page } from 'playwright-core';

/** What counts as a control: what Tab should reach. */
const CONTROLS = 'a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), select:not([disabled]), textarea:not([disabled])';

/** Presses Tab until the focused element has this accessible text; fails after `max` presses. */
export async function tabTo(p: Page, text: string, max = 60): Promise<void> {
  for (let i = 0; i < max; i++) {
    await p.keyboard.press('Tab');
    const name = await p.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      return el ? (el.getAttribute('aria-label') ?? el.textContent ?? '').trim() : '';
    });
    if (name === text) return;
  }
  throw new Error(`no element named ${text} within ${max} presses of Tab`);
}

/**
 * Marks every visible, enabled control of the page, then presses Tab through one full cycle and
 * answers the marks focus never reached and those focused without a visible outline.
 */
export async function tabCycle(p: Page, slack = 8): Promise<{ total: number; unreached: string[]; noOutline: string[] }> {
  await settledControls(p);
  const total = await p.evaluate((selector) => {
    // Marks of an earlier cycle on the same document (a page reached without a reload) go first.
    for (const el of document.querySelectorAll<HTMLElement>('[data-kbd]')) delete el.dataset.kbd;
    let n = 0;
    for (const el of document.querySelectorAll<HTMLElement>(selector)) {
      if (el.getClientRects().length === 0 || getComputedStyle(el).visibility === 'hidden' || el.closest('.skip')) continue;
      el.dataset.kbd = `${n++}:${el.tagName.toLowerCase()} ${(el.getAttribute('aria-label') ?? el.textContent ?? el.getAttribute('name') ?? '').trim().slice(0, 40)}`;
    }
    return n;
  }, CONTROLS);
  const reached = new Set<string>();
  const noOutline = new Set<string>();
  for (let i = 0; i < total + slack; i++) {
    await p.keyboard.press('Tab');
    const seen = await p.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el?.dataset.kbd) return null;
      const style = getComputedStyle(el);
      return { mark: el.dataset.kbd, outlined: style.outlineStyle !== 'none' && Number.parseFloat(style.outlineWidth) > 0 };
    });
    if (!seen) continue;
    reached.add(seen.mark);
    if (!seen.outlined) noOutline.add(seen.mark);
  }
  const all = await p.evaluate(() => [...document.querySelectorAll<HTMLElement>('[data-kbd]')].map((el) => el.dataset.kbd ?? ''));
  return { total, unreached: all.filter((m) => !reached.has(m)), noOutline: [...noOutline] };
}

/**
 * Waits until the page shows no "Loading…" status and its controls stop changing in number (the
 * same count 3 times, 100 ms apart; at most 10 s): controls a page renders once its data arrives
 * would otherwise take Tab presses without being counted in the cycle.
 */
async function settledControls(p: Page): Promise<void> {
  let last = -1;
  let same = 0;
  for (let i = 0; i < 100 && same < 3; i++) {
    const n = await p.evaluate(
      (selector) =>
        [...document.querySelectorAll('[role=status]')].some((el) => el.textContent?.startsWith('Loading')) ? -1 : document.querySelectorAll(selector).length,
      CONTROLS,
    );
    same = n >= 0 && n === last ? same + 1 : 0;
    last = n;
    if (same < 3) await p.waitForTimeout(100);
  }
}
