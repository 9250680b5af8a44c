// Failure classes for notification transports (docs/notifications.md "Failure classes"): every rejection of a
// transport's send() is a TransportError whose message starts with its class, with a detail scrubbed of secrets.

/** Why a delivery failed, coarse enough to show an operator and to count in metrics. */
export type FailureClass = 'unreachable' | 'auth' | 'refused' | 'timeout' | 'protocol' | 'closed';

const MAX_DETAIL = 200;

/**
 * A send() or connect failure: `message` is `<class>: <detail>` (or `message` when given, for a kind whose failures
 * read their own way, e.g. a webhook's `HTTP 503`), never containing a configured secret.
 */
export class TransportError extends Error {
  override readonly name = 'TransportError';
  constructor(
    readonly failureClass: FailureClass,
    readonly detail: string,
    message = `${failureClass}: ${detail}`,
  ) {
    super(message);
  }
}

/** Removes every secret and any URL userinfo from `text`, and bounds its length. */
export function scrub(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  // Longest first, so a URL containing a password is replaced whole rather than leaving its other parts.
  const known = secrets.filter((s): s is string => typeof s === 'string' && s.length > 0);
  for (const secret of known.sort((a, b) => b.length - a.length)) {
    out = out.split(secret).join('***');
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) out = out.split(encoded).join('***');
  }
  out = out.replace(/\/\/[^/\s@]*@/g, '//***@');
  out = out.replace(/\s+/g, ' ').trim();
  return out.length > MAX_DETAIL ? `${out.slice(0, MAX_DETAIL)}…` : out;
}

const NETWORK_UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/** The error's Node system code (ECONNREFUSED...), also when wrapped in an AggregateError or `cause`. */
export function systemCode(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
  if (err instanceof AggregateError) {
    for (const inner of err.errors) {
      const c = systemCode(inner);
      if (c) return c;
    }
  }
  return err.cause === undefined || err.cause === err ? undefined : systemCode(err.cause);
}

/**
 * Turns any error into a TransportError: a TransportError passes through, a network error code becomes
 * 'unreachable' (or 'timeout' for ETIMEDOUT), anything else gets `fallback`. Secrets are scrubbed from the detail.
 */
export function toTransportError(
  err: unknown,
  opts: { secrets: readonly (string | undefined)[]; fallback: FailureClass },
): TransportError {
  if (err instanceof TransportError) return err;
  const message = err instanceof Error ? err.message || err.name : String(err);
  const code = systemCode(err);
  const detail = scrub(code && !message.includes(code) ? `${code} ${message}` : message, opts.secrets);
  if (code === 'ETIMEDOUT') return new TransportError('timeout', detail);
  if (code && NETWORK_UNREACHABLE.has(code)) return new TransportError('unreachable', detail);
  return new TransportError(opts.fallback, detail);
}

/** Rejects with a 'timeout' TransportError when `work` has not settled after `ms`; the timer never outlives it. */
export async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TransportError('timeout', `${what} took longer than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
