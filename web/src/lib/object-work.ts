// Pure helpers of the console's object work (no API calls): where a copied or moved key goes, and a folder sum in
// words. Unit-tested in Node (object-work.test.ts).

import { formatBytes, formatCount } from './format';

/** A folder sum as the API answers it (GET /buckets/{name}/objects/summary). */
export interface FolderSum {
  objectCount: number;
  totalBytes: number;
  truncated: boolean;
  bound: number;
}

/** Where `key` (found under `from`) goes when its selection is copied or moved into `to`. */
export function targetKey(key: string, from: string, to: string): string {
  return `${to}${key.startsWith(from) ? key.slice(from.length) : key}`;
}

/** The folder part of a key, with its slash ('' at the top): 'a/b/c.txt' -> 'a/b/'. */
export function folderOf(key: string): string {
  return key.slice(0, key.lastIndexOf('/') + 1);
}

/** "12 objects, 3.4 MiB"; cut off at the bound: "over 100,000 objects, over 7 GiB (counting stopped at 100,000)". */
export function describeSummary(s: FolderSum): string {
  const objects = `${formatCount(s.objectCount)} object${s.objectCount === 1 ? '' : 's'}`;
  if (!s.truncated) return `${objects}, ${formatBytes(s.totalBytes)}`;
  return `over ${objects}, over ${formatBytes(s.totalBytes)} (counting stopped at ${formatCount(s.bound)})`;
}

/** The two short lines a list cell has room for: count, then size ("100,000+ objects", "7.1 GiB+"). */
export function summaryLines(s: FolderSum): [string, string] {
  const plus = s.truncated ? '+' : '';
  const count = `${formatCount(s.objectCount)}${plus} object${s.objectCount === 1 ? '' : 's'}`;
  return [count, `${formatBytes(s.totalBytes)}${plus}`];
}
