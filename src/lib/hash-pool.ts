// MD5 on worker threads, for large bodies: the ETag's MD5 costs more CPU than the AES-GCM that encrypts the same
// bytes, so it runs beside the event loop instead of on it (docs/performance.md, "MD5 off the event loop").
// Bytes go to the thread in 1 MiB batches by transfer, never by copy, and come back for reuse by the next hasher
// too; hashing allocates nothing, so a thread's memory stays flat and a stream of uploads (multipart parts) leaves
// no batches behind for the garbage collector. Each hasher is pinned to one thread, which sees its batches in order.

import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { Md5Reply as Reply, Md5Request } from './md5-thread.js';
import { startThread } from './start-thread.js';

/** A running MD5: feed it chunks in order, then ask for the digest once. */
export interface AsyncHasher {
  /** Copies the chunk (the caller may reuse it); resolves when the hasher can take more. */
  update(chunk: Buffer): Promise<void>;
  /** The digest of everything fed so far. Call once; the hasher is done afterwards. */
  digest(): Promise<Buffer>;
  /** Ends the hasher without a digest (the body failed). Idempotent. */
  discard(): void;
}

/** Bytes per message to a thread: large enough that messaging costs nothing, small enough to bound memory. */
const BATCH_BYTES = 1024 * 1024;
/** Batches one hasher may have at its thread at once: the thread hashes one while the next fills. */
const MAX_IN_FLIGHT = 2;
/** Idle batches the pool keeps for the next hashers: enough for a few concurrent uploads, at most 8 MiB at rest. */
const MAX_IDLE_BATCHES = 8;

/** The batches no hasher holds now. Freshly allocated (uninitialised) when none is idle. */
class BatchShelf {
  private readonly idle: Buffer[] = [];

  take(): Buffer {
    return this.idle.pop() ?? Buffer.allocUnsafeSlow(BATCH_BYTES);
  }

  give(batch: Buffer): void {
    if (this.idle.length < MAX_IDLE_BATCHES) this.idle.push(batch);
  }

  /** Batches kept for reuse now. */
  get size(): number {
    return this.idle.length;
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** One thread, started on first use. A thread that dies fails what it was doing; the next use starts a new one. */
class HashThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  private nextId = 1;

  call(message: DistributiveOmit<Md5Request, 'id'>): Promise<Reply> {
    const worker = this.live();
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      // Referenced only while it has work, so an idle pool never keeps the process alive.
      if (this.pending.size === 0) worker.ref();
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ ...message, id } satisfies Md5Request, message.op === 'update' ? [message.bytes] : []);
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private live(): Worker {
    if (this.worker) return this.worker;
    const worker = startThread(new URL('./md5-thread.js', import.meta.url));
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const waiter = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      waiter?.resolve(reply);
    });
    const fail = (err: Error): void => {
      if (this.worker === worker) this.worker = undefined;
      for (const waiter of this.pending.values()) waiter.reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('hash thread exited')));
    this.worker = worker;
    return worker;
  }
}

export class HashPool {
  private readonly threads: HashThread[];
  private readonly shelf = new BatchShelf();
  private nextSession = 1;

  /** `threads` defaults to one per core beside the event loop's, between 1 and 4 (each costs about 11 MiB). */
  constructor(threads = Math.min(4, Math.max(1, availableParallelism() - 1))) {
    this.threads = Array.from({ length: threads }, () => new HashThread());
  }

  /** A new MD5, hashed on one of the pool's threads. */
  md5(): AsyncHasher {
    const session = this.nextSession++;
    return new PooledMd5(this.threads[session % this.threads.length] as HashThread, session, this.shelf);
  }

  /** Batches kept for the next hashers (at most 8). */
  get idleBatches(): number {
    return this.shelf.size;
  }

  /** Stops the threads; a later md5() starts them again. */
  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.close()));
  }
}

class PooledMd5 implements AsyncHasher {
  /** The batch being filled: taken from the shelf on the first byte. */
  private batch: Buffer | undefined;
  private length = 0;
  private readonly inFlight: Promise<void>[] = [];
  private done = false;

  constructor(
    private readonly thread: HashThread,
    private readonly session: number,
    private readonly shelf: BatchShelf,
  ) {}

  async update(chunk: Buffer): Promise<void> {
    let offset = 0;
    while (offset < chunk.length) {
      const batch = (this.batch ??= this.shelf.take());
      const n = chunk.copy(batch, this.length, offset);
      this.length += n;
      offset += n;
      if (this.length === BATCH_BYTES) await this.send();
    }
  }

  async digest(): Promise<Buffer> {
    if (this.length > 0) await this.send();
    await Promise.all(this.inFlight.splice(0));
    this.end();
    const reply = await this.thread.call({ op: 'digest', session: this.session });
    const md5 = reply.md5 as Uint8Array;
    return Buffer.from(md5.buffer, md5.byteOffset, md5.byteLength);
  }

  discard(): void {
    if (this.done) return;
    this.end();
    this.thread.call({ op: 'discard', session: this.session }).catch(() => undefined);
  }

  /** No more updates: the batch being filled goes back to the shelf (those in flight go back as they return). */
  private end(): void {
    this.done = true;
    if (this.batch) this.shelf.give(this.batch);
    this.batch = undefined;
  }

  private async send(): Promise<void> {
    const batch = this.batch as Buffer;
    const length = this.length;
    this.batch = undefined;
    this.length = 0;
    const bytes = batch.buffer as ArrayBuffer;
    const sent = this.thread.call({ op: 'update', session: this.session, bytes, length }).then((reply) => {
      this.shelf.give(Buffer.from(reply.bytes as ArrayBuffer));
    });
    sent.catch(() => undefined); // observed below or by digest(); never an unhandled rejection
    this.inFlight.push(sent);
    if (this.inFlight.length >= MAX_IN_FLIGHT) await this.inFlight.shift();
  }
}

/** The same contract on the calling thread (small bodies, tests, tools). */
export function localMd5(): AsyncHasher {
  const hash = createHash('md5');
  return {
    update: (chunk) => {
      hash.update(chunk);
      return Promise.resolve();
    },
    digest: () => Promise.resolve(hash.digest()),
    discard: () => undefined,
  };
}
