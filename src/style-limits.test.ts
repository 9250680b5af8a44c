// The limit of STYLE.md that no comment may lift: no source file over 800 lines. (ESLint's max-lines of 400 in
// eslint.config.mjs can be disabled with a reasoned comment; this cap cannot.)
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const HARD_CAP = 800;
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const SKIP = new Set(['node_modules', 'dist', 'coverage', 'results', 'test-artifacts', '.tmp', 'data']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.') || SKIP.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return SOURCE.test(entry.name) ? [path] : [];
  });
}

describe('source file length', () => {
  it(`keeps every source file at or under ${HARD_CAP} lines`, () => {
    const files = ['src', 'test', 'bench', 'web/src', 'scripts', 'bin'].flatMap((dir) => sourceFiles(join(root, dir)));
    expect(files.length).toBeGreaterThan(100);
    const tooLong = files
      .map((path) => ({ path: relative(root, path), lines: readFileSync(path, 'utf8').split('\n').length }))
      .filter((file) => file.lines > HARD_CAP);
    expect(tooLong).toEqual([]);
  });
});
