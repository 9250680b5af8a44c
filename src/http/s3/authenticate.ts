// Authenticates an S3 request with SigV4 (header or presigned) against the known access keys.

import type { IncomingMessage } from 'node:http';
import { AppError } from '../../core/errors.js';
import { verifyRequest } from '../../sigv4/verify.js';
import type { SecretLookup, VerifiedRequest } from '../../sigv4/types.js';

export interface AuthOptions {
  region: string;
  lookup: SecretLookup;
  now?: () => Date;
}

/**
 * Verifies the request's signature over the Host as received and the full path (mount prefix included).
 * Anonymous requests are AccessDenied: Store grants anonymous access only through bucket policies.
 */
export function authenticate(req: IncomingMessage, opts: AuthOptions): VerifiedRequest {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const verified = verifyRequest(
    {
      method: req.method ?? 'GET',
      rawPath: q < 0 ? url : url.slice(0, q),
      rawQuery: q < 0 ? '' : url.slice(q + 1),
      // headersDistinct keeps repeated headers apart so they join with ',' as SigV4 does (Node joins with ', ').
      headers: req.headersDistinct,
    },
    { region: opts.region, lookup: opts.lookup, now: opts.now ? opts.now() : new Date() },
  );
  if (!verified) throw new AppError('AccessDenied', { message: 'Anonymous access is not allowed; sign the request with SigV4.' });
  return verified;
}
