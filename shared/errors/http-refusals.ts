// Invariant: a request node:http refuses before Fastify sees it (headers not complete in time,
// headers over the limit, a malformed request), on the API's server or the dashboard's, is
// answered with the JSON envelope, code VE001, with the HTTP status of the refusal (408, 431,
// 413, 400), unless an answer already began on the connection; the connection then closes
// lingering (shared/net/lingering-close.ts), so the client reads the answer instead of a reset.
import type { Socket } from 'node:net';
import { errorEnvelope } from './app-error.ts';
import { isLingering, lingeringClose } from '../net/lingering-close.ts';

interface Refusal {
  status: string;
  message: string;
}

/** The answer to each refusal of node:http's parser and timers; anything else is a malformed request. */
export const CLIENT_ERROR_ANSWERS: Readonly<Record<string, Refusal>> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: '408 Request Timeout', message: 'Request not received in time' },
  HPE_HEADER_OVERFLOW: { status: '431 Request Header Fields Too Large', message: 'Request header fields too large' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: '413 Payload Too Large', message: 'Chunk extensions too large' },
};
export const MALFORMED_REQUEST: Refusal = { status: '400 Bad Request', message: 'Malformed HTTP request' };

/** The raw HTTP answer to a refused request. */
export function clientErrorAnswer(code: string | undefined): string {
  const { status, message } = (code !== undefined ? CLIENT_ERROR_ANSWERS[code] : undefined) ?? MALFORMED_REQUEST;
  const body = JSON.stringify(errorEnvelope([{ code: 'VE001', message }]));
  return (
    `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nCache-Control: no-store\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/** Fastify's clientErrorHandler: the envelope instead of Fastify's own body, then a lingering close. */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed || isLingering(socket)) return;
  // Like node:http: no second answer into one that already began.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) socket.write(clientErrorAnswer(err.code));
  lingeringClose(socket);
}
