// Applying a staged restore: ONE metadata transaction that resets the scope to exactly the archive's contents.
// Bucket configuration first (so the bucket's rules hold before any version lands), then every current version of
// the scope is removed (blobs released to the GC, uploads aborted), then the archive's versions are inserted in
// history order with their original version ids and times. Every removed and restored version goes through the
// EventSink like any other committed change (the webhook outbox row in the transaction, handlers after it).

import { objectEvent, type ObjectEvent } from '../../core/object-event.js';
import { AppError } from '../../core/errors.js';
import { isRetentionActive } from '../../core/object-lock.js';
import type { VersioningState } from '../../core/versioning.js';
import type { MetadataStore } from '../../storage/db/metadata-store.js';
import type { ObjectRow } from '../../storage/db/objects-repo.js';
import type { RestoreRepo } from '../../storage/db/restore-repo.js';
import type { RestoreScratch } from '../../storage/db/restore-scratch.js';
import type { EventSink } from '../events/event-sink.js';
import { extentsOf } from '../objects/object-reader.js';
import type { RestorePlan } from './restore-staging.js';

const PAGE = 500;

export interface ApplyInput {
  meta: MetadataStore;
  repo: RestoreRepo;
  scratch: RestoreScratch;
  events: EventSink;
  plan: RestorePlan;
  /** Instance restore: every existing bucket the archive lacks is removed too. */
  instance: boolean;
  region: string;
  bypassGovernance: boolean;
  now: number;
}

/**
 * A version object lock still protects, which the reset would remove: a legal hold, an unexpired COMPLIANCE
 * retention, or an unexpired GOVERNANCE retention without bypass. It may only be replaced by the very same version
 * (same id, ETag and size) carrying a lock at least as strong, which is what restoring a backup of this same
 * instance does. Returns a description of the first conflict, or undefined.
 */
export function lockConflict(
  input: Pick<ApplyInput, 'meta' | 'repo' | 'scratch' | 'plan' | 'instance' | 'bypassGovernance' | 'now'>,
): string | undefined {
  const now = new Date(input.now);
  const targets = new Map([...input.plan.values()].map((p) => [p.target, p]));
  const scope = input.instance ? input.meta.buckets.list().map((b) => b.name) : [...targets.keys()];
  for (const bucket of scope) {
    for (const row of input.repo.lockedVersions(bucket)) {
      const retained = isRetentionActive(row.retention, now) ? row.retention : undefined;
      const isProtected =
        row.legalHold === true ||
        (retained !== undefined && (retained.mode === 'COMPLIANCE' || !input.bypassGovernance));
      if (!isProtected) continue;
      const same = targets.has(bucket) ? input.scratch.find(bucket, row.key, row.versionId) : undefined;
      const kept =
        same !== undefined &&
        same.etag === row.etag &&
        same.size === row.size &&
        (!row.legalHold || same.legalHold) &&
        (retained === undefined ||
          (same.retention?.mode === retained.mode && same.retention.retainUntilDate >= retained.retainUntilDate));
      if (!kept) {
        return `${bucket}/${row.key} (version ${row.versionId}) is protected by ${row.legalHold ? 'a legal hold' : `${retained?.mode} retention`}`;
      }
    }
  }
  return undefined;
}

/**
 * Runs the reset in one transaction and returns the events to hand to `afterCommit` once it has committed. Throws
 * Conflict (409) if object lock protects a version the reset would remove (checked again here, against the state
 * the transaction sees), leaving everything as it was.
 */
export function applyRestore(input: ApplyInput): { events: ObjectEvent[]; buckets: number } {
  return input.meta.transaction(() => {
    const conflict = lockConflict(input);
    if (conflict)
      throw new AppError('Conflict', {
        message: `Restore refused before changing anything: ${conflict}. Object lock forbids removing it.`,
      });
    const events: ObjectEvent[] = [];
    const targets = new Set([...input.plan.values()].map((p) => p.target));
    if (input.instance) {
      for (const bucket of input.meta.buckets.list()) {
        if (targets.has(bucket.name)) continue;
        clearBucket(input, { name: bucket.name, versioning: bucket.versioning }, events);
        input.meta.buckets.delete(bucket.name);
      }
    }
    const versioningOf = new Map<string, VersioningState>();
    for (const { target, bucket } of input.plan.values()) {
      const existing = input.meta.buckets.find(target);
      if (existing) {
        clearBucket(input, { name: target, versioning: existing.versioning }, events);
        input.meta.buckets.setVersioning(target, bucket.versioning, bucket.objectLock);
        input.meta.buckets.setConfig(target, structuredClone(bucket.config));
      } else {
        input.meta.buckets.insert({
          name: target,
          createdAt: Date.parse(bucket.createdAt),
          region: input.region,
          versioning: bucket.versioning,
          objectLock: bucket.objectLock,
          config: structuredClone(bucket.config),
        });
      }
      versioningOf.set(target, bucket.versioning);
    }
    for (let after = 0; ;) {
      const page = input.scratch.page(after, PAGE);
      if (page.length === 0) break;
      for (const staged of page) {
        after = staged.seq;
        const { row } = staged;
        if (staged.sealed !== undefined && row.blobId !== undefined)
          input.meta.inlineBlobs.insert(row.blobId, staged.sealed);
        const id = input.meta.objects.insert(row);
        if (staged.parts.length > 0) input.meta.objects.insertParts(id, staged.parts);
        const type = row.isDeleteMarker
          ? 'object.deleted'
          : row.partCount !== undefined
            ? 'multipart.completed'
            : 'object.created';
        const event = objectEvent(type, { ...row, time: input.now }, versioningOf.get(row.bucket) ?? 'Unversioned');
        input.events.inTransaction(event);
        events.push(event);
      }
    }
    return { events, buckets: input.plan.size };
  });
}

/** Removes every version and upload of a bucket, releasing their blobs, with an object.deleted for each version. */
function clearBucket(
  input: ApplyInput,
  { name: bucket, versioning }: { name: string; versioning: VersioningState },
  events: ObjectEvent[],
): void {
  for (let after = 0; ;) {
    const page: ObjectRow[] = input.repo.versions(bucket, after, PAGE);
    if (page.length === 0) break;
    for (const row of page) {
      after = row.id;
      const parts = row.blobId === undefined && row.partCount ? input.meta.objects.parts(row.id) : [];
      for (const extent of extentsOf(row, parts)) input.meta.releaseBlob(extent.blobId, input.now);
      const event = objectEvent(
        'object.deleted',
        { bucket, key: row.key, size: 0, etag: row.etag, versionId: row.versionId, time: input.now },
        versioning,
      );
      input.events.inTransaction(event);
      events.push(event);
    }
  }
  input.repo.deleteVersions(bucket);
  for (const blobId of input.repo.uploadPartBlobs(bucket)) input.meta.releaseBlob(blobId, input.now);
  input.repo.deleteUploads(bucket);
}
