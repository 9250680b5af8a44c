// The process logger (pino, JSON lines) with redaction of secret-looking fields.
// Query-auth parameters are stripped from URLs by `safeUrl` before a URL is ever logged.

import pino, { type Logger } from 'pino';

export type { Logger };

/** Field paths whose values never reach a log line (SPEC "Data plane and other secrets"). */
const REDACT_PATHS = [
  'password', 'newPassword', 'currentPassword', 'secret', 'secretAccessKey', 'token', 'accessToken', 'refreshToken',
  'authorization', 'cookie', 'KEY_ENCRYPTION_SECRET', 'JWT_SECRET', 'ROOT_SECRET_ACCESS_KEY', 'STORE_SSE_KEY',
  'METRICS_TOKEN', 'WEBHOOK_SECRET', 'STORE_REPLICATION_SECRET_ACCESS_KEY', 'ADMIN_PASSWORD_HASH',
  'req.headers.authorization', 'req.headers.cookie', 'req.headers["x-amz-security-token"]',
  'res.headers["set-cookie"]', '*.password', '*.secret', '*.secretAccessKey', '*.token', '*.authorization',
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

const QUERY_AUTH_PARAMS = new Set([
  'x-amz-signature', 'x-amz-credential', 'x-amz-security-token', 'signature', 'awsaccesskeyid', 'x-amz-date',
]);

/** The URL with query-auth parameters removed, safe to log. */
export function safeUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const kept = url
    .slice(q + 1)
    .split('&')
    .filter((pair) => {
      const name = pair.split('=')[0] ?? '';
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // a malformed escape is logged as-is; it cannot be a valid auth parameter
      }
      return !QUERY_AUTH_PARAMS.has(decoded.toLowerCase());
    });
  return kept.length > 0 ? `${url.slice(0, q)}?${kept.join('&')}` : url.slice(0, q);
}
