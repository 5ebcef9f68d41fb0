// Invariant: a port nobody holds on 127.0.0.1, below the kernel's ephemeral range (so no outgoing
// connection of this or another process takes it before the caller binds it), and not handed to
// any other caller on this machine in the last RESERVED_MS (a claim file in the temp folder), so
// parallel test processes never race for one port. The caller binds it next (embedded Postgres,
// test services).
import { closeSync, mkdirSync, openSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const LOWEST = 20_000;
const RESERVED_MS = 10 * 60_000;
const CLAIMS = join(tmpdir(), `shortlink-port-claims-${process.getuid?.() ?? 'user'}`);

function ephemeralStart(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > LOWEST + 1_000) return low;
  } catch {
    /* not Linux: the IANA dynamic range starts at 49152 */
  }
  return 49_152;
}

/** True when this caller now holds the port's claim (a new claim, or one older than RESERVED_MS). */
function claim(port: number): boolean {
  const file = join(CLAIMS, String(port));
  try {
    closeSync(openSync(file, 'wx'));
    return true;
  } catch {
    try {
      if (Date.now() - statSync(file).mtimeMs < RESERVED_MS) return false;
      const now = new Date();
      utimesSync(file, now, now);
      return true;
    } catch {
      return false;
    }
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  mkdirSync(CLAIMS, { recursive: true });
  const span = ephemeralStart() - LOWEST;
  for (let tries = 0; tries < 1_000; tries++) {
    const port = LOWEST + Math.floor(Math.random() * span);
    if (claim(port) && (await bindable(port))) return port;
  }
  throw new Error(`no free port found in ${LOWEST}-${LOWEST + span - 1}`);
}
