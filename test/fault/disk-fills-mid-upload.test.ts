// A data volume that fills while uploads are streaming in (DATA_DIR on a small tmpfs the test mounts): every surface
// answers 507 InsufficientStorage (S3 XML, the admin envelope), the staging file goes, the process keeps serving; and
// with the free-space reserve on, no mix of concurrent uploads or bodies of unknown size gets past it, so deletes and
// tagging keep working. disk-full.test.ts covers a volume that is already full when the writes arrive.

import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import {
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  PutObjectTaggingCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { adminCall } from '../helpers/admin-session.js';
import { sha256Hex } from '../helpers/data-dir-inspect.js';
import { formWithFile, signedPolicyFields } from '../helpers/post-form.js';
import { waitFor } from '../helpers/replication.js';
import type { RunningServer } from '../helpers/server.js';
import { signedHeaders } from '../helpers/signed-http.js';
import { startStore } from '../helpers/store.js';
import { fill, mountTmpfs, tmpfsUnavailable } from '../helpers/tmpfs.js';

const MiB = 1024 * 1024;
const unavailable = tmpfsUnavailable();
if (unavailable) console.log(`disk-fills-mid-upload suite skipped: ${unavailable}`);

interface Answer {
  status: number;
  /** The S3 <Code> or the admin envelope's `error`. */
  code: string | undefined;
}

/** An HTTP/1.1 request over a raw socket: the head now, the body when and as the caller sends it. */
class RawUpload {
  private readonly socket: Socket;
  private text = '';
  readonly answer: Promise<Answer>;

  constructor(server: RunningServer, head: { method: string; path: string; headers: Record<string, string> }) {
    this.socket = connect(server.port, '127.0.0.1');
    this.socket.on('error', () => undefined);
    this.socket.on('data', (d: Buffer) => {
      this.text += d.toString('latin1');
    });
    this.answer = new Promise((resolve) => {
      const done = (): void => {
        const { status, code } = parseAnswer(this.text);
        resolve({ status, code });
      };
      this.socket.once('close', done);
      this.socket.on('data', () => {
        // One answer is all a test needs: stop at the end of its body.
        const answer = parseAnswer(this.text);
        if (answer.complete) {
          this.socket.destroy();
          done();
        }
      });
    });
    const lines = Object.entries(head.headers)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\r\n');
    this.socket.write(`${head.method} ${head.path} HTTP/1.1\r\n${lines}\r\n\r\n`);
  }

  /** Writes bytes; resolves once the socket has taken them (or is gone). */
  send(bytes: Buffer): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.destroyed) return resolve();
      this.socket.write(bytes, () => resolve());
    });
  }
}

function parseAnswer(text: string): Answer & { complete: boolean } {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return { status: 0, code: undefined, complete: false };
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  const length = Number(/\r\ncontent-length: (\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
  const body = text.slice(end + 4);
  const code = /<Code>([^<]+)<\/Code>/.exec(body)?.[1] ?? /"error":"([^"]+)"/.exec(body)?.[1];
  return { status, code, complete: body.length >= length };
}

/** A signed S3 request head for a body of `length` bytes sent as UNSIGNED-PAYLOAD. */
function s3Upload(
  server: RunningServer,
  opts: { method: string; path: string; length: number; key?: { id: string; secret: string } },
): RawUpload {
  const headers = signedHeaders(server, {
    method: opts.method,
    path: opts.path,
    headers: { 'content-length': String(opts.length) },
    sign: {
      payloadHash: 'UNSIGNED-PAYLOAD',
      ...(opts.key ? { accessKeyId: opts.key.id, secretAccessKey: opts.key.secret } : {}),
    },
  });
  return new RawUpload(server, { method: opts.method, path: opts.path, headers });
}

/** An admin upload, with Content-Length or without (chunked transfer coding, size unknown to the server). */
function adminUpload(
  server: RunningServer,
  token: string,
  opts: { bucket: string; key: string; body: Buffer; chunked: boolean },
): Promise<Answer> {
  const path = `/api/admin/buckets/${opts.bucket}/objects/content?key=${encodeURIComponent(opts.key)}`;
  const headers: Record<string, string> = {
    host: `127.0.0.1:${server.port}`,
    authorization: `Bearer ${token}`,
    'content-type': 'application/octet-stream',
    ...(opts.chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(opts.body.length) }),
  };
  const upload = new RawUpload(server, { method: 'PUT', path, headers });
  void (async () => {
    for (let at = 0; at < opts.body.length; at += 256 * 1024) {
      const piece = opts.body.subarray(at, at + 256 * 1024);
      await upload.send(
        opts.chunked
          ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
          : piece,
      );
    }
    if (opts.chunked) await upload.send(Buffer.from('0\r\n\r\n'));
  })();
  return upload.answer;
}

/** A whole body sent in 256 KiB writes; resolves with the answer. */
async function sendAll(upload: RawUpload, body: Buffer): Promise<Answer> {
  for (let at = 0; at < body.length; at += 256 * 1024) await upload.send(body.subarray(at, at + 256 * 1024));
  return upload.answer;
}

/** A browser-form upload (POST Object): the server learns the file's size only as it reads the form. */
async function postObject(
  server: RunningServer,
  { bucket, key }: { bucket: string; key: string },
  content: Buffer,
): Promise<Answer> {
  const fields = signedPolicyFields({
    bucket,
    accessKeyId: server.credentials.accessKeyId,
    secretAccessKey: server.credentials.secretAccessKey,
    conditions: [['starts-with', '$key', '']],
  });
  const form = formWithFile({ key, ...fields }, { filename: 'f.bin', content });
  const upload = new RawUpload(server, {
    method: 'POST',
    path: `/${bucket}`,
    headers: {
      host: `127.0.0.1:${server.port}`,
      'content-type': form.contentType,
      'content-length': String(form.body.length),
    },
  });
  return sendAll(upload, form.body);
}

const stagingFiles = (server: RunningServer): string[] => readdirSync(join(server.dataDir, 'tmp'));
const stagedBytes = (server: RunningServer): number =>
  stagingFiles(server).reduce((n, f) => n + statSync(join(server.dataDir, 'tmp', f)).size, 0);

async function expectServing(
  server: RunningServer,
  s3: S3Client,
  seeded: { key: string; hash: string },
): Promise<void> {
  expect(server.process.exitCode, server.output().slice(-3000)).toBeNull();
  expect((await fetch(`${server.url}/api/admin/ready`)).status).toBe(200);
  const got = await s3.send(new GetObjectCommand({ Bucket: 'vol', Key: seeded.key }));
  expect(sha256Hex(await got.Body!.transformToByteArray())).toBe(seeded.hash);
  await waitFor('the staging files to go', () => stagingFiles(server).length === 0, { timeoutMs: 5_000 });
}

/**
 * A server on a fresh tmpfs of `size` bytes (unmounted when the test ends), signed in, with bucket `vol` holding one
 * object, `seeded`.
 */
async function seededVolume(size: number, env: Record<string, string>) {
  const volume = mountTmpfs(size);
  onTestFinished(() => volume.unmount());
  const store = await startStore({ dataDir: join(volume.dir, 'data'), env });
  const token = await store.admin();
  await store.s3.send(new CreateBucketCommand({ Bucket: 'vol' }));
  const seededBody = randomBytes(300_000);
  await store.s3.send(new PutObjectCommand({ Bucket: 'vol', Key: 'seeded', Body: seededBody }));
  return {
    volume,
    store,
    server: store.server,
    s3: store.s3,
    token,
    seeded: { key: 'seeded', hash: sha256Hex(seededBody) },
  };
}

describe.skipIf(unavailable !== undefined)('a data volume that fills during uploads', () => {
  it('answers 507 on every surface when the disk fills in the middle of a body, leaves no staging file, and keeps serving', async () => {
    const { volume, store, server, s3, token, seeded } = await seededVolume(24 * MiB, { STORE_MIN_FREE_BYTES: '0' });
    try {
      const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'vol', Key: 'parts' }));
      fill(join(volume.dir, 'filler'), 3 * MiB, volume.free);

      const big = randomBytes(8 * MiB);
      const outcomes: Record<string, Answer> = {
        put: await sendAll(s3Upload(server, { method: 'PUT', path: '/vol/big', length: big.length }), big),
        part: await sendAll(
          s3Upload(server, { method: 'PUT', path: `/vol/parts?partNumber=1&uploadId=${UploadId}`, length: big.length }),
          big,
        ),
        post: await postObject(server, { bucket: 'vol', key: 'posted' }, big),
        adminWithLength: await adminUpload(server, token, { bucket: 'vol', key: 'admin-a', body: big, chunked: false }),
        adminChunked: await adminUpload(server, token, { bucket: 'vol', key: 'admin-b', body: big, chunked: true }),
      };
      console.log('disk filling mid-body (no reserve):', outcomes);
      for (const [surface, answer] of Object.entries(outcomes)) {
        expect(answer, surface).toEqual({ status: 507, code: 'InsufficientStorage' });
        await expectServing(server, s3, seeded);
      }
      // Two concurrent PUTs, each of which fits alone: whichever finds the disk full is refused, the other stored.
      const pair = await Promise.all(
        [1, 2].map((i) =>
          sendAll(s3Upload(server, { method: 'PUT', path: `/vol/pair-${i}`, length: 2 * MiB }), randomBytes(2 * MiB)),
        ),
      );
      for (const answer of pair) expect([200, 507]).toContain(answer.status);
      expect(pair.some((a) => a.status === 507)).toBe(true);
      await expectServing(server, s3, seeded);

      rmSync(join(volume.dir, 'filler'));
      expect(
        (await sendAll(s3Upload(server, { method: 'PUT', path: '/vol/big', length: big.length }), big)).status,
      ).toBe(200);
      const got = await s3.send(new GetObjectCommand({ Bucket: 'vol', Key: 'big' }));
      expect(sha256Hex(await got.Body!.transformToByteArray())).toBe(sha256Hex(big));
      expect(server.output()).not.toMatch(/TypeError|Unhandled|uncaught/i);
    } finally {
      expect(await store.stop()).toBe(0);
    }
  });

  it('holds the free-space reserve against concurrent uploads and bodies of unknown size, so deletes and tagging keep working', async () => {
    const reserve = 8 * MiB;
    const { volume, store, server, s3, token, seeded } = await seededVolume(64 * MiB, {
      STORE_MIN_FREE_BYTES: String(reserve),
    });
    try {
      for (let i = 0; i < 5; i++)
        await s3.send(new PutObjectCommand({ Bucket: 'vol', Key: `old/${i}`, Body: randomBytes(100_000) }));
      const created = await adminCall(server, token, {
        method: 'POST',
        path: '/keys',
        body: { name: 'uploader', permissions: { scope: { bucket: 'vol' } } },
      });
      expect(created.status).toBe(201);
      const scoped = created.body as { accessKeyId: string; secretAccessKey: string };
      const key = { id: scoped.accessKeyId, secret: scoped.secretAccessKey };
      fill(join(volume.dir, 'filler'), reserve + 12 * MiB, volume.free);

      // Upload A (10 MiB) fits; while it is halfway, upload B (10 MiB) would fit only if A's unsent half were
      // forgotten.
      const a = s3Upload(server, { method: 'PUT', path: '/vol/a', length: 10 * MiB, key });
      const aBody = randomBytes(10 * MiB);
      await a.send(aBody.subarray(0, 5 * MiB));
      await waitFor('half of A to be staged', () => stagedBytes(server) >= 4 * MiB, { timeoutMs: 10_000 });
      // Past the reserve's 250 ms reading: a fresh reading must still count what A has not sent yet.
      await new Promise((r) => setTimeout(r, 300));
      const b = await sendAll(
        s3Upload(server, { method: 'PUT', path: '/vol/b', length: 10 * MiB, key }),
        randomBytes(10 * MiB),
      );
      expect(b).toEqual({ status: 507, code: 'InsufficientStorage' });
      await a.send(aBody.subarray(5 * MiB));
      expect((await a.answer).status).toBe(200);

      // About 2 MiB above the reserve now: bodies whose size the server learns only as they arrive are cut at it.
      const big = randomBytes(8 * MiB);
      expect(await postObject(server, { bucket: 'vol', key: 'posted' }, big)).toEqual({
        status: 507,
        code: 'InsufficientStorage',
      });
      expect(await adminUpload(server, token, { bucket: 'vol', key: 'admin-b', body: big, chunked: true })).toEqual({
        status: 507,
        code: 'InsufficientStorage',
      });
      const concurrent = await Promise.all(
        [1, 2, 3, 4].map((i) => postObject(server, { bucket: 'vol', key: `posted-${i}` }, randomBytes(MiB))),
      );
      for (const answer of concurrent) expect([204, 507]).toContain(answer.status);
      expect(volume.free()).toBeGreaterThan(reserve / 2);

      // Under the reserve, what frees space still commits.
      for (let i = 0; i < 5; i++) await s3.send(new DeleteObjectCommand({ Bucket: 'vol', Key: `old/${i}` }));
      await s3.send(
        new PutObjectTaggingCommand({ Bucket: 'vol', Key: 'seeded', Tagging: { TagSet: [{ Key: 'k', Value: 'v' }] } }),
      );
      await expectServing(server, s3, seeded);
      expect(server.output()).not.toMatch(/TypeError|Unhandled|uncaught|SQLITE_FULL/i);
    } finally {
      expect(await store.stop()).toBe(0);
    }
  });
});
