import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gitCommit, readBuildInfo } from './build-info.js';

const SHA = 'a'.repeat(40);
const SHA2 = 'b'.repeat(40);
let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'store-build-'));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'x', version: '1.2.3' }));
  mkdirSync(join(root, 'dist', 'deep'), { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('readBuildInfo', () => {
  it("finds the package version from a nested directory, and 'unknown' without git", () => {
    expect(readBuildInfo(join(root, 'dist', 'deep'))).toEqual({ version: '1.2.3', build: 'unknown' });
  });

  it('reads a loose ref, a packed ref and a detached HEAD', () => {
    mkdirSync(join(root, '.git', 'refs', 'heads'), { recursive: true });
    writeFileSync(join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(root, '.git', 'refs', 'heads', 'main'), `${SHA}\n`);
    expect(gitCommit(root)).toBe(SHA);
    rmSync(join(root, '.git', 'refs', 'heads', 'main'));
    writeFileSync(join(root, '.git', 'packed-refs'), `# pack-refs with: peeled\n${SHA2} refs/heads/main\n`);
    expect(gitCommit(root)).toBe(SHA2);
    writeFileSync(join(root, '.git', 'HEAD'), `${SHA}\n`);
    expect(readBuildInfo(root).build).toBe(SHA);
  });

  it("follows a worktree's .git file to its git dir and the common dir's refs", () => {
    const common = join(root, 'main.git');
    const wt = join(common, 'worktrees', 'wt');
    mkdirSync(join(common, 'refs', 'heads'), { recursive: true });
    mkdirSync(wt, { recursive: true });
    writeFileSync(join(wt, 'HEAD'), 'ref: refs/heads/feature\n');
    writeFileSync(join(wt, 'commondir'), '../..\n');
    writeFileSync(join(common, 'refs', 'heads', 'feature'), `${SHA2}\n`);
    const checkout = join(root, 'checkout');
    mkdirSync(checkout);
    writeFileSync(join(checkout, '.git'), `gitdir: ${wt}\n`);
    expect(gitCommit(checkout)).toBe(SHA2);
  });

  it('falls back to the commit the build recorded in dist/build-info.json when there is no .git', () => {
    writeFileSync(join(root, 'dist', 'build-info.json'), JSON.stringify({ commit: SHA2 }));
    expect(readBuildInfo(join(root, 'dist', 'deep'))).toEqual({ version: '1.2.3', build: SHA2 });
    mkdirSync(join(root, '.git'), { recursive: true });
    writeFileSync(join(root, '.git', 'HEAD'), `${SHA}\n`);
    expect(readBuildInfo(root).build).toBe(SHA); // a checkout answers with its HEAD
    rmSync(join(root, '.git'), { recursive: true });
    writeFileSync(join(root, 'dist', 'build-info.json'), JSON.stringify({ commit: 'not a commit' }));
    expect(readBuildInfo(root).build).toBe('unknown');
  });

  it('answers unknown for a ref that does not resolve', () => {
    mkdirSync(join(root, '.git'), { recursive: true });
    writeFileSync(join(root, '.git', 'HEAD'), 'ref: refs/heads/nowhere\n');
    expect(gitCommit(root)).toBeUndefined();
  });
});
