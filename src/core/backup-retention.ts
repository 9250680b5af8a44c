// Which scheduled snapshots to prune (SPEC "Backup retention rules"): retention is a union, so a snapshot goes only
// when it is BOTH older than maxAgeDays AND outside the newest keepLast. keepLast is a hard floor.

import { DAY_MS } from './iso8601.js';

export interface SnapshotAge {
  name: string;
  /** Epoch ms the snapshot was taken. */
  createdAt: number;
}

export interface RetentionPolicy {
  keepLast: number;
  maxAgeDays: number;
}

/**
 * The snapshots to delete, oldest first. With the `buckets` scope each bucket's series is one group (the caller
 * passes them separately), so keepLast counts per series. Ties in time keep the later name (deterministic).
 */
export function snapshotsToPrune(
  snapshots: readonly SnapshotAge[],
  policy: RetentionPolicy,
  now: number,
): SnapshotAge[] {
  const newestFirst = [...snapshots].sort(
    (a, b) => b.createdAt - a.createdAt || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0),
  );
  const cutoff = now - policy.maxAgeDays * DAY_MS;
  return newestFirst.filter((snapshot, index) => index >= policy.keepLast && snapshot.createdAt < cutoff).reverse();
}
