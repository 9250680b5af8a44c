// The MD5 pool's thread (hash-pool.ts starts it): one MD5 per hashing session, fed batches in order. Each batch comes
// by transfer and goes back the same way for reuse, so hashing allocates nothing and the thread's memory stays flat.
//   main -> thread  { op: 'update', id, session, bytes, length } | { op: 'digest' | 'discard', id, session }
//   thread -> main  { id, bytes } after an update | { id, md5? } after a digest (md5) or a discard

import { createHash, type Hash } from 'node:crypto';
import { parentPort } from 'node:worker_threads';

/** A message to the thread. */
export type Md5Request =
  | { op: 'update'; id: number; session: number; bytes: ArrayBuffer; length: number }
  | { op: 'digest' | 'discard'; id: number; session: number };

/** The thread's answer to one request, by id. */
export interface Md5Reply {
  id: number;
  bytes?: ArrayBuffer;
  md5?: Uint8Array;
}

const port = parentPort;
if (port === null) throw new Error('md5-thread.js runs as a worker thread only');
const hashes = new Map<number, Hash>();

port.on('message', (m: Md5Request) => {
  if (m.op === 'update') {
    let hash = hashes.get(m.session);
    if (hash === undefined) hashes.set(m.session, (hash = createHash('md5')));
    hash.update(new Uint8Array(m.bytes, 0, m.length));
    port.postMessage({ id: m.id, bytes: m.bytes } satisfies Md5Reply, [m.bytes]);
    return;
  }
  const hash = hashes.get(m.session);
  hashes.delete(m.session);
  const md5 = m.op === 'digest' ? (hash ?? createHash('md5')).digest() : undefined;
  port.postMessage({ id: m.id, ...(md5 === undefined ? {} : { md5 }) } satisfies Md5Reply);
});
