// Real replication targets for tests: a second Store, s3rver (from npm, in its own process), and a tiny HTTP
// server that answers 500 to everything. Plus the environment that points a Store at a target, and polling.

import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { CreateBucketCommand, GetObjectCommand, ListObjectsCommand, S3Client } from '@aws-sdk/client-s3';
import { onTestFinished } from 'vitest';
import { REPO_ROOT, tempDir, type RunningServer } from './server.js';
import { Store, useResource } from './store.js';

export interface Target {
  /** The target's S3 endpoint. */
  url: string;
  accessKeyId: string;
  secretAccessKey: string;
  bucket: string;
  /** A client for the target (checksums only when required, so s3rver understands it). */
  client: S3Client;
}

/** Polls `check` until it returns a truthy value (returned) or `timeoutMs` passes (throws with `what`). */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  { timeoutMs = 20_000, everyMs = 100 }: { timeoutMs?: number; everyMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The environment that turns replication on against `target` (plus overrides). */
export function replicationEnv(target: Target, extra: Record<string, string> = {}): Record<string, string> {
  return {
    STORE_REPLICATION_ENABLED: 'true',
    STORE_REPLICATION_BUCKET: target.bucket,
    STORE_REPLICATION_ACCESS_KEY_ID: target.accessKeyId,
    STORE_REPLICATION_SECRET_ACCESS_KEY: target.secretAccessKey,
    STORE_REPLICATION_ENDPOINT: target.url,
    STORE_REPLICATION_REGION: 'us-east-1',
    STORE_REPLICATION_DRAIN_INTERVAL_MS: '100',
    STORE_REPLICATION_RETRY_BASE_MS: '50',
    ...extra,
  };
}

function remoteClient(url: string, accessKeyId: string, secretAccessKey: string): S3Client {
  return new S3Client({
    endpoint: url,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 1,
  });
}

/** A second Store as a replication target: its server (a Store, to stop or restart), and the Target to point at it. */
export interface StoreTarget {
  readonly store: Store;
  readonly server: RunningServer;
  readonly target: Target;
}

/** Starts the target's server and creates its target bucket. */
async function launchStoreTarget(store: Store): Promise<StoreTarget> {
  await store.start();
  const bucket = 'mirror';
  await store.s3.send(new CreateBucketCommand({ Bucket: bucket }));
  const { url, credentials } = store.server;
  const target = {
    url,
    accessKeyId: credentials.accessKeyId,
    secretAccessKey: credentials.secretAccessKey,
    bucket,
    client: remoteClient(url, credentials.accessKeyId, credentials.secretAccessKey),
  };
  return {
    store,
    target,
    get server() {
      return store.server;
    },
  };
}

/** `restartable`: on a fixed port, so store.restart() brings the same target back at the same address. */
async function targetStore(opts: { env?: Record<string, string>; restartable?: boolean }): Promise<Store> {
  const port: Record<string, string> = opts.restartable ? { PORT: String(await freePort()) } : {};
  return new Store({ env: { METRICS_MODE: 'public', ...port, ...opts.env } });
}

async function endStoreTarget(store: Store, started: StoreTarget | undefined): Promise<void> {
  started?.target.client.destroy();
  await store.dispose();
}

/** A second Store as the target, started inside a test and stopped when the test finishes (see startStore). */
export async function startStoreTarget(
  opts: { env?: Record<string, string>; restartable?: boolean } = {},
): Promise<StoreTarget> {
  const store = await targetStore(opts);
  let started: StoreTarget | undefined;
  onTestFinished(() => endStoreTarget(store, started));
  started = await launchStoreTarget(store);
  return started;
}

/** A second Store as the target for the tests of the enclosing file or describe block (started in beforeAll). */
export function useStoreTarget(opts: { env?: Record<string, string> } = {}): StoreTarget {
  const get = useResource(
    'the replication target',
    async () => {
      const store = await targetStore(opts);
      try {
        return await launchStoreTarget(store);
      } catch (err) {
        await store.dispose();
        throw err;
      }
    },
    (started) => endStoreTarget(started.store, started),
  );
  return {
    get store() {
      return get().store;
    },
    get server() {
      return get().server;
    },
    get target() {
      return get().target;
    },
  };
}

/** A free loopback port. */
export async function freePort(): Promise<number> {
  const srv = createNetServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/** s3rver (npm) in its own process, with the target bucket created; its built-in account is S3RVER/S3RVER. */
export async function startS3rverTarget(): Promise<{ target: Target; stop: () => Promise<void> }> {
  const dir = tempDir('s3rver-');
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--openssl-legacy-provider',
      join(REPO_ROOT, 'node_modules/s3rver/bin/s3rver.js'),
      '--silent',
      '--no-vhost-buckets',
      '-a',
      '127.0.0.1',
      '-p',
      String(port),
      '-d',
      dir,
    ],
    { stdio: 'ignore' },
  );
  const url = `http://127.0.0.1:${port}`;
  const client = remoteClient(url, 'S3RVER', 'S3RVER');
  const bucket = 'mirror';
  await waitFor(
    's3rver to listen',
    async () => {
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
      return true;
    },
    { timeoutMs: 15_000, everyMs: 100 },
  );
  return {
    target: { url, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', bucket, client },
    async stop() {
      client.destroy();
      if (child.exitCode === null) {
        child.kill('SIGKILL');
        await new Promise((r) => child.once('exit', r));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** An HTTP server that answers 500 to every request, counting them. */
export async function startFailingTarget(): Promise<{
  target: Target;
  requests: () => number;
  stop: () => Promise<void>;
}> {
  let count = 0;
  const server: Server = createServer((req, res) => {
    count++;
    req.resume();
    req.on('end', () => {
      res.writeHead(500, { 'content-type': 'application/xml' });
      res.end('<Error><Code>InternalError</Code><Message>always</Message></Error>');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    target: {
      url,
      accessKeyId: 'AKIAFAILINGTARGET01',
      secretAccessKey: 'failing-target-secret-0123456789abcdef',
      bucket: 'mirror',
      client: remoteClient(url, 'x', 'y'),
    },
    requests: () => count,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Every key under `prefix` on the target with its size and ETag. */
export async function remoteListing(target: Target, prefix = ''): Promise<Map<string, { size: number; etag: string }>> {
  const out = new Map<string, { size: number; etag: string }>();
  let marker: string | undefined;
  for (;;) {
    const res = await target.client.send(
      new ListObjectsCommand({ Bucket: target.bucket, Prefix: prefix, ...(marker ? { Marker: marker } : {}) }),
    );
    for (const c of res.Contents ?? [])
      out.set(c.Key as string, { size: c.Size ?? 0, etag: (c.ETag ?? '').replace(/"/g, '') });
    if (!res.IsTruncated || !res.Contents?.length) break;
    marker = res.Contents.at(-1)?.Key;
  }
  return out;
}

/** The object's bytes on the target, hashed (SHA-256 hex), with its metadata and content type; undefined if missing. */
export async function remoteObject(
  target: Target,
  key: string,
): Promise<
  { sha256: string; size: number; metadata: Record<string, string>; contentType: string | undefined } | undefined
> {
  try {
    const res = await target.client.send(new GetObjectCommand({ Bucket: target.bucket, Key: key }));
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of res.Body as Readable) {
      hash.update(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
    return { sha256: hash.digest('hex'), size, metadata: res.Metadata ?? {}, contentType: res.ContentType };
  } catch (err) {
    if (
      (err as { name?: string }).name === 'NoSuchKey' ||
      (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404
    )
      return undefined;
    throw err;
  }
}

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** GET /api/admin/replication/status with a token. */
export async function replicationStatus(server: RunningServer, token: string): Promise<ReplicationStatusBody> {
  const res = await fetch(`${server.url}/api/admin/replication/status`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (res.status !== 200) throw new Error(`status ${res.status}`);
  return (await res.json()) as ReplicationStatusBody;
}

export interface ReplicationStatusBody {
  enabled: boolean;
  targetBucket: string;
  outbox: { pending: number; inflight: number; failed: number };
  oldestPendingAgeSeconds: number | null;
  lastDrain: { at: string; count: number; errorClass: string | null } | null;
  tiering: { enabled: boolean; stubs: number; restored: number; rehydrating: number; pendingRemoteDeletes: number };
}

/**
 * A pass-through HTTP proxy in front of a target (Host header kept, so signatures still verify), which can hold
 * GETs of keys under a prefix for `delayMs` (to make a read-through time out) and counts them.
 */
export async function startDelayProxy(targetUrl: string): Promise<{
  url: string;
  setDelay: (prefix: string | undefined, delayMs: number) => void;
  gets: (prefix: string) => number;
  stop: () => Promise<void>;
}> {
  const upstream = new URL(targetUrl);
  let delay: { prefix: string; ms: number } | undefined;
  const counts = new Map<string, number>();
  const { request } = await import('node:http');
  const server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '').split('?')[0] ?? '');
    if (req.method === 'GET') for (const p of [path]) counts.set(p, (counts.get(p) ?? 0) + 1);
    const forward = (): void => {
      const up = request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
        (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      req.pipe(up);
    };
    if (req.method === 'GET' && delay && path.includes(delay.prefix)) setTimeout(forward, delay.ms);
    else forward();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setDelay(prefix, ms) {
      delay = prefix === undefined ? undefined : { prefix, ms };
    },
    gets(prefix) {
      let n = 0;
      for (const [p, c] of counts) if (p.includes(prefix)) n += c;
      return n;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
