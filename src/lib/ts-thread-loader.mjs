// Module hooks (https://nodejs.org/api/module.html#customization-hooks) that let a worker thread started from the
// TypeScript sources (start-thread.ts, under vitest) run them: a relative `./x.js` import from a `.ts` file resolves to
// `./x.ts` when only that exists, and a `.ts` file is compiled to JavaScript by oxc's transform, the one Vite (and so
// vitest) compiles the same files with, reached through rolldown, Vite's bundler. Development only: the build runs its
// compiled `.js` files and never loads this file (tsc does not copy it into dist/).

import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'rolldown/utils';

export async function resolve(specifier, context, next) {
  if (context.parentURL?.endsWith('.ts') && /^\.\.?\//.test(specifier) && specifier.endsWith('.js')) {
    const ts = new URL(`${specifier.slice(0, -'.js'.length)}.ts`, context.parentURL);
    if (existsSync(fileURLToPath(ts))) return { url: ts.href, shortCircuit: true };
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
  const file = fileURLToPath(url);
  const { code, errors } = transformSync(file, await readFile(file, 'utf8'), { lang: 'ts' });
  if (errors.length > 0) throw new Error(`${file}: ${errors.map((e) => e.message).join('; ')}`);
  return { format: 'module', source: code, shortCircuit: true };
}
