// GET /metrics under MOUNT_PATH, outside /api/admin (SPEC "Metrics endpoint"): not served when METRICS_MODE is off
// (the 404 handler answers, with no registry body), open when public, behind a Bearer METRICS_TOKEN when token.

import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../core/errors.js';
import type { MetricsRegistry } from '../../observability/metrics-registry.js';
import { envelope } from './error-json.js';

export interface MetricsRouteOptions {
  mode: 'off' | 'public' | 'token';
  /** Required when mode is token (boot refuses otherwise). */
  token?: string;
  metrics: MetricsRegistry;
  /** MOUNT_PATH ('' for root). */
  mountPath: string;
}

const sha256 = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * True when the Authorization header is `Bearer <token>` with exactly the expected token. Both sides are hashed
 * first so the comparison is constant-time and of equal length whatever the client sends: neither the token's
 * length nor a matching prefix can be learnt from timing.
 */
export function bearerMatches(header: string | undefined, expectedDigest: Buffer): boolean {
  const match = header === undefined ? null : /^Bearer +(\S+) *$/i.exec(header);
  if (!match?.[1]) return false;
  return timingSafeEqual(sha256(match[1]), expectedDigest);
}

/** Registers the route unless the mode is off. Throws (a programming error) when token mode has no token. */
export function metricsRoute(app: FastifyInstance, opts: MetricsRouteOptions): void {
  if (opts.mode === 'off') return;
  if (opts.mode === 'token' && !opts.token) throw new Error('METRICS_MODE=token needs METRICS_TOKEN');
  const expected = opts.mode === 'token' ? sha256(opts.token as string) : undefined;
  app.get(`${opts.mountPath}/metrics`, async (req, reply) => {
    if (expected && !bearerMatches(req.headers.authorization, expected)) {
      const denied = new AppError('Unauthorized', { message: 'Send Authorization: Bearer <METRICS_TOKEN>' });
      return reply.status(401).header('www-authenticate', 'Bearer realm="metrics"').send(envelope(denied));
    }
    const body = await opts.metrics.scrape();
    return reply.header('content-type', opts.metrics.contentType).header('cache-control', 'no-store').send(body);
  });
}
