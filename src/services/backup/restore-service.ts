// Restore: the uploaded archive is streamed to a temp file (never buffered), validated whole (guard rails, manifest,
// names, sizes, checksums) while its bytes are staged as new blobs under this instance's SSE key, and only then
// applied as one metadata transaction that resets the instance or one bucket to exactly the archive's contents.
// Any failure before that commit removes the staged blobs and leaves the instance exactly as it was.

import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import {
  invalid,
  MANIFEST_ENTRY,
  parseManifest,
  type ArchivedBucket,
  type Manifest,
} from '../../core/backup-manifest.js';
import { AppError, isAppError } from '../../core/errors.js';
import { parseBucketPolicy } from '../../core/policy/policy-document.js';
import type { BlobStore } from '../../storage/blobs/blob-store.js';
import type { MetadataStore } from '../../storage/db/metadata-store.js';
import { RestoreRepo } from '../../storage/db/restore-repo.js';
import { RestoreScratch } from '../../storage/db/restore-scratch.js';
import type { Logger } from '../../observability/logger.js';
import type { EventSink } from '../events/event-sink.js';
import { ArchiveReader, type RestoreLimits } from './archive-reader.js';
import { assertFreeSpace, statfsFreeBytes, type FreeBytes } from '../free-space.js';
import { applyRestore } from './restore-apply.js';
import { stageArchive, type RestorePlan } from './restore-staging.js';

export type { RestoreLimits };

export type RestoreTarget = { kind: 'instance' } | { kind: 'bucket'; bucket: string };

export interface RestoreResult {
  bucketsRestored: number;
  /** Object versions restored (delete markers not counted). */
  objectsRestored: number;
  deleteMarkersRestored: number;
  manifestVersion: 1 | 2;
}

export interface RestoreRequest {
  /** The raw archive bytes (the request stream). */
  body: Readable;
  /** Content-Length, when the client sent one (checked against the limit before a byte is read). */
  declaredLength?: number | undefined;
  /** Lets the reset remove versions under GOVERNANCE retention (never COMPLIANCE or a legal hold). */
  bypassGovernance?: boolean;
  signal?: AbortSignal | undefined;
}

export interface RestoreServiceOptions {
  meta: MetadataStore;
  blobs: BlobStore;
  events: EventSink;
  /** DATA_DIR: the temp archive and scratch database go to DATA_DIR/tmp, which boot empties. */
  dataDir: string;
  region: string;
  limits: RestoreLimits;
  logger: Logger;
  now?: () => number;
  freeBytes?: FreeBytes;
}

export class RestoreService {
  private readonly now: () => number;
  private readonly freeBytes: FreeBytes;
  private readonly repo: RestoreRepo;
  private running = false;

  constructor(private readonly opts: RestoreServiceOptions) {
    this.now = opts.now ?? Date.now;
    this.freeBytes = opts.freeBytes ?? statfsFreeBytes;
    this.repo = new RestoreRepo(opts.meta.db);
  }

  /**
   * Receives, validates, stages and applies an archive. Throws Conflict (another restore is running, or object lock
   * protects a version the reset would remove), EntityTooLarge (the upload is over RESTORE_MAX_TOTAL_BYTES),
   * InvalidArchive (anything wrong with the archive), InsufficientStorage (507), NoSuchBucket never: a bucket
   * restore creates the bucket when it does not exist.
   */
  async restore(target: RestoreTarget, request: RestoreRequest): Promise<RestoreResult> {
    if (this.running)
      throw new AppError('Conflict', { message: 'A restore is already running; try again when it has finished.' });
    this.running = true;
    const id = randomUUID();
    const archivePath = join(this.opts.dataDir, 'tmp', `restore-${id}.zip`);
    try {
      await this.receive(archivePath, request);
      return await this.restoreFile(target, request, { archivePath, id });
    } finally {
      this.running = false;
      await rm(archivePath, { force: true });
    }
  }

  /**
   * Streams the body to `path` (0600), counting bytes against RESTORE_MAX_TOTAL_BYTES as they arrive. On a refusal the
   * request is paused, not destroyed, so the error can still be answered on its connection.
   */
  private async receive(path: string, request: RestoreRequest): Promise<void> {
    const max = this.opts.limits.maxTotalBytes;
    const tooLarge = (): AppError =>
      new AppError('EntityTooLarge', { message: `The archive is larger than RESTORE_MAX_TOTAL_BYTES (${max} bytes).` });
    if (request.declaredLength !== undefined && request.declaredLength > max) throw tooLarge();
    if (request.declaredLength !== undefined)
      await assertFreeSpace(this.freeBytes, this.opts.dataDir, {
        bytes: request.declaredLength,
        what: 'the uploaded archive',
      });
    const out = createWriteStream(path, { flags: 'wx', mode: 0o600 });
    const source = request.body;
    let received = 0;
    try {
      await new Promise<void>((resolve, reject) => {
        const fail = (err: Error): void => {
          source.pause();
          source.removeAllListeners('data');
          reject(err);
        };
        source.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > max) return fail(tooLarge());
          if (!out.write(chunk)) {
            source.pause();
            out.once('drain', () => source.resume());
          }
        });
        source.once('end', () => out.end(() => resolve()));
        source.once('error', fail);
        source.once('aborted', () => fail(new AppError('IncompleteBody')));
        out.once('error', fail);
        request.signal?.addEventListener('abort', () => fail(new AppError('IncompleteBody')), { once: true });
        source.resume();
      });
    } finally {
      if (!out.closed) out.destroy();
    }
    if (received === 0)
      throw new AppError('MissingRequestBodyError', { message: 'Send the .zip archive as the request body.' });
  }

  private async restoreFile(
    target: RestoreTarget,
    request: RestoreRequest,
    { archivePath, id }: { archivePath: string; id: string },
  ): Promise<RestoreResult> {
    const reader = await ArchiveReader.open(archivePath, this.opts.limits);
    let scratch: RestoreScratch | undefined;
    let applied = false;
    try {
      const manifest = parseManifest(await reader.readText(MANIFEST_ENTRY, this.opts.limits.maxManifestBytes));
      const plan = planOf(target, manifest);
      await assertFreeSpace(this.freeBytes, this.opts.dataDir, {
        bytes: reader.totalBytes,
        what: 'the restored objects',
      });
      scratch = new RestoreScratch(join(this.opts.dataDir, 'tmp', `restore-${id}.db`));
      const bypassGovernance = request.bypassGovernance ?? false;
      const instance = target.kind === 'instance';
      const totals = await stageArchive(
        { reader, scratch, blobs: this.opts.blobs, plan, signal: request.signal },
        manifest,
      );
      scratch.markLatest();
      const { events, buckets } = applyRestore({
        meta: this.opts.meta,
        repo: this.repo,
        scratch,
        events: this.opts.events,
        plan,
        instance,
        region: this.opts.region,
        bypassGovernance,
        now: this.now(),
      });
      applied = true;
      for (const event of events) this.opts.events.afterCommit(event);
      await this.opts.meta.durable();
      this.opts.logger.info(
        {
          target: target.kind,
          buckets,
          objects: totals.objects,
          deleteMarkers: totals.deleteMarkers,
          bytes: totals.bytes,
          manifestVersion: manifest.version,
        },
        'restore applied',
      );
      return {
        bucketsRestored: buckets,
        objectsRestored: totals.objects,
        deleteMarkersRestored: totals.deleteMarkers,
        manifestVersion: manifest.version,
      };
    } catch (err) {
      if (scratch && !applied) await this.removeStagedBlobs(scratch);
      if (!isAppError(err)) this.opts.logger.error({ err }, 'restore failed');
      throw err;
    } finally {
      reader.close();
      scratch?.dispose();
    }
  }

  /** Removes every blob file this restore wrote (none is referenced: the transaction never committed). */
  private async removeStagedBlobs(scratch: RestoreScratch): Promise<void> {
    for (let after = ''; ;) {
      const ids = scratch.blobs(after, 500);
      if (ids.length === 0) return;
      for (const blobId of ids) await this.opts.blobs.remove(blobId).catch(() => undefined);
      after = ids[ids.length - 1] as string;
    }
  }
}

/**
 * Which archive buckets are restored, and as which bucket here. An instance restore takes an instance archive whole;
 * a bucket restore takes a bucket archive's one bucket (renamed to the target) or that bucket out of an instance
 * archive. Throws InvalidArchive for the wrong kind, a missing bucket, or a policy that cannot apply under the new
 * name.
 */
function planOf(target: RestoreTarget, manifest: Manifest): RestorePlan {
  const buckets: ArchivedBucket[] =
    manifest.version === 2
      ? manifest.buckets
      : manifest.buckets.map((b) => ({
          // A v1 archive predates ACLs: its buckets behaved as BucketOwnerEnforced.
          name: b.name,
          createdAt: manifest.createdAt,
          versioning: 'Unversioned',
          objectLock: false,
          config: { ownershipControls: 'BucketOwnerEnforced' },
          versionCount: b.objects.length,
        }));
  if (target.kind === 'instance') {
    if (manifest.kind !== 'instance')
      throw invalid('this is a bucket archive: restore it with POST /buckets/{name}/restore');
    return new Map(buckets.map((b) => [b.name, { target: b.name, bucket: b }]));
  }
  const source = manifest.kind === 'bucket' ? buckets[0] : buckets.find((b) => b.name === target.bucket);
  if (!source) throw invalid(`the archive holds no bucket named ${target.bucket}`);
  if (source.config.policy !== undefined && source.name !== target.bucket) {
    try {
      parseBucketPolicy(source.config.policy, target.bucket);
    } catch (err) {
      if (isAppError(err))
        throw invalid(`the bucket policy names ${source.name} and cannot apply to ${target.bucket}: ${err.message}`);
      throw err;
    }
  }
  return new Map([[source.name, { target: target.bucket, bucket: source }]]);
}
