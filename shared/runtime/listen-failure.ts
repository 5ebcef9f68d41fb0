// Invariant: a listener that cannot open stops the process with one line naming the setting
// that moves it (`API_PORT 3000 is in use; set API_PORT`), whichever server library failed.
import { createServer } from 'node:net';
import { SetupError } from './startup.ts';

export interface ListenSettings {
  portSetting: string;
  hostSetting: string;
  port: number;
  host: string;
}

/** The SetupError for a listen error `code` (EADDRINUSE, EACCES, …) of the listener `s`. */
export function listenError(s: ListenSettings, code: string | undefined): SetupError {
  switch (code) {
    case 'EADDRINUSE':
      return new SetupError(`${s.portSetting} ${s.port} is in use; set ${s.portSetting}`);
    case 'EACCES':
      return new SetupError(`${s.portSetting} ${s.port} needs privileges this process lacks; set ${s.portSetting} (above 1023)`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new SetupError(`${s.hostSetting} ${s.host} is not an address of this machine; set ${s.hostSetting}`);
    default:
      return new SetupError(`cannot listen on ${s.host}:${s.port}${code ? ` (${code})` : ''}; set ${s.portSetting} or ${s.hostSetting}`);
  }
}

/** Tries the address with node:net (no SO_REUSEPORT, so a port held by anyone is refused): the error code, or null when it could listen. */
function tryListen(s: ListenSettings): Promise<string | null> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'unknown'));
    probe.listen({ port: s.port, host: s.host, exclusive: true }, () => probe.close(() => resolve(null)));
  });
}

/** The SetupError a listener on `s` would meet now; null when the address is free (or the port is 0). */
export async function listenProblem(s: ListenSettings): Promise<SetupError | null> {
  if (s.port === 0) return null;
  const code = await tryListen(s);
  return code === null ? null : listenError(s, code);
}

/** For a server library that reports no reason (uWS): names what node:net meets on the same address. */
export async function probeListenError(s: ListenSettings): Promise<SetupError> {
  return listenError(s, (await tryListen(s)) ?? undefined);
}
