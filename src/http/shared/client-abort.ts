// Telling a client that went away from a server failure: both surfaces answer nothing and log no error for it.

import type { IncomingMessage } from 'node:http';
import { isAppError } from '../../core/errors.js';

/** A request whose client closed the connection before it was answered (Node reports 'aborted' / ECONNRESET). */
export function isClientAbort(req: IncomingMessage, err: unknown): boolean {
  if (isAppError(err)) return false;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return req.destroyed || code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || (err as Error | undefined)?.message === 'aborted';
}
