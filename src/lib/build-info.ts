// What build is running: the version from the nearest package.json and the commit: the git checkout's HEAD when the
// code runs from one, else the commit `npm run build` recorded in dist/build-info.json (the npm package and the image
// have no .git). Read with plain file reads (no `git` process); anything missing is 'unknown'. `store --version` and
// GET /api/admin/version both answer from here.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export interface BuildInfo {
  version: string;
  /** The git commit the code was started from (40 hex digits; from a build argument, at least 7), or 'unknown'. */
  build: string;
}

function read(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The directory holding package.json, walking up from `start`. */
function packageRoot(start: string): string | undefined {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The commit HEAD names, following a worktree's `.git` file, loose refs and packed-refs. */
export function gitCommit(root: string): string | undefined {
  let gitDir = join(root, '.git');
  if (!existsSync(gitDir)) return undefined;
  if (statSync(gitDir).isFile()) {
    const pointer = /^gitdir:\s*(.+)$/m.exec(read(gitDir) ?? '');
    if (!pointer) return undefined;
    gitDir = resolve(root, (pointer[1] as string).trim());
  }
  const head = (read(join(gitDir, 'HEAD')) ?? '').trim();
  if (/^[0-9a-f]{40}$/.test(head)) return head;
  const ref = /^ref:\s*(\S+)$/.exec(head)?.[1];
  if (!ref) return undefined;
  const commonDir = resolve(gitDir, (read(join(gitDir, 'commondir')) ?? '.').trim());
  for (const dir of [gitDir, commonDir]) {
    const loose = (read(join(dir, ref)) ?? '').trim();
    if (/^[0-9a-f]{40}$/.test(loose)) return loose;
  }
  for (const line of (read(join(commonDir, 'packed-refs')) ?? '').split('\n')) {
    const [sha, name] = line.trim().split(' ');
    if (name === ref && sha && /^[0-9a-f]{40}$/.test(sha)) return sha;
  }
  return undefined;
}

/** The commit recorded at build time by scripts/write-build-info.mjs, if it is a commit. */
function recordedCommit(root: string): string | undefined {
  try {
    const { commit } = JSON.parse(read(join(root, 'dist', 'build-info.json')) ?? '{}') as { commit?: unknown };
    return typeof commit === 'string' && /^[0-9a-f]{7,40}$/.test(commit) ? commit : undefined;
  } catch {
    return undefined;
  }
}

/** The running build, found from `start` (a directory inside the installed package). */
export function readBuildInfo(start: string): BuildInfo {
  const root = packageRoot(start);
  if (!root) return { version: 'unknown', build: 'unknown' };
  let version = 'unknown';
  try {
    const parsed = JSON.parse(read(join(root, 'package.json')) ?? '{}') as { version?: unknown };
    if (typeof parsed.version === 'string') version = parsed.version;
  } catch {
    // a broken package.json only loses the version
  }
  return { version, build: gitCommit(root) ?? recordedCommit(root) ?? 'unknown' };
}
