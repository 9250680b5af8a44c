// What `npm pack` puts in the package (.ci/package.sh installs it for real): the built server and console, the
// command, no sources, tests or source maps; and the built server imports nothing from devDependencies, which a
// global install leaves out.

import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/server.js';

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  bin: Record<string, string>;
};

/** The package a bare specifier names: `@scope/name` or `name`. */
const packageOf = (specifier: string): string =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** Bare specifiers the compiled JavaScript loads: static and dynamic imports, require() and createRequire(...)(). */
function bareImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const re of [
    /\bfrom '([^'.][^']*)'/g,
    /\bimport\('([^'.][^']*)'\)/g,
    /\brequire\('([^'.][^']*)'\)/g,
    /\)\('([^'.][^']*)'\)/g,
  ]) {
    for (const m of text.matchAll(re)) found.push(m[1] as string);
  }
  return found;
}

describe('the npm package', () => {
  it('holds the command, the built server and console, docs and packaging files, and no sources, tests or maps', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    });
    const files = (JSON.parse(out) as [{ files: { path: string }[] }])[0].files.map((f) => f.path);
    for (const required of [
      'package.json',
      'README.md',
      'bin/store.js',
      'dist/cli/main.js',
      'dist/main.js',
      'dist/build-info.json',
      'dist/web/index.html',
      'docs/operations.md',
      'packaging/systemd/store.service',
    ]) {
      expect(files, required).toContain(required);
    }
    expect(files.some((f) => f.startsWith('dist/web/assets/') && f.endsWith('.js'))).toBe(true);
    expect(
      files.filter((f) => /^(src|test|web|bench|scripts|node_modules)\/|\.map$|\.test\.js$|^\.env/.test(f)),
    ).toEqual([]);
    expect(Object.values(pkg.bin)).toEqual(['bin/store.js']);
  });

  it('runs on its dependencies alone: the built server imports no devDependency', () => {
    const builtins = new Set(builtinModules);
    const strays = new Set<string>();
    const dist = join(REPO_ROOT, 'dist');
    for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.js') || entry.parentPath.startsWith(join(dist, 'web'))) continue;
      for (const spec of bareImports(join(entry.parentPath, entry.name))) {
        const name = packageOf(spec.replace(/^node:/, ''));
        if (spec.startsWith('node:') || builtins.has(name)) continue;
        if (!(name in pkg.dependencies)) strays.add(`${name} (${entry.name})`);
      }
    }
    expect([...strays]).toEqual([]);
    for (const cli of ['bin/store.js']) {
      for (const spec of bareImports(join(REPO_ROOT, cli)))
        expect(spec.startsWith('node:') || spec in pkg.dependencies, spec).toBe(true);
    }
  });
});
