// Retried CompleteMultipartUpload: an SDK that timed out waiting for the answer sends the same completion again
// after the upload is gone. Within an hour of the first, a retry that lists the same parts is answered as the first
// was (200, the same ETag and version id); one that lists other parts is NoSuchUpload, as before.

import type { CompletedUploadResult, CompletedUploadRow } from '../../storage/db/completed-uploads-repo.js';

export type { CompletedUploadResult };

/** How long a completion is remembered for its retries. */
export const COMPLETION_REPLAY_MS = 60 * 60 * 1000;

/** One part a completion lists: its number and the ETag the client sent for it. */
export interface ListedPart {
  partNumber: number;
  etag: string;
}

/** Clients send part ETags quoted, unquoted, or (some) with XML-escaped quotes already decoded. */
export function normaliseEtag(etag: string): string {
  return etag.trim().replace(/^"|"$/g, '').toLowerCase();
}

/** A completion's part list in one canonical form, for comparing a retry with the completion it repeats. */
export function canonicalParts(parts: readonly ListedPart[]): string {
  return JSON.stringify(parts.map((p) => [p.partNumber, normaliseEtag(p.etag)]));
}

/**
 * What to answer a completion of an upload that no longer exists: the remembered answer when `done` is the same
 * completion (bucket, key and parts) made at most COMPLETION_REPLAY_MS before `now`, else undefined (NoSuchUpload).
 */
export function replayOf(
  done: CompletedUploadRow | undefined,
  request: { bucket: string; key: string; parts: readonly ListedPart[] },
  now: number,
): CompletedUploadResult | undefined {
  if (done === undefined || done.result.bucket !== request.bucket || done.result.key !== request.key) return undefined;
  if (now - done.completedAt > COMPLETION_REPLAY_MS) return undefined;
  return done.parts === canonicalParts(request.parts) ? done.result : undefined;
}
