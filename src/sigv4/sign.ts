// Client-side SigV4 for S3: signs a request's headers or presigns a URL, with the same
// canonicalisation the server verifies with (canonical.ts). Used by tests, the benchmark and presigning.
import {
  ALGORITHM,
  UNSIGNED_PAYLOAD,
  canonicalRequest,
  credentialScope,
  formatAmzDate,
  stringToSign,
  uriEncode,
} from './canonical.js';
import { MAX_PRESIGNED_EXPIRES } from './auth-params.js';
import { deriveSigningKey, signatureHex } from './signature.js';

export interface SignRequestInput {
  method: string;
  url: URL;
  /**
   * The path exactly as it will be sent, percent-encoded, when `url.pathname` cannot carry it:
   * WHATWG URL removes '.' and '..' segments (even as %2E), which are legal in S3 keys.
   */
  rawPath?: string;
  headers?: Record<string, string>;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** Default 's3'. */
  service?: string;
  /** x-amz-content-sha256: a hex SHA-256, a STREAMING-* literal, or (default) UNSIGNED-PAYLOAD. */
  payloadHash?: string;
  now?: Date;
}

export interface PresignUrlInput {
  method: string;
  url: URL;
  /** As in SignRequestInput: the path as sent, when `url.pathname` cannot carry it. */
  rawPath?: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** 1..604800 (seven days); RangeError otherwise. */
  expiresSeconds: number;
  now?: Date;
  /** Default 's3'. */
  service?: string;
}

// Headers that proxies and HTTP stacks may add, drop or rewrite: signing them would break requests.
const UNSIGNABLE = new Set(['authorization', 'user-agent', 'expect', 'connection', 'transfer-encoding', 'keep-alive']);

/**
 * Signs a request in the Authorization header. Returns every header to send, names lower-cased:
 * the input headers plus host (url.host unless given), x-amz-date, x-amz-content-sha256 and
 * authorization. All of them except the unsignable ones (user-agent, expect, ...) are signed.
 */
export function signRequest(input: SignRequestInput): Record<string, string> {
  const service = input.service ?? 's3';
  const amzDate = formatAmzDate(input.now ?? new Date());
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers ?? {})) headers[name.toLowerCase()] = value;
  headers['host'] ??= input.url.host;
  headers['x-amz-date'] = amzDate;
  headers['x-amz-content-sha256'] = input.payloadHash ?? UNSIGNED_PAYLOAD;
  delete headers['authorization'];

  const signedHeaders = Object.keys(headers)
    .filter((name) => !UNSIGNABLE.has(name))
    .sort();
  const scope = credentialScope(amzDate.slice(0, 8), input.region, service);
  const canonical = canonicalRequest({
    method: input.method,
    rawPath: input.rawPath ?? input.url.pathname,
    rawQuery: input.url.search.slice(1),
    headers,
    signedHeaders,
    payloadHash: headers['x-amz-content-sha256'],
    isPresigned: false,
  });
  const key = deriveSigningKey(input.secretAccessKey, {
    date: amzDate.slice(0, 8),
    region: input.region,
    service: service,
  });
  const signature = signatureHex(key, stringToSign(amzDate, scope, canonical));
  headers['authorization'] =
    `${ALGORITHM} Credential=${input.accessKeyId}/${scope}, SignedHeaders=${signedHeaders.join(';')}, Signature=${signature}`;
  return headers;
}

/**
 * Presigns a URL (query-string authentication): only host is signed and the payload is
 * UNSIGNED-PAYLOAD, like the AWS SDKs do. Keeps the URL's own query parameters.
 * Throws RangeError when expiresSeconds is outside 1..604800.
 */
export function presignUrl(input: PresignUrlInput): URL {
  if (
    !Number.isInteger(input.expiresSeconds) ||
    input.expiresSeconds < 1 ||
    input.expiresSeconds > MAX_PRESIGNED_EXPIRES
  ) {
    throw new RangeError(`expiresSeconds must be an integer in 1..${MAX_PRESIGNED_EXPIRES}`);
  }
  const service = input.service ?? 's3';
  const amzDate = formatAmzDate(input.now ?? new Date());
  const scope = credentialScope(amzDate.slice(0, 8), input.region, service);
  const auth: Array<[string, string]> = [
    ['X-Amz-Algorithm', ALGORITHM],
    ['X-Amz-Credential', `${input.accessKeyId}/${scope}`],
    ['X-Amz-Date', amzDate],
    ['X-Amz-Expires', String(input.expiresSeconds)],
    ['X-Amz-SignedHeaders', 'host'],
  ];
  const own = input.url.search.slice(1);
  const authQuery = auth.map(([name, value]) => `${name}=${uriEncode(value)}`).join('&');
  const rawQuery = own === '' ? authQuery : `${own}&${authQuery}`;
  const canonical = canonicalRequest({
    method: input.method,
    rawPath: input.rawPath ?? input.url.pathname,
    rawQuery,
    headers: { host: input.url.host },
    signedHeaders: ['host'],
    payloadHash: UNSIGNED_PAYLOAD,
    isPresigned: true,
  });
  const key = deriveSigningKey(input.secretAccessKey, {
    date: amzDate.slice(0, 8),
    region: input.region,
    service: service,
  });
  const signature = signatureHex(key, stringToSign(amzDate, scope, canonical));
  const url = new URL(input.url);
  url.search = `${rawQuery}&X-Amz-Signature=${signature}`;
  return url;
}
