// Authenticates an S3 request with SigV4 (header or presigned) against the known access keys, or finds it anonymous
// (no authentication at all); authorize.ts decides what either may do.

import type { IncomingMessage } from 'node:http';
import { AppError } from '../../core/errors.js';
import { payloadModeOf } from '../../sigv4/payload-mode.js';
import { verifyRequest } from '../../sigv4/verify.js';
import type { RegionRule } from '../../sigv4/auth-params.js';
import type { SecretLookup, VerifiedRequest } from '../../sigv4/types.js';

export interface AuthOptions {
  region: RegionRule;
  /** STORE_SIGV2: whether Signature Version 2 is verified or refused. */
  sigv2: boolean;
  lookup: SecretLookup;
  now?: () => Date;
  /** The bucket the Host names on a virtual-hosted–style request (SigV2 signs it as part of the resource). */
  hostBucket?: string;
}

/**
 * Verifies the request's signature over the Host as received and the full path (mount prefix included).
 * Returns undefined for an anonymous request (neither an Authorization header nor query authentication).
 * Throws the errors of sigv4 verifyRequest (SignatureDoesNotMatch, InvalidAccessKeyId, RequestTimeTooSkewed, ...).
 */
export function authenticate(req: IncomingMessage, opts: AuthOptions): VerifiedRequest | undefined {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return verifyRequest(
    {
      method: req.method ?? 'GET',
      rawPath: q < 0 ? url : url.slice(0, q),
      rawQuery: q < 0 ? '' : url.slice(q + 1),
      headers: signableHeaders(req),
      hostBucket: opts.hostBucket,
    },
    { region: opts.region, sigv2: opts.sigv2, lookup: opts.lookup, now: opts.now ? opts.now() : new Date() },
  );
}

/**
 * The headers as SigV4 reads them: a repeated header's values joined with ','. When no header name repeats (each raw
 * header made a key of its own), req.headers holds exactly that, and Node has built it anyway; otherwise
 * headersDistinct, which keeps the values apart (req.headers joins most with ', ' and keeps only the first of some,
 * such as Host). Building headersDistinct for every request cost a HEAD about 4% of its CPU (docs/performance.md,
 * "the per-request CPU of every signed request").
 */
function signableHeaders(req: IncomingMessage): Record<string, string | string[] | undefined> {
  const headers = req.headers;
  return Object.keys(headers).length * 2 === req.rawHeaders.length ? headers : req.headersDistinct;
}

/**
 * How an anonymous request's body is read (handlers take a VerifiedRequest for that): unsigned, or checked against
 * an x-amz-content-sha256 the client sent, or aws-chunked without chunk signatures. Throws InvalidRequest for
 * signed chunks (nothing to verify them with) and InvalidArgument for a malformed x-amz-content-sha256.
 */
/** Whether a request carried no credentials (anonymousRequest), as opposed to a verified signature. */
export function isAnonymous(auth: VerifiedRequest): boolean {
  return auth.accessKeyId === '';
}

export function anonymousRequest(req: IncomingMessage): VerifiedRequest {
  const declared = req.headers['x-amz-content-sha256'];
  const hash = Array.isArray(declared) ? declared[0] : declared;
  const decoded = req.headers['x-amz-decoded-content-length'];
  const payload = payloadModeOf(hash?.trim() ?? 'UNSIGNED-PAYLOAD', Array.isArray(decoded) ? decoded[0] : decoded);
  if (payload.kind === 'chunked' && payload.signedChunks) {
    throw new AppError('InvalidRequest', { message: 'Signed aws-chunked payloads need a signed request.' });
  }
  return {
    accessKeyId: '',
    via: 'header',
    scheme: 'anonymous',
    payload,
    chunkContext: { signingKey: Buffer.alloc(0), seedSignature: '', amzDate: '', scope: '' },
  };
}
