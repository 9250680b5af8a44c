// The one listener's promises: request ids on every response, MOUNT_PATH, health and readiness, the admin 404
// envelope, exact-case admin routing, and the access log (one line per request, no signatures, no secrets).

import { randomBytes, randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presignUrl } from '../../src/sigv4/sign.js';
import { uniqueBucket } from '../helpers/clients.js';
import { rawRequest, type RawResponse } from '../helpers/signed-http.js';
import type { RunningServer } from '../helpers/server.js';
import { useStore } from '../helpers/store.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function expectS3Code(res: RawResponse, status: number, code: string): void {
  expect({ status: res.status, code: res.code }, res.text).toEqual({ status, code });
  expect(res.headers['content-type']).toBe('application/xml');
}

function idOf(res: RawResponse): string {
  const id = res.headers['x-request-id'];
  expect(typeof id).toBe('string');
  expect(res.headers['x-amz-request-id']).toBe(id);
  return id as string;
}

/** The JSON lines of the server's output (the banner is plain text). */
function logLines(server: RunningServer): Array<Record<string, unknown>> {
  return server
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Waits for pino's asynchronous destination to flush the line(s) for a request id. */
async function linesFor(server: RunningServer, reqId: string): Promise<Array<Record<string, unknown>>> {
  const deadline = Date.now() + 3000;
  for (;;) {
    const lines = logLines(server).filter((l) => l['reqId'] === reqId);
    if (lines.length > 0 || Date.now() > deadline) {
      await new Promise((r) => setTimeout(r, 100)); // a duplicate line would be written right behind the first
      return logLines(server).filter((l) => l['reqId'] === reqId);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('at the root mount', () => {
  const store = useStore();
  let bucket: string;
  beforeAll(async () => {
    bucket = await store.bucket();
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'hello.txt', Body: 'hello' }));
  });
  afterAll(async () => {
    const secret = store.server.credentials.secretAccessKey;
    expect(await store.stop()).toBe(0);
    // the root secret never appears anywhere in a whole run's output
    expect(store.server.output()).not.toContain(secret);
    expect(store.server.output()).not.toContain(store.server.env['JWT_SECRET']);
  });

  const surfaces: Array<[string, (s: RunningServer, headers: Record<string, string>) => Promise<RawResponse>, number]> =
    [
      ['an S3 success', (s, headers) => rawRequest(s, { method: 'GET', path: '/', headers, sign: true }), 200],
      [
        'an S3 error',
        (s, headers) => rawRequest(s, { method: 'GET', path: '/no-such-bucket-here?list-type=2', headers, sign: true }),
        404,
      ],
      ['an unsigned S3 request', (s, headers) => rawRequest(s, { method: 'GET', path: '/', headers }), 403],
      [
        'an S3 HEAD',
        (s, headers) => rawRequest(s, { method: 'HEAD', path: `/${bucket}/hello.txt`, headers, sign: true }),
        200,
      ],
      [
        'an S3 HEAD of a missing key',
        (s, headers) => rawRequest(s, { method: 'HEAD', path: `/${bucket}/missing.txt`, headers, sign: true }),
        404,
      ],
      [
        'an S3 GET of an object',
        (s, headers) => rawRequest(s, { method: 'GET', path: `/${bucket}/hello.txt`, headers, sign: true }),
        200,
      ],
      [
        'an S3 CORS preflight',
        (s, headers) =>
          rawRequest(s, {
            method: 'OPTIONS',
            path: `/${bucket}/hello.txt`,
            headers: { ...headers, Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET' },
          }),
        403,
      ],
      [
        'the admin health probe',
        (s, headers) => rawRequest(s, { method: 'GET', path: '/api/admin/health', headers }),
        200,
      ],
      [
        'an unknown admin route',
        (s, headers) => rawRequest(s, { method: 'GET', path: '/api/admin/nope', headers }),
        404,
      ],
    ];

  it.each(surfaces)(
    '%s carries one request id in both headers, a new UUID v7 by default',
    async (_label, send, status) => {
      const res = await send(store.server, {});
      expect(res.status).toBe(status);
      expect(idOf(res)).toMatch(UUID_V7);
      const again = await send(store.server, {});
      expect(idOf(again)).not.toBe(idOf(res));
    },
  );

  it.each(surfaces)('%s reuses a UUID-shaped incoming X-Request-Id', async (_label, send) => {
    const incoming = randomUUID();
    expect(idOf(await send(store.server, { 'X-Request-Id': incoming }))).toBe(incoming);
    const upper = randomUUID().toUpperCase();
    expect(idOf(await send(store.server, { 'X-Request-Id': upper })).toLowerCase()).toBe(upper.toLowerCase());
  });

  it.each(surfaces)('%s replaces a malformed incoming X-Request-Id with a UUID v7', async (_label, send) => {
    for (const bad of [
      'abc',
      `${randomUUID()}x`,
      'g'.repeat(8) + randomUUID().slice(8),
      randomUUID().replace(/-/g, ''),
      '<script>',
      `${randomUUID()},${randomUUID()}`,
    ]) {
      const id = idOf(await send(store.server, { 'X-Request-Id': bad }));
      expect(id).toMatch(UUID_V7);
      expect(id).not.toBe(bad);
    }
  });

  it('answers requests Node cannot parse with an S3 error carrying a request id', async () => {
    const send = (text: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const socket = connect(store.server.port, '127.0.0.1', () => socket.write(text));
        let out = '';
        socket.on('data', (d: Buffer) => {
          out += d.toString('latin1');
        });
        socket.on('close', () => resolve(out));
        socket.on('error', reject);
      });
    const cases: Array<[string, string]> = [
      [
        `GET /api/admin/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
        'RequestHeaderSectionTooLarge',
      ],
      ['GET /api/admin/health HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n', 'InvalidRequest'],
      ['NOT-HTTP\r\n\r\n', 'InvalidRequest'],
    ];
    for (const [text, code] of cases) {
      const out = await send(text);
      expect(out).toMatch(/^HTTP\/1\.1 400 /);
      const id = /\r\nX-Request-Id: ([0-9a-f-]+)\r\n/.exec(out)?.[1];
      expect(id).toMatch(UUID_V7);
      expect(out).toContain(`\r\nX-Amz-Request-Id: ${id as string}\r\n`);
      expect(out).toContain(`<Code>${code}</Code>`);
      expect(out).toContain(`<RequestId>${id as string}</RequestId>`);
      expect(await linesFor(store.server, id as string)).toHaveLength(1);
    }
    expect((await fetch(`${store.server.url}/api/admin/health`)).status).toBe(200);
  });

  it('keeps an idle keep-alive connection for 30 s, and says so', async () => {
    // A client that stays busy for longer than Node's 5 s default, then sends on the same connection, is answered.
    const answers = await new Promise<string[]>((resolve, reject) => {
      const socket = connect(store.server.port, '127.0.0.1');
      const seen: string[] = [];
      let text = '';
      socket.on('error', reject);
      socket.on('close', () => resolve(seen));
      socket.on('data', (d: Buffer) => {
        text += d.toString('latin1');
        const end = text.indexOf('\r\n\r\n');
        const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? -1);
        if (end < 0 || length < 0 || text.length < end + 4 + length) return;
        seen.push(`${text.slice(9, 12)} ${/keep-alive: ([^\r]*)/i.exec(text)?.[1] ?? ''}`);
        text = text.slice(end + 4 + length);
        if (seen.length === 1)
          setTimeout(() => socket.write('GET /api/admin/health HTTP/1.1\r\nHost: x\r\n\r\n'), 7000);
        else socket.end();
      });
      socket.write('GET /api/admin/health HTTP/1.1\r\nHost: x\r\n\r\n');
    });
    expect(answers).toEqual(['200 timeout=30', '200 timeout=30']);
  }, 15_000);

  it('S3 error bodies carry the same request id', async () => {
    const res = await rawRequest(store.server, { method: 'GET', path: `/${bucket}/missing`, sign: true });
    expect(res.code).toBe('NoSuchKey');
    expect(res.text).toContain(`<RequestId>${idOf(res)}</RequestId>`);
  });

  it('health and readiness have the documented shapes', async () => {
    const health = await fetch(`${store.server.url}/api/admin/health`);
    expect(health.status).toBe(200);
    const body = (await health.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['status', 'uptime']);
    expect(body['status']).toBe('ok');
    expect(typeof body['uptime']).toBe('number');
    expect(body['uptime']).toBeGreaterThanOrEqual(0);
    const ready = await fetch(`${store.server.url}/api/admin/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
  });

  it('an unknown admin route is a 404 JSON envelope', async () => {
    for (const path of ['/api/admin/nope', '/api/admin', '/api/admin/health/extra']) {
      const res = await fetch(`${store.server.url}${path}`, { method: path === '/api/admin' ? 'POST' : 'GET' });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await res.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(['error', 'message', 'statusCode']);
      expect(body).toMatchObject({ error: 'NotFound', statusCode: 404 });
    }
  });

  it('sends only reads of /admin and /metrics to those surfaces; other methods are S3 requests for a reserved name', async () => {
    for (const path of ['/admin', '/metrics', '/api']) {
      const res = await rawRequest(store.server, { method: 'PUT', path, sign: true });
      expectS3Code(res, 400, 'InvalidBucketName');
    }
    // the metrics endpoint is not served here (METRICS_MODE off): a 404 in the admin envelope, no registry body
    const metrics = await rawRequest(store.server, { method: 'GET', path: '/metrics' });
    expect(metrics.status).toBe(404);
    expect(JSON.parse(metrics.text)).toMatchObject({ error: 'NotFound', statusCode: 404 });
    expect(metrics.text).not.toMatch(/store_process|# HELP/);
    // the console answers its reads (test/integration/console.test.ts)
    for (const path of ['/admin', '/admin/index.html']) {
      const res = await rawRequest(store.server, { method: 'GET', path });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    }
  });

  it('admin paths in another case never reach the admin API', async () => {
    for (const path of ['/api/Admin/health', '/API/ADMIN/health', '/Api/admin/ready']) {
      const res = await rawRequest(store.server, { method: 'GET', path });
      expect(res.status).not.toBe(200);
      expect(res.headers['content-type']).not.toMatch(/json/);
      expect(res.text).not.toContain('"status"');
      // signed, it is an ordinary S3 request for bucket "api" (or "API"), which does not exist
      const signed = await rawRequest(store.server, { method: 'GET', path, sign: true });
      expect(signed.status).toBeGreaterThanOrEqual(400);
      expect(signed.status).toBeLessThan(500);
      expect(signed.text).not.toContain('"status"');
    }
  });

  it('logs exactly one JSON line per request, carrying its request id, for every surface', async () => {
    const cases: Array<[string, () => Promise<RawResponse>]> = [
      ['s3', () => rawRequest(store.server, { method: 'GET', path: `/${bucket}/hello.txt`, sign: true })],
      ['s3', () => rawRequest(store.server, { method: 'GET', path: `/${bucket}/missing`, sign: true })],
      ['admin', () => rawRequest(store.server, { method: 'GET', path: '/api/admin/health' })],
      ['admin', () => rawRequest(store.server, { method: 'GET', path: '/api/admin/nope?x=1' })],
    ];
    for (const [surface, send] of cases) {
      const res = await send();
      const id = idOf(res);
      const lines = await linesFor(store.server, id);
      expect(lines, `${surface} ${id}`).toHaveLength(1);
      expect(lines[0]).toMatchObject({ reqId: id, surface, status: res.status, method: 'GET' });
    }
  });

  it('never logs the signature or credential of a presigned URL or an Authorization header', async () => {
    const url = presignUrl({
      method: 'GET',
      url: new URL(`${store.server.url}/${bucket}/hello.txt?response-content-type=text%2Fplain`),
      accessKeyId: store.server.credentials.accessKeyId,
      secretAccessKey: store.server.credentials.secretAccessKey,
      region: 'us-east-1',
      expiresSeconds: 300,
    });
    const signature = url.searchParams.get('X-Amz-Signature') as string;
    const credential = url.searchParams.get('X-Amz-Credential') as string;
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('hello');
    // a presigned request that fails is logged too, and must be just as clean
    const tampered = new URL(url);
    tampered.searchParams.set('X-Amz-Signature', '0'.repeat(64));
    expect((await fetch(tampered)).status).toBe(403);

    const headerSigned = await rawRequest(store.server, { method: 'GET', path: `/${bucket}/hello.txt`, sign: true });
    expect(headerSigned.status).toBe(200);
    await linesFor(store.server, idOf(headerSigned));
    const output = store.server.output();
    expect(output).toContain('response-content-type');
    expect(output).not.toContain(signature);
    expect(output).not.toContain(credential);
    expect(output).not.toContain(encodeURIComponent(credential));
    // The names stay, to show the request was presigned; their values are redacted (docs/decisions.md).
    expect(output).toContain('X-Amz-Signature=[redacted]');
    expect(output).toContain('X-Amz-Credential=[redacted]');
    expect(output).not.toMatch(/Signature=[0-9a-f]{64}/);
  });
});

describe('under MOUNT_PATH=/storage', () => {
  // The store's SDK client has its endpoint below the mount: http://127.0.0.1:<port>/storage.
  const store = useStore({ env: { MOUNT_PATH: '/storage' } });

  it('serves S3 through the SDK with the prefixed endpoint', async () => {
    const bucket = uniqueBucket();
    const body = randomBytes(3000);
    await store.s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'dir/a b.bin', Body: body }));
    const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'dir/a b.bin' }));
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(body)).toBe(true);
    const list = await store.s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    expect(list.Contents?.map((c) => c.Key)).toEqual(['dir/a b.bin']);
  });

  it('serves the admin API under the prefix', async () => {
    const health = await fetch(`${store.server.url}/storage/api/admin/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    expect((await fetch(`${store.server.url}/storage/api/admin/ready`)).status).toBe(200);
    const nope = await fetch(`${store.server.url}/storage/api/admin/nope`);
    expect(nope.status).toBe(404);
    expect(await nope.json()).toMatchObject({ error: 'NotFound', statusCode: 404 });
  });

  it('answers 404 for everything outside the prefix, with a request id and a log line', async () => {
    for (const path of [
      '/api/admin/health',
      '/api/admin/ready',
      '/bucket',
      '/bucket/key',
      '/',
      '/storagefoo/x',
      '/Storage/api/admin/health',
    ]) {
      const res = await rawRequest(store.server, { method: 'GET', path });
      expect(res.status, path).toBe(404);
      expect(res.text).not.toContain('"status"');
      const id = idOf(res);
      expect(id).toMatch(UUID_V7);
      expect(await linesFor(store.server, id)).toHaveLength(1);
    }
    // signing does not help: the path outside the mount is not an S3 resource
    const signed = await rawRequest(store.server, { method: 'GET', path: '/', sign: true });
    expect(signed.status).toBe(404);
  });
});
