// Bucket CORS: the rules PutBucketCors sets, checked as S3 checks them, and how a request with an
// Origin is answered: a preflight allowed or refused, and the headers an actual request's response carries.
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/cors.html ("uses the first CORSRule that matches")

import { AppError, type ErrorCode } from './errors.js';

export const CORS_METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'HEAD'] as const;
export type CorsMethod = (typeof CORS_METHODS)[number];

export interface CorsRule {
  id?: string;
  /** Origins, each with at most one `*` standing for any run of characters (`https://*.example.com`). */
  allowedOrigins: string[];
  allowedMethods: CorsMethod[];
  /** Header-name patterns, each with at most one `*`, matched without regard to case. */
  allowedHeaders: string[];
  exposeHeaders: string[];
  maxAgeSeconds?: number;
}

/** Plain data: JSON.stringify and JSON.parse round-trip it. Rules keep their order (first match wins). */
export interface CorsConfiguration {
  rules: CorsRule[];
}

export const MAX_CORS_RULES = 100;
export const MAX_CORS_RULE_ID_LENGTH = 255;
/** Every CORS answer varies with these request headers, as S3 sends it. */
export const CORS_VARY = 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method';

function fail(code: ErrorCode, message: string): never {
  throw new AppError(code, { message });
}

const wildcards = (pattern: string): number => pattern.split('*').length - 1;

/** Reads an AllowedMethod. Throws AppError InvalidRequest with S3's message for anything but the five. */
export function parseCorsMethod(method: string): CorsMethod {
  const found = CORS_METHODS.find((m) => m === method);
  if (found === undefined) {
    fail('InvalidRequest', `Found unsupported HTTP method in CORS config. Unsupported method is ${method}`);
  }
  return found;
}

/**
 * Checks a configuration as S3 answered it: 1 to 100 rules, each with an origin and a method
 * (MalformedXML); methods among GET PUT POST DELETE HEAD and at most one `*` per origin and header
 * (InvalidRequest); IDs of at most 255 characters, unique, and MaxAgeSeconds a non-negative integer
 * (InvalidArgument).
 */
export function validateCorsConfiguration(config: CorsConfiguration): void {
  if (config.rules.length === 0) fail('MalformedXML', 'A CORS configuration needs at least one CORSRule.');
  if (config.rules.length > MAX_CORS_RULES) fail('MalformedXML', 'A CORS configuration holds at most 100 rules.');
  const ids = new Set<string>();
  for (const rule of config.rules) {
    if (rule.allowedOrigins.length === 0) fail('MalformedXML', 'Each CORSRule needs an AllowedOrigin.');
    if (rule.allowedMethods.length === 0) fail('MalformedXML', 'Each CORSRule needs an AllowedMethod.');
    for (const method of rule.allowedMethods) parseCorsMethod(method);
    for (const origin of rule.allowedOrigins) {
      if (wildcards(origin) > 1) {
        fail('InvalidRequest', `AllowedOrigin "${origin}" can not have more than one wildcard.`);
      }
    }
    for (const header of rule.allowedHeaders) {
      if (wildcards(header) > 1) {
        fail('InvalidRequest', `AllowedHeader "${header}" can not have more than one wildcard.`);
      }
    }
    if (rule.id !== undefined) {
      if (rule.id.length > MAX_CORS_RULE_ID_LENGTH) {
        fail('InvalidArgument', 'ID length should not exceed allowed limit of 255');
      }
      if (ids.has(rule.id)) fail('InvalidArgument', 'Rule ID must be unique. Found same ID for more than one rule');
      ids.add(rule.id);
    }
    const age = rule.maxAgeSeconds;
    if (age !== undefined && (!Number.isSafeInteger(age) || age < 0)) {
      fail('InvalidArgument', 'MaxAgeSeconds must be a non-negative integer.');
    }
  }
}

/** `text` against a pattern with at most one `*` (any run, the empty run included). */
function wildcardMatch(pattern: string, text: string, ignoreCase: boolean): boolean {
  const p = ignoreCase ? pattern.toLowerCase() : pattern;
  const t = ignoreCase ? text.toLowerCase() : text;
  const star = p.indexOf('*');
  if (star === -1) return p === t;
  const head = p.slice(0, star);
  const tail = p.slice(star + 1);
  return t.length >= head.length + tail.length && t.startsWith(head) && t.endsWith(tail);
}

/** The names an Access-Control-Request-Headers value lists, lower-cased, empty elements dropped. */
export function parseRequestHeaderList(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
}

export interface CorsRequest {
  origin: string;
  /** The method asked for: Access-Control-Request-Method for a preflight (and an actual request carrying it). */
  method: string;
  /** Access-Control-Request-Headers names (any case). */
  requestHeaders?: string[];
}

export interface CorsMatch {
  rule: CorsRule;
  /** The CORS headers the response carries, in S3's order. */
  responseHeaders: Record<string, string>;
}

function findMatch(config: CorsConfiguration | undefined, request: CorsRequest): CorsMatch | undefined {
  if (config === undefined) return undefined;
  const requested = (request.requestHeaders ?? []).map((h) => h.trim().toLowerCase()).filter((h) => h !== '');
  for (const rule of config.rules) {
    if (!(rule.allowedMethods as readonly string[]).includes(request.method)) continue;
    // A named origin wins over a plain `*` in the same rule: the answer then echoes the origin.
    const named = rule.allowedOrigins.some((p) => p !== '*' && wildcardMatch(p, request.origin, false));
    const anyOrigin = !named && rule.allowedOrigins.includes('*');
    if (!named && !anyOrigin) continue;
    if (!requested.every((h) => rule.allowedHeaders.some((p) => wildcardMatch(p, h, true)))) continue;
    return { rule, responseHeaders: responseHeaders(rule, { origin: request.origin, anyOrigin, requested }) };
  }
  return undefined;
}

function responseHeaders(
  rule: CorsRule,
  { origin, anyOrigin, requested }: { origin: string; anyOrigin: boolean; requested: string[] },
): Record<string, string> {
  const headers: Record<string, string> = {
    'Access-Control-Allow-Origin': anyOrigin ? '*' : origin,
    // Every method of the rule, not just the one asked for, as S3 answers.
    'Access-Control-Allow-Methods': rule.allowedMethods.join(', '),
  };
  if (requested.length > 0) headers['Access-Control-Allow-Headers'] = requested.join(', ');
  if (rule.exposeHeaders.length > 0) headers['Access-Control-Expose-Headers'] = rule.exposeHeaders.join(', ');
  if (rule.maxAgeSeconds !== undefined) headers['Access-Control-Max-Age'] = String(rule.maxAgeSeconds);
  // S3 allows credentials with an echoed origin; a browser never accepts credentials with `*`.
  if (!anyOrigin) headers['Access-Control-Allow-Credentials'] = 'true';
  headers['Vary'] = CORS_VARY;
  return headers;
}

/**
 * The first rule allowing a preflight (OPTIONS) and the headers to answer with, or undefined when no
 * rule does (the caller answers preflightRefusal('not-allowed')). Origins match exactly, case and all,
 * or by their one `*`; the method exactly; each requested header some AllowedHeader, ignoring case.
 */
export function matchPreflight(config: CorsConfiguration | undefined, request: CorsRequest): CorsMatch | undefined {
  return findMatch(config, request);
}

/**
 * The CORS headers for an actual request carrying `Origin`, or undefined (no CORS headers; the request
 * itself is never refused for CORS). Pass the Access-Control-Request-Method and -Headers values when
 * the request carries them (S3 matches by those), else the request's own method and no headers.
 * S3 adds the headers to error responses too.
 */
export function matchActual(
  config: CorsConfiguration | undefined,
  request: CorsRequest,
): Record<string, string> | undefined {
  return findMatch(config, request)?.responseHeaders;
}

export type PreflightRefusal = 'no-origin' | 'no-method' | 'not-enabled' | 'not-allowed';

/**
 * The error S3 answers a refused preflight with: 400 BadRequest without Origin or with a missing or
 * unknown Access-Control-Request-Method, 403 AccessForbidden when the bucket has no CORS configuration
 * or no rule allows the request. `method` and `resourceType` (OBJECT or BUCKET) go into the XML as
 * S3 writes them.
 */
export function preflightRefusal(
  reason: PreflightRefusal,
  opts: { method?: string; resourceType?: 'OBJECT' | 'BUCKET' } = {},
): AppError {
  const details: Record<string, string> = {};
  if (reason === 'no-origin') {
    return new AppError('BadRequest', { message: 'Insufficient information. Origin request header needed.' });
  }
  if (reason === 'no-method') {
    return new AppError('BadRequest', { message: `Invalid Access-Control-Request-Method: ${opts.method ?? 'null'}` });
  }
  details['Method'] = opts.method ?? 'OPTIONS';
  if (opts.resourceType !== undefined) details['ResourceType'] = opts.resourceType;
  if (reason === 'not-enabled') {
    return new AppError('AccessForbidden', { message: 'CORSResponse: CORS is not enabled for this bucket.', details });
  }
  return new AppError('AccessForbidden', { details });
}

/** True for a method a preflight may ask about (else preflightRefusal('no-method')). */
export function isCorsMethod(method: string | undefined): method is CorsMethod {
  return method !== undefined && (CORS_METHODS as readonly string[]).includes(method);
}
