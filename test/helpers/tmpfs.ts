// A small filesystem for the disk-full tests: a size-limited tmpfs mounted by the test (root only), and filler files
// that take its free space down to a chosen amount.

import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Tmpfs {
  dir: string;
  /** Bytes free to an unprivileged writer right now. */
  free(): number;
  /** Unmounts and removes the mount point (idempotent). */
  unmount(): void;
}

/** Why the tmpfs suites cannot run here, or undefined when they can (root, and mount works). */
export function tmpfsUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root: mounting a size-limited tmpfs needs root (CI runs as root)';
  try {
    mountTmpfs(1024 * 1024).unmount();
    return undefined;
  } catch (err) {
    return `mount -t tmpfs failed: ${String(err)}`;
  }
}

export function mountTmpfs(sizeBytes: number): Tmpfs {
  const dir = mkdtempSync(join(tmpdir(), 'store-tmpfs-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
  let mounted = true;
  return {
    dir,
    free: () => {
      const s = statfsSync(dir);
      return Number(s.bavail) * Number(s.bsize);
    },
    unmount() {
      if (!mounted) return;
      // lazy: a server that has not let go of a file yet must not fail the cleanup
      execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      mounted = false;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Writes `path` with zeros until the filesystem has at most `leaveFree` bytes left (0: until ENOSPC). Returns the
 * bytes written. tmpfs allocates every page written, zeros included.
 */
export function fill(path: string, leaveFree: number, freeOf: () => number): number {
  const chunk = Buffer.alloc(1024 * 1024);
  const fd = openSync(path, 'a');
  let written = 0;
  try {
    for (;;) {
      const room = freeOf() - leaveFree;
      if (room <= 0) return written;
      try {
        written += writeSync(fd, chunk, 0, Math.min(chunk.length, room));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOSPC') return written;
        throw err;
      }
    }
  } finally {
    closeSync(fd);
  }
}
