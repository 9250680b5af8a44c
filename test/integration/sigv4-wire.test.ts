// SigV4 over headers as they travel: a signed header sent more than once is canonicalised as its values joined by ','
// (what the client signed), however Node merges repeated headers for the rest of the request.

import { connect } from 'node:net';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex, signedHeaders } from '../helpers/signed-http.js';
import { useStore } from '../helpers/store.js';

const store = useStore();
let bucket: string;

beforeAll(async () => {
  bucket = await store.bucket('wire');
});

/**
 * Sends a PUT whose signature covers `signedAs` (one value per name), while the wire carries `lines`, which may
 * repeat a name; returns the status line and body.
 */
function putWithLines(key: string, signedAs: Record<string, string>, lines: Array<[string, string]>): Promise<string> {
  const path = `/${bucket}/${key}`;
  const body = 'hello';
  const headers = signedHeaders(store.server, {
    method: 'PUT',
    path,
    headers: { 'content-length': String(body.length), ...signedAs },
    sign: { payloadHash: sha256Hex(body) },
  });
  for (const name of Object.keys(signedAs)) delete headers[name];
  const head = [...Object.entries(headers), ...lines].map(([n, v]) => `${n}: ${v}\r\n`).join('');
  return new Promise((resolve, reject) => {
    const socket = connect(store.server.port, '127.0.0.1', () =>
      socket.write(`PUT ${path} HTTP/1.1\r\n${head}Connection: close\r\n\r\n${body}`),
    );
    let out = '';
    socket.on('data', (d: Buffer) => {
      out += d.toString('latin1');
    });
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
  });
}

describe('repeated signed headers', () => {
  it('accepts a signed header sent twice, signed as its values joined by a comma', async () => {
    const out = await putWithLines('twice', { 'x-amz-meta-tag': 'a,b' }, [
      ['x-amz-meta-tag', 'a'],
      ['X-Amz-Meta-Tag', 'b'],
    ]);
    expect(out).toMatch(/^HTTP\/1\.1 200 /);
    const head = await store.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'twice' }));
    expect(head.ContentLength).toBe(5);
  });

  it('refuses the same header when it was signed as Node would merge it, with a space after the comma', async () => {
    const out = await putWithLines('merged', { 'x-amz-meta-tag': 'a, b' }, [
      ['x-amz-meta-tag', 'a'],
      ['x-amz-meta-tag', 'b'],
    ]);
    expect(out).toMatch(/^HTTP\/1\.1 403 /);
    expect(out).toContain('<Code>SignatureDoesNotMatch</Code>');
  });

  it('accepts a header sent once whose value holds a comma and a space', async () => {
    const out = await putWithLines('once', { 'x-amz-meta-tag': 'a, b' }, [['x-amz-meta-tag', 'a, b']]);
    expect(out).toMatch(/^HTTP\/1\.1 200 /);
  });
});
