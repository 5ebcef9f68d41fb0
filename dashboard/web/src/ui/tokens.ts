// Invariant: script reads colours from the stylesheet's design tokens (styles.css, :root), never
// from literals of its own, so a canvas drawing matches the page.
export type Token = '--color-accent' | '--color-accent-wash' | '--color-chart-previous' | '--color-text';

/** The token's computed value (empty before the stylesheet has loaded). */
export function token(name: Token): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}
