// Reading a request's body without owning its connection: a reader that stops early (a full disk, a body over its
// limit, a bad digest) must leave the socket alone, because the error answer still has to go out on it.

import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { lingerAfterAnswer } from './lingering-close.js';

/**
 * The body's bytes as an async iterable that does not destroy the request when its reader stops early. A plain
 * `for await` over a request destroys it on an early exit, and with it the socket: Node then clears `req.socket`, the
 * error answer (507 for a full disk) is never sent, and the client sees a reset. A failure of the request itself (the
 * client went away) still reaches the reader.
 */
export function requestBytes(body: IncomingMessage | Readable): AsyncIterable<Buffer> {
  return { [Symbol.asyncIterator]: () => body.iterator({ destroyOnReturn: false }) as AsyncIterator<Buffer> };
}

/**
 * Before an answer to a request whose body was not read to the end (an early error on an upload): the answer closes
 * the connection, the socket lingers so the client reads the answer instead of a reset (lingering-close.ts), and the
 * rest of the body flows into the void. Returns true when the body was unread (the caller adds `Connection: close`).
 */
export function endUnreadBody(req: IncomingMessage): boolean {
  if (req.complete) return false;
  lingerAfterAnswer(req.socket as IncomingMessage['socket'] | null);
  // A reader that stopped early left the request paused with bytes in its buffer, or piped into a decoder nobody
  // reads: they are discarded from here on.
  req.unpipe();
  req.resume();
  return true;
}
