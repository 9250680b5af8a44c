// Lingering close (nginx's lingering_close, Go's rstAvoidanceDelay): an answer sent before the request's body was
// read, as an early error on an upload, goes out with `Connection: close`. Node then closes the socket as soon as the
// answer is written; body bytes still arriving at a closed socket make the kernel reset the connection, and the reset
// can reach the client before it has read the answer: it sees "socket hang up" or EPIPE instead of the error. So after
// such an answer the socket's write side is closed (FIN) and the rest of the body is read and discarded; the socket is
// closed when the client closes its side, after LINGER_IDLE_MS without a byte, or after LINGER_MS at most.

import type { Socket } from 'node:net';

/** The longest a socket lingers after its answer. */
export const LINGER_MS = 5_000;
/** A lingering socket that receives nothing for this long is closed. */
export const LINGER_IDLE_MS = 1_000;

const lingering = new WeakSet<Socket>();

/**
 * Makes the close that follows this socket's current answer a lingering one. Call before ending a `Connection: close`
 * answer to a request whose body was not read. Node's HTTP server ends such a connection with `socket.destroySoon()`
 * (Node 20 and 24): that call is replaced for this socket.
 */
export function lingerAfterAnswer(socket: Socket | null, timing: { lingerMs?: number; idleMs?: number } = {}): void {
  // A request whose socket is gone (closed, or already detached after an answer) has nothing to linger on.
  if (socket === null || socket.destroyed || lingering.has(socket)) return;
  lingering.add(socket);
  socket.destroySoon = function lingeringClose(): void {
    let lastRead = socket.bytesRead;
    const stopTimers = (): void => {
      clearTimeout(deadline);
      clearInterval(idle);
    };
    const close = (): void => {
      stopTimers();
      socket.destroy();
    };
    const deadline = setTimeout(close, timing.lingerMs ?? LINGER_MS);
    const idle = setInterval(() => {
      if (socket.bytesRead === lastRead) close();
      lastRead = socket.bytesRead;
    }, timing.idleMs ?? LINGER_IDLE_MS);
    socket.once('end', close);
    socket.once('close', stopTimers);
    // The HTTP parser still reads the unread body and discards it (Node dumps a request nobody consumed).
    socket.resume();
    socket.end();
  };
}

/**
 * Whether the socket is lingering after its last answer. A request parsed from what follows on it (a pipelined one)
 * must not run: the answer said the connection is closing, and nothing more can be answered on it.
 */
export function isLingering(socket: Socket): boolean {
  return lingering.has(socket);
}
