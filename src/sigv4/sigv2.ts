// Signature Version 2 (HMAC-SHA1), AWS's legacy scheme: what boto3, the AWS CLI v1, s3cmd `signurl` and git-annex
// still presign with by default. The header form (`Authorization: AWS <id>:<signature>`) and query authentication
// (`AWSAccessKeyId`, `Expires`, `Signature`); POST forms sign their policy (http/s3/post-auth.ts). SigV4 is better:
// its key is scoped to a day, a region and a service, and its payload can be signed (docs/s3-compatibility.md).
// Reference: https://docs.aws.amazon.com/AmazonS3/latest/API/RESTAuthentication.html

import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../core/errors.js';
import { MAX_CLOCK_SKEW_MS } from './auth-params.js';
import { percentDecode } from './canonical.js';
import type { SecretLookup, SignedRequest, VerifiedRequest } from './types.js';

/**
 * The query parameters that are part of the canonicalized resource: AWS's list as botocore and MinIO sign it. Every
 * other parameter (prefix, marker, max-keys, ...) is not signed by SigV2.
 */
const SIGNED_SUBRESOURCES = new Set([
  'accelerate',
  'acl',
  'analytics',
  'cors',
  'delete',
  'encryption',
  'inventory',
  'legal-hold',
  'lifecycle',
  'location',
  'logging',
  'metrics',
  'notification',
  'object-lock',
  'partNumber',
  'policy',
  'replication',
  'requestPayment',
  'response-cache-control',
  'response-content-disposition',
  'response-content-encoding',
  'response-content-language',
  'response-content-type',
  'response-expires',
  'restore',
  'retention',
  'select',
  'select-type',
  'storageClass',
  'tagging',
  'torrent',
  'uploadId',
  'uploads',
  'versionId',
  'versioning',
  'versions',
  'website',
]);

export interface SigV2Options {
  lookup: SecretLookup;
  now: Date;
}

/** Base64 of HMAC-SHA1(secret, stringToSign): the SigV2 signature (of a request, or of a POST form's policy). */
export function signatureV2(secret: string, stringToSign: string): string {
  return createHmac('sha1', secret).update(stringToSign, 'utf8').digest('base64');
}

/** Whether a provided base64 signature is the expected one, in constant time. */
export function signatureV2Matches(expected: string, provided: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(provided);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The string to sign: the method, Content-MD5, Content-Type, the date (the Date header, empty when x-amz-date is
 * sent, or the Expires of a presigned URL), the x-amz-* headers and the resource (the path as received, after
 * `/bucket` on a virtual-hosted–style request, with the signed sub-resources, sorted, their values decoded).
 */
export function stringToSignV2(req: SignedRequest, date: string): string {
  const header = (name: string): string => joined(req.headers[name]);
  return `${req.method}\n${header('content-md5')}\n${header('content-type')}\n${date}\n${amzHeaders(req.headers)}${resource(req)}`;
}

function joined(value: string | string[] | undefined): string {
  if (value === undefined) return '';
  return Array.isArray(value) ? value.map((v) => v.trim()).join(',') : value.trim();
}

function amzHeaders(headers: SignedRequest['headers']): string {
  const names = Object.keys(headers)
    .filter((name) => name.startsWith('x-amz-') && headers[name] !== undefined)
    .sort();
  // Folded whitespace inside a value is one space, as AWS unfolds it.
  return names.map((name) => `${name}:${joined(headers[name]).replace(/\s*\r?\n\s*/g, ' ')}\n`).join('');
}

/**
 * The canonicalized resource. On a virtual-hosted–style request it starts with the bucket from the Host: "If the
 * request addresses a bucket using the HTTP Host header (virtual hosted-style), append the bucket name preceded by a
 * `/`", then the path (so `GET /` of bucket b is `/b/`, as botocore signs it).
 */
function resource(req: SignedRequest): string {
  const path = req.hostBucket === undefined ? req.rawPath : `/${req.hostBucket}${req.rawPath}`;
  const signed: [string, string | undefined][] = [];
  for (const pair of req.rawQuery === '' ? [] : req.rawQuery.split('&')) {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    if (!SIGNED_SUBRESOURCES.has(name)) continue;
    signed.push([name, eq < 0 ? undefined : decodeValue(pair.slice(eq + 1))]);
  }
  if (signed.length === 0) return path;
  signed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return `${path}?${signed.map(([name, value]) => (value === undefined ? name : `${name}=${value}`)).join('&')}`;
}

/** A sub-resource's value as signed: percent-decoded (a '+' stays a '+', as botocore signs it). */
function decodeValue(value: string): string {
  return percentDecode(value, false).toString('utf8');
}

/**
 * Verifies `Authorization: AWS <id>:<signature>`. Throws AccessDenied (no valid Date or x-amz-date),
 * RequestTimeTooSkewed, InvalidAccessKeyId, SignatureDoesNotMatch (with the string to sign), or
 * AuthorizationHeaderMalformed for a header that is not `AWS id:signature`.
 */
export function verifyV2Header(req: SignedRequest, authorization: string, opts: SigV2Options): VerifiedRequest {
  const match = /^AWS ([^:\s]+):(\S+)$/.exec(authorization.trim());
  if (match === null) {
    throw new AppError('AuthorizationHeaderMalformed', {
      message: 'The authorization header is malformed; expecting "AWS <AccessKeyId>:<Signature>".',
    });
  }
  const [, accessKeyId, provided] = match as unknown as [string, string, string];
  const amzDate = joined(req.headers['x-amz-date']);
  const dateHeader = joined(req.headers['date']);
  const time = Date.parse(amzDate !== '' ? isoOrHttpDate(amzDate) : dateHeader);
  if (Number.isNaN(time)) {
    throw new AppError('AccessDenied', { message: 'AWS authentication requires a valid Date or x-amz-date header' });
  }
  if (Math.abs(time - opts.now.getTime()) > MAX_CLOCK_SKEW_MS) {
    throw new AppError('RequestTimeTooSkewed', {
      details: {
        RequestTime: amzDate !== '' ? amzDate : dateHeader,
        ServerTime: opts.now.toISOString(),
        MaxAllowedSkewMilliseconds: String(MAX_CLOCK_SKEW_MS),
      },
    });
  }
  checkSignature(req, { accessKeyId, provided, date: amzDate !== '' ? '' : dateHeader }, opts);
  return verified(accessKeyId, 'header', time);
}

/**
 * Verifies query authentication (`AWSAccessKeyId`, `Expires` in epoch seconds, `Signature`). Throws
 * AccessDenied (a parameter missing, Expires not a number, or the URL expired), InvalidAccessKeyId or
 * SignatureDoesNotMatch. SigV2 sets no longest validity; the signer chose Expires.
 */
export function verifyV2Query(
  req: SignedRequest,
  params: ReadonlyMap<string, string>,
  opts: SigV2Options,
): VerifiedRequest {
  const accessKeyId = params.get('AWSAccessKeyId');
  const expires = params.get('Expires');
  // Base64 has no spaces: a '+' left unencoded in the URL was decoded as one.
  const provided = params.get('Signature')?.replace(/ /g, '+');
  if (accessKeyId === undefined || expires === undefined || provided === undefined) {
    throw new AppError('AccessDenied', {
      message: 'Query-string authentication requires the Signature, Expires and AWSAccessKeyId parameters',
    });
  }
  if (!/^\d{1,12}$/.test(expires)) {
    throw new AppError('AccessDenied', {
      message: 'Invalid date (should be seconds since epoch)',
      details: { Expires: expires },
    });
  }
  const expiresAt = Number(expires) * 1000;
  if (opts.now.getTime() > expiresAt) {
    throw new AppError('AccessDenied', {
      message: 'Request has expired',
      details: { Expires: new Date(expiresAt).toISOString(), ServerTime: opts.now.toISOString() },
    });
  }
  checkSignature(req, { accessKeyId, provided, date: expires }, opts);
  return verified(accessKeyId, 'presigned', opts.now.getTime());
}

function checkSignature(
  req: SignedRequest,
  { accessKeyId, provided, date }: { accessKeyId: string; provided: string; date: string },
  opts: SigV2Options,
): void {
  const secret = opts.lookup(accessKeyId);
  if (secret === undefined) throw new AppError('InvalidAccessKeyId', { details: { AWSAccessKeyId: accessKeyId } });
  const toSign = stringToSignV2(req, date);
  if (!signatureV2Matches(signatureV2(secret, toSign), provided)) {
    throw new AppError('SignatureDoesNotMatch', {
      details: {
        AWSAccessKeyId: accessKeyId,
        StringToSign: toSign,
        SignatureProvided: provided,
        StringToSignBytes: Buffer.from(toSign)
          .toString('hex')
          .replace(/(..)(?!$)/g, '$1 '),
      },
    });
  }
}

/** x-amz-date in SigV2 is an HTTP date, though clients also send SigV4's 20130524T000000Z form. */
function isoOrHttpDate(value: string): string {
  const basic = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  return basic ? `${basic[1]}-${basic[2]}-${basic[3]}T${basic[4]}:${basic[5]}:${basic[6]}Z` : value;
}

function verified(accessKeyId: string, via: 'header' | 'presigned', time: number): VerifiedRequest {
  const amzDate = new Date(time)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  return {
    accessKeyId,
    via,
    scheme: 'sigv2',
    payload: { kind: 'unsigned' },
    // No chunk signatures in SigV2: the context only carries the signing time (s3-plane's signedAt).
    chunkContext: { signingKey: Buffer.alloc(0), seedSignature: '', amzDate, scope: '' },
  };
}
