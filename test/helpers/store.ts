// The one fixture of the integration, e2e and fault suites: a real server (bin/store.js) on a random port with a temp
// data directory, with its S3 clients, an admin session and fresh buckets. `useStore()` owns one server's lifecycle
// for a file or a describe block; `startStore()` starts one inside a test and stops it when the test finishes.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand, type CreateBucketCommandInput, type S3Client } from '@aws-sdk/client-s3';
import type * as Minio from 'minio';
import { afterAll, beforeAll, onTestFinished } from 'vitest';
import { adminCall, adminLogin } from './admin-session.js';
import { minioClient, sdkClient, uniqueBucket } from './clients.js';
import { restartServer, startServer, tempDir, type Credentials, type RunningServer } from './server.js';

export interface StoreOptions {
  /** Extra or overriding environment variables (see baseEnv for the defaults). */
  env?: Record<string, string>;
  /**
   * Use this data directory and leave it in place when done (a fixture on disk, a size-limited tmpfs); by default
   * a fresh one under a temp root that the store removes when it is disposed.
   */
  dataDir?: string;
  /** The server process's umask, as an octal string ('000'); default: inherited. */
  umask?: string;
  /**
   * The temp root on tmpfs (/dev/shm) when there is one. Every write fsyncs three times, which costs ~15 ms a
   * request on a disk: tests that write thousands of objects or hundreds of MiB, and are not about durability,
   * run on tmpfs, where fsync is free.
   */
  tmpfs?: boolean;
  /**
   * What the clients sign with and sign in as, when `env` gives the server its own keys (a fixture's data directory).
   */
  credentials?: Partial<Credentials>;
}

/** Options, or a function that returns them at start: for values an earlier beforeAll makes (a receiver's URL). */
export type StoreSetup = StoreOptions | (() => StoreOptions);

/**
 * One server and what tests use with it. Its data directory survives stop(), kill() and restart(); dispose() ends all.
 */
export class Store {
  private opts: StoreOptions | undefined;
  private root: string | undefined;
  private running: RunningServer | undefined;
  private s3Client: S3Client | undefined;
  private minioClient: Minio.Client | undefined;
  private token: Promise<string> | undefined;

  constructor(private readonly setup: StoreSetup = {}) {}

  /** The running server (the latest after a restart). Throws before the store has started. */
  get server(): RunningServer {
    if (this.running === undefined) throw new Error('the store has not started: useStore() starts it in beforeAll');
    return this.running;
  }

  /** The data directory, the same across restarts. */
  get dataDir(): string {
    return this.server.dataDir;
  }

  /**
   * @aws-sdk/client-s3 with the root key (its endpoint below MOUNT_PATH), made on first use; destroyed at a stop or a
   * restart (the port changes).
   */
  get s3(): S3Client {
    this.s3Client ??= sdkClient(this.mounted, this.credentials);
    return this.s3Client;
  }

  /** minio-js with the root key, made on first use. */
  get minio(): Minio.Client {
    this.minioClient ??= minioClient({ ...this.server, credentials: this.credentials });
    return this.minioClient;
  }

  /**
   * A bearer token of the bootstrap admin: signed in on the first call after each (re)start, then cached. Sign-in is
   * limited to 5 a minute per client (see adminLogin): one cached session keeps a file well below it.
   */
  admin(): Promise<string> {
    this.token ??= adminLogin(this.mounted, 'admin', this.credentials.adminPassword).catch((err: unknown) => {
      this.token = undefined;
      throw err;
    });
    return this.token;
  }

  /** A JSON call to /api/admin<path> (below MOUNT_PATH) as the bootstrap admin (see adminCall). */
  async adminCall(method: string, path: string, body?: unknown): ReturnType<typeof adminCall> {
    return adminCall(this.mounted, await this.admin(), { method: method, path: path, body: body });
  }

  /** Creates a bucket no other test uses, through S3's CreateBucket (`input` adds options), and returns its name. */
  async bucket(prefix = 'b', input: Omit<CreateBucketCommandInput, 'Bucket'> = {}): Promise<string> {
    const name = uniqueBucket(prefix);
    await this.s3.send(new CreateBucketCommand({ ...input, Bucket: name }));
    return name;
  }

  async start(): Promise<RunningServer> {
    if (this.opts !== undefined) throw new Error('the store has already started: use restart()');
    const opts = typeof this.setup === 'function' ? this.setup() : this.setup;
    this.opts = opts;
    if (opts.dataDir === undefined)
      this.root = opts.tmpfs && existsSync('/dev/shm') ? mkdtempSync('/dev/shm/store-it-') : tempDir();
    const dataDir = opts.dataDir ?? join(this.root as string, 'data');
    this.running = await startServer({ env: opts.env, dataDir, keepDataDir: true, umask: opts.umask });
    return this.running;
  }

  /** SIGTERM and wait for the exit (see RunningServer.stop); resolves with the exit code. Keeps the data directory. */
  async stop(timeoutMs?: number): Promise<number | null> {
    this.forget();
    return this.running === undefined ? null : this.running.stop(timeoutMs);
  }

  /** kill -9, as a crash. Keeps the data directory. */
  async kill(): Promise<void> {
    this.forget();
    await this.running?.kill();
  }

  /**
   * Stops the server if it still runs, and starts it again on the same data directory with the same environment
   * plus `extraEnv`. Clients and the admin session are made afresh on their next use.
   */
  async restart(extraEnv: Record<string, string> = {}): Promise<RunningServer> {
    const previous = this.server;
    await this.stop();
    this.running = await restartServer(previous, extraEnv);
    return this.running;
  }

  /** Stops the server (if it runs) and removes the temp root this store made. */
  async dispose(): Promise<void> {
    await this.stop();
    if (this.root !== undefined) rmSync(this.root, { recursive: true, force: true });
  }

  /** The server as its clients see it: its URL below MOUNT_PATH when there is one. */
  private get mounted(): RunningServer {
    const mount = this.server.env['MOUNT_PATH'] ?? '';
    return mount === '' ? this.server : { ...this.server, url: `${this.server.url}${mount}` };
  }

  private get credentials(): Credentials {
    return { ...this.server.credentials, ...this.opts?.credentials };
  }

  private forget(): void {
    this.s3Client?.destroy();
    this.s3Client = undefined;
    this.minioClient = undefined;
    this.token = undefined;
  }
}

/**
 * One server for the tests of the enclosing file or describe block: started in beforeAll, stopped and its data
 * directory removed in afterAll (which runs when a test or beforeAll failed too). Call it where the tests are
 * declared; use the returned store inside tests and hooks.
 */
export function useStore(setup: StoreSetup = {}): Store {
  const store = new Store(setup);
  beforeAll(async () => {
    await store.start();
  });
  afterAll(() => store.dispose());
  return store;
}

/**
 * Something the tests of the enclosing file or describe block share (a replication target, an in-process app, a
 * proxy): made by `start` in beforeAll, ended by `end` in afterAll. The getter throws before beforeAll has run.
 */
export function useResource<T>(what: string, start: () => Promise<T>, end: (value: T) => unknown): () => T {
  let value: { current: T } | undefined;
  beforeAll(async () => {
    value = { current: await start() };
  });
  afterAll(async () => {
    if (value !== undefined) await end(value.current);
  });
  return () => {
    if (value === undefined) throw new Error(`${what} has not started: it starts in beforeAll`);
    return value.current;
  };
}

/**
 * A temp directory for the tests of the enclosing file or describe block (client configs, files to upload), removed
 * in afterAll. It is made when the tests are collected, so its path is known to everything declared after it.
 */
export function useTempDir(prefix?: string): string {
  const dir = tempDir(prefix);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Starts a server inside a test (several at once, crash loops, a server per case). It is disposed when the test
 * finishes, whether it passed or not (vitest's onTestFinished): call it from a test, not from a hook.
 */
export async function startStore(opts: StoreOptions = {}): Promise<Store> {
  const store = new Store(opts);
  onTestFinished(() => store.dispose());
  await store.start();
  return store;
}
