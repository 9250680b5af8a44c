// ListMultipartUploads: one page of a bucket's uploads in progress, with S3's markers and delimiter roll-up, read
// from the upload rows in batches (MultipartService.listUploads checks the bucket, then calls this).

import { MAX_CHAR, rollUp } from '../../core/common-prefix.js';
import type { MultipartRepo, UploadRow } from '../../storage/db/multipart-repo.js';

/** Upload rows read per query while listing. */
const LIST_BATCH = 1000;

export interface ListUploadsInput {
  prefix: string;
  delimiter?: string;
  keyMarker: string;
  uploadIdMarker: string;
  maxUploads: number;
}

export interface UploadsPage {
  uploads: UploadRow[];
  commonPrefixes: string[];
  isTruncated: boolean;
  /** The last upload's key or the last common prefix: where the next page starts (meaningful when truncated). */
  nextKeyMarker?: string;
  /** The last upload's id; absent when the page ended on a common prefix. */
  nextUploadIdMarker?: string | undefined;
}

/**
 * One page of the uploads in progress whose keys start with `prefix`, in key then upload-id order, after the
 * markers: keys after `keyMarker`, and uploads of `keyMarker` itself after `uploadIdMarker` when one is given (as
 * S3 reads them). With a delimiter, keys that contain it after the prefix roll up into common prefixes, each
 * counted once against `maxUploads`; a `keyMarker` that is itself such a prefix (a page ended on it) resumes past
 * it.
 */
export function listUploadsPage(repo: MultipartRepo, bucket: string, opts: ListUploadsInput): UploadsPage {
  const { prefix, delimiter = '', maxUploads } = opts;
  const page: UploadsPage = { uploads: [], commonPrefixes: [], isTruncated: false };
  let keyMarker = opts.keyMarker;
  // Without an upload-id marker nothing of the marker key itself is listed: U+10FFFF sorts after any upload id.
  let uploadIdMarker = opts.keyMarker !== '' && opts.uploadIdMarker === '' ? MAX_CHAR : opts.uploadIdMarker;
  // The common prefix last rolled up: its other uploads are passed over.
  let skipping =
    delimiter && keyMarker !== '' && rollUp(keyMarker, prefix, delimiter) === keyMarker ? keyMarker : undefined;
  if (skipping !== undefined) [keyMarker, uploadIdMarker] = [skipping + MAX_CHAR, ''];
  // Without a delimiter every row read is listed: one more than a page tells whether it is truncated.
  const batch = delimiter ? LIST_BATCH : Math.min(maxUploads + 1, LIST_BATCH);
  for (;;) {
    const rows = repo.list(bucket, prefix, {
      keyMarker: keyMarker,
      uploadIdMarker: uploadIdMarker,
      limit: batch,
    });
    let seeked = false;
    for (const row of rows) {
      [keyMarker, uploadIdMarker] = [row.key, row.uploadId];
      const rolled = delimiter ? rollUp(row.key, prefix, delimiter) : undefined;
      if (rolled !== undefined && rolled === skipping) continue;
      if (page.uploads.length + page.commonPrefixes.length === maxUploads) return { ...page, isTruncated: true };
      if (rolled === undefined) {
        page.uploads.push(row);
        page.nextKeyMarker = row.key;
        page.nextUploadIdMarker = row.uploadId;
        continue;
      }
      page.commonPrefixes.push(rolled);
      page.nextKeyMarker = rolled;
      page.nextUploadIdMarker = undefined;
      // Seek past everything under the prefix rather than read it.
      skipping = rolled;
      [keyMarker, uploadIdMarker] = [rolled + MAX_CHAR, ''];
      seeked = true;
      break;
    }
    if (!seeked && rows.length < batch) return page;
  }
}
