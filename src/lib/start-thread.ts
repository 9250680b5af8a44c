// Starts a module of ours as a worker thread, the one way every thread starts (the MD5 pool, the WAL checkpointer,
// webhook delivery). The caller names the compiled module beside it (`new URL('./md5-thread.js', import.meta.url)`):
// from the build that file exists and runs as it is. From the TypeScript sources (vitest), there is no `.js` file:
// the `.ts` one starts instead, with ts-thread-loader.mjs registered in the thread (Node 20 cannot run TypeScript
// itself), so the tests run the same thread code as production. See docs/decisions.md, "One way to start a thread".

import { Worker, type WorkerOptions } from 'node:worker_threads';

/** This file is the TypeScript source itself: we run from the sources, not the build. */
const FROM_SOURCES = import.meta.url.endsWith('.ts');

/**
 * A worker running `module` (a `.js` URL beside the caller; a module of any other extension starts as it is).
 * `options.execArgv`, if given, gets the loader's flag appended when running from the sources.
 */
export function startThread(module: URL, options: WorkerOptions = {}): Worker {
  if (!FROM_SOURCES || !module.pathname.endsWith('.js')) return new Worker(module, options);
  const source = new URL(module.href.replace(/\.js$/, '.ts'));
  const loader = new URL('./ts-thread-loader.mjs', import.meta.url).href;
  const register = `data:text/javascript,import{register}from'node:module';register(${JSON.stringify(loader)})`;
  return new Worker(source, { ...options, execArgv: [...(options.execArgv ?? []), '--import', register] });
}
