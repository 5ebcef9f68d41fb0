// Invariant: an answer that closes its connection early (431) is written only once the body the
// request announced (Content-Length or Transfer-Encoding) was read and discarded, or LINGER_BYTES
// of it were, or LINGER_MS passed; then it ends and closes. uWS closes a connection the moment
// such an answer ends (it shuts down writing and closes at once), and a response that ended can
// no longer be read from or closed by us; so the lingering of shared/net/lingering-close.ts
// happens before the answer here: closed with the body still arriving, the kernel would answer
// the client with a TCP reset and the client would lose the answer. A request without a body was
// read whole with its headers and is answered at once. The bounds are total, so a client cannot
// hold the connection open (no slowloris).
import type uWS from 'uWebSockets.js';
import { LINGER_BYTES, LINGER_MS } from '../shared/net/lingering-close.ts';

/** Calls `answer` (which ends the response and closes) after the announced body is discarded, within the bounds; never once the client is gone. */
export function answerAfterBody(res: uWS.HttpResponse, req: uWS.HttpRequest, answer: () => void): void {
  const length = req.getHeader('content-length');
  if ((length === '' || length === '0') && req.getHeader('transfer-encoding') === '') {
    answer();
    return;
  }
  let settled = false;
  let discarded = 0;
  const finish = (): void => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    res.cork(answer);
  };
  const timer = setTimeout(finish, LINGER_MS);
  res.onAborted(() => {
    settled = true;
    clearTimeout(timer);
  });
  res.onData((chunk, isLast) => {
    discarded += chunk.byteLength;
    if (isLast || discarded > LINGER_BYTES) finish();
  });
}
