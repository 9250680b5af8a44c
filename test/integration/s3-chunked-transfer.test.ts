// A PUT framed by `Transfer-Encoding: chunked` with no Content-Length (curl -T -, streaming uploaders; MinIO and RGW
// take it) is stored with the size that arrived; a body with neither a length nor chunked framing is 411
// MissingContentLength, as AWS answers.

import { GetObjectCommand, HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { connect } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../src/sigv4/sign.js';
import type { RunningServer } from '../helpers/server.js';
import { useStore } from '../helpers/store.js';
import { bodyBytes } from './s3-assert.js';

const store = useStore();
let server: RunningServer;
let s3: S3Client;
let bucket: string;

beforeAll(async () => {
  ({ server, s3 } = store);
  bucket = await store.bucket('te-chunked');
});

function signedHeaders(method: string, path: string, payloadHash?: string): Record<string, string> {
  const { accessKeyId, secretAccessKey } = server.credentials;
  return signRequest({
    method,
    url: new URL(`${server.url}${path}`),
    headers: {},
    accessKeyId,
    secretAccessKey,
    region: 'us-east-1',
    payloadHash,
  });
}

/** PUTs `chunks` with Node's chunked framing (no Content-Length); resolves the status and body. */
function putChunked(path: string, chunks: Buffer[], payloadHash?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}${path}`,
      { method: 'PUT', headers: signedHeaders('PUT', path, payloadHash) },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('Transfer-Encoding: chunked without Content-Length', () => {
  it('stores a PutObject body of unknown length byte-exact, unsigned or with its SHA-256 signed', async () => {
    const chunks = [randomBytes(1000), randomBytes(70_000), randomBytes(3)];
    const all = Buffer.concat(chunks);
    const unsigned = await putChunked(`/${bucket}/unsigned.bin`, chunks);
    expect(unsigned.status).toBe(200);
    const signed = await putChunked(`/${bucket}/signed.bin`, chunks, createHash('sha256').update(all).digest('hex'));
    expect(signed.status).toBe(200);
    for (const key of ['unsigned.bin', 'signed.bin']) {
      const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      expect(head.ContentLength).toBe(all.length);
      expect(head.ETag).toBe(`"${createHash('md5').update(all).digest('hex')}"`);
      const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      expect((await bodyBytes(got.Body)).equals(all)).toBe(true);
    }
  });

  it('still checks a signed SHA-256 against what arrived', async () => {
    const res = await putChunked(
      `/${bucket}/bad.bin`,
      [Buffer.from('abc')],
      createHash('sha256').update('abd').digest('hex'),
    );
    expect(res.status).toBe(400);
    expect(res.body).toContain('<Code>XAmzContentSHA256Mismatch</Code>');
  });

  it('answers 411 MissingContentLength for a PUT with neither a length nor chunked framing', async () => {
    const path = `/${bucket}/no-length.bin`;
    const headers = signedHeaders('PUT', path);
    const head = [
      `PUT ${path} HTTP/1.1`,
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      'connection: close',
      '',
      '',
    ].join('\r\n');
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1', () => socket.write(head));
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => {
        text += d;
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 411 Length Required');
    expect(answer).toContain('<Code>MissingContentLength</Code>');
  });
});
