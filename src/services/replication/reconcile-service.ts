// Reconcile (POST /api/admin/replication/reconcile): a job that walks each local bucket's current objects and the
// remote's `<bucket>/` keys side by side, one page of each at a time (memory bounded whatever the bucket's size),
// and enqueues every key that is missing, different, or extra on the remote; the drain then applies the key's
// current state. One job at a time; a job interrupted by a restart is marked failed at boot.

import { setImmediate as nextTurn } from 'node:timers/promises';
import { AppError, noSuchBucket } from '../../core/errors.js';
import { uuidv7 } from '../../lib/ids.js';
import type { Logger } from '../../observability/logger.js';
import type { MetadataStore } from '../../storage/db/metadata-store.js';
import type { ListedObject } from '../../storage/db/objects-repo.js';
import type { ReplicationJob, ReplicationJobsRepo } from '../../storage/db/replication-jobs-repo.js';
import type { ReplicationOutboxRepo } from '../../storage/db/replication-outbox-repo.js';
import { mirrorKey, remoteErrorClass, type RemoteListItem, type RemoteStore } from './remote-store.js';

export interface ReconcileServiceOptions {
  meta: MetadataStore;
  jobs: ReplicationJobsRepo;
  outbox: ReplicationOutboxRepo;
  remote: RemoteStore | undefined;
  enabled: boolean;
  logger: Logger;
  /** Keys per page on each side (default 1000). */
  pageSize?: number;
  now?: () => number;
  /** Told after each page of enqueued keys (the drain worker's wake-up). */
  onEnqueued?: () => void;
}

export interface Counts {
  scanned: number;
  enqueued: number;
  errors: number;
}

const PLAIN_MD5 = /^[0-9a-f]{32}$/;

/**
 * True when the remote copy differs from the local object: another size, or both ETags are plain MD5s (a single
 * PUT on both sides) and they differ. A multipart ETag on either side is not comparable, so only the size counts.
 */
export function differs(
  local: Pick<ListedObject, 'size' | 'etag'>,
  remote: Pick<RemoteListItem, 'size' | 'etag'>,
): boolean {
  if (local.size !== remote.size) return true;
  const a = local.etag.toLowerCase();
  const b = remote.etag.toLowerCase();
  return PLAIN_MD5.test(a) && PLAIN_MD5.test(b) && a !== b;
}

/** UTF-8 byte order: S3's listing order and SQLite's BINARY collation, which both sides of the walk follow. */
function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export class ReconcileService {
  private readonly opts: ReconcileServiceOptions;
  private readonly now: () => number;
  private readonly pageSize: number;
  private running: Promise<void> | undefined;
  private readonly abort = new AbortController();

  constructor(opts: ReconcileServiceOptions) {
    this.opts = opts;
    this.now = opts.now ?? Date.now;
    this.pageSize = opts.pageSize ?? 1000;
    const interrupted = opts.jobs.failInterrupted('interrupted by a restart', this.now());
    if (interrupted > 0)
      opts.logger.warn({ jobs: interrupted }, 'reconcile job interrupted by a restart marked failed');
  }

  /**
   * Starts a job over one bucket or every bucket and returns it (state running). Throws Conflict (409) when a job
   * is running or replication is not enabled, NoSuchBucket for an unknown bucket.
   */
  start(bucket?: string): ReplicationJob {
    if (!this.opts.enabled || this.opts.remote === undefined) {
      throw new AppError('Conflict', { message: 'Replication is not enabled: there is nothing to reconcile against.' });
    }
    const id = uuidv7();
    this.opts.meta.transaction(() => {
      if (bucket !== undefined && !this.opts.meta.buckets.find(bucket)) {
        throw noSuchBucket(bucket);
      }
      const active = this.opts.jobs.findRunning();
      if (active)
        throw new AppError('Conflict', {
          message: `Reconcile job ${active.id} is still running.`,
          details: { jobId: active.id },
        });
      this.opts.jobs.insert({ id: id, kind: 'reconcile', bucket: bucket }, this.now());
    });
    this.running = this.run(id, bucket).finally(() => {
      this.running = undefined;
    });
    return this.opts.jobs.find(id) as ReplicationJob;
  }

  /** The job, or NotFound. */
  get(id: string): ReplicationJob {
    const job = this.opts.jobs.find(id);
    if (!job) throw new AppError('NotFound', { message: `No reconcile job ${id}` });
    return job;
  }

  /** Stops a running job (it is marked failed) and waits for it. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }

  private async run(id: string, only: string | undefined): Promise<void> {
    const counts: Counts = { scanned: 0, enqueued: 0, errors: 0 };
    try {
      // Buckets are few (their rows are small and listed whole elsewhere too); keys are what may be millions.
      const names = only !== undefined ? [only] : this.opts.meta.buckets.list().map((b) => b.name);
      for (const name of names) {
        if (!this.opts.meta.buckets.find(name)) continue;
        try {
          await this.reconcileBucket(id, name, counts);
        } catch (err) {
          // One bucket's failure (a listing the remote refused) is counted and the walk goes on with the others.
          if (this.abort.signal.aborted) throw err;
          counts.errors++;
          this.opts.logger.warn(
            { jobId: id, bucket: name, errorClass: remoteErrorClass(err) },
            'reconcile of a bucket failed',
          );
        }
      }
      this.opts.jobs.finish(id, { state: 'completed', counts: counts, error: undefined }, this.now());
      this.opts.logger.info({ jobId: id, ...counts }, 'reconcile job completed');
    } catch (err) {
      const cls = this.abort.signal.aborted ? 'stopped' : remoteErrorClass(err);
      this.opts.jobs.finish(id, { state: 'failed', counts: counts, error: cls }, this.now());
      this.opts.logger.warn({ jobId: id, errorClass: cls, ...counts }, 'reconcile job failed');
    }
  }

  /** The merge walk of one bucket: local current objects against remote `<bucket>/` keys, both in byte order. */
  private async reconcileBucket(id: string, bucket: string, counts: Counts): Promise<void> {
    const remote = this.opts.remote as RemoteStore;
    const prefix = mirrorKey(bucket, '');
    const signal = this.abort.signal;
    let local: ListedObject[] = this.opts.meta.objects.listCurrent(bucket, {
      bound: '',
      inclusive: true,
      limit: this.pageSize,
    });
    let li = 0;
    let localDone = local.length < this.pageSize;
    let page = await remote.list({ prefix, limit: this.pageSize, signal });
    let ri = 0;
    const toEnqueue: string[] = [];
    for (;;) {
      signal.throwIfAborted();
      if (li >= local.length && !localDone) {
        const last = local.at(-1)?.key ?? '';
        local = this.opts.meta.objects.listCurrent(bucket, { bound: last, inclusive: false, limit: this.pageSize });
        li = 0;
        localDone = local.length < this.pageSize;
        this.flush({ id, bucket }, toEnqueue, counts);
        await nextTurn();
      }
      if (ri >= page.items.length && page.nextToken !== undefined) {
        page = await remote.list({ prefix, token: page.nextToken, limit: this.pageSize, signal });
        ri = 0;
      }
      const l = local[li];
      const r = page.items[ri];
      if (l === undefined && r === undefined) break;
      const rKey = r?.key.slice(prefix.length);
      const order = l === undefined ? 1 : r === undefined ? -1 : byteCompare(l.key, rKey as string);
      counts.scanned++;
      if (order < 0) {
        toEnqueue.push((l as ListedObject).key); // missing on the remote
        li++;
      } else if (order > 0) {
        toEnqueue.push(rKey as string); // on the remote only: the drain deletes it there
        ri++;
      } else {
        if (differs(l as ListedObject, r as RemoteListItem)) toEnqueue.push((l as ListedObject).key);
        li++;
        ri++;
      }
      if (toEnqueue.length >= this.pageSize) this.flush({ id, bucket }, toEnqueue, counts);
    }
    this.flush({ id, bucket }, toEnqueue, counts);
  }

  /** Enqueues the keys found in one transaction and saves the job's progress. */
  private flush({ id, bucket }: { id: string; bucket: string }, keys: string[], counts: Counts): void {
    const now = this.now();
    this.opts.meta.transaction(() => {
      for (const key of keys) this.opts.outbox.enqueue({ bucket: bucket, key: key, kind: 'object' }, now);
      counts.enqueued += keys.length;
      this.opts.jobs.progress(id, counts);
    });
    if (keys.length > 0) this.opts.onEnqueued?.();
    keys.length = 0;
  }
}
