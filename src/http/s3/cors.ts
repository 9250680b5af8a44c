// CORS on the S3 plane: OPTIONS preflights answered from the bucket's rules (before and without authentication, as
// browsers send them without credentials), and the Access-Control-* headers on actual requests carrying an Origin.
// The rule matching itself is core/cors.ts.

import type { IncomingMessage } from 'node:http';
import {
  CORS_VARY,
  isCorsMethod,
  matchActual,
  matchPreflight,
  parseRequestHeaderList,
  preflightRefusal,
  type CorsConfiguration,
} from '../../core/cors.js';
import { headerOf, type S3Response } from './context.js';

/**
 * The answer to an OPTIONS request on a bucket or object path. `cors` is the bucket's configuration, undefined when
 * the bucket has none or does not exist (both answer the same, so a preflight does not reveal which buckets exist).
 * Throws BadRequest (400) without Origin or with a missing or unknown Access-Control-Request-Method, AccessForbidden
 * (403) when CORS is not configured or no rule allows the request.
 */
export function preflightResponse(
  req: IncomingMessage,
  cors: CorsConfiguration | undefined,
  resourceType: 'BUCKET' | 'OBJECT',
): S3Response {
  const origin = headerOf(req, 'origin');
  if (origin === undefined) throw preflightRefusal('no-origin');
  const method = headerOf(req, 'access-control-request-method');
  if (!isCorsMethod(method)) throw preflightRefusal('no-method', method === undefined ? {} : { method });
  if (cors === undefined) throw preflightRefusal('not-enabled', { method, resourceType });
  const match = matchPreflight(cors, {
    origin,
    method,
    requestHeaders: parseRequestHeaderList(headerOf(req, 'access-control-request-headers')),
  });
  if (match === undefined) throw preflightRefusal('not-allowed', { method, resourceType });
  return { status: 200, headers: match.responseHeaders };
}

/**
 * The CORS headers for an actual request: the matching rule's Access-Control-* headers when the request has an Origin
 * and a rule allows it. Matched by Access-Control-Request-Method/-Headers when the request carries them (S3 does),
 * else by its own method. A bucket with CORS rules always answers `Vary`, so a cache never hands a response made for
 * one origin (or none) to another. Undefined: nothing to add.
 */
export function actualCorsHeaders(
  req: IncomingMessage,
  cors: CorsConfiguration | undefined,
): Record<string, string> | undefined {
  if (cors === undefined) return undefined;
  const origin = headerOf(req, 'origin');
  if (origin === undefined) return { Vary: CORS_VARY };
  const matched = matchActual(cors, {
    origin,
    method: headerOf(req, 'access-control-request-method') ?? req.method ?? 'GET',
    requestHeaders: parseRequestHeaderList(headerOf(req, 'access-control-request-headers')),
  });
  return matched ?? { Vary: CORS_VARY };
}
