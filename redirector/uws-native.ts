// Invariant: the redirector never serves on uWebSockets.js's JavaScript fallback. The package
// silently falls back when no native build matches the Node ABI; we accept the module only when
// a uws_*.node shared object is loaded in this process and uWS.App is native code.
import uWS from 'uWebSockets.js';

export class UwsFallbackError extends Error {
  constructor(detail: string) {
    super(
      `uWebSockets.js native binary is not loaded (${detail}); refusing to run on the JS fallback. ` +
        `Node ${process.versions.node} has ABI ${process.versions.modules}; the installed build is native for Node 20 (ABI 115).`,
    );
    this.name = 'UwsFallbackError';
  }
}

let checked = false;

export function nativeUws(): typeof uWS {
  if (checked) return uWS;
  const appSource = Function.prototype.toString.call(uWS.App);
  if (!appSource.includes('[native code]')) throw new UwsFallbackError('uWS.App is not native code');
  const report = process.report.getReport() as { sharedObjects?: string[] };
  const loaded = (report.sharedObjects ?? []).some((path) => /(^|\/)uws_[^/]*\.node$/.test(path));
  if (!loaded) throw new UwsFallbackError('no uws_*.node among the loaded shared objects');
  checked = true;
  return uWS;
}
