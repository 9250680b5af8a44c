// The free-space check that comes before writing a snapshot, staging a restore or rehydrating a tiered object:
// refusing up front beats filling the data volume, which would fail every other write too.

import { statfs } from 'node:fs/promises';
import { AppError } from '../core/errors.js';

/** Reads free bytes available to this process on the filesystem holding `path` (injectable for tests). */
export type FreeBytes = (path: string) => Promise<number>;

export const statfsFreeBytes: FreeBytes = async (path) => {
  const stats = await statfs(path);
  return Number(stats.bavail) * Number(stats.bsize);
};

/** Headroom kept free beyond the estimate: the metadata database and WAL must still be able to grow. */
export const FREE_SPACE_MARGIN = 64 * 1024 * 1024;

/** Throws InsufficientStorage (507) when `path`'s filesystem has less than `bytes` plus the margin free. */
export async function assertFreeSpace(
  freeBytes: FreeBytes,
  path: string,
  { bytes, what }: { bytes: number; what: string },
): Promise<void> {
  const free = await freeBytes(path);
  if (free < bytes + FREE_SPACE_MARGIN) {
    throw new AppError('InsufficientStorage', {
      message: `Not enough free space for ${what}: about ${bytes} bytes are needed (plus ${FREE_SPACE_MARGIN} headroom) and ${free} are free.`,
    });
  }
}
