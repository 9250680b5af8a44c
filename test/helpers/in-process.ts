// The real app built and started inside the test process (buildApp), for tests that need its in-process API
// (event handlers) or its test seams (BuildOptions). Same configuration path as `store serve`.

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { buildApp, type App, type BuildOptions } from '../../src/app/app.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import { createLogger } from '../../src/observability/logger.js';
import { baseEnv, tempDir, type RunningServer } from './server.js';
import { useResource } from './store.js';

export interface InProcessApp {
  app: App;
  /** Enough of a RunningServer for the S3 and admin helpers (url, port, credentials). */
  server: RunningServer;
  /** Every log record so far, parsed. */
  logs(): Record<string, unknown>[];
  stop(): Promise<void>;
}

/**
 * Builds and starts the app on a free port with a temp data directory. `overrides` replace configuration values after
 * validation (a test-only interval below the schema's floor).
 */
export async function startInProcess(
  env: Record<string, string> = {},
  options: BuildOptions = {},
  overrides: Partial<Config> = {},
): Promise<InProcessApp> {
  const root = tempDir();
  const base = await baseEnv(join(root, 'data'));
  const config = { ...loadConfig({ ...base.env, LOG_LEVEL: 'warn', ...env }), ...overrides };
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  // Built from the TypeScript sources; its threads (webhook delivery, checkpoints, MD5) run them too
  // (lib/start-thread.ts).
  const app = await buildApp(config, createLogger(config.LOG_LEVEL, sink), options);
  const address = await app.start();
  const server = {
    url: `http://127.0.0.1:${address.port}`,
    port: address.port,
    credentials: base.credentials,
    dataDir: config.DATA_DIR,
  } as RunningServer;
  return {
    app,
    server,
    logs: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
    async stop() {
      await app.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * An in-process app for the tests of the enclosing file or describe block: started in beforeAll, stopped in afterAll.
 */
export function useInProcess(
  env: Record<string, string> | (() => Record<string, string>) = {},
  options: BuildOptions = {},
  overrides: Partial<Config> = {},
): Pick<InProcessApp, 'app' | 'server' | 'logs'> {
  const get = useResource(
    'the in-process app',
    () => startInProcess(typeof env === 'function' ? env() : env, options, overrides),
    (app) => app.stop(),
  );
  return {
    get app() {
      return get().app;
    },
    get server() {
      return get().server;
    },
    logs: () => get().logs(),
  };
}
