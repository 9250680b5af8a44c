// Real clients against the verifier: a loopback server that only verifies SigV4 and decodes
// aws-chunked bodies, driven by @aws-sdk/client-s3 (default checksum behaviour) and minio-js.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import * as Minio from 'minio';
import { isAppError } from '../core/errors.js';
import { verifyRequest } from './verify.js';
import { createChunkedDecoder } from './chunked-decoder.js';
import type { VerifiedRequest } from './types.js';

const AKID = 'STOREINTEROPKEY';
const SECRET = 'interop/secret+key=with/odd+chars';

interface Seen {
  method: string;
  url: string;
  verified: VerifiedRequest | undefined;
  error: string | undefined;
  body: Buffer;
  trailers: Map<string, string>;
}

let server: http.Server;
let endpoint = '';
const seen: Seen[] = [];

async function readBody(
  req: http.IncomingMessage,
  v: VerifiedRequest | undefined,
): Promise<{ body: Buffer; trailers: Map<string, string> }> {
  const parts: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _e, cb) {
      parts.push(chunk);
      cb();
    },
  });
  if (v?.payload.kind === 'chunked') {
    const decoder = createChunkedDecoder({
      signed: v.payload.signedChunks,
      context: v.chunkContext,
      hasTrailer: v.payload.hasTrailer,
    });
    await pipeline(req, decoder, sink);
    return { body: Buffer.concat(parts), trailers: decoder.trailers };
  }
  await pipeline(req, sink);
  const body = Buffer.concat(parts);
  if (v?.payload.kind === 'signed' && createHash('sha256').update(body).digest('hex') !== v.payload.sha256) {
    throw new Error('XAmzContentSHA256Mismatch');
  }
  return { body, trailers: new Map() };
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const entry: Seen = {
    method: req.method ?? '',
    url,
    verified: undefined,
    error: undefined,
    body: Buffer.alloc(0),
    trailers: new Map(),
  };
  seen.push(entry);
  try {
    entry.verified = verifyRequest(
      {
        method: entry.method,
        rawPath: q < 0 ? url : url.slice(0, q),
        rawQuery: q < 0 ? '' : url.slice(q + 1),
        headers: req.headers,
      },
      {
        lookup: (id) => (id === AKID ? SECRET : undefined),
        region: { name: 'us-east-1', strict: true },
        now: new Date(),
        sigv2: true,
      },
    );
    Object.assign(entry, await readBody(req, entry.verified));
  } catch (err) {
    entry.error = isAppError(err) ? err.code : String(err);
    req.resume();
    res.writeHead(403, { 'content-type': 'application/xml' });
    res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${entry.error}</Code><Message>x</Message></Error>`);
    return;
  }
  if (entry.method === 'GET' && url.includes('list-type=2')) {
    res.writeHead(200, { 'content-type': 'application/xml' });
    res.end(
      '<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>bucket</Name><KeyCount>0</KeyCount><IsTruncated>false</IsTruncated></ListBucketResult>',
    );
    return;
  }
  const payload = entry.method === 'GET' ? Buffer.from('hello') : Buffer.alloc(0);
  res.writeHead(200, {
    etag: '"5d41402abc4b2a76b9719d911017c592"',
    'content-length': String(payload.length),
    'last-modified': new Date().toUTCString(),
  });
  res.end(payload);
}

beforeAll(async () => {
  server = http.createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function lastSeen(): Seen {
  const entry = seen[seen.length - 1];
  if (entry === undefined) throw new Error('the server saw no request');
  return entry;
}

const KEYS = [
  'plain.txt',
  'a//b/../c/./d',
  'with  space',
  '100%',
  'a+b=c&d?e#f',
  '\u00fc/\u65e5\u672c/\u{1F600}',
  "~!*()'$@,;:",
  '%2F%zz',
];

describe('@aws-sdk/client-s3 against verifyRequest', () => {
  const client = (): S3Client =>
    new S3Client({
      region: 'us-east-1',
      endpoint,
      forcePathStyle: true,
      maxAttempts: 1,
      credentials: { accessKeyId: AKID, secretAccessKey: SECRET },
    });

  it.each(KEYS)('GetObject %j verifies', async (key) => {
    const out = await client().send(new GetObjectCommand({ Bucket: 'bucket', Key: key }));
    expect(await out.Body?.transformToString()).toBe('hello');
    expect(lastSeen()).toMatchObject({ error: undefined, verified: { via: 'header', accessKeyId: AKID } });
  });

  it('PutObject with a Buffer body verifies with a signed payload hash', async () => {
    await client().send(
      new PutObjectCommand({
        Bucket: 'bucket',
        Key: 'a b/c+d',
        Body: Buffer.from('payload'),
        Metadata: { note: 'x  y' },
      }),
    );
    const entry = lastSeen();
    expect(entry.error).toBeUndefined();
    expect(entry.body.toString()).toBe('payload');
  });

  it('PutObject with a stream body is aws-chunked with a checksum trailer, decoded intact', async () => {
    const data = Buffer.alloc(300_000, 7);
    await client().send(
      new PutObjectCommand({
        Bucket: 'bucket',
        Key: 'stream/k',
        Body: Readable.from([data.subarray(0, 100_000), data.subarray(100_000)]),
        ContentLength: data.length,
      }),
    );
    const entry = lastSeen();
    expect(entry.error).toBeUndefined();
    expect(entry.verified?.payload).toMatchObject({ kind: 'chunked', hasTrailer: true, decodedLength: data.length });
    expect(entry.body.equals(data)).toBe(true);
    expect([...entry.trailers.keys()].some((name) => name.startsWith('x-amz-checksum-'))).toBe(true);
  });

  it('ListObjectsV2 with an awkward prefix verifies', async () => {
    await client().send(
      new ListObjectsV2Command({ Bucket: 'bucket', Prefix: 'a b+c/\u00fc=&', Delimiter: '/', StartAfter: '%' }),
    );
    expect(lastSeen().error).toBeUndefined();
  });

  it('a wrong secret is refused with SignatureDoesNotMatch', async () => {
    const bad = new S3Client({
      region: 'us-east-1',
      endpoint,
      forcePathStyle: true,
      maxAttempts: 1,
      credentials: { accessKeyId: AKID, secretAccessKey: 'wrong' },
    });
    await expect(bad.send(new GetObjectCommand({ Bucket: 'bucket', Key: 'k' }))).rejects.toMatchObject({
      name: 'SignatureDoesNotMatch',
    });
  });

  it.each(KEYS)('a presigned GetObject URL for %j verifies', async (key) => {
    const url = await getSignedUrl(client(), new GetObjectCommand({ Bucket: 'bucket', Key: key }), { expiresIn: 600 });
    const status = await rawGet(url.slice(endpoint.length));
    expect(status).toBe(200);
    expect(lastSeen()).toMatchObject({
      error: undefined,
      verified: { via: 'presigned', payload: { kind: 'unsigned' } },
    });
  });
});

/** GET with the path exactly as given (fetch would normalise '..' segments away). */
function rawGet(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${endpoint}/`, { method: 'GET', path }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('minio-js against verifyRequest', () => {
  const client = (): Minio.Client =>
    new Minio.Client({
      endPoint: '127.0.0.1',
      port: Number(new URL(endpoint).port),
      useSSL: false,
      accessKey: AKID,
      secretKey: SECRET,
      region: 'us-east-1',
      pathStyle: true,
    });

  it('putObject and getObject verify for awkward keys', async () => {
    for (const key of ['plain', 'with space/+plus', '\u00fc\u65e5']) {
      await client().putObject('bucket', key, Buffer.from('minio body'));
      expect(lastSeen()).toMatchObject({ error: undefined });
      expect(lastSeen().body.toString()).toBe('minio body');
      const stream = await client().getObject('bucket', key);
      stream.resume();
      expect(lastSeen()).toMatchObject({ error: undefined, verified: { via: 'header' } });
    }
  });

  it('presignedGetObject verifies', async () => {
    const url = await client().presignedGetObject('bucket', 'dir/a b+c', 300);
    expect(await rawGet(url.slice(endpoint.length))).toBe(200);
    expect(lastSeen()).toMatchObject({ error: undefined, verified: { via: 'presigned' } });
  });
});
