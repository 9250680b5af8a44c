// The seeded plan: item N of a run is a function of the seed and N alone (its operation, keys, sizes, bytes and
// fault), so `HOSTILE_SEED=<n>` replays the same requests; only the interleaving of the concurrent workers varies.
// Items inside a disk-fill window use the "pressure" mix: more and larger uploads, many of unknown size. A window
// opens with a "burst" of large uploads of unknown size (POST Object, admin uploads without Content-Length) that all
// start as the volume fills, then a "surge" of large PutObjects, half of them from slow clients.

import type { Buckets } from './op-context.js';
import { Rng } from './rng.js';

export type Phase = 'normal' | 'pressure' | 'burst' | 'surge';

export const OPERATIONS = [
  'PutObject',
  'GetObject',
  'HeadObject',
  'DeleteObject',
  'DeleteObjects',
  'CopyObject',
  'ObjectTagging',
  'ListObjectsV2',
  'ListObjectVersions',
  'MultipartUpload',
  'PostObject',
  'AdminUpload',
  'AdminMultipart',
] as const;
export type OperationName = (typeof OPERATIONS)[number];

const MIX: Record<Phase, Record<OperationName, number>> = {
  normal: {
    PutObject: 26,
    GetObject: 14,
    HeadObject: 5,
    DeleteObject: 7,
    DeleteObjects: 3,
    CopyObject: 4,
    ObjectTagging: 6,
    ListObjectsV2: 3,
    ListObjectVersions: 2,
    MultipartUpload: 3,
    PostObject: 8,
    AdminUpload: 8,
    AdminMultipart: 2,
  },
  pressure: {
    PutObject: 20,
    GetObject: 8,
    HeadObject: 3,
    DeleteObject: 8,
    DeleteObjects: 3,
    CopyObject: 4,
    ObjectTagging: 8,
    ListObjectsV2: 1,
    ListObjectVersions: 1,
    MultipartUpload: 2,
    PostObject: 20,
    AdminUpload: 20,
    AdminMultipart: 2,
  },
  burst: {
    PutObject: 0,
    GetObject: 0,
    HeadObject: 0,
    DeleteObject: 0,
    DeleteObjects: 0,
    CopyObject: 0,
    ObjectTagging: 0,
    ListObjectsV2: 0,
    ListObjectVersions: 0,
    MultipartUpload: 0,
    PostObject: 1,
    AdminUpload: 1,
    AdminMultipart: 0,
  },
  surge: {
    PutObject: 1,
    GetObject: 0,
    HeadObject: 0,
    DeleteObject: 0,
    DeleteObjects: 0,
    CopyObject: 0,
    ObjectTagging: 0,
    ListObjectsV2: 0,
    ListObjectVersions: 0,
    MultipartUpload: 0,
    PostObject: 0,
    AdminUpload: 0,
    AdminMultipart: 0,
  },
};

/** Hot keys per bucket: written, overwritten and deleted by many workers at once. */
export const HOT_KEYS = 12;
/** Large objects written before the run (3-6 MiB): read while clients stop reading, and copied. */
export const BIG_KEYS = 4;

export interface PlanItem {
  index: number;
  op: OperationName;
  phase: Phase;
  /** This item's own stream: everything it draws comes from here. */
  rng: Rng;
  /** Faults and early refusals the run leaves out (HOSTILE_SKIP): drawn all the same, then not applied. */
  skip: ReadonlySet<string>;
}

/** Item `index` of the run under `root`. */
export function planItem(root: Rng, index: number, opts: { phase: Phase; skip: ReadonlySet<string> }): PlanItem {
  const rng = root.child(`item:${index}`);
  return { index, op: rng.weighted(MIX[opts.phase]), phase: opts.phase, rng, skip: opts.skip };
}

/** Where a write goes: a key of its own (checked byte-exact at the end) or a hot key many write and delete. */
export function writeTarget(
  item: PlanItem,
  buckets: Buckets,
  prefix: string,
): { bucket: string; key: string; solo: boolean } {
  const bucket = item.rng.chance(0.3) ? buckets.versioned : buckets.plain;
  if (item.rng.chance(0.55)) return { bucket, key: `${prefix}/${item.index}`, solo: true };
  return { bucket, key: `hot/${item.rng.int(0, HOT_KEYS - 1)}`, solo: false };
}

/** What a read, delete or tagging targets: a hot key, an earlier item's key (maybe never written) or a big one. */
export function readTarget(item: PlanItem, buckets: Buckets): { bucket: string; key: string } {
  const rng = item.rng;
  const bucket = rng.chance(0.3) ? buckets.versioned : buckets.plain;
  const roll = rng.next();
  if (roll < 0.5) return { bucket, key: `hot/${rng.int(0, HOT_KEYS - 1)}` };
  if (roll < 0.85)
    return {
      bucket,
      key: `${rng.pick(['put', 'post', 'admin', 'mpu', 'copy'])}/${rng.int(0, Math.max(0, item.index))}`,
    };
  return { bucket: buckets.plain, key: `big/${rng.int(0, BIG_KEYS - 1)}` };
}

/** A body size: mostly small (0 B to 128 KiB), a few up to 1 MiB, a few of 1-3 MiB; larger under pressure. */
export function bodySize(item: PlanItem): number {
  const rng = item.rng;
  if (item.phase === 'burst' || item.phase === 'surge') return rng.int(2 * 1024 * 1024, 4 * 1024 * 1024);
  if (item.phase === 'pressure' && rng.chance(0.2)) return rng.int(1024 * 1024, 4 * 1024 * 1024);
  const roll = rng.next();
  if (roll < 0.03) return 0;
  if (roll < 0.48) return rng.int(1, 16 * 1024);
  if (roll < 0.93) return rng.int(16 * 1024, 128 * 1024);
  if (roll < 0.98) return rng.int(128 * 1024, 1024 * 1024);
  return rng.int(1024 * 1024, 3 * 1024 * 1024);
}

/** A seeded X-Forwarded-For (198.18.0.0/15): admin requests spread over many clients, under the per-client throttle. */
export function forwardedFor(item: PlanItem): string {
  return `198.${18 + item.rng.int(0, 1)}.${item.rng.int(0, 255)}.${item.rng.int(1, 254)}`;
}
