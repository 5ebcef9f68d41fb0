// Invariant: the redirector runs on a native uWebSockets.js build, never on a JavaScript fallback,
// and says which build it loaded. Two builds are installed: @btc-vision/uwebsockets.js 20.57
// (native for Node 20, 22, 24 and 25; needs glibc 2.38, so Debian 13 and newer) is taken where it
// loads; otherwise the @trufflesuite republish of 20.30 (native for Node ≤ 20 on older glibc),
// which falls back to a JS server silently, so it is accepted only when a uws_*.node shared object
// is loaded in this process and uWS.App is native code. UWS_USE_FALLBACK (uWS.js's own switch to
// its JS server) is honoured as asked, and so refused: it skips the newer build, which has none.
// Both builds serve the same API surface (the 20.30 typings describe both). The newer build reads
// its header-block bound (UWS_HTTP_MAX_HEADERS_SIZE, 4 KiB unset) when it loads: it is set to
// MAX_HEADER_BLOCK_BYTES unless the operator set it, so a request up to that size is read whole
// and answered by the redirector (431 with the envelope past MAX_HEADER_LENGTH), not cut off.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type uWS from 'uWebSockets.js';

type Uws = typeof uWS;
const require = createRequire(import.meta.url);
const NEWER = '@btc-vision/uwebsockets.js';
const OLDER = 'uWebSockets.js';
/** Header bytes of one request the newer build reads before it refuses the request itself. */
export const MAX_HEADER_BLOCK_BYTES = 128 * 1024;

export class UwsFallbackError extends Error {
  constructor(detail: string, newer: string) {
    super(
      `uWebSockets.js native binary is not loaded (${detail}); refusing to run on the JS fallback. ` +
        `Node ${process.versions.node} has ABI ${process.versions.modules}; ${newer}; the 20.30 build is native for Node 20 (ABI 115) and older.`,
    );
    this.name = 'UwsFallbackError';
  }
}

/** The loaded build: the module and one line saying which it is and why. */
export interface UwsBuild {
  uws: Uws;
  /** e.g. `uWebSockets.js 20.57.0 (@btc-vision/uwebsockets.js), native for Node 24.21.0 (ABI 137)`. */
  description: string;
}

let loaded: UwsBuild | null = null;

/** The installed version of `pkg` (read from its package.json, which its exports may not list). */
function version(pkg: string): string {
  const dir = (require.resolve.paths(pkg) ?? []).map((p) => join(p, pkg)).find((d) => existsSync(join(d, 'package.json')));
  return dir ? (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version : '?';
}

/** Why the newer build did not load, in a few words (its loader's message is long). */
function newerRefusal(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const glibc = /GLIBC_[0-9.]+/.exec(text);
  if (glibc) return `${NEWER} does not load here (${glibc[0]} not found)`;
  return `${NEWER} does not load here (${text.split('\n').find((l) => l.trim() !== '' && !l.startsWith('This version')) ?? text})`;
}

function loadOlder(why: string): UwsBuild {
  const uws = require(OLDER) as Uws;
  const appSource = Function.prototype.toString.call(uws.App);
  if (!appSource.includes('[native code]')) throw new UwsFallbackError('uWS.App is not native code', why);
  const report = process.report.getReport() as { sharedObjects?: string[] };
  if (!(report.sharedObjects ?? []).some((path) => /(^|\/)uws_[^/]*\.node$/.test(path))) {
    throw new UwsFallbackError('no uws_*.node among the loaded shared objects', why);
  }
  const v = version(OLDER).replace(/-unofficial.*$/, '');
  return {
    uws,
    description: `uWebSockets.js ${v} (@trufflesuite/uws-js-unofficial), native for Node ${process.versions.node} (ABI ${process.versions.modules}); ${why}`,
  };
}

/** The native uWS build for this runtime; throws UwsFallbackError when only a JS fallback would run. */
export function uwsBuild(): UwsBuild {
  if (loaded) return loaded;
  if (process.env.UWS_USE_FALLBACK) {
    loaded = loadOlder(`${NEWER} skipped: UWS_USE_FALLBACK asks for a JS server`);
    return loaded;
  }
  try {
    process.env.UWS_HTTP_MAX_HEADERS_SIZE ??= String(MAX_HEADER_BLOCK_BYTES);
    const uws = require(NEWER) as Uws;
    loaded = { uws, description: `uWebSockets.js ${version(NEWER)} (${NEWER}), native for Node ${process.versions.node} (ABI ${process.versions.modules})` };
  } catch (err) {
    loaded = loadOlder(newerRefusal(err));
  }
  return loaded;
}

export function nativeUws(): Uws {
  return uwsBuild().uws;
}
