// Invariant: each hostile page is 512 KiB of one pathological HTML shape: the shapes that made
// the old regex preview parser quadratic (unclosed `<meta `, `<title>`), and their relatives.

const KIB = 1024;

export const HOSTILE_PAGES: Readonly<Record<string, string>> = {
  'unclosed <meta ': '<meta '.repeat((512 * KIB) / 6),
  'unclosed <title>': '<title>'.repeat((512 * KIB) / 7),
  'many <': '<'.repeat(512 * KIB),
  'unclosed attribute quote': `<html><head>${'<meta content="x'.repeat((512 * KIB) / 16)}`,
  'giant attribute': `<head><meta property="og:title" content="${'a'.repeat(512 * KIB)}`,
  'giant closed attribute': `<head><meta property="og:title" content="${'&amp;'.repeat((512 * KIB) / 5)}">`,
  'unclosed comment': `<head>${'<!--'.repeat((512 * KIB) / 4)}`,
  'unclosed script': `<head><script>${'</scrip'.repeat((512 * KIB) / 8)}`,
  'attribute soup': `<head><meta ${'a='.repeat((512 * KIB) / 2)}`,
  'entity soup': `<title>${'&#x'.repeat((512 * KIB) / 3)}</title>`,
};
