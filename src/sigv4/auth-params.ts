// Reads what a SigV4 request claims (key id, scope, signed headers, signature, time) from the
// Authorization header or the presigned query, and rejects malformed claims with AWS's error codes.
// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-auth-using-authorization-header.html
// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html
import { AppError } from '../core/errors.js';
import { memoLast } from '../lib/memo-last.js';
import { ALGORITHM, formatAmzDate, percentDecode } from './canonical.js';

/** What the client says it signed; checked against the server's own computation in verify.ts. */
export interface SignatureClaim {
  via: 'header' | 'presigned';
  accessKeyId: string;
  scopeDate: string;
  region: string;
  service: string;
  terminal: string;
  signedHeaders: readonly string[];
  signature: string;
  /** The timestamp of the string to sign, ISO 8601 basic (20130524T000000Z). */
  amzDate: string;
  /** The same instant, epoch milliseconds. */
  time: number;
  /** Presigned only: X-Amz-Expires. */
  expiresSeconds: number | undefined;
  /** Presigned only: X-Amz-Content-Sha256 (the AWS SDK presigner hoists the header into the query). */
  queryContentSha256: string | undefined;
}

const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;
const HEADER_NAME = /^[a-z0-9!#$%&'*+\-.^_`|~]+$/;
export const MAX_PRESIGNED_EXPIRES = 604800;

const QUERY_PARAMS_REQUIRED =
  'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.';

function headerMalformed(reason: string, details?: Record<string, string>): AppError {
  return new AppError('AuthorizationHeaderMalformed', {
    message: `The authorization header is malformed; ${reason}`,
    ...(details === undefined ? {} : { details }),
  });
}

function queryMalformed(message: string, details?: Record<string, string>): AppError {
  return new AppError('AuthorizationQueryParametersError', { message, ...(details === undefined ? {} : { details }) });
}

/**
 * Epoch ms of an ISO 8601 basic timestamp, or undefined when it is not one (or not a real date). Memoised: requests
 * signed in the same second carry the same x-amz-date, and each request reads it twice (verification, then the
 * policy context).
 */
export const parseAmzDate: (value: string) => number | undefined = memoLast(parseAmzDateUncached);

function parseAmzDateUncached(value: string): number | undefined {
  const m = AMZ_DATE.exec(value);
  if (m === null) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const time = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(time);
  if (back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return undefined;
  return time;
}

/** Splits the decoded query into its first value per name (auth parameters appear once). */
export function queryParams(rawQuery: string): Map<string, string> {
  const params = new Map<string, string>();
  for (const part of rawQuery.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = percentDecode(eq < 0 ? part : part.slice(0, eq), true).toString('utf8');
    if (!params.has(name)) params.set(name, eq < 0 ? '' : percentDecode(part.slice(eq + 1), true).toString('utf8'));
  }
  return params;
}

interface ParsedCredential {
  accessKeyId: string;
  scopeDate: string;
  region: string;
  service: string;
  terminal: string;
}

/** Memoised (a client sends the same credential all day); the result is frozen. */
const parseCredential = memoLast((value: string): Readonly<ParsedCredential> | undefined => {
  const parts = value.split('/');
  if (parts.length !== 5 || parts.some((p) => p === '')) return undefined;
  const [accessKeyId, scopeDate, region, service, terminal] = parts as [string, string, string, string, string];
  if (!/^\d{8}$/.test(scopeDate)) return undefined;
  return Object.freeze({ accessKeyId, scopeDate, region, service, terminal });
});

/** Memoised (a client signs the same header list on request after request); the list is frozen. */
const parseSignedHeaders = memoLast((value: string): readonly string[] | undefined => {
  const names = value.split(';');
  return names.every((n) => HEADER_NAME.test(n)) ? Object.freeze(names) : undefined;
});

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The time of a header-signed request: x-amz-date, else the Date header (RFC 7231).
 * Throws AccessDenied when neither is a valid date, as S3 does.
 */
function requestTime(headers: Record<string, string | string[] | undefined>): { amzDate: string; time: number } {
  const amzDate = firstHeader(headers['x-amz-date']);
  if (amzDate !== undefined) {
    const time = parseAmzDate(amzDate.trim());
    if (time !== undefined) return { amzDate: amzDate.trim(), time };
  } else {
    const date = firstHeader(headers['date']);
    const time = date === undefined ? NaN : Date.parse(date);
    if (!Number.isNaN(time)) {
      return { amzDate: formatAmzDate(new Date(time)), time };
    }
  }
  throw new AppError('AccessDenied', { message: 'AWS authentication requires a valid Date or x-amz-date header' });
}

/**
 * Parses `AWS4-HMAC-SHA256 Credential=AKID/date/region/s3/aws4_request, SignedHeaders=a;b, Signature=hex`.
 * Components may be separated by commas, spaces or both. Throws AuthorizationHeaderMalformed, or
 * AccessDenied when the request carries no usable date.
 */
export function parseAuthorizationHeader(
  authorization: string,
  headers: Record<string, string | string[] | undefined>,
): SignatureClaim {
  const rest = authorization.trim().slice(ALGORITHM.length);
  const fields = new Map<string, string>();
  for (const token of rest.split(/[\s,]+/)) {
    if (token === '') continue;
    const eq = token.indexOf('=');
    const key = eq < 0 ? token : token.slice(0, eq);
    if (eq < 0 || fields.has(key) || !['Credential', 'SignedHeaders', 'Signature'].includes(key)) {
      throw headerMalformed(`the authorization component "${token.slice(0, 64)}" is malformed.`);
    }
    fields.set(key, token.slice(eq + 1));
  }
  const credential = fields.get('Credential');
  const signedHeaders = fields.get('SignedHeaders');
  const signature = fields.get('Signature');
  if (credential === undefined || signedHeaders === undefined || signature === undefined) {
    throw headerMalformed(
      'the authorization header requires three components: Credential, SignedHeaders, and Signature.',
    );
  }
  const cred = parseCredential(credential);
  if (cred === undefined) {
    throw headerMalformed(
      'the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".',
    );
  }
  const names = parseSignedHeaders(signedHeaders);
  if (names === undefined) throw headerMalformed('the SignedHeaders component is malformed.');
  const { amzDate, time } = requestTime(headers);
  return {
    via: 'header',
    ...cred,
    signedHeaders: names,
    signature,
    amzDate,
    time,
    expiresSeconds: undefined,
    queryContentSha256: undefined,
  };
}

/** Parses the X-Amz-* query parameters of a presigned URL. Throws AuthorizationQueryParametersError. */
export function parsePresignedQuery(params: Map<string, string>): SignatureClaim {
  const algorithm = params.get('X-Amz-Algorithm');
  const credential = params.get('X-Amz-Credential');
  const amzDate = params.get('X-Amz-Date');
  const expires = params.get('X-Amz-Expires');
  const signedHeaders = params.get('X-Amz-SignedHeaders');
  const signature = params.get('X-Amz-Signature');
  if (
    algorithm === undefined ||
    credential === undefined ||
    amzDate === undefined ||
    expires === undefined ||
    signedHeaders === undefined ||
    signature === undefined
  ) {
    throw queryMalformed(QUERY_PARAMS_REQUIRED);
  }
  if (algorithm !== ALGORITHM) throw queryMalformed('X-Amz-Algorithm only supports "AWS4-HMAC-SHA256"');
  const cred = parseCredential(credential);
  if (cred === undefined) {
    throw queryMalformed(
      'Error parsing the X-Amz-Credential parameter; the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request".',
    );
  }
  const time = parseAmzDate(amzDate);
  if (time === undefined) {
    throw queryMalformed("X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"");
  }
  if (!/^\d{1,9}$/.test(expires)) throw queryMalformed('X-Amz-Expires should be a number');
  const expiresSeconds = Number(expires);
  if (expiresSeconds < 1) throw queryMalformed('X-Amz-Expires must be at least 1 second');
  if (expiresSeconds > MAX_PRESIGNED_EXPIRES) {
    throw queryMalformed('X-Amz-Expires must be less than a week (in seconds) that is 604800');
  }
  const names = parseSignedHeaders(signedHeaders);
  if (names === undefined) throw queryMalformed('X-Amz-SignedHeaders is malformed');
  return {
    via: 'presigned',
    ...cred,
    signedHeaders: names,
    signature,
    amzDate,
    time,
    expiresSeconds,
    queryContentSha256: params.get('X-Amz-Content-Sha256'),
  };
}

/** S3 accepts a request time at most 15 minutes away from its own clock (SigV4 and SigV2 alike). */
export const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;

/**
 * Which signing regions this server accepts: its own only (strict, as AWS), or any (STORE_REGION_STRICT=false, for
 * tools such as git-annex that sign with the host name as the region).
 */
export interface RegionRule {
  name: string;
  strict: boolean;
}

/**
 * Checks the credential scope against this server: date equal to the request's, our region (any region when the
 * rule is not strict: the signature is then computed with the one the client named), service s3, terminal
 * aws4_request, and host among the signed headers. Throws AuthorizationHeaderMalformed (header) or
 * AuthorizationQueryParametersError (presigned); a wrong region carries details.Region.
 */
export function validateScope(claim: SignatureClaim, region: RegionRule): void {
  const fail = (reason: string, details?: Record<string, string>): AppError =>
    claim.via === 'header'
      ? headerMalformed(reason, details)
      : queryMalformed(`Error parsing the X-Amz-Credential parameter; ${reason}`, details);
  if (region.strict && claim.region !== region.name) {
    throw fail(`the region '${claim.region}' is wrong; expecting '${region.name}'`, { Region: region.name });
  }
  if (claim.service !== 's3') throw fail(`incorrect service "${claim.service}". This endpoint belongs to "s3".`);
  if (claim.terminal !== 'aws4_request') {
    throw fail(`incorrect terminal "${claim.terminal}". This endpoint uses "aws4_request".`);
  }
  if (claim.scopeDate !== claim.amzDate.slice(0, 8)) {
    throw fail(
      `Invalid credential date "${claim.scopeDate}". This date is not the same as X-Amz-Date: "${claim.amzDate.slice(0, 8)}".`,
    );
  }
  if (!claim.signedHeaders.includes('host')) {
    throw claim.via === 'header'
      ? headerMalformed('the SignedHeaders must include host.')
      : queryMalformed('X-Amz-SignedHeaders must include host');
  }
}
