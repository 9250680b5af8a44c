import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../core/errors.js';
import { assignRequestId } from '../shared/request-id.js';
import type { S3Response } from './context.js';
import { sendResponse, sendS3Error } from './respond.js';

/** What the next request's handler does with its response (each test sets it). */
let answer: (req: IncomingMessage, res: ServerResponse) => Promise<unknown> | unknown = () => undefined;
let server: Server;

beforeAll(async () => {
  server = createServer((req, res) => {
    assignRequestId(req);
    void Promise.resolve(answer(req, res)).catch((err: unknown) => res.destroy(err as Error));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** The raw head lines (as sent, duplicates kept) and the body of one request. */
function exchange(
  method: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; raw: string[][]; body: string }> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path: '/b/k', headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => {
        const raw: string[][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2)
          raw.push([res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string]);
        resolve({ status: res.statusCode ?? 0, raw, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const valuesOf = (raw: string[][], name: string): string[] =>
  raw.filter(([n]) => (n as string).toLowerCase() === name.toLowerCase()).map(([, v]) => v as string);

function respondWith(response: S3Response): void {
  answer = (req, res) => sendResponse(req, res, response);
}

describe('sendResponse', () => {
  it('writes the request id pair, the handler headers and a measured Content-Length in one head', async () => {
    respondWith({
      status: 200,
      headers: { ETag: '"abc"', 'Content-Type': 'text/plain', 'Content-Length': 999, 'x-amz-meta-n': 7 },
      body: 'hello',
    });
    const { status, raw, body } = await exchange('GET', { 'X-Request-Id': '0192f2a4-7c3e-7abc-8def-0123456789ab' });
    expect(status).toBe(200);
    expect(body).toBe('hello');
    expect(valuesOf(raw, 'x-request-id')).toEqual(['0192f2a4-7c3e-7abc-8def-0123456789ab']);
    expect(valuesOf(raw, 'x-amz-request-id')).toEqual(['0192f2a4-7c3e-7abc-8def-0123456789ab']);
    // The handler's 999 is not sent: the length of a body in hand is measured.
    expect(valuesOf(raw, 'content-length')).toEqual(['5']);
    expect(valuesOf(raw, 'etag')).toEqual(['"abc"']);
    expect(valuesOf(raw, 'x-amz-meta-n')).toEqual(['7']);
  });

  it('sends a name given twice in different case once, with its last value, as setHeader would', async () => {
    respondWith({
      status: 200,
      headers: { 'Content-Type': 'application/xml', 'content-type': 'text/plain' },
      body: '',
    });
    const { raw } = await exchange('GET');
    expect(valuesOf(raw, 'content-type')).toEqual(['text/plain']);
  });

  it("keeps a HEAD's Content-Length (the body it stands for) and sends no body", async () => {
    respondWith({ status: 200, headers: { 'Content-Length': 4096, ETag: '"e"' }, body: Buffer.alloc(4096) });
    const { raw, body } = await exchange('HEAD');
    expect(valuesOf(raw, 'content-length')).toEqual(['4096']);
    expect(body).toBe('');
  });

  it('says Content-Length 0 for an answer without a body, and nothing for a 304', async () => {
    respondWith({ status: 204 });
    expect(valuesOf((await exchange('DELETE')).raw, 'content-length')).toEqual(['0']);
    respondWith({ status: 304, headers: { ETag: '"e"' } });
    const notModified = await exchange('GET');
    expect(notModified.status).toBe(304);
    expect(valuesOf(notModified.raw, 'content-length')).toEqual([]);
    expect(valuesOf(notModified.raw, 'etag')).toEqual(['"e"']);
  });

  it("streams a body after the head, with the handler's Content-Length", async () => {
    respondWith({
      status: 206,
      headers: { 'Content-Length': 6, 'Content-Range': 'bytes 0-5/10' },
      body: Readable.from([Buffer.from('abc'), Buffer.from('def')]),
    });
    const { status, raw, body } = await exchange('GET');
    expect({ status, body }).toEqual({ status: 206, body: 'abcdef' });
    expect(valuesOf(raw, 'content-length')).toEqual(['6']);
    expect(valuesOf(raw, 'x-amz-request-id')).toHaveLength(1);
  });

  it("merges headers set on the response before (CORS), the response's own value winning a clash", async () => {
    answer = (req, res) => {
      res.setHeader('Access-Control-Allow-Origin', 'https://app.example');
      res.setHeader('Vary', 'Origin');
      return sendResponse(req, res, { status: 200, headers: { Vary: 'Origin, Accept' }, body: 'x' });
    };
    const { raw } = await exchange('GET');
    expect(valuesOf(raw, 'access-control-allow-origin')).toEqual(['https://app.example']);
    expect(valuesOf(raw, 'vary')).toEqual(['Origin, Accept']);
    expect(valuesOf(raw, 'x-request-id')).toHaveLength(1);
  });
});

describe('sendS3Error', () => {
  it('renders the error document with the request id in the body and both headers', async () => {
    answer = (req, res) => sendS3Error({ req, res }, new AppError('NoSuchKey'), 'the-request-id');
    const { status, raw, body } = await exchange('GET');
    expect(status).toBe(404);
    expect(body).toContain('<Code>NoSuchKey</Code>');
    expect(body).toContain('<RequestId>the-request-id</RequestId>');
    expect(valuesOf(raw, 'content-type')).toEqual(['application/xml']);
    expect(valuesOf(raw, 'content-length')).toEqual([String(Buffer.byteLength(body))]);
    expect(valuesOf(raw, 'x-request-id')).toEqual(['the-request-id']);
    expect(valuesOf(raw, 'x-amz-request-id')).toEqual(['the-request-id']);
  });

  it('answers a HEAD with the status and Content-Length 0, and no body', async () => {
    answer = (req, res) => sendS3Error({ req, res }, new AppError('NoSuchKey'), 'id');
    const { status, raw, body } = await exchange('HEAD');
    expect({ status, body }).toEqual({ status: 404, body: '' });
    expect(valuesOf(raw, 'content-length')).toEqual(['0']);
    expect(valuesOf(raw, 'x-amz-request-id')).toHaveLength(1);
  });

  it('answers a NotModified error with its ETag, no body and no Content-Length', async () => {
    answer = (req, res) => sendS3Error({ req, res }, new AppError('NotModified', { headers: { ETag: '"e"' } }), 'id');
    const { status, raw, body } = await exchange('GET');
    expect({ status, body }).toEqual({ status: 304, body: '' });
    expect(valuesOf(raw, 'etag')).toEqual(['"e"']);
    expect(valuesOf(raw, 'content-length')).toEqual([]);
    expect(valuesOf(raw, 'content-type')).toEqual([]);
  });

  it("sends the error's own headers once (Retry-After on SlowDown)", async () => {
    answer = (req, res) =>
      sendS3Error({ req, res }, new AppError('SlowDown', { headers: { 'Retry-After': '1' } }), 'id');
    const { status, raw } = await exchange('GET');
    expect(status).toBe(503);
    expect(valuesOf(raw, 'retry-after')).toEqual(['1']);
  });
});
