// The read side of tiering (docs/replication.md "Tiering"): a GET of a stub rehydrates it (up to
// STORE_TIER_INLINE_MAX_BYTES) or redirects to a presigned remote URL; RestoreObject rehydrates on request; internal
// readers stream a stub's bytes from the remote through stub-reader.ts.

import { AppError } from '../../core/errors.js';
import { DAY_MS } from '../../core/iso8601.js';
import type { MetadataStore } from '../../storage/db/metadata-store.js';
import type { ObjectRow } from '../../storage/db/objects-repo.js';
import type { TierRepo } from '../../storage/db/tier-repo.js';
import { remoteErrorClass, type RemoteStore } from '../replication/remote-store.js';
import type { Rehydrator } from './rehydrator.js';
import { residencyOf, type EventSink } from '../events/event-sink.js';

export interface TierReaderOptions {
  meta: MetadataStore;
  repo: TierRepo;
  /** Undefined: tiering off (reads of stubs left from before fail InvalidObjectState). */
  remote: RemoteStore | undefined;
  /** Built when there is a remote (TierService owns it: status and shutdown). */
  rehydrator: Rehydrator | undefined;
  /** Tiering is on (STORE_TIER_ENABLED) and a remote is configured. */
  enabled: boolean;
  readThroughTimeoutMs: number;
  presignTtlSeconds: number;
  inlineMaxBytes: number;
  /** Told of each accepted RestoreObject, inside a transaction (bucket notifications: ObjectRestore:Post). */
  events?: EventSink | undefined;
  now: () => number;
}

/** How a GET of a stub is answered: served locally after rehydration, or redirected to the remote. */
export type ReadThrough = { kind: 'local' } | { kind: 'redirect'; url: string };

/** How long a read-through rehydration keeps the version local before the sweep makes it a stub again. */
export const READ_RESTORE_DAYS = 1;

export class TierReader {
  private readonly opts: TierReaderOptions;
  private readonly enabled: boolean;
  private readonly rehydrator: Rehydrator | undefined;
  private readonly now: () => number;

  constructor(opts: TierReaderOptions) {
    this.opts = opts;
    this.enabled = opts.enabled;
    this.rehydrator = opts.rehydrator;
    this.now = opts.now;
  }

  /**
   * GET of a stub: up to the inline maximum (and with room on disk) it is rehydrated, then served locally;
   * larger, a presigned redirect. Throws InvalidObjectState (tiering off), SlowDown (the read-through timeout
   * passed; the stub is intact), ServiceUnavailable (remote unreachable), InternalError (remote copy lost or
   * corrupt).
   */
  async readThrough(row: ObjectRow): Promise<ReadThrough> {
    const rehydrator = this.rehydrator;
    if (!this.enabled || !rehydrator || row.tierKey === undefined) {
      throw new AppError('InvalidObjectState', {
        message: 'The object is tiered to the remote target and tiering is not enabled.',
      });
    }
    if (
      row.size > this.opts.inlineMaxBytes ||
      !(rehydrator.isRunning(row.id) || (await rehydrator.hasRoomFor(row.size)))
    ) {
      return { kind: 'redirect', url: await this.presign(row) };
    }
    const timeoutMs = this.opts.readThroughTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    try {
      const flight = rehydrator.rehydrate(row, { restoreMs: READ_RESTORE_DAYS * DAY_MS, deadlineMs: timeoutMs });
      const outcome = await Promise.race([flight.then(() => 'done' as const), timedOut]);
      if (outcome === 'timeout')
        throw new AppError('SlowDown', {
          message: 'The tiered object could not be fetched in time; retry later.',
          headers: { 'Retry-After': '5' },
        });
      return { kind: 'local' };
    } catch (err) {
      throw readError(err);
    } finally {
      clearTimeout(timer);
    }
  }

  private presign(row: ObjectRow): Promise<string> {
    const remote = this.opts.remote as RemoteStore;
    return remote.presignGet(row.tierKey as string, this.opts.presignTtlSeconds, {
      ...(row.headers.contentType ? { responseContentType: row.headers.contentType } : {}),
      ...(row.headers.contentDisposition ? { responseContentDisposition: row.headers.contentDisposition } : {}),
    });
  }

  /**
   * RestoreObject: starts rehydrating a stub (202, `started`), or extends a restored version's expiry (200). Throws
   * InvalidObjectState for a version that is not tiered (or tiering off), RestoreAlreadyInProgress (409), SlowDown
   * (503: not enough free space on the data volume).
   */
  async restore(row: ObjectRow, days: number): Promise<{ started: boolean }> {
    const rehydrator = this.rehydrator;
    if (!this.enabled || !rehydrator || row.tierState === undefined) {
      throw new AppError('InvalidObjectState', {
        message: "Restore is not allowed for the object's current storage class.",
      });
    }
    const restoreMs = days * DAY_MS;
    const posted = (): void => this.opts.events?.residencyChanged?.(residencyOf(row, { name: 'ObjectRestore:Post' }));
    if (row.tierState === 'restored') {
      this.opts.meta.transaction(() => {
        this.opts.repo.extendRestore(row.id, this.now() + restoreMs);
        posted();
      });
      return { started: false };
    }
    if (rehydrator.isRunning(row.id)) throw new AppError('RestoreAlreadyInProgress');
    if (!(await rehydrator.hasRoomFor(row.size))) {
      throw new AppError('SlowDown', {
        message: 'Not enough free space on the data volume to restore this object; retry later.',
        headers: { 'Retry-After': '60' },
      });
    }
    // A flight may have started while the free space was read.
    if (rehydrator.isRunning(row.id)) throw new AppError('RestoreAlreadyInProgress');
    this.opts.meta.transaction(posted);
    rehydrator.rehydrate(row, { restoreMs }).catch(() => undefined);
    return { started: true };
  }

  /** True while a rehydration of this version is under way (x-amz-restore: ongoing-request="true"). */
  isRestoring(rowId: number): boolean {
    return this.rehydrator?.isRunning(rowId) ?? false;
  }
}

/** A read-through failure as the S3 plane answers it. */
function readError(err: unknown): unknown {
  if (err instanceof AppError) return err;
  const cls = remoteErrorClass(err);
  if (cls === 'timeout' || cls === 'aborted' || cls === 'throttled') {
    return new AppError('SlowDown', {
      message: 'The tiered object could not be fetched in time; retry later.',
      headers: { 'Retry-After': '5' },
    });
  }
  if (cls === 'unreachable' || cls === 'server-error' || cls === 'auth' || cls === 'no-bucket') {
    return new AppError('ServiceUnavailable', {
      message: 'The remote tier is not reachable; retry later.',
      headers: { 'Retry-After': '5' },
    });
  }
  return new AppError('InternalError', { message: 'The tiered copy of this object could not be read.' });
}
