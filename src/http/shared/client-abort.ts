// Telling a client that went away from a request that failed on the server's side: only the first has nobody to
// answer. (Node marks a request `destroyed` as soon as its body has been read to the end, so that flag alone says
// nothing about the client.)

import type { IncomingMessage } from 'node:http';
import { isAppError } from '../../core/errors.js';

/**
 * True when the client closed the connection before it was answered: the socket is gone (or already detached from the
 * request), or reading the body failed because the client stopped sending (Node's 'aborted' / ECONNRESET / premature
 * close, before the body was complete).
 * Any other failure, including one after the body was read (a full disk, a bug), must be answered with an error.
 */
export function isClientAbort(req: IncomingMessage, err: unknown): boolean {
  if (isAppError(err)) return false;
  // Node clears `req.socket` once the request is destroyed: a socket that is gone has nobody to answer either.
  const socket = req.socket as IncomingMessage['socket'] | null;
  if (socket === null || socket.destroyed) return true;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const aborted =
    code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || (err as Error | undefined)?.message === 'aborted';
  return aborted && !req.complete;
}
