// Object count and total size under a prefix, on demand (the console's folder sizes): a bounded walk over the current
// objects in key order, a page at a time, yielding to other requests between pages. Folder markers (zero-byte keys
// ending in "/") are not counted: the console does not show them as objects (docs/console.md "Folder sizes").

import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ListingService } from './listing-service.js';

export interface PrefixSummary {
  objectCount: number;
  totalBytes: number;
  /** True when the walk stopped at the bound with more objects left. */
  truncated: boolean;
}

const PAGE = 1000;

/**
 * Counts and sums the current objects whose keys start with `prefix`, reading at most `bound` of them. Throws
 * NoSuchBucket. `signal` ends the walk early (a closed request) with an AbortError.
 */
export async function summarizePrefix(
  listing: ListingService,
  target: { bucket: string; prefix: string },
  opts: { bound: number; signal?: AbortSignal | undefined },
): Promise<PrefixSummary> {
  let objectCount = 0;
  let totalBytes = 0;
  let read = 0;
  let after = '';
  for (;;) {
    opts.signal?.throwIfAborted();
    const maxKeys = Math.min(PAGE, opts.bound - read);
    const page = listing.list({ bucket: target.bucket, prefix: target.prefix, delimiter: '', after, maxKeys });
    for (const o of page.objects) {
      read += 1;
      if (o.size === 0 && o.key.endsWith('/')) continue;
      objectCount += 1;
      totalBytes += o.size;
    }
    if (!page.isTruncated || page.last === undefined) return { objectCount, totalBytes, truncated: false };
    if (read >= opts.bound) return { objectCount, totalBytes, truncated: true };
    after = page.last;
    // One page of SQLite reads is a synchronous burst: let other requests run between pages.
    await nextTurn();
  }
}
