// Invariant: `shortlink healthcheck URL` (the image's healthcheck: it has no curl or wget) exits 0
// when URL answers 2xx within two seconds and 1 otherwise, saying why on stderr. It reads no
// configuration: the compose file names the URL.
const TIMEOUT_MS = 2_000;

const url = process.argv[2];
if (!url || process.argv.length > 3) {
  process.stderr.write('usage: healthcheck http://127.0.0.1:PORT/healthz\n');
  process.exit(2);
}
try {
  const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  await res.body?.cancel();
  if (!res.ok) {
    process.stderr.write(`${url}: HTTP ${res.status}\n`);
    process.exit(1);
  }
} catch (err) {
  process.stderr.write(`${url}: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
