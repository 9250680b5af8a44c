/* eslint-disable max-lines -- a seeded server re-checked after every client mistake; a split would seed it again */
// Client mistakes get a clear 4xx (or 501) S3 error and never change stored data: after every case the seeded
// objects read back unchanged, no partial object is listed, and the server still answers. No 500s.

import { readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import {
  CreateMultipartUploadCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  ListMultipartUploadsCommand,
  PutObjectCommand,
  UploadPartCommand,
  AbortMultipartUploadCommand,
} from '@aws-sdk/client-s3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chunkContextFromHeaders, encodeAwsChunked } from '../../src/sigv4/chunked-encoder.js';
import { adminLogin } from '../helpers/admin-session.js';
import { rawRequest, sha256Hex, signedHeaders, type RawResponse } from '../helpers/signed-http.js';
import { useStore } from '../helpers/store.js';

const md5b64 = (data: Buffer | string): string => createHash('md5').update(data).digest('base64');

const store = useStore();
let bucket: string;
/** What the bucket must hold after every case: key -> SHA-256 of its bytes. */
const seeded = new Map<string, string>();

beforeAll(async () => {
  bucket = await store.bucket();
  for (const [key, size] of [
    ['small.txt', 11],
    ['existing.bin', 100_000],
    ['dir/nested', 0],
  ] as const) {
    const body = randomBytes(size);
    await store.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    seeded.set(key, sha256Hex(body));
  }
});

// The invariants every case must leave intact.
afterEach(async () => {
  const list = await store.s3.send(new ListObjectsV2Command({ Bucket: bucket }));
  expect((list.Contents ?? []).map((c) => c.Key).sort()).toEqual([...seeded.keys()].sort());
  for (const [key, hash] of seeded) {
    const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    expect(sha256Hex(Buffer.from(await got.Body!.transformToByteArray())), key).toBe(hash);
  }
  const health = await fetch(`${store.server.url}/api/admin/health`);
  expect(health.status).toBe(200);
});

function expectError(res: RawResponse, status: number, code: string): void {
  expect({ status: res.status, code: res.code }, res.text).toEqual({ status, code });
  expect(res.headers['content-type']).toBe('application/xml');
  expect(res.text).toContain(`<RequestId>${res.headers['x-request-id'] as string}</RequestId>`);
}

const put = (
  key: string,
  body: Buffer | string,
  opts: { headers?: Record<string, string>; sign?: Parameters<typeof rawRequest>[1]['sign'] } = {},
): Promise<RawResponse> =>
  rawRequest(store.server, {
    method: 'PUT',
    path: `/${bucket}/${key}`,
    body,
    headers: opts.headers ?? {},
    sign: opts.sign ?? true,
  });

describe('malformed or wrong authentication', () => {
  const date = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  // AWS answers an unsupported scheme with InvalidRequest or InvalidArgument, a broken SigV4 header with
  // AuthorizationHeaderMalformed; either way a 400 before any signature work.
  const UNSUPPORTED = ['InvalidRequest', 'InvalidArgument'];
  const MALFORMED = ['AuthorizationHeaderMalformed'];
  it.each([
    ['garbage', 'garbage', UNSUPPORTED],
    [
      'an unknown algorithm',
      'AWS4-HMAC-SHA512 Credential=X/20250101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00',
      UNSUPPORTED,
    ],
    ['a SigV2 scheme without its signature', 'AWS AKIDTESTAKIDTEST', MALFORMED],
    ['no Credential', `AWS4-HMAC-SHA256 SignedHeaders=host;x-amz-date, Signature=${'a'.repeat(64)}`, MALFORMED],
    [
      'a truncated Credential scope',
      `AWS4-HMAC-SHA256 Credential=AKIDTESTAKIDTEST/20250101/us-east-1, SignedHeaders=host, Signature=${'a'.repeat(64)}`,
      MALFORMED,
    ],
    [
      'no Signature',
      'AWS4-HMAC-SHA256 Credential=AKIDTESTAKIDTEST/20250101/us-east-1/s3/aws4_request, SignedHeaders=host',
      MALFORMED,
    ],
  ])('rejects an Authorization header with %s as a 400', async (_label, authorization, codes) => {
    for (const method of ['GET', 'PUT'] as const) {
      const res = await rawRequest(store.server, {
        method,
        path: `/${bucket}/small.txt`,
        headers: { authorization, 'x-amz-date': date, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
        ...(method === 'PUT' ? { body: 'overwrite attempt' } : {}),
      });
      expect(res.status, res.text).toBe(400);
      expect(codes).toContain(res.code);
    }
  });

  it('rejects a signature scoped to the wrong region with AuthorizationHeaderMalformed', async () => {
    expectError(await put('small.txt', 'x', { sign: { region: 'eu-west-1' } }), 400, 'AuthorizationHeaderMalformed');
  });

  it('rejects an unknown access key with InvalidAccessKeyId', async () => {
    expectError(
      await put('small.txt', 'x', { sign: { accessKeyId: 'AKIDUNKNOWN000000000' } }),
      403,
      'InvalidAccessKeyId',
    );
  });

  it('rejects a wrong secret with SignatureDoesNotMatch', async () => {
    expectError(
      await put('small.txt', 'x', { sign: { secretAccessKey: randomBytes(30).toString('base64url') } }),
      403,
      'SignatureDoesNotMatch',
    );
    const get = await rawRequest(store.server, {
      method: 'GET',
      path: `/${bucket}/small.txt`,
      sign: { secretAccessKey: 'wrong'.repeat(8) },
    });
    expectError(get, 403, 'SignatureDoesNotMatch');
  });

  it('rejects a request signed 20 minutes off the clock with RequestTimeTooSkewed', async () => {
    for (const offset of [-20, 20]) {
      const now = new Date(Date.now() + offset * 60_000);
      expectError(await put('small.txt', 'x', { sign: { now } }), 403, 'RequestTimeTooSkewed');
    }
  });

  it('rejects a header changed after signing with SignatureDoesNotMatch', async () => {
    const path = `/${bucket}/small.txt`;
    const headers = signedHeaders(store.server, {
      method: 'PUT',
      path,
      headers: { 'content-length': '1', 'content-type': 'text/plain' },
      sign: { payloadHash: sha256Hex('x') },
    });
    headers['content-type'] = 'text/html';
    expectError(
      await rawRequest(store.server, { method: 'PUT', path, headers, body: 'x' }),
      403,
      'SignatureDoesNotMatch',
    );
  });
});

describe('bodies that do not match what was declared', () => {
  it('rejects a wrong Content-MD5 with BadDigest, for a new key and over an existing one', async () => {
    const body = randomBytes(5000);
    for (const key of ['new-md5.bin', 'existing.bin']) {
      expectError(await put(key, body, { headers: { 'content-md5': md5b64('something else') } }), 400, 'BadDigest');
    }
    expectError(
      await put('new-md5.bin', body, { headers: { 'content-md5': 'not base64 at all!' } }),
      400,
      'InvalidDigest',
    );
  });

  it('rejects a body that does not match x-amz-content-sha256 with XAmzContentSHA256Mismatch', async () => {
    const body = randomBytes(70_000);
    for (const key of ['new-sha.bin', 'existing.bin']) {
      expectError(
        await put(key, body, { sign: { payloadHash: sha256Hex('other bytes') } }),
        400,
        'XAmzContentSHA256Mismatch',
      );
    }
  });

  /** Sends the request head and the first 50,000 bytes of `full`, then closes the connection. */
  function sendCutShort(head: string, full: Buffer): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const socket = connect(store.server.port, '127.0.0.1', () => {
        socket.write(head);
        socket.write(full.subarray(0, 50_000), () => setTimeout(() => socket.destroy(), 100));
      });
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
  }

  /** The aborted uploads' staging files are removed once the server notices the close. */
  async function expectNoStagingFiles(): Promise<void> {
    const deadline = Date.now() + 3000;
    while (readdirSync(join(store.server.dataDir, 'tmp')).length > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(readdirSync(join(store.server.dataDir, 'tmp'))).toEqual([]);
  }

  it('stores nothing when the client closes the connection before sending Content-Length bytes', async () => {
    for (const key of ['cut-short.bin', 'existing.bin']) {
      const path = `/${bucket}/${key}`;
      const full = randomBytes(200_000);
      const headers = signedHeaders(store.server, {
        method: 'PUT',
        path,
        headers: { 'content-length': String(full.length) },
        sign: { payloadHash: 'UNSIGNED-PAYLOAD' },
      });
      await sendCutShort(
        `PUT ${path} HTTP/1.1\r\n${Object.entries(headers)
          .map(([k, v]) => `${k}: ${v}`)
          .join('\r\n')}\r\n\r\n`,
        full,
      );
    }
    await expectNoStagingFiles();
  });

  it('stores nothing, and logs no error, when an admin upload is cut short (test/fault/hostile-clients.test.ts has the rest)', async () => {
    const token = await adminLogin(store.server);
    const full = randomBytes(200_000);
    const head =
      `PUT /api/admin/buckets/${bucket}/objects/content?key=admin-cut.bin HTTP/1.1\r\nhost: 127.0.0.1:${store.server.port}\r\n` +
      `authorization: Bearer ${token}\r\ncontent-type: application/octet-stream\r\ncontent-length: ${full.length}\r\n\r\n`;
    await sendCutShort(head, full);
    await expectNoStagingFiles();
  });

  it('rejects an aws-chunked body with a bad chunk signature and stores nothing', async () => {
    const data = randomBytes(200_000);
    const send = async (key: string, tamper: (encoded: Buffer) => void): Promise<RawResponse> => {
      const path = `/${bucket}/${key}`;
      const length = encodeAwsChunked({
        data,
        chunkSize: 64 * 1024,
        context: {
          signingKey: Buffer.alloc(32),
          seedSignature: '0'.repeat(64),
          amzDate: '20250101T000000Z',
          scope: 'x',
        },
      }).length;
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
      expect(encoded.length).toBe(length);
      tamper(encoded);
      return rawRequest(store.server, { method: 'PUT', path, headers, body: encoded });
    };
    // the untampered body is accepted: the framing above is right, so the failures below are the signatures
    const ok = await send('chunked-ok.bin', () => undefined);
    expect(ok.status, ok.text).toBe(200);
    const got = await store.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'chunked-ok.bin' }));
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(data)).toBe(true);
    seeded.set('chunked-ok.bin', sha256Hex(data));

    const flipData =
      (offsetFromEnd: number) =>
      (encoded: Buffer): void => {
        const i = encoded.length - offsetFromEnd;
        encoded[i] = (encoded[i] as number) ^ 0x01;
      };
    // a flipped byte in the first chunk, in the last data chunk, and in the final (empty) chunk's signature
    const firstChunkByte = (encoded: Buffer): void => {
      const i = encoded.indexOf('\r\n') + 10;
      encoded[i] = (encoded[i] as number) ^ 0x01;
    };
    const finalSignature = (encoded: Buffer): void => {
      const i = encoded.lastIndexOf('chunk-signature=') + 'chunk-signature='.length;
      encoded[i] = encoded[i] === 0x30 ? 0x31 : 0x30;
    };
    for (const [key, tamper] of [
      ['chunked-1.bin', firstChunkByte],
      ['chunked-2.bin', flipData(100 + 86 + 4)],
      ['chunked-3.bin', finalSignature],
      ['existing.bin', flipData(100 + 86 + 4)],
    ] as const) {
      const res = await send(key, tamper);
      expectError(res, 403, 'SignatureDoesNotMatch');
    }
  });

  it('survives bad chunk signatures in bodies nobody reads (a PUT to a missing bucket is refused before its body)', async () => {
    const data = randomBytes(200_000);
    for (let i = 0; i < 10; i++) {
      const path = `/no-such-bucket-${i}/key.bin`;
      const framing = {
        signingKey: Buffer.alloc(32),
        seedSignature: '0'.repeat(64),
        amzDate: '20250101T000000Z',
        scope: 'x',
      };
      const length = encodeAwsChunked({ data, chunkSize: 64 * 1024, context: framing }).length;
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
      // Chunks signed from another seed: every one of them fails verification, whether or not the handler reads it.
      const forged = encodeAwsChunked({
        data,
        chunkSize: 64 * 1024,
        context: {
          ...chunkContextFromHeaders(headers, store.server.credentials.secretAccessKey),
          seedSignature: 'f'.repeat(64),
        },
      });
      expectError(await rawRequest(store.server, { method: 'PUT', path, headers, body: forged }), 404, 'NoSuchBucket');
    }
    expect(store.server.process.exitCode).toBeNull();
    expect((await rawRequest(store.server, { method: 'GET', path: '/', sign: true })).status).toBe(200);
  });
});

describe('names and paths', () => {
  it.each([
    'AB',
    'ab',
    'has_underscore',
    '-lead',
    'trail-',
    'a..b',
    '192.168.1.1',
    'x'.repeat(64),
    'xn--punycode',
    'ends-s3alias',
    'UPPER',
  ])('refuses to create bucket %j with InvalidBucketName', async (name) => {
    expectError(
      await rawRequest(store.server, { method: 'PUT', path: `/${name}`, sign: true }),
      400,
      'InvalidBucketName',
    );
  });

  it('refuses a 1025-byte key with KeyTooLongError and accepts 1024 bytes', async () => {
    const long = 'k'.repeat(1025);
    expectError(await put(long, 'x'), 400, 'KeyTooLongError');
    // multi-byte characters count in UTF-8 bytes: 342 three-byte characters are 1026 bytes
    expectError(await put(encodeURIComponent('€'.repeat(342)), 'x'), 400, 'KeyTooLongError');
    const ok = await put('k'.repeat(1024), 'x');
    expect(ok.status).toBe(200);
    seeded.set('k'.repeat(1024), sha256Hex('x'));
  });

  it.each([`/%zz`, `/%E0%A4%A`, `/%`, `/%C3%28`])(
    'answers InvalidURI for a malformed percent-encoding in the key (%s)',
    async (suffix) => {
      const res = await rawRequest(store.server, { method: 'PUT', path: `/${bucket}${suffix}`, body: 'x', sign: true });
      expectError(res, 400, 'InvalidURI');
      const get = await rawRequest(store.server, { method: 'GET', path: `/${bucket}${suffix}`, sign: true });
      expectError(get, 400, 'InvalidURI');
    },
  );

  it('answers InvalidURI for a malformed bucket name encoding and query', async () => {
    expectError(await rawRequest(store.server, { method: 'GET', path: '/%zzbucket', sign: true }), 400, 'InvalidURI');
    expectError(
      await rawRequest(store.server, { method: 'GET', path: `/${bucket}?list-type=2&prefix=%zz`, sign: true }),
      400,
      'InvalidURI',
    );
  });

  it.each(['analytics', 'inventory', 'metrics', 'intelligent-tiering'])(
    'answers 501 NotImplemented for the unsupported subresource ?%s',
    async (sub) => {
      expectError(
        await rawRequest(store.server, { method: 'GET', path: `/${bucket}?${sub}`, sign: true }),
        501,
        'NotImplemented',
      );
      const body = '<Configuration><Status>Enabled</Status></Configuration>';
      expectError(
        await rawRequest(store.server, { method: 'PUT', path: `/${bucket}?${sub}`, body, sign: true }),
        501,
        'NotImplemented',
      );
    },
  );

  it('answers 405 MethodNotAllowed for a method the resource does not support', async () => {
    const res = await rawRequest(store.server, {
      method: 'PATCH',
      path: `/${bucket}/small.txt`,
      body: 'x',
      sign: true,
    });
    expectError(res, 405, 'MethodNotAllowed');
  });
});

describe('copy sources', () => {
  const copy = (source: string, extra: Record<string, string> = {}) =>
    rawRequest(store.server, {
      method: 'PUT',
      path: `/${bucket}/copy-target`,
      headers: { 'x-amz-copy-source': source, ...extra },
      sign: true,
    });

  it.each(['no-slash-at-all', `${bucket}/`, '/', '%zz/key'])(
    'refuses the malformed x-amz-copy-source %j with InvalidArgument',
    async (source) => {
      expectError(await copy(source), 400, 'InvalidArgument');
    },
  );

  it('answers NoSuchBucket and NoSuchKey for a source that does not exist, and stores nothing', async () => {
    expectError(await copy('no-such-bucket-for-copy/small.txt'), 404, 'NoSuchBucket');
    expectError(await copy(`${bucket}/no-such-source-key`), 404, 'NoSuchKey');
    expect(
      (await rawRequest(store.server, { method: 'HEAD', path: `/${bucket}/copy-target`, sign: true })).status,
    ).toBe(404);
  });

  it('refuses an unknown metadata directive with InvalidArgument', async () => {
    expectError(await copy(`${bucket}/small.txt`, { 'x-amz-metadata-directive': 'MERGE' }), 400, 'InvalidArgument');
  });
});

describe('malformed XML bodies', () => {
  const BOMB = `<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<Delete><Object><Key>&lol3;</Key></Object></Delete>`;
  const EXTERNAL = `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><Delete><Object><Key>&x;</Key></Object></Delete>`;
  const bodies: Array<[string, string]> = [
    ['truncated', '<Delete><Object><Key>small.txt</Key></Object>'],
    ['not XML', 'this is not xml'],
    ['empty', ''],
    ['a DOCTYPE entity bomb', BOMB],
    ['an external entity', EXTERNAL],
    ['the wrong root element', '<Nope><Object><Key>small.txt</Key></Object></Nope>'],
  ];

  it.each(bodies)('DeleteObjects with a %s body is MalformedXML and deletes nothing', async (_label, body) => {
    const res = await rawRequest(store.server, {
      method: 'POST',
      path: `/${bucket}?delete`,
      body,
      headers: { 'content-md5': md5b64(body) },
      sign: true,
    });
    expectError(res, 400, 'MalformedXML');
  });

  it.each(bodies)(
    'CompleteMultipartUpload with a %s body is MalformedXML and completes nothing',
    async (_label, body) => {
      const key = 'mpu-target.bin';
      const created = await store.s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
      const uploadId = created.UploadId as string;
      try {
        await store.s3.send(
          new UploadPartCommand({
            Bucket: bucket,
            Key: key,
            UploadId: uploadId,
            PartNumber: 1,
            Body: randomBytes(1000),
          }),
        );
        const xml = body.replace(/<(\/?)Delete>/g, '<$1CompleteMultipartUpload>');
        const res = await rawRequest(store.server, {
          method: 'POST',
          path: `/${bucket}/${key}?uploadId=${encodeURIComponent(uploadId)}`,
          body: xml,
          sign: true,
        });
        expectError(res, 400, 'MalformedXML');
        // the upload is still there, untouched
        const uploads = await store.s3.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
        expect(uploads.Uploads?.map((u) => u.UploadId)).toContain(uploadId);
      } finally {
        await store.s3.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }));
      }
    },
  );
});

describe('the server log after every mistake above', () => {
  it('records no server error: no error-level line and no 500 in the access log', async () => {
    await new Promise((r) => setTimeout(r, 200)); // pino writes asynchronously
    const lines = store.server
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const errors = lines
      .filter((l) => l['level'] === 'error' || l['level'] === 'fatal')
      .map((l) => `${String(l['msg'])}: ${JSON.stringify(l['err'] ?? '').slice(0, 120)}`);
    expect(errors).toEqual([]);
    expect(lines.filter((l) => l['msg'] === 'request completed' && l['status'] === 500)).toEqual([]);
  });
});
