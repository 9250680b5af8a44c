// Emptying a bucket in the admin API, a page per call (services/objects/bucket-emptier.ts): the console calls it
// until there is no nextCursor, then deletes the bucket unless object lock kept something.

import { emptyBucketPage } from '../../../services/objects/bucket-emptier.js';
import { principalOf } from '../admin-principal.js';
import type { AdminApp } from '../typebox-type-provider.js';
import { BucketNameParams } from './bucket-schemas.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { bucketOf, type ObjectRouteDeps } from './object-deps.js';
import { EmptyBody, EmptyResponse } from './object-work-schemas.js';
import { ErrorBody } from './schemas.js';

/** POST /buckets/:name/empty. */
export function bucketEmptyRoutes(app: AdminApp, deps: ObjectRouteDeps): void {
  app.post(
    '/buckets/:name/empty',
    {
      schema: {
        operationId: 'emptyBucket',
        tags: ['buckets'],
        summary: 'Remove a page of versions, delete markers and multipart uploads; call again with nextCursor',
        description:
          'Each call aborts up to 1000 uploads in progress and removes up to 1000 versions and delete markers. ' +
          'Versions under retention or legal hold stay and are listed in `locked` (once each across the calls). ' +
          'Safe to repeat; a call without a cursor starts over. The bucket itself stays: DELETE it afterwards.',
        params: BucketNameParams,
        body: EmptyBody,
        response: { 200: EmptyResponse, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (req) => {
      const bucket = bucketOf(req);
      const text = req.body.cursor;
      const decoded = text === undefined ? undefined : decodeCursor(text);
      const cursor = decoded === undefined ? undefined : { key: decoded.k, versionId: decoded.v ?? '' };
      const page = emptyBucketPage(deps, { bucket, cursor });
      if (page.deleted > 0 || page.uploadsAborted > 0) {
        deps.audit.record({
          event: 'bucket.emptied',
          subject: principalOf(req).username,
          bucket,
          details: { deleted: page.deleted, uploadsAborted: page.uploadsAborted, locked: page.locked.length },
        });
      }
      const next = page.next;
      return {
        deleted: page.deleted,
        uploadsAborted: page.uploadsAborted,
        locked: page.locked,
        ...(next ? { nextCursor: encodeCursor({ k: next.key, v: next.versionId || undefined }) } : {}),
      };
    },
  );
}
