// The process logger (pino, JSON lines) with redaction of secret-looking fields.
// Credential-shaped query parameters are redacted from URLs by `safeUrl` before a URL is ever logged.

import pino, { type Logger } from 'pino';

export type { Logger };

/** Field paths whose values never reach a log line (SPEC "Data plane and other secrets"). */
const REDACT_PATHS = [
  'password',
  'newPassword',
  'currentPassword',
  'secret',
  'secretAccessKey',
  'token',
  'accessToken',
  'refreshToken',
  'authorization',
  'cookie',
  'KEY_ENCRYPTION_SECRET',
  'JWT_SECRET',
  'ROOT_SECRET_ACCESS_KEY',
  'STORE_SSE_KEY',
  'METRICS_TOKEN',
  'WEBHOOK_SECRET',
  'STORE_REPLICATION_SECRET_ACCESS_KEY',
  'ADMIN_PASSWORD_HASH',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-amz-security-token"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.secret',
  '*.secretAccessKey',
  '*.token',
  '*.authorization',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

/**
 * Query parameters whose value is a credential: S3's query authentication (SigV4 and SigV2) by name, and anything
 * named like a token, secret, password, signature, credential, session or API key, whatever the route (a client may
 * put `?access_token=` on an admin URL; the server ignores it, but the log must not keep it).
 */
const QUERY_AUTH_PARAMS = new Set([
  'x-amz-signature',
  'x-amz-credential',
  'x-amz-security-token',
  'signature',
  'awsaccesskeyid',
  'x-amz-date',
]);
const CREDENTIAL_NAME =
  /token|secret|passw|pwd|signature|credential|session|auth|api[-_]?key|access[-_]?key|private[-_]?key|jwt|bearer|cookie/i;
/** A value shaped like a JWT (three base64url segments, the first a JSON header) is a credential under any name. */
const JWT_VALUE = /eyJ[A-Za-z0-9_-]{4,}(?:\.|%2E)[A-Za-z0-9_-]+(?:\.|%2E)/i;
const REDACTED = '[redacted]';

/** The URL safe to log: the value of every credential-shaped query parameter replaced by `[redacted]`. */
export function safeUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const pairs = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      const value = eq < 0 ? '' : pair.slice(eq + 1);
      return isCredential(decoded(name), value) ? `${name}=${REDACTED}` : pair;
    });
  return `${url.slice(0, q)}?${pairs.join('&')}`;
}

function isCredential(name: string, value: string): boolean {
  return QUERY_AUTH_PARAMS.has(name.toLowerCase()) || CREDENTIAL_NAME.test(name) || JWT_VALUE.test(value);
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text; // a malformed escape is judged as it is
  }
}
