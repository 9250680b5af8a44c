// Checks what a read returned against the ledger: a whole body must be byte for byte one of the bodies written to
// the key and not refused (never a mix, never a refused write's), agree with its own x-amz-meta-sha256 and ETag; a
// range must be the matching slice of the body its headers name. Used during the run and by the final sweep.

import { bytesOf, hash, type BodySpec, type Ledger } from './model.js';

/** A read's answer, with what it asked for. */
export interface ReadAnswer {
  bucket: string;
  key: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  isHead: boolean;
}

/** What is wrong with a read's answer, or undefined when nothing is. */
export function checkRead(ledger: Ledger, seed: number, read: ReadAnswer): string | undefined {
  const { bucket, key, headers } = read;
  const candidates = ledger.candidates(bucket, key);
  const metaSha = headers['x-amz-meta-sha256'];
  const etag = (headers['etag'] ?? '').replace(/"/g, '');
  if (read.status === 200 && read.isHead) {
    const size = Number(headers['content-length']);
    if (metaSha !== undefined && !candidates.some((c) => c.sha256 === metaSha && c.size === size)) {
      return `HEAD names a body (sha256 ${metaSha.slice(0, 12)}, ${size} B) never written to ${bucket}/${key} or refused`;
    }
    return undefined;
  }
  if (read.status === 200) {
    const sha = hash('sha256', read.body);
    if (metaSha !== undefined && metaSha !== sha) {
      return `the body (sha256 ${sha.slice(0, 12)}) is not the one its x-amz-meta-sha256 names (${metaSha.slice(0, 12)})`;
    }
    if (etag !== '' && !etag.includes('-') && etag !== hash('md5', read.body))
      return `the body's MD5 is not its ETag ${etag}`;
    if (candidates.some((c) => c.sha256 === sha)) return undefined;
    const refused = ledger.refused(bucket, key).find((a) => a.bodies.some((c) => c.sha256 === sha));
    return refused
      ? `${bucket}/${key} holds the body of a write that was refused (${refused.via}: ${refused.answer}; sha256 ${sha.slice(0, 12)}, ${read.body.length} B)`
      : `${bucket}/${key} returned ${read.body.length} B (sha256 ${sha.slice(0, 12)}) that are none of the ${candidates.length} bodies written to it`;
  }
  if (read.status === 206 && !read.isHead) {
    const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(headers['content-range'] ?? '');
    if (!range) return `206 without a valid Content-Range: ${headers['content-range']}`;
    const [start, end, total] = [Number(range[1]), Number(range[2]), Number(range[3])];
    if (read.body.length !== end - start + 1)
      return `206 of ${read.body.length} B for Content-Range ${headers['content-range']}`;
    const spec = specOf(ledger, metaSha, etag);
    // Neither header names a body of ours (a multipart ETag without metadata): length checked only.
    if (!spec) return undefined;
    if (!candidates.some((c) => c.sha256 === spec.sha256))
      return `a range of a body never written to ${bucket}/${key} (or refused)`;
    if (spec.size !== total) return `Content-Range total ${total} for a body of ${spec.size} B`;
    if (
      !bytesOf(seed, spec)
        .subarray(start, end + 1)
        .equals(read.body)
    )
      return `range ${start}-${end} of ${bucket}/${key} differs from the body it names`;
  }
  return undefined;
}

function specOf(ledger: Ledger, metaSha: string | undefined, etag: string): BodySpec | undefined {
  if (metaSha !== undefined) return ledger.body(metaSha);
  return etag !== '' && !etag.includes('-') ? ledger.body(etag) : undefined;
}
