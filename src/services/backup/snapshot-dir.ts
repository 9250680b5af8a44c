// The scheduled snapshot directory (STORE_SCHEDULED_BACKUP_DIR, default DATA_DIR/backups): mode 0700, each snapshot
// 0600, written to a temp name after a free-space check, fsynced, then renamed into place, so a crash never leaves
// a partial snapshot under a snapshot's name (temp files are removed at boot).

import { createWriteStream } from 'node:fs';
import { chmod, mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { BackupArchive } from './backup-service.js';
import { assertFreeSpace, type FreeBytes } from '../free-space.js';

export interface SnapshotFile {
  name: string;
  /** `instance`, or `bucket-<name>`: retention counts keepLast per series. */
  series: string;
  createdAt: number;
  size: number;
}

const TEMP_PREFIX = '.tmp-';
const NAME = /^(instance|bucket-[a-z0-9.-]+)-(\d{8}T\d{9}Z)\.zip$/;

/** `20240102T030405123Z` for an epoch ms (UTC, sortable, no characters a file system dislikes). */
export function stampOf(time: number): string {
  return new Date(time).toISOString().replace(/[-:.]/g, '');
}

function timeOf(stamp: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z$/.exec(stamp);
  if (!m) return Number.NaN;
  const [, y, mo, d, h, mi, s, ms] = m.map(Number) as number[];
  return Date.UTC(y as number, (mo as number) - 1, d, h, mi, s, ms);
}

export class SnapshotDir {
  constructor(
    private readonly dir: string,
    private readonly freeBytes: FreeBytes,
  ) {}

  /** Creates the directory (0700, and tightens an existing one to 0700) and removes temp files a crash left. */
  async init(): Promise<number> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await chmod(this.dir, 0o700);
    let removed = 0;
    for (const name of await readdir(this.dir)) {
      if (!name.startsWith(TEMP_PREFIX)) continue;
      await rm(join(this.dir, name), { force: true });
      removed++;
    }
    return removed;
  }

  /** The file name of a snapshot of `series` taken at `time`. */
  nameFor(series: string, time: number): string {
    return `${series}-${stampOf(time)}.zip`;
  }

  /**
   * Writes the archive as `name`: free-space check, temp file (0600), fsync, rename, directory fsync. On any failure
   * the temp file is removed and the error rethrown (InsufficientStorage before a byte is written). Returns the
   * final path and size.
   */
  async write(name: string, archive: BackupArchive): Promise<{ path: string; size: number }> {
    try {
      await assertFreeSpace(this.freeBytes, this.dir, { bytes: archive.estimatedBytes, what: 'the snapshot' });
    } catch (err) {
      archive.stream.destroy();
      throw err;
    }
    const temp = join(this.dir, `${TEMP_PREFIX}${name}`);
    const path = join(this.dir, name);
    try {
      await pipeline(archive.stream, createWriteStream(temp, { flags: 'wx', mode: 0o600 }));
      await archive.done;
      // fsync through a second descriptor: it flushes the file's data whichever descriptor wrote it.
      const fh = await open(temp, 'r');
      await fh.sync().finally(() => fh.close());
      await rename(temp, path);
      const dirHandle = await open(this.dir, 'r');
      await dirHandle.sync().finally(() => dirHandle.close());
      return { path, size: (await stat(path)).size };
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }

  /** The snapshots on disk (temp files and foreign files are not snapshots), oldest first. */
  async list(): Promise<SnapshotFile[]> {
    const files: SnapshotFile[] = [];
    for (const name of await readdir(this.dir).catch(() => [] as string[])) {
      const m = NAME.exec(name);
      if (!m) continue;
      const createdAt = timeOf(m[2] as string);
      if (Number.isNaN(createdAt)) continue;
      const size = await stat(join(this.dir, name)).then(
        (s) => s.size,
        () => undefined,
      );
      if (size !== undefined) files.push({ name, series: m[1] as string, createdAt, size });
    }
    return files.sort((a, b) => a.createdAt - b.createdAt);
  }

  pathOf(name: string): string {
    return join(this.dir, name);
  }

  async remove(name: string): Promise<void> {
    await rm(join(this.dir, name), { force: true });
  }
}
