// Answers on one connection go out in the order their requests came (RFC 9112 9.3.2): bytes Node cannot parse that
// follow a request still being answered (garbage pipelined after a PUT, or a body longer than its Content-Length)
// must not be answered first, or the client reads that error as the answer to its PUT. Such a connection is closed
// once the answers in progress are sent; the unparsable request itself gets none (there is no order to put it in).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

const answering = new WeakMap<Duplex, { count: number; latest: IncomingMessage }>();
const closeWhenAnswered = new WeakSet<Duplex>();

/** Counts `res` (the answer to `req`) as in progress on `req`'s socket until it closes. */
export function trackAnswer(req: IncomingMessage, res: ServerResponse): void {
  const socket = req.socket;
  const state = answering.get(socket);
  answering.set(socket, { count: (state?.count ?? 0) + 1, latest: req });
  res.once('close', () => {
    const now = answering.get(socket);
    if (now === undefined) return;
    now.count -= 1;
    // destroySoon: after what is written has been flushed (a lingering close replaces it: lingering-close.ts).
    if (now.count === 0 && closeWhenAnswered.has(socket)) socket.destroySoon();
  });
}

/**
 * For bytes that could not be parsed: true when they follow a request whose body has arrived whole and which is still
 * being answered; the socket then closes once that answer is sent, and the caller must not write. False otherwise
 * (nothing in progress, or the failure is the request in progress's own broken or cut body): answer or close now.
 */
export function deferUnparsed(socket: Duplex): boolean {
  const state = answering.get(socket);
  if (state === undefined || state.count === 0 || !state.latest.complete) return false;
  closeWhenAnswered.add(socket);
  return true;
}
