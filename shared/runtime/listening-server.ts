// Invariant: the small node:http servers a process runs beside its main listener (ingest's health
// check, every process's metrics) listen and stop one way: listen() resolves once the port is
// bound (or rejects with the listen error, e.g. EADDRINUSE), and close() stops accepting and drops
// open connections at once.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ListeningServer {
  port: number;
  close(): Promise<void>;
}

export async function listenOn(server: Server, port: number, host: string): Promise<ListeningServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
