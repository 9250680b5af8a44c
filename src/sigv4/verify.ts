// Verifies AWS Signature Version 4 on an incoming S3 request, signed either in the Authorization
// header or as a presigned URL, and says how the body must be read (types.ts is the contract).
// https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-authenticating-requests.html
import { AppError } from '../core/errors.js';
import type { SecretLookup, SignedRequest, VerifiedRequest } from './types.js';
import {
  ALGORITHM,
  UNSIGNED_PAYLOAD,
  type CanonicalInput,
  canonicalRequest,
  credentialScope,
  stringToSign,
} from './canonical.js';
import { deriveSigningKey, signatureBytes, signatureMatches } from './signature.js';
import {
  type SignatureClaim,
  parseAuthorizationHeader,
  parsePresignedQuery,
  queryParams,
  validateScope,
  MAX_CLOCK_SKEW_MS,
  type RegionRule,
} from './auth-params.js';
import { payloadModeOf } from './payload-mode.js';
import { verifyV2Header, verifyV2Query } from './sigv2.js';

export interface VerifyOptions {
  lookup: SecretLookup;
  /** The region this server answers for, and whether a credential scope naming another is rejected. */
  region: RegionRule;
  /** Whether Signature Version 2 is verified (STORE_SIGV2=on) or refused as an unsupported mechanism. */
  sigv2: boolean;
  now: Date;
}

const UNSUPPORTED_MECHANISM =
  'The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.';
const ONE_MECHANISM =
  'Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified';
// Already covered by the string to sign (timestamp, payload hash line) even when not listed as signed.
const IMPLICITLY_SIGNED = new Set(['x-amz-date', 'x-amz-content-sha256']);

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Verifies a request's SigV4 signature.
 *
 * Returns undefined when the request carries no authentication at all (anonymous: the caller decides).
 * Throws AppError:
 * - InvalidRequest: SigV2 or another scheme; header auth without x-amz-content-sha256.
 * - InvalidArgument: header and query auth together; a bad x-amz-content-sha256 or x-amz-decoded-content-length.
 * - AuthorizationHeaderMalformed / AuthorizationQueryParametersError: malformed auth, wrong region
 *   (details.Region), service, terminal or scope date, host not signed, X-Amz-Expires out of 1..604800.
 * - AccessDenied: no valid Date / x-amz-date; presigned URL expired or not valid yet; x-amz-* headers
 *   present but not signed (details.HeadersNotSigned).
 * - RequestTimeTooSkewed: header-signed request more than 15 minutes from `now`.
 * - InvalidAccessKeyId: unknown key. SignatureDoesNotMatch: wrong signature.
 */
export function verifyRequest(req: SignedRequest, opts: VerifyOptions): VerifiedRequest | undefined {
  const authorization = first(req.headers['authorization']);
  const params = /X-Amz-|Signature|AWSAccessKeyId|%/.test(req.rawQuery) ? queryParams(req.rawQuery) : undefined;
  const hasV4Query =
    params !== undefined &&
    (params.has('X-Amz-Algorithm') || params.has('X-Amz-Credential') || params.has('X-Amz-Signature'));
  const hasV2Query =
    params !== undefined && (params.has('AWSAccessKeyId') || (params.has('Signature') && params.has('Expires')));

  if (authorization !== undefined) {
    if (hasV4Query || hasV2Query) {
      throw new AppError('InvalidArgument', { message: ONE_MECHANISM, details: { ArgumentName: 'Authorization' } });
    }
    const scheme = authorization.trim().split(/\s/, 1)[0];
    if (scheme === '') {
      throw new AppError('AuthorizationHeaderMalformed', {
        message: 'The authorization header is malformed; it is empty.',
      });
    }
    if (scheme === 'AWS' && opts.sigv2) return verifyV2Header(req, authorization, opts);
    if (scheme !== ALGORITHM) throw new AppError('InvalidRequest', { message: UNSUPPORTED_MECHANISM });
    return verifyClaim(req, parseAuthorizationHeader(authorization, req.headers), opts);
  }
  if (params !== undefined && hasV4Query) {
    if (hasV2Query) throw new AppError('InvalidArgument', { message: ONE_MECHANISM });
    return verifyClaim(req, parsePresignedQuery(params), opts);
  }
  if (hasV2Query) {
    if (opts.sigv2 && params !== undefined) return verifyV2Query(req, params, opts);
    throw new AppError('InvalidRequest', { message: UNSUPPORTED_MECHANISM });
  }
  return undefined;
}

function checkTime(claim: SignatureClaim, now: Date): void {
  const nowMs = now.getTime();
  if (claim.via === 'header') {
    if (Math.abs(claim.time - nowMs) > MAX_CLOCK_SKEW_MS) {
      throw new AppError('RequestTimeTooSkewed', {
        details: {
          RequestTime: claim.amzDate,
          ServerTime: now.toISOString(),
          MaxAllowedSkewMilliseconds: String(MAX_CLOCK_SKEW_MS),
        },
      });
    }
    return;
  }
  if (claim.time - nowMs > MAX_CLOCK_SKEW_MS) {
    throw new AppError('AccessDenied', { message: 'Request is not valid yet' });
  }
  const expiresAt = claim.time + (claim.expiresSeconds ?? 0) * 1000;
  if (nowMs > expiresAt) {
    throw new AppError('AccessDenied', {
      message: 'Request has expired',
      details: {
        'X-Amz-Expires': String(claim.expiresSeconds),
        Expires: new Date(expiresAt).toISOString(),
        ServerTime: now.toISOString(),
      },
    });
  }
}

// S3 refuses x-amz-* headers the client did not sign: otherwise anyone holding a presigned URL, or
// replaying a request, could add x-amz-copy-source, x-amz-acl, metadata and the like.
function checkAmzHeadersSigned(headers: SignedRequest['headers'], signed: readonly string[]): void {
  const unsigned: string[] = [];
  for (const name of Object.keys(headers)) {
    if (name.startsWith('x-amz-') && !IMPLICITLY_SIGNED.has(name) && !signed.includes(name)) unsigned.push(name);
  }
  if (unsigned.length > 0) {
    throw new AppError('AccessDenied', {
      message: 'There were headers present in the request which were not signed',
      details: { HeadersNotSigned: unsigned.join(', ') },
    });
  }
}

function verifyClaim(req: SignedRequest, claim: SignatureClaim, opts: VerifyOptions): VerifiedRequest {
  validateScope(claim, opts.region);
  checkTime(claim, opts.now);
  const contentSha256 = first(req.headers['x-amz-content-sha256'])?.trim();
  if (claim.via === 'header' && contentSha256 === undefined) {
    throw new AppError('InvalidRequest', { message: 'Missing required header for this request: x-amz-content-sha256' });
  }
  // Presigned: what the signer hashed, in the header or hoisted into the query; else UNSIGNED-PAYLOAD.
  const payloadHash = contentSha256 ?? claim.queryContentSha256 ?? UNSIGNED_PAYLOAD;
  const payload = payloadModeOf(payloadHash, first(req.headers['x-amz-decoded-content-length']));
  checkAmzHeadersSigned(req.headers, claim.signedHeaders);

  const secret = opts.lookup(claim.accessKeyId);
  if (secret === undefined) {
    throw new AppError('InvalidAccessKeyId', { details: { AWSAccessKeyId: claim.accessKeyId } });
  }
  const scope = credentialScope(claim.scopeDate, claim.region, claim.service);
  const input: CanonicalInput = {
    method: req.method,
    rawPath: req.rawPath,
    rawQuery: req.rawQuery,
    headers: req.headers,
    signedHeaders: claim.signedHeaders,
    payloadHash,
    isPresigned: claim.via === 'presigned',
  };
  const canonical = canonicalRequest(input);
  const toSign = stringToSign(claim.amzDate, scope, canonical);
  const signingKey = deriveSigningKey(secret, { date: claim.scopeDate, region: claim.region, service: claim.service });
  const matches = (canonicalForm: string): boolean =>
    signatureMatches(signatureBytes(signingKey, stringToSign(claim.amzDate, scope, canonicalForm)), claim.signature);
  if (!matches(canonical) && !matchesWithoutPort(input, matches)) {
    // AWS returns these so a client author can see which side canonicalised differently.
    throw new AppError('SignatureDoesNotMatch', {
      details: {
        AWSAccessKeyId: claim.accessKeyId,
        StringToSign: toSign,
        SignatureProvided: claim.signature,
        CanonicalRequest: canonical,
      },
    });
  }
  return {
    accessKeyId: claim.accessKeyId,
    via: claim.via,
    scheme: 'sigv4',
    payload,
    chunkContext: { signingKey, seedSignature: claim.signature.toLowerCase(), amzDate: claim.amzDate, scope },
  };
}

/**
 * The Host header's name without its port ("127.0.0.1:9000" -> "127.0.0.1", "[::1]:9000" -> "[::1]"), if it has one.
 */
export function hostWithoutPort(host: string | undefined): string | undefined {
  const m = host === undefined ? null : /^(\[[^\]]*\]|[^:]+):\d+$/.exec(host.trim());
  return m === null ? undefined : m[1];
}

// Some SigV4 signers put the Host header's name without its port in the canonical request while sending
// "Host: name:port": the Haskell aws library (git-annex's S3 remote, signature=v4) and older ex_aws, fog and
// aws.s3 releases. On AWS the two never differ (default ports), so AWS never had to decide; Store accepts the
// port-less form as a second try, only after the signature over the Host as sent has failed. Everything else
// the client signed (method, path, query, headers, payload hash, time, scope) is still bound by the signature;
// only the port is not (docs/decisions.md, "SigV4 signed without the Host's port").
function matchesWithoutPort(input: CanonicalInput, matches: (canonicalForm: string) => boolean): boolean {
  const host = hostWithoutPort(first(input.headers['host']));
  return host !== undefined && matches(canonicalRequest({ ...input, headers: { ...input.headers, host } }));
}
