// Raw HTTP requests to a running test server, optionally SigV4-signed with the project's own signer: for the
// requests a real SDK refuses to send (malformed headers, wrong digests, bodies cut short, slow bodies).

import { request, type IncomingHttpHeaders } from 'node:http';
import { createHash } from 'node:crypto';
import { signRequest } from '../../src/sigv4/sign.js';
import type { RunningServer } from './server.js';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text: string;
  /** The <Code> of an S3 XML error body, if any. */
  code: string | undefined;
}

export interface SignOptions {
  accessKeyId?: string;
  secretAccessKey?: string;
  region?: string;
  /** x-amz-content-sha256; default: the SHA-256 of the body (or UNSIGNED-PAYLOAD for a streamed body). */
  payloadHash?: string;
  now?: Date;
}

export interface RawRequestOptions {
  method: string;
  /** Path and query exactly as sent (percent-encoded), below the server's root. */
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Sign with the server's root credentials (overridable); false sends the request unsigned. */
  sign?: SignOptions | boolean;
}

export function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The headers of a signed request (host, x-amz-date, x-amz-content-sha256, authorization and `headers`). */
export function signedHeaders(
  server: RunningServer,
  opts: { method: string; path: string; headers?: Record<string, string>; sign?: SignOptions },
): Record<string, string> {
  const url = new URL(`http://127.0.0.1:${server.port}${opts.path}`);
  const q = opts.path.indexOf('?');
  const s = opts.sign ?? {};
  return signRequest({
    method: opts.method,
    url,
    rawPath: q < 0 ? opts.path : opts.path.slice(0, q),
    headers: opts.headers ?? {},
    accessKeyId: s.accessKeyId ?? server.credentials.accessKeyId,
    secretAccessKey: s.secretAccessKey ?? server.credentials.secretAccessKey,
    region: s.region ?? 'us-east-1',
    ...(s.payloadHash !== undefined ? { payloadHash: s.payloadHash } : {}),
    ...(s.now ? { now: s.now } : {}),
  });
}

function errorCode(text: string): string | undefined {
  return /<Code>([^<]*)<\/Code>/.exec(text)?.[1];
}

/** Sends one request and collects the whole response. */
export function rawRequest(server: RunningServer, opts: RawRequestOptions): Promise<RawResponse> {
  const body = opts.body === undefined ? undefined : Buffer.from(opts.body);
  let headers: Record<string, string> = { ...opts.headers };
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')) {
    headers['content-length'] = String(body.length);
  }
  if (opts.sign !== undefined && opts.sign !== false) {
    const sign = opts.sign === true ? {} : opts.sign;
    headers = signedHeaders(server, {
      method: opts.method,
      path: opts.path,
      headers,
      sign: { ...sign, payloadHash: sign.payloadHash ?? sha256Hex(body ?? '') },
    });
  }
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: server.port, method: opts.method, path: opts.path, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const all = Buffer.concat(chunks);
          const text = all.toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: all, text, code: errorCode(text) });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
