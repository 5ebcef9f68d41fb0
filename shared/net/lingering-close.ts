// Invariant: a connection the server closes right after an answer, while the client may still be
// sending its request (headers over the limit, a body never read, a malformed request), closes
// the way nginx's lingering close does: the answer is flushed, writing is shut down (FIN), and
// what the client still sends is read and discarded until it closes its side, LINGER_BYTES were
// discarded or LINGER_MS passed; then the socket is destroyed. Destroyed with bytes unread, the
// kernel would answer with a TCP reset, and a reset makes the client drop the answer it had not
// read yet. Both bounds count from the answer and are never refreshed by traffic, so a lingering
// connection cannot be held open (no slowloris); lingering never answers or parses anything more.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** How long a closed answer's connection is drained at most. */
export const LINGER_MS = 2_000;
/** How many bytes a closed answer's connection discards at most. */
export const LINGER_BYTES = 1024 * 1024;

const lingering = new WeakSet<Socket>();

export interface LingerBounds {
  ms: number;
  bytes: number;
}

/** Shuts down writing after what was written, discards what arrives within the bounds, then destroys the socket. */
export function lingeringClose(socket: Socket, bounds: LingerBounds = { ms: LINGER_MS, bytes: LINGER_BYTES }): void {
  if (socket.destroyed || lingering.has(socket)) return;
  lingering.add(socket);
  // Whatever parsed this connection (node:http's parser) stops here: later bytes are only counted.
  socket.removeAllListeners('data');
  socket.removeAllListeners('end');
  socket.removeAllListeners('timeout');
  socket.setTimeout(0);
  // A reset while lingering changes nothing: the answer was written.
  socket.on('error', () => {});
  const close = (): void => {
    socket.destroy();
  };
  const timer = setTimeout(close, bounds.ms);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  let discarded = 0;
  socket.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > bounds.bytes) close();
  });
  socket.on('end', close);
  socket.end();
  socket.resume();
}

/** True while `socket` is lingering (its answer written, its input being discarded). */
export function isLingering(socket: Socket): boolean {
  return lingering.has(socket);
}

/**
 * Every connection of `server` that node:http closes after an answer (`Connection: close`, a body
 * left unread) lingers instead of being destroyed at once: node:http closes through destroySoon().
 */
export function lingerOnServerClose(server: Server): void {
  server.on('connection', (socket: Socket) => {
    socket.destroySoon = () => lingeringClose(socket);
  });
}
