// Copy and move of a selection in the admin API, server-side, within a bucket or into another: each entry is
// ObjectService.copy of the current version (metadata, tags, storage class and ACL come along), and for a move the
// source's current version is deleted after the copy committed. Rename is a move of one entry. Each entry is reported
// on its own; what a partial failure leaves is in docs/admin-api.md "Object work".

import { isAppError } from '../../../core/errors.js';
import { reportedVersionId } from '../../../core/versioning.js';
import { parseStorageClass } from '../../../core/storage-class.js';
import type { Static } from '@sinclair/typebox';
import { principalOf } from '../admin-principal.js';
import type { AdminApp } from '../typebox-type-provider.js';
import { BucketNameParams } from './bucket-schemas.js';
import { bucketOf, type ObjectRouteDeps } from './object-deps.js';
import { TransferBody, TransferResponse } from './object-work-schemas.js';
import { ErrorBody } from './schemas.js';

type Result = Static<typeof TransferResponse>['results'][number];

interface Entry {
  bucket: string;
  targetBucket: string;
  key: string;
  targetKey: string;
  move: boolean;
}

/** A client error of one entry as its result; server errors are rethrown. */
function refused(entry: Entry, err: unknown, copied: boolean): Result {
  if (!isAppError(err) || err.statusCode >= 500) throw err;
  const message = copied ? `Copied, but the source was not removed: ${err.message}` : err.message;
  return { key: entry.key, targetKey: entry.targetKey, ok: false, copied, error: err.code, message };
}

async function transferOne(deps: ObjectRouteDeps, entry: Entry): Promise<Result> {
  const { bucket, targetBucket, key, targetKey, move } = entry;
  let versionId: string | undefined;
  try {
    if (move && bucket === targetBucket && key === targetKey) {
      return { key, targetKey, ok: false, copied: false, error: 'InvalidRequest', message: 'Moving onto itself' };
    }
    // The console copies "with the source's settings": its storage class and ACL too (S3 CopyObject resets both).
    const source = deps.objects.open(bucket, key).row;
    const { row } = await deps.objects.copy({
      bucket: targetBucket,
      key: targetKey,
      source: { bucket, key, versionId: source.versionId },
      metadataDirective: 'COPY',
      headers: {},
      userMeta: {},
      storageClass: parseStorageClass(source.storageClass),
      acl: source.acl,
    });
    versionId = reportedVersionId(row.versionId);
  } catch (err) {
    return refused(entry, err, false);
  }
  const copied = { key, targetKey, ok: true, copied: true, ...(versionId ? { versionId } : {}) };
  if (!move) return copied;
  try {
    // As `aws s3 mv`: the source's current version is deleted (a delete marker in a versioned bucket).
    deps.objects.delete(bucket, key);
    return copied;
  } catch (err) {
    return { ...refused(entry, err, true), ...(versionId ? { versionId } : {}) };
  }
}

/** POST /buckets/:name/objects/transfer. */
export function objectTransferRoutes(app: AdminApp, deps: ObjectRouteDeps): void {
  app.post(
    '/buckets/:name/objects/transfer',
    {
      schema: {
        operationId: 'transferObjects',
        tags: ['object content'],
        summary: 'Copy or move up to 1000 objects, server-side, within the bucket or into another',
        description:
          'Each entry copies the current version of `key` to `targetKey` (metadata, tags, storage class and ACL come ' +
          'along) and, with `move`, then deletes the source (a delete marker in a versioned bucket). Entries are ' +
          'reported on their own: NoSuchKey, InvalidRequest (moving onto itself), AccessDenied (a locked source ' +
          'stays: `copied` is true and both exist). NoSuchBucket (404) for either bucket before any entry.',
        params: BucketNameParams,
        body: TransferBody,
        response: { 200: TransferResponse, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => {
      const body = req.body;
      const bucket = bucketOf(req);
      const targetBucket = body.targetBucket ?? bucket;
      const move = body.move ?? false;
      deps.buckets.get(bucket);
      deps.buckets.get(targetBucket);
      const results: Result[] = [];
      for (const item of body.items) {
        results.push(await transferOne(deps, { bucket, targetBucket, key: item.key, targetKey: item.targetKey, move }));
      }
      const done = results.filter((r) => r.ok).length;
      const copied = results.filter((r) => r.copied).length;
      if (copied > 0) {
        deps.audit.record({
          event: move ? 'object.batch_moved' : 'object.batch_copied',
          subject: principalOf(req).username,
          bucket,
          details: {
            targetBucket,
            count: done,
            failed: results.length - done,
            ...(body.items.length === 1 ? { key: body.items[0]?.key, targetKey: body.items[0]?.targetKey } : {}),
          },
        });
      }
      return { done, failed: results.length - done, results };
    },
  );
}
