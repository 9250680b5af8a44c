// Request size limits (docs/s3-compatibility.md "Limits"): a header section over 16 KiB is refused with
// RequestHeaderSectionTooLarge however it gets there; each XML body has a limit that every conforming request fits
// in (1,000 escaped keys for DeleteObjects, 10,000 parts with checksums for CompleteMultipartUpload), and a body
// over it gets MaxMessageLengthExceeded without the server reading what it will not use: at once for a declared
// length, after about the limit for a chunked one.

import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  ListObjectsV2Command,
  HeadObjectCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { signedHeaders } from '../helpers/signed-http.js';
import { useStore } from '../helpers/store.js';

const store = useStore();
let bucket: string;

beforeAll(async () => {
  bucket = await store.bucket('limits');
  await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'keep', Body: 'kept' }));
});

interface Exchange {
  /** The whole answer as text. */
  text: string;
  status: number;
  /** Body bytes written before the answer's first byte arrived. */
  sentBeforeAnswer: number;
}

/**
 * Sends `head` and then, until the server answers, body bytes: `body` once, or chunks of a chunked body without
 * end (`endless`), up to `cap` bytes. Resolves with the answer once the server closes or 1 s after it answered.
 */
function exchange(head: string, opts: { body?: Buffer; endless?: boolean; cap?: number } = {}): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = connect(store.server.port, '127.0.0.1');
    let text = '';
    let sent = 0;
    let sentBeforeAnswer = -1;
    let settle: NodeJS.Timeout | undefined;
    const done = (): void => {
      clearTimeout(settle);
      // No answer read: what was sent before the connection ended.
      if (sentBeforeAnswer < 0) sentBeforeAnswer = sent;
      socket.destroy();
      resolve({ text, status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), sentBeforeAnswer });
    };
    socket.on('error', () => undefined);
    socket.on('data', (d: Buffer) => {
      if (sentBeforeAnswer < 0) sentBeforeAnswer = sent;
      text += d.toString('latin1');
      settle ??= setTimeout(done, 1000);
    });
    socket.on('close', done);
    socket.on('connect', () => {
      socket.write(head);
      if (opts.body) {
        socket.write(opts.body);
        sent += opts.body.length;
      }
      if (!opts.endless) return;
      const chunk = Buffer.concat([
        Buffer.from(`${(64 * 1024).toString(16)}\r\n`),
        Buffer.alloc(64 * 1024, 0x3c),
        Buffer.from('\r\n'),
      ]);
      const pump = (): void => {
        while (sentBeforeAnswer < 0 && !socket.destroyed) {
          if (sent > (opts.cap ?? 64 * 1024 * 1024)) {
            reject(new Error(`no answer after ${sent} bytes`));
            socket.destroy();
            return;
          }
          sent += 64 * 1024;
          if (!socket.write(chunk)) {
            socket.once('drain', pump);
            return;
          }
        }
      };
      pump();
    });
  });
}

/** A signed request head (UNSIGNED-PAYLOAD) with the given framing headers. */
function signedHead(method: string, path: string, headers: Record<string, string>): string {
  const signed = signedHeaders(store.server, { method, path, headers, sign: { payloadHash: 'UNSIGNED-PAYLOAD' } });
  return `${method} ${path} HTTP/1.1\r\n${Object.entries(signed)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n`;
}

const codeOf = (text: string): string | undefined => /<Code>([^<]*)<\/Code>/.exec(text)?.[1];

describe('the header section limit (16 KiB)', () => {
  it('refuses many small headers that add up past it, a long request line, and a signed PUT whose metadata does', async () => {
    const many = await exchange(
      `GET /api/admin/health HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 400 }, (_, i) => `X-H${i}: ${'v'.repeat(40)}\r\n`).join('')}\r\n`,
    );
    expect({ status: many.status, code: codeOf(many.text) }).toEqual({
      status: 400,
      code: 'RequestHeaderSectionTooLarge',
    });
    const longLine = await exchange(`GET /${bucket}/${'k'.repeat(17_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect({ status: longLine.status, code: codeOf(longLine.text) }).toEqual({
      status: 400,
      code: 'RequestHeaderSectionTooLarge',
    });
    const body = Buffer.from('never stored');
    const put = await exchange(
      signedHead('PUT', `/${bucket}/too-many-headers`, {
        'content-length': String(body.length),
        ...Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`x-amz-meta-m${i}`, 'm'.repeat(1000)])),
      }),
      { body },
    );
    expect({ status: put.status, code: codeOf(put.text) }).toEqual({
      status: 400,
      code: 'RequestHeaderSectionTooLarge',
    });
    const listed = await store.s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    expect((listed.Contents ?? []).map((c) => c.Key)).toEqual(['keep']);
  });

  it('accepts a header section just under it', async () => {
    const res = await exchange(
      `GET /api/admin/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Big: ${'a'.repeat(15_000)}\r\n\r\n`,
    );
    expect(res.status).toBe(200);
  });
});

describe('XML body limits', () => {
  it('accepts a DeleteObjects of 1,000 keys of 1,024 escaped characters (~5 MB; it was refused over 1 MiB)', async () => {
    const objects = Array.from({ length: 1000 }, (_, i) => ({
      Key: `${String(i).padStart(4, '0')}${'&'.repeat(1020)}`,
    }));
    const res = await store.s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: objects } }));
    expect(res.Errors ?? []).toEqual([]);
    expect(res.Deleted).toHaveLength(1000);
  });

  it('parses a CompleteMultipartUpload of 10,000 parts with CRC32 checksums (~1.4 MB; it was refused over 1 MiB)', async () => {
    const key = 'ten-thousand';
    const created = await store.s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
    const parts = Array.from({ length: 10_000 }, (_, i) => ({
      PartNumber: i + 1,
      ETag: `"${randomBytes(16).toString('hex')}"`,
      ChecksumCRC32: 'AAAAAA==',
    }));
    // The parts were never uploaded: the document was read and parsed, and its first part is missing.
    await expect(
      store.s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: key,
          UploadId: created.UploadId,
          MultipartUpload: { Parts: parts },
        }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidPart' });
  });

  it.each([
    ['DeleteObjects', 'POST', '?delete', 8 * 1024 * 1024],
    ['CompleteMultipartUpload', 'POST', '/obj?uploadId=whatever', 4 * 1024 * 1024],
    ['PutBucketPolicy', 'PUT', '?policy', 256 * 1024],
    ['PutBucketLifecycleConfiguration', 'PUT', '?lifecycle', 1024 * 1024],
    ['PutBucketTagging', 'PUT', '?tagging', 1024 * 1024],
    // eslint-disable-next-line max-params -- it.each passes one argument per table column
  ])('refuses a %s body declared over its limit before reading it', async (_op, method, suffix, limit) => {
    const path = suffix.startsWith('?') ? `/${bucket}${suffix}` : `/${bucket}${suffix}`;
    const res = await exchange(signedHead(method, path, { 'content-length': String(limit + 1) }));
    expect({ status: res.status, code: codeOf(res.text) }).toEqual({ status: 400, code: 'MaxMessageLengthExceeded' });
    expect(res.sentBeforeAnswer).toBe(0);
    expect(res.text.toLowerCase()).toContain('connection: close');
  });

  it.each([
    ['DeleteObjects', 'POST', '?delete', 8 * 1024 * 1024],
    ['PutBucketPolicy', 'PUT', '?policy', 256 * 1024],
    // eslint-disable-next-line max-params -- it.each passes one argument per table column
  ])('stops reading a chunked %s body without a length at about its limit', async (_op, method, suffix, limit) => {
    const res = await exchange(signedHead(method, `/${bucket}${suffix}`, { 'transfer-encoding': 'chunked' }), {
      endless: true,
    });
    // The server answers 400 and closes with the rest of the body unread. On Node 24 the close can reach a client
    // that is still sending as a reset before it reads the answer (status 0 here); either way it stopped reading.
    if (res.status !== 0)
      expect({ status: res.status, code: codeOf(res.text) }).toEqual({ status: 400, code: 'MaxMessageLengthExceeded' });
    // What was sent before the answer: the limit, plus what socket buffers on both sides hold.
    expect(res.sentBeforeAnswer).toBeGreaterThan(limit);
    expect(res.sentBeforeAnswer).toBeLessThan(limit + 16 * 1024 * 1024);
  });

  it('runs no request pipelined behind a body it refused unread', async () => {
    const limit = 256 * 1024;
    const pipelined = Buffer.from('never stored');
    const next = signedHead('PUT', `/${bucket}/pipelined`, { 'content-length': String(pipelined.length) });
    const res = await new Promise<string>((resolve) => {
      const socket = connect(store.server.port, '127.0.0.1');
      let text = '';
      socket.on('error', () => undefined);
      socket.on('connect', () =>
        socket.write(signedHead('PUT', `/${bucket}?policy`, { 'content-length': String(limit + 1) })),
      );
      socket.once('data', () =>
        socket.write(Buffer.concat([Buffer.alloc(limit + 1, 0x20), Buffer.from(next), pipelined])),
      );
      socket.on('data', (d: Buffer) => {
        text += d.toString('latin1');
      });
      socket.on('close', () => resolve(text));
    });
    expect(codeOf(res)).toBe('MaxMessageLengthExceeded');
    expect(res.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    await expect(store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'pipelined' }))).rejects.toMatchObject({
      name: 'NotFound',
    });
  });

  it('left the bucket as it was and the server answering', async () => {
    const listed = await store.s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    expect((listed.Contents ?? []).map((c) => c.Key)).toEqual(['keep']);
    expect((await fetch(`${store.server.url}/api/admin/health`)).status).toBe(200);
  });
});

describe('an upload refused before its body is read', () => {
  // The answer goes out while the client is still sending; the server then reads and discards the rest for a moment
  // (shared/lingering-close.ts) instead of closing at once, which reset the connection, often before the client had
  // read the answer: it saw "socket hang up" or EPIPE instead of the error.
  it('reaches a client still sending its body, every time', async () => {
    const size = 32 * 1024 * 1024;
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    const outcomes: string[] = [];
    for (let i = 0; i < 12; i++) {
      const headers = signedHeaders(store.server, {
        method: 'PUT',
        path: `/${bucket}/refused-${i}`,
        headers: { 'content-length': String(size) },
        sign: { payloadHash: 'UNSIGNED-PAYLOAD', secretAccessKey: 'not-the-secret-key-000000000000000000000' },
      });
      outcomes.push(
        await new Promise<string>((resolve) => {
          const req = httpRequest(
            {
              host: '127.0.0.1',
              port: store.server.port,
              method: 'PUT',
              path: `/${bucket}/refused-${i}`,
              headers,
              agent: false,
            },
            (res) => {
              let text = '';
              res.on('data', (d: Buffer) => {
                text += d.toString();
              });
              res.on('end', () => resolve(`${res.statusCode} ${codeOf(text) ?? ''}`));
              res.on('error', (err: NodeJS.ErrnoException) =>
                resolve(`${res.statusCode} then ${err.code ?? err.message}`),
              );
            },
          );
          req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
          let sent = 0;
          const pump = (): void => {
            while (sent < size) {
              sent += chunk.length;
              if (!req.write(chunk)) {
                req.once('drain', pump);
                return;
              }
            }
            req.end();
          };
          pump();
        }),
      );
    }
    expect(outcomes).toEqual(Array.from({ length: 12 }, () => '403 SignatureDoesNotMatch'));
  });
});
