// The admin plane's throttles, per client address (http/shared/client-address.ts): a general token bucket on every
// admin request (probes excepted), and the login limit, 5 attempts per minute, also applied to password changes.
// A refusal is 429 TooManyRequests with Retry-After in seconds. IPv6 clients are counted per /64, since one host
// usually holds a whole /64 and could otherwise rotate through it.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.js';
import { parseIp } from '../../core/policy/ip.js';
import { SlidingWindowLimiter, TokenBucketLimiter, type RateDecision } from '../../lib/rate-limiter.js';
import { clientAddress, type TrustedProxies } from '../shared/client-address.js';

/** SPEC "Limits": login attempts per client per minute. */
export const LOGIN_ATTEMPTS_PER_MINUTE = 5;
/** The general admin throttle: a sustained 600 requests per minute per client, in bursts of up to 600. */
export const ADMIN_REQUESTS_PER_MINUTE = 600;
export const ADMIN_BURST = 600;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Not counted by the general throttle (liveness and readiness probes). */
    unthrottled?: boolean;
  }
}

export interface AdminThrottleOptions {
  trustedProxies: TrustedProxies;
  now?: () => number;
}

/** The key a client is counted under: its IPv4 address, or its IPv6 /64. */
export function throttleKey(address: string): string {
  const ip = parseIp(address);
  if (!ip || ip.version === 4) return address;
  const hex = ip.bytes
    .slice(0, 8)
    .map((b) => b.toString(16).padStart(2, '0'))
    .join('');
  return `${hex.replace(/(.{4})/g, '$1:')}:/64`;
}

function refuse(decision: RateDecision, message: string): void {
  if (decision.allowed) return;
  throw new AppError('TooManyRequests', { message, headers: { 'retry-after': String(decision.retryAfterSeconds) } });
}

export class AdminThrottle {
  private readonly general: TokenBucketLimiter;
  private readonly login: SlidingWindowLimiter;

  constructor(private readonly opts: AdminThrottleOptions) {
    this.general = new TokenBucketLimiter({
      capacity: ADMIN_BURST,
      perSecond: ADMIN_REQUESTS_PER_MINUTE / 60,
      now: opts.now,
    });
    this.login = new SlidingWindowLimiter({ limit: LOGIN_ATTEMPTS_PER_MINUTE, windowMs: 60_000, now: opts.now });
  }

  /** The client's address (trusted-proxy aware), for throttling and audit details. */
  clientOf(req: FastifyRequest): string {
    return clientAddress(req.raw, this.opts.trustedProxies);
  }

  /** Counts a password attempt (login, change-password). TooManyRequests (429) with Retry-After past the limit. */
  checkPasswordAttempt(req: FastifyRequest): void {
    refuse(
      this.login.take(throttleKey(this.clientOf(req))),
      `At most ${LOGIN_ATTEMPTS_PER_MINUTE} sign-in attempts per minute`,
    );
  }

  /** Installs the general throttle before every other hook of the admin plane (authentication included). */
  install(app: FastifyInstance): void {
    app.addHook('onRequest', async (req) => {
      if (req.routeOptions.config.unthrottled) return;
      refuse(this.general.take(throttleKey(this.clientOf(req))), 'Too many admin requests; slow down');
    });
  }
}
