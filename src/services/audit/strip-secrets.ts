// Removes secret-looking data from audit details before they are logged or stored (SPEC "Audit events"): fields
// whose names say secret, and values shaped like credentials whatever their field is called.

const SECRET_NAME_PARTS = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'authorization',
  'cookie',
  'credential',
  'signature',
  'privatekey',
  'apikey',
  'keyencryption',
  'ssekey',
  'masterkey',
  'passwordhash',
];
const SECRET_NAMES = new Set(['pass', 'pwd', 'jwt', 'hash']);

/** Values that are credentials whatever they are called: bearer headers, JWTs, argon2 hashes, SigV4 headers. */
const SECRET_VALUE = /^(?:bearer\s|basic\s|aws4-hmac-sha256\s|\$argon2)|^eyJ[\w-]+\.[\w-]+\./i;

export const REDACTED = '[redacted]';
const MAX_DEPTH = 8;

/** True for a field name that names a secret (`password`, `secretAccessKey`, `x-amz-security-token`, ...). */
export function isSecretName(name: string): boolean {
  const flat = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  return SECRET_NAMES.has(flat) || SECRET_NAME_PARTS.some((part) => flat.includes(part));
}

/**
 * A copy of `value` with secret-named fields removed (recursively, through arrays), credential-shaped strings
 * replaced by "[redacted]", and nesting deeper than 8 levels cut. Non-JSON values (functions, symbols) are dropped.
 */
export function stripSecrets(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return SECRET_VALUE.test(value.trim()) ? REDACTED : value;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return value.toISOString();
  if (depth >= MAX_DEPTH) return '[truncated]';
  if (Array.isArray(value)) return value.map((item) => stripSecrets(item, depth + 1) ?? null);
  if (typeof value === 'object' && value !== undefined) {
    const out: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value as Record<string, unknown>)) {
      if (isSecretName(name)) continue;
      const kept = stripSecrets(item, depth + 1);
      if (kept !== undefined) out[name] = kept;
    }
    return out;
  }
  return undefined;
}
