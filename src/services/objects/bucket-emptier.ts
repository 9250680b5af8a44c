// Emptying a bucket a page at a time (the console's "empty and delete"): each call aborts up to a page of multipart
// uploads in progress and removes up to a page of versions and delete markers, each as DeleteObjects removes a version
// (object lock still applies: a version under retention or legal hold stays and is reported). Memory is one page;
// repeating a call is safe (docs/admin-api.md "Object work").

import { isAppError } from '../../core/errors.js';
import { ALLOW_EVERY_KEY } from './delete-authorizer.js';
import type { ListingService } from './listing-service.js';
import type { MultipartService } from './multipart-service.js';
import type { ObjectService } from './object-service.js';

/** Where the next call resumes: after this version, which object lock kept. */
export interface EmptyCursor {
  key: string;
  versionId: string;
}

export interface EmptyPage {
  deleted: number;
  uploadsAborted: number;
  /** Versions object lock kept in place (AccessDenied), in listing order. */
  locked: Array<{ key: string; versionId: string; error: string; message: string }>;
  /** Present while there may be more to examine. */
  next: EmptyCursor | undefined;
}

export interface BucketEmptierDeps {
  objects: ObjectService;
  listing: ListingService;
  multipart: MultipartService;
}

/** Entries one call handles at most, of each kind. */
export const EMPTY_PAGE = 1000;

/**
 * One page (`pageSize`, default EMPTY_PAGE) of emptying `bucket`, from `cursor` (the `next` of the previous call;
 * undefined to start). Versions before the cursor that remain are locked ones, reported before: the cursor is always
 * a version that was kept, so removed versions are never relisted and kept ones are reported once. Throws
 * NoSuchBucket; other client errors of a version are reported in `locked`.
 */
export function emptyBucketPage(
  deps: BucketEmptierDeps,
  input: { bucket: string; cursor?: EmptyCursor | undefined; pageSize?: number },
): EmptyPage {
  const { bucket, cursor } = input;
  const pageSize = input.pageSize ?? EMPTY_PAGE;
  const uploads = deps.multipart.listUploads(bucket, {
    prefix: '',
    keyMarker: '',
    uploadIdMarker: '',
    maxUploads: pageSize,
  });
  let uploadsAborted = 0;
  for (const u of uploads.uploads) {
    try {
      deps.multipart.abort(bucket, u.key, u.uploadId);
      uploadsAborted += 1;
    } catch (err) {
      // Completed or aborted by someone else meanwhile: gone either way.
      if (!isAppError(err) || err.code !== 'NoSuchUpload') throw err;
    }
  }
  const page = deps.listing.listVersions({
    bucket,
    prefix: '',
    delimiter: '',
    keyMarker: cursor?.key ?? '',
    versionIdMarker: cursor?.versionId ?? '',
    maxKeys: pageSize,
  });
  const outcomes = deps.objects.deleteBatch(
    bucket,
    page.versions.map((v) => ({ key: v.key, versionId: v.versionId })),
    { authorize: ALLOW_EVERY_KEY },
  );
  const locked: EmptyPage['locked'] = [];
  let deleted = 0;
  let next = cursor;
  for (const o of outcomes) {
    if (o.ok) {
      deleted += 1;
      continue;
    }
    const versionId = o.item.versionId ?? '';
    locked.push({ key: o.item.key, versionId, error: o.code, message: o.message });
    next = { key: o.item.key, versionId };
  }
  const more = page.isTruncated || uploads.isTruncated;
  return { deleted, uploadsAborted, locked, next: more ? (next ?? { key: '', versionId: '' }) : undefined };
}
