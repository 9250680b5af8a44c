/* eslint-disable max-lines -- one server with short timeouts shared by every slow-client case */
// Slow and hostile clients against the real server (docs/s3-compatibility.md "Connections and slow clients"):
// slowloris headers, connections that never send, and trickled bodies (S3 PUT and part, admin upload and part) are
// cut by the timeouts while normal requests keep being served and a slow but steady upload still succeeds;
// 10,000 idle connections do not stop service; and an upload aborted mid-body (single PUT, multipart part,
// aws-chunked mid-chunk, admin upload and part) leaves nothing behind: no object, no part, no staging file, no
// blob. Header and XML size limits are in test/integration/request-limits.test.ts (fast, run by `npm test`).

import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import {
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  ListObjectsV2Command,
  ListPartsCommand,
} from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { chunkContextFromHeaders, encodeAwsChunked } from '../../src/sigv4/chunked-encoder.js';
import { adminCall } from '../helpers/admin-session.js';
import { latencyProbe, quantile } from '../helpers/latency-probe.js';
import { waitFor } from '../helpers/replication.js';
import { signedHeaders } from '../helpers/signed-http.js';
import { useStore } from '../helpers/store.js';

const IDLE_CONNECTIONS = 10_000;
const BUCKET = 'hostile';

const store = useStore();
let token: string;

/**
 * Raises a process's open-files limit: the usual soft default of 1,024 cannot hold 10,000 sockets. To 65,536 where
 * allowed (root with CAP_SYS_RESOURCE), else the soft limit up to the hard one (always allowed). Throws if that is
 * still too few: the machine, not Store, cannot run the test.
 */
function raiseFileLimit(pid: number): void {
  try {
    execFileSync('prlimit', ['--pid', String(pid), '--nofile=65536:65536'], { stdio: 'ignore' });
  } catch {
    const hard =
      /^Max open files\s+\d+\s+(\d+|unlimited)/m.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'))?.[1] ?? '0';
    execFileSync('prlimit', ['--pid', String(pid), `--nofile=${hard}:${hard}`]);
  }
  const soft = Number(/^Max open files\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'))?.[1] ?? 0);
  if (soft < IDLE_CONNECTIONS + 1000)
    throw new Error(`process ${pid} may open only ${soft} files; the test needs ${IDLE_CONNECTIONS + 1000}`);
}

function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** Every file under a directory of the data dir, recursively (blob files, staging files). */
function filesUnder(dir: string): string[] {
  return readdirSync(join(store.server.dataDir, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

function headOf(method: string, path: string, headers: Record<string, string>): string {
  return `${method} ${path} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n`;
}

/** A signed S3 request head; the body is sent unsigned (UNSIGNED-PAYLOAD) with this Content-Length. */
function s3Head(
  method: string,
  path: string,
  { length, extra = {} }: { length: number; extra?: Record<string, string> },
): string {
  return headOf(
    method,
    path,
    signedHeaders(store.server, {
      method,
      path,
      headers: { 'content-length': String(length), ...extra },
      sign: { payloadHash: 'UNSIGNED-PAYLOAD' },
    }),
  );
}

function adminHead(method: string, path: string, length: number): string {
  return headOf(method, `/api/admin${path}`, {
    host: `127.0.0.1:${store.server.port}`,
    authorization: `Bearer ${token}`,
    'content-type': 'application/octet-stream',
    'content-length': String(length),
  });
}

interface Tracked {
  name: string;
  socket: Socket;
  openedAt: number;
  closedAt?: number;
  answer: string;
}

/** Opens a connection, writes `head` (if any), then one byte of `trickle` every `everyMs` until it is closed. */
function slowClient(name: string, opts: { head?: string; trickle?: Buffer; everyMs?: number }): Tracked {
  const socket = connect(store.server.port, '127.0.0.1');
  const t: Tracked = { name, socket, openedAt: Date.now(), answer: '' };
  socket.on('error', () => undefined);
  socket.on('data', (d: Buffer) => {
    t.answer += d.toString('latin1');
  });
  let i = 0;
  let timer: NodeJS.Timeout | undefined;
  socket.on('connect', () => {
    if (opts.head) socket.write(opts.head);
    const bytes = opts.trickle;
    if (!bytes) return;
    timer = setInterval(() => {
      if (socket.destroyed || i >= bytes.length) return;
      socket.write(bytes.subarray(i, i + 1));
      i++;
    }, opts.everyMs ?? 1000);
  });
  socket.once('close', () => {
    clearInterval(timer);
    t.closedAt = Date.now();
  });
  return t;
}

const statusOf = (answer: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
const codeOf = (answer: string): string | undefined =>
  /<Code>([^<]*)<\/Code>/.exec(answer)?.[1] ?? /"error":"([^"]+)"/.exec(answer)?.[1];

/** Connects, sends `head` and the first `sendBytes` of `body`, then drops the connection. */
function abortMidBody(head: string, body: Buffer, sendBytes: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(store.server.port, '127.0.0.1', () => {
      socket.write(head);
      socket.write(body.subarray(0, sendBytes), () => setTimeout(() => socket.destroy(), 100));
    });
    socket.on('error', () => undefined);
    socket.once('close', () => resolve());
  });
}

beforeAll(async () => {
  raiseFileLimit(store.server.process.pid as number);
  raiseFileLimit(process.pid);
  await store.s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  token = await store.admin();
});

describe('slow clients', () => {
  it('cuts slowloris headers, silent connections and trickled bodies, while requests go on and a steady upload succeeds', async () => {
    const blobsBefore = filesUnder('blobs');
    const s3Upload = await store.s3.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: 'slow-part' }));
    const adminUpload = (
      await adminCall(store.server, token, {
        method: 'POST',
        path: `/buckets/${BUCKET}/uploads`,
        body: { key: 'slow-admin-part' },
      })
    ).body as { uploadId: string };
    const MB = 1_000_000;
    const drip = Buffer.alloc(MB, 0x61);
    const clients: Tracked[] = [
      ...Array.from({ length: 10 }, (_, i) =>
        slowClient(`headers-${i}`, {
          trickle: Buffer.from(`GET /${BUCKET}/x HTTP/1.1\r\nHost: x\r\n${'X-Pad: y\r\n'.repeat(100)}`),
        }),
      ),
      ...Array.from({ length: 10 }, (_, i) => slowClient(`silent-${i}`, {})),
      ...Array.from({ length: 5 }, (_, i) =>
        slowClient(`body-${i}`, {
          head: s3Head('PUT', `/${BUCKET}/slow-body-${i}`, { length: MB }),
          trickle: drip,
          everyMs: 500,
        }),
      ),
      slowClient('s3-part', {
        head: s3Head(
          'PUT',
          `/${BUCKET}/slow-part?partNumber=1&uploadId=${encodeURIComponent(s3Upload.UploadId as string)}`,
          { length: MB },
        ),
        trickle: drip,
        everyMs: 500,
      }),
      slowClient('admin-upload', {
        head: adminHead('PUT', `/buckets/${BUCKET}/objects/content?key=slow-admin`, MB),
        trickle: drip,
        everyMs: 500,
      }),
      slowClient('admin-part', {
        head: adminHead(
          'PUT',
          `/buckets/${BUCKET}/uploads/part?key=slow-admin-part&uploadId=${adminUpload.uploadId}&partNumber=1`,
          MB,
        ),
        trickle: drip,
        everyMs: 500,
      }),
    ];
    // Slow but steady: 1 KiB a second (twice the minimum rate) for 30 s is served.
    const steadyBody = Buffer.alloc(30 * 1024, 0x62);
    const steady = slowClient('steady', {
      head: s3Head('PUT', `/${BUCKET}/steady`, { length: steadyBody.length, extra: { connection: 'close' } }),
    });
    let steadySent = 0;
    const steadyTimer = setInterval(() => {
      if (steadySent >= steadyBody.length || steady.socket.destroyed) return;
      steady.socket.write(steadyBody.subarray(steadySent, steadySent + 1024));
      steadySent += 1024;
    }, 1000);

    // Service goes on meanwhile: a probe every few seconds until every slow connection is closed.
    const probes: number[] = [];
    const deadline = Date.now() + 55_000;
    while (clients.some((c) => c.closedAt === undefined) && Date.now() < deadline) {
      const { latencies } = await latencyProbe(store.server, {
        bucket: BUCKET,
        prefix: `during/${probes.length}/`,
        count: 10,
      });
      probes.push(quantile(latencies, 1));
      await new Promise((r) => setTimeout(r, 3000));
    }
    await waitFor('the steady upload to finish', () => steady.closedAt !== undefined, {
      timeoutMs: 20_000,
      everyMs: 200,
    });
    clearInterval(steadyTimer);
    for (const c of clients) c.socket.destroy();

    const lifetime = (c: Tracked): number => (c.closedAt ?? Number.POSITIVE_INFINITY) - c.openedAt;
    const range = (prefix: string): string => {
      const ms = clients.filter((c) => c.name.startsWith(prefix)).map(lifetime);
      return `${(Math.min(...ms) / 1000).toFixed(1)}-${(Math.max(...ms) / 1000).toFixed(1)} s`;
    };
    console.log(
      `slow clients cut after: headers ${range('headers')}, silent ${range('silent')}, S3 bodies ${range('body')}, ` +
        `S3 part ${range('s3-part')}, admin upload ${range('admin-upload')}, admin part ${range('admin-part')}; ` +
        `steady 1 KiB/s upload: ${statusOf(steady.answer)} after ${(lifetime(steady) / 1000).toFixed(1)} s; ` +
        `slowest request meanwhile ${Math.max(...probes).toFixed(0)} ms over ${probes.length} probes`,
    );
    for (const c of clients) {
      // Headers: 30 s, checked every 5 s. Bodies: 20 s of grace plus what the few bytes sent earned.
      const [min, max] =
        c.name.startsWith('headers') || c.name.startsWith('silent') ? [29_000, 45_000] : [19_000, 35_000];
      expect(lifetime(c), c.name).toBeGreaterThanOrEqual(min);
      expect(lifetime(c), c.name).toBeLessThanOrEqual(max);
      expect({ name: c.name, status: statusOf(c.answer), code: codeOf(c.answer) }).toEqual({
        name: c.name,
        status: 400,
        code: 'RequestTimeout',
      });
    }
    expect(statusOf(steady.answer)).toBe(200);
    expect(probes.length).toBeGreaterThan(3);

    // The cut uploads left nothing: no object, no part, no staging file, no blob but the steady upload's.
    const listed = await store.s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'slow' }));
    expect(listed.Contents ?? []).toEqual([]);
    for (const [key, uploadId] of [
      ['slow-part', s3Upload.UploadId],
      ['slow-admin-part', adminUpload.uploadId],
    ] as const) {
      const parts = await store.s3.send(new ListPartsCommand({ Bucket: BUCKET, Key: key, UploadId: uploadId }));
      expect(parts.Parts ?? [], key).toEqual([]);
    }
    await waitFor('the staging area to be empty', () => filesUnder('tmp').length === 0, {
      timeoutMs: 5000,
      everyMs: 50,
    });
    const during = (await store.s3.send(new ListObjectsV2Command({ Bucket: BUCKET }))).KeyCount ?? 0;
    expect(filesUnder('blobs').length - blobsBefore.length).toBeLessThanOrEqual(during);
  });
});

describe('10,000 idle connections', () => {
  it('do not stop service: S3 requests succeed at a reasonable latency while they are open, and they are let go', async () => {
    const pid = store.server.process.pid as number;
    const before = await latencyProbe(store.server, { bucket: BUCKET, prefix: 'idle-before/', count: 100 });
    const fdsBefore = openFds(pid);
    const sockets: Socket[] = [];
    const openedAt = Date.now();
    // In batches, so the connect storm stays within the listen backlog.
    for (let i = 0; i < IDLE_CONNECTIONS; i += 500) {
      await Promise.all(
        Array.from(
          { length: Math.min(500, IDLE_CONNECTIONS - i) },
          () =>
            new Promise<void>((resolve, reject) => {
              const socket = connect(store.server.port, '127.0.0.1', () => resolve());
              socket.on('error', reject);
              sockets.push(socket);
            }),
        ),
      );
    }
    const openMs = Date.now() - openedAt;
    // (Less the probe's few keep-alive connections, which close meanwhile.)
    await waitFor('the server to hold every connection', () => openFds(pid) >= fdsBefore + IDLE_CONNECTIONS - 20, {
      timeoutMs: 10_000,
      everyMs: 100,
    });
    const fdsHeld = openFds(pid);
    try {
      const during = await latencyProbe(store.server, { bucket: BUCKET, prefix: 'idle-during/', count: 100 });
      expect((await fetch(`${store.server.url}/api/admin/health`)).status).toBe(200);
      const stillOpen = sockets.filter((s) => !s.destroyed).length;
      const p99 = { before: quantile(before.latencies, 0.99), during: quantile(during.latencies, 0.99) };
      console.log(
        `${IDLE_CONNECTIONS} idle connections opened in ${openMs} ms; server fds ${fdsBefore} -> ${fdsHeld}; ` +
          `${stillOpen} still open after the probe (${((Date.now() - openedAt) / 1000).toFixed(1)} s); ` +
          `p99 of 200 PUT/GET: ${p99.before.toFixed(1)} ms before, ${p99.during.toFixed(1)} ms with them open`,
      );
      // Every connection was still open while the probe ran (the server closes silent ones only after 30 s).
      expect(stillOpen).toBe(IDLE_CONNECTIONS);
      expect(p99.during).toBeLessThan(4 * p99.before + 250);
    } finally {
      for (const s of sockets) s.destroy();
    }
    await waitFor('the server to let the connections go', () => openFds(pid) <= fdsBefore + 20, {
      timeoutMs: 15_000,
      everyMs: 100,
    });
    console.log(`server fds after closing them: ${openFds(pid)}`);
  });
});

describe('an upload aborted mid-body', () => {
  it('leaves nothing behind: single PUT, multipart part, aws-chunked mid-chunk, admin upload and admin part', async () => {
    const blobsBefore = filesUnder('blobs');
    const big = Buffer.alloc(6 * 1024 * 1024, 0x63);
    const mpu = await store.s3.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: 'cut-part' }));
    const adminMpu = (
      await adminCall(store.server, token, {
        method: 'POST',
        path: `/buckets/${BUCKET}/uploads`,
        body: { key: 'cut-admin-part' },
      })
    ).body as { uploadId: string };

    await abortMidBody(s3Head('PUT', `/${BUCKET}/cut-put`, { length: 2_000_000 }), big, 1_000_000);
    await abortMidBody(
      s3Head('PUT', `/${BUCKET}/cut-part?partNumber=1&uploadId=${encodeURIComponent(mpu.UploadId as string)}`, {
        length: big.length,
      }),
      big,
      2_000_000,
    );
    // aws-chunked: signed chunks of 64 KiB, cut in the middle of one.
    const data = big.subarray(0, 1024 * 1024);
    const path = `/${BUCKET}/cut-chunked`;
    const dummy = {
      signingKey: Buffer.alloc(32),
      seedSignature: '0'.repeat(64),
      amzDate: '20250101T000000Z',
      scope: 'x',
    };
    const length = encodeAwsChunked({ data, chunkSize: 64 * 1024, context: dummy }).length;
    const headers = signedHeaders(store.server, {
      method: 'PUT',
      path,
      headers: {
        'content-encoding': 'aws-chunked',
        'x-amz-decoded-content-length': String(data.length),
        'content-length': String(length),
      },
      sign: { payloadHash: 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD' },
    });
    const encoded = encodeAwsChunked({
      data,
      chunkSize: 64 * 1024,
      context: chunkContextFromHeaders(headers, store.server.credentials.secretAccessKey),
    });
    await abortMidBody(headOf('PUT', path, headers), encoded, Math.floor(encoded.length / 2) + 1000);
    await abortMidBody(adminHead('PUT', `/buckets/${BUCKET}/objects/content?key=cut-admin`, 2_000_000), big, 1_000_000);
    await abortMidBody(
      adminHead(
        'PUT',
        `/buckets/${BUCKET}/uploads/part?key=cut-admin-part&uploadId=${adminMpu.uploadId}&partNumber=1`,
        big.length,
      ),
      big,
      2_000_000,
    );

    await waitFor('the staging area to be empty', () => filesUnder('tmp').length === 0, {
      timeoutMs: 5000,
      everyMs: 50,
    });
    expect(filesUnder('blobs').sort()).toEqual(blobsBefore.sort());
    const listed = await store.s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'cut' }));
    expect(listed.Contents ?? []).toEqual([]);
    for (const [key, uploadId] of [
      ['cut-part', mpu.UploadId],
      ['cut-admin-part', adminMpu.uploadId],
    ] as const) {
      const parts = await store.s3.send(new ListPartsCommand({ Bucket: BUCKET, Key: key, UploadId: uploadId }));
      expect(parts.Parts ?? [], key).toEqual([]);
    }
    // The server noticed each abort and logged it as one request, never as a server error.
    await new Promise((r) => setTimeout(r, 200));
    const errors = store.server
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{') && /"level":"(error|fatal)"|"status":5\d\d/.test(l));
    expect(errors).toEqual([]);
  });
});
