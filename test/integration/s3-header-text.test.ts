// Header values as clients send them: user metadata and Content-* values with non-ASCII UTF-8 round-trip byte-exact
// (through HEAD, GET, CopyObject and the admin API), and a Content-Encoding list comes back as sent.

import { connect } from 'node:net';
import { CopyObjectCommand, CreateBucketCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { signedHeaders } from '../helpers/signed-http.js';
import { useStore } from '../helpers/store.js';

const store = useStore();

beforeAll(async () => {
  await store.s3.send(new CreateBucketCommand({ Bucket: 'text' }));
});

/**
 * A signed request written byte by byte on a raw socket (header values exactly the given bytes); resolves with the
 * status and the raw header lines of the answer.
 */
function rawExchange(
  method: string,
  path: string,
  { headers, body = '' }: { headers: Record<string, Buffer | string>; body?: string },
): Promise<{ status: number; raw: Buffer[] }> {
  // Node hands header bytes to the server one character per byte (latin1): sign them in that form.
  const asText = Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [k, Buffer.isBuffer(v) ? v.toString('latin1') : v]),
  );
  const signed = signedHeaders(store.server, {
    method,
    path,
    headers: { ...asText, 'content-length': String(Buffer.byteLength(body)) },
    sign: { payloadHash: 'UNSIGNED-PAYLOAD' },
  });
  const head = Buffer.concat([
    Buffer.from(`${method} ${path} HTTP/1.1\r\n`),
    ...Object.entries(signed).map(([k, v]) =>
      Buffer.concat([Buffer.from(`${k}: `), Buffer.from(v, 'latin1'), Buffer.from('\r\n')]),
    ),
    Buffer.from('connection: close\r\n\r\n'),
  ]);
  return new Promise((resolve, reject) => {
    const socket = connect(store.server.port, '127.0.0.1', () =>
      socket.write(Buffer.concat([head, Buffer.from(body)])),
    );
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      const lines: Buffer[] = [];
      for (let at = 0; at < end;) {
        const next = all.indexOf('\r\n', at);
        lines.push(all.subarray(at, next < 0 || next > end ? end : next));
        at = (next < 0 ? end : next) + 2;
      }
      resolve({ status: Number(lines[0]?.toString('latin1').split(' ')[1]), raw: lines.slice(1) });
    });
  });
}

const UTF8 = Buffer.from('Grüße, 東京 — naïve ✓', 'utf8');

describe('non-ASCII header values', () => {
  it('user metadata sent as UTF-8 bytes comes back as the same bytes from HEAD and GET', async () => {
    const put = await rawExchange('PUT', '/text/utf8', {
      headers: {
        'x-amz-meta-title': UTF8,
        'content-disposition': Buffer.concat([Buffer.from('attachment; filename="'), UTF8, Buffer.from('"')]),
      },
      body: 'x',
    });
    expect(put.status).toBe(200);
    for (const method of ['HEAD', 'GET']) {
      const got = await rawExchange(method, '/text/utf8', { headers: {} });
      const meta = got.raw.find((h) => h.toString('latin1').toLowerCase().startsWith('x-amz-meta-title:'));
      expect(meta?.subarray('x-amz-meta-title: '.length).equals(UTF8), method).toBe(true);
      const disposition = got.raw.find((h) => h.toString('latin1').toLowerCase().startsWith('content-disposition:'));
      expect(disposition?.includes(UTF8), method).toBe(true);
    }
  });

  it('the AWS SDK reads back the metadata it wrote, and a copy keeps it', async () => {
    await store.s3.send(new PutObjectCommand({ Bucket: 'text', Key: 'sdk', Body: 'x', Metadata: { city: 'Zürich' } }));
    await store.s3.send(new CopyObjectCommand({ Bucket: 'text', Key: 'sdk-copy', CopySource: 'text/sdk' }));
    for (const key of ['sdk', 'sdk-copy']) {
      const head = await store.s3.send(new HeadObjectCommand({ Bucket: 'text', Key: key }));
      // The SDK sends metadata as UTF-8 bytes and reads header bytes back one character per byte (as against AWS):
      // the bytes are exact, and decode to what was written.
      expect(Buffer.from(head.Metadata?.['city'] ?? '', 'latin1').toString('utf8')).toBe('Zürich');
    }
  });

  it('the admin API shows the metadata as the UTF-8 text it is', async () => {
    const res = await store.adminCall('GET', '/buckets/text/objects/info?key=utf8');
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).toContain('Grüße, 東京 — naïve ✓');
  });

  it('a Content-Encoding list comes back as sent', async () => {
    const put = await rawExchange('PUT', '/text/encoded', { headers: { 'content-encoding': 'gzip, br' }, body: 'x' });
    expect(put.status).toBe(200);
    const got = await rawExchange('HEAD', '/text/encoded', { headers: {} });
    expect(got.raw.map((h) => h.toString('latin1'))).toContain('Content-Encoding: gzip, br');
  });
});
