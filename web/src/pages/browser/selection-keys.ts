// The object keys a browser selection stands for: objects as they are, folders expanded to every key under them (at
// any depth), up to a bound: past it the work is refused in words rather than done in part (docs/console.md
// "Copy, move and rename").

import { api, Api } from '../../api';
import type { BrowsePage } from '../../api/types';
import { formatCount } from '../../lib/format';
import type { Row } from './use-listing';

/** Objects one copy, move or metadata edit from the console handles at most, folders expanded. */
export const MAX_SELECTION_KEYS = 10_000;

export class SelectionTooLarge extends Error {
  constructor(readonly limit: number) {
    super(
      `The selection holds more than ${formatCount(limit)} objects. Select fewer folders, or use a client ` +
        '(aws s3 cp --recursive, rclone) for work this large.',
    );
  }
}

/**
 * Every key the rows stand for, in selection order; folder markers ("docs/" itself) included, so a copied folder keeps
 * its marker. Versions are refused (a copy or edit takes current objects). Throws SelectionTooLarge past `limit`.
 */
export async function selectionKeys(
  bucket: string,
  rows: readonly Row[],
  opts: { limit?: number; onListing?: (prefix: string) => void } = {},
): Promise<string[]> {
  const limit = opts.limit ?? MAX_SELECTION_KEYS;
  const keys: string[] = [];
  const add = (key: string): void => {
    if (keys.length >= limit) throw new SelectionTooLarge(limit);
    keys.push(key);
  };
  for (const row of rows) {
    if (row.kind === 'object') add(row.object.key);
    else if (row.kind === 'version') throw new Error('Versions cannot be copied or edited from a selection.');
    else {
      opts.onListing?.(row.prefix);
      let cursor: string | undefined;
      do {
        const page = await api.get<BrowsePage>(Api.bucket(bucket, '/objects'), {
          prefix: row.prefix,
          cursor,
          limit: 1000,
        });
        for (const o of page.objects) add(o.key);
        cursor = page.nextCursor;
      } while (cursor);
    }
  }
  return keys;
}
