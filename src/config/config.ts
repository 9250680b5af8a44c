// The environment schema (one TypeBox schema; the Config type is derived from it), its defaults, and the boot
// refusals of SPEC "Configuration keys" / "Boot-time secret checks". The only reader of process.env.

import { isIP } from 'node:net';
import { isAbsolute } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { looksLikePlaceholder, weakSecretReason } from './secrets.js';
import { WEBHOOK_KEYS, webhookProblems } from './webhook-config.js';
import { NOTIFICATION_KEYS } from './notification-config.js';
import { BACKUP_KEYS, backupProblems } from './backup-config.js';
import { REPLICATION_KEYS, replicationProblems } from './replication-config.js';
import { ANALYTICS_KEYS, INTEGRITY_KEYS } from './integrity-config.js';
import { INIT_BUCKETS_KEYS, initBucketsProblems } from './init-buckets-config.js';
import { malformedDomains } from './domain-config.js';

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
const METRICS_MODES = ['off', 'public', 'token'] as const;

export const ConfigSchema = Type.Object({
  DATA_DIR: Type.String({ minLength: 1, description: 'Absolute path, no trailing slash, of the data volume' }),
  JWT_SECRET: Type.String({ minLength: 1, description: 'Signs admin JWTs; at least 32 characters, high entropy' }),
  ADMIN_PASSWORD_HASH: Type.String({ minLength: 1, description: 'argon2id hash of the admin password' }),
  ROOT_ACCESS_KEY_ID: Type.String({ pattern: '^[A-Z0-9]{16,32}$', description: '16 to 32 uppercase alphanumerics' }),
  ROOT_SECRET_ACCESS_KEY: Type.String({ minLength: 1, description: 'At least 32 characters, high entropy' }),
  PORT: Type.Integer({
    minimum: 0,
    maximum: 65535,
    default: 9000,
    description: 'HTTP listen port (0 picks a free one)',
  }),
  HOST: Type.String({ minLength: 1, default: '0.0.0.0', description: 'Listen address' }),
  ADMIN_USERNAME: Type.String({ minLength: 1, maxLength: 64, default: 'admin', description: 'Admin login name' }),
  STORE_REGION: Type.String({
    pattern: '^[a-z0-9-]{1,32}$',
    default: 'us-east-1',
    description: 'Region reported to clients',
  }),
  STORE_SIGV2: Type.Union([Type.Literal('on'), Type.Literal('off')], {
    default: 'on',
    description: 'on or off: verify Signature Version 2 (header, presigned URLs, POST forms) or refuse it',
  }),
  STORE_REGION_STRICT: Type.Boolean({
    default: true,
    description:
      'true or false: signatures must name STORE_REGION; false accepts any signing region (tools that sign with the host name)',
  }),
  STORE_DEFAULT_OBJECT_OWNERSHIP: Type.Union(
    [Type.Literal('BucketOwnerEnforced'), Type.Literal('BucketOwnerPreferred'), Type.Literal('ObjectWriter')],
    {
      default: 'BucketOwnerEnforced',
      description:
        'Object ownership of new buckets that CreateBucket does not name: BucketOwnerEnforced (ACLs disabled), BucketOwnerPreferred or ObjectWriter',
    },
  ),
  STORE_SSE_KEY: Type.Optional(
    Type.String({ description: 'Base64 of 32 bytes; generated to DATA_DIR/sse.key if unset' }),
  ),
  KEY_ENCRYPTION_SECRET: Type.Optional(
    Type.String({ description: 'Encrypts scoped key secrets; defaults to the root secret' }),
  ),
  SHUTDOWN_DRAIN_MS: Type.Integer({
    minimum: 0,
    maximum: 3_600_000,
    default: 30_000,
    description: 'Drain grace on SIGTERM',
  }),
  MOUNT_PATH: Type.String({ default: '', description: 'Path prefix for every surface; empty means root' }),
  STORE_ENDPOINT: Type.Optional(
    Type.String({
      description:
        "Public DNS hostname reported for endpoint discovery; the console's client snippets name it (docs/console.md)",
    }),
  ),
  STORE_DOMAIN: Type.String({
    default: '',
    description:
      'Comma-separated DNS names under which <bucket>.<name> addresses a bucket (virtual-hosted style); empty: path-style only',
  }),
  STORE_LIFECYCLE_INTERVAL_MS: Type.Integer({
    minimum: 100,
    maximum: 86_400_000,
    default: 3_600_000,
    description: 'How often lifecycle rules are applied (100 ms to 1 day)',
  }),
  STORE_TRUSTED_PROXIES: Type.String({
    default: '',
    description:
      'Comma-separated IP addresses and CIDR blocks of reverse proxies whose X-Forwarded-For/-Proto are believed',
  }),
  AUDIT_FLUSH_MS: Type.Integer({
    minimum: 250,
    maximum: 600_000,
    default: 2000,
    description: 'How often buffered audit records are written (250 ms to 10 min)',
  }),
  AUDIT_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    maximum: 36_500,
    default: 90,
    description: 'Audit rows older than this many days are pruned (1 to 36,500)',
  }),
  LOG_LEVEL: Type.Union(
    LOG_LEVELS.map((l) => Type.Literal(l)),
    { default: 'info', description: 'Log level' },
  ),
  METRICS_MODE: Type.Union(
    METRICS_MODES.map((m) => Type.Literal(m)),
    {
      default: 'off',
      description: 'GET /metrics: off (not served), public, or token (Bearer METRICS_TOKEN)',
    },
  ),
  METRICS_TOKEN: Type.Optional(
    Type.String({ description: 'Bearer token for METRICS_MODE=token; at least 32 characters, high entropy' }),
  ),
  USAGE_ROLLUP_INTERVAL_MS: Type.Integer({
    minimum: 60_000,
    maximum: 86_400_000,
    default: 900_000,
    description: 'How often per-bucket usage gauges refresh (60 s to 1 day)',
  }),
  OTEL_TRACING_ENABLED: Type.Boolean({
    default: false,
    description: 'true or false: a span per request through @opentelemetry/api',
  }),
  STORE_MIN_FREE_BYTES: Type.Integer({
    minimum: 0,
    maximum: 2 ** 50,
    default: 64 * 1024 * 1024,
    description:
      'Free space kept on the data volume: object writes are refused (507) below it, deletes still work (0: off)',
  }),
  ...WEBHOOK_KEYS,
  ...NOTIFICATION_KEYS,
  ...BACKUP_KEYS,
  ...REPLICATION_KEYS,
  ...INTEGRITY_KEYS,
  ...ANALYTICS_KEYS,
  ...INIT_BUCKETS_KEYS,
});

export type Config = Static<typeof ConfigSchema>;
export type LogLevel = Config['LOG_LEVEL'];
export type MetricsMode = Config['METRICS_MODE'];

const KEYS = Object.keys(ConfigSchema.properties) as (keyof Config)[];
/** Keys that must be set: required by the schema and without a default. */
const REQUIRED = (ConfigSchema.required ?? []).filter(
  (key) => !('default' in (ConfigSchema.properties[key as keyof Config] as object)),
);
const INTEGER_KEYS = KEYS.filter((key) => (ConfigSchema.properties[key] as { type?: unknown }).type === 'integer');
const BOOLEAN_KEYS = KEYS.filter((key) => (ConfigSchema.properties[key] as { type?: unknown }).type === 'boolean');
const ARGON2ID = /^\$argon2id\$v=\d+\$[mtp]=\d+(,[mtp]=\d+){2}\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/;

/** A boot refusal. The message names the key and the rule, never the value. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** Strict base64 of exactly 32 bytes (a re-encode must give the same text, so typos are not silently accepted). */
export function decodeSseKey(value: string): Buffer | undefined {
  const bytes = Buffer.from(value, 'base64');
  return bytes.length === 32 && bytes.toString('base64') === value ? bytes : undefined;
}

function normaliseMountPath(value: string): string {
  return value === '/' ? '' : value;
}

function mountPathProblem(value: string): string | undefined {
  if (value === '') return undefined;
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(value) || value.split('/').some((s) => s === '.' || s === '..')) {
    return 'MOUNT_PATH must be empty or a path like /storage (segments of letters, digits, . _ ~ -; no trailing slash)';
  }
  return undefined;
}

/**
 * The malformed entries of STORE_TRUSTED_PROXIES. config/ may not import core/, so this checks the shape with
 * node:net; http/shared/client-address.ts parses the same text with core/policy/ip.ts (a test keeps them in step).
 */
export function malformedProxyEntries(list: string): string[] {
  return list
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')
    .filter((entry) => {
      const [address = '', prefix, ...rest] = entry.split('/');
      const family = address.includes('%') ? 0 : isIP(address);
      if (family === 0 || rest.length > 0) return true;
      if (prefix === undefined) return false;
      return !/^\d{1,3}$/.test(prefix) || Number(prefix) > (family === 4 ? 32 : 128);
    });
}

/** Extra rules TypeBox cannot say: path shapes, secret strength, hash and key formats. */
function semanticProblems(cfg: Config): string[] {
  const problems: string[] = [];
  if (!isAbsolute(cfg.DATA_DIR) || (cfg.DATA_DIR.length > 1 && cfg.DATA_DIR.endsWith('/'))) {
    problems.push('DATA_DIR must be an absolute path without a trailing slash');
  }
  for (const key of ['JWT_SECRET', 'ROOT_SECRET_ACCESS_KEY'] as const) {
    const reason = weakSecretReason(cfg[key]);
    if (reason) problems.push(`${key} ${reason}`);
  }
  for (const key of ['KEY_ENCRYPTION_SECRET', 'METRICS_TOKEN'] as const) {
    const value = cfg[key];
    const reason = value === undefined ? undefined : weakSecretReason(value);
    if (reason) problems.push(`${key} ${reason}`);
  }
  if (cfg.METRICS_MODE === 'token' && cfg.METRICS_TOKEN === undefined) {
    problems.push('METRICS_TOKEN is required when METRICS_MODE is token (generate one with `openssl rand -base64 48`)');
  }
  if (looksLikePlaceholder(cfg.ROOT_ACCESS_KEY_ID)) {
    problems.push('ROOT_ACCESS_KEY_ID must not be a documentation example; generate one with `store init`');
  }
  if (!ARGON2ID.test(cfg.ADMIN_PASSWORD_HASH)) {
    problems.push('ADMIN_PASSWORD_HASH must be an argon2id hash (make one with `store hash-password`)');
  }
  if (cfg.STORE_SSE_KEY !== undefined && !decodeSseKey(cfg.STORE_SSE_KEY)) {
    problems.push('STORE_SSE_KEY must be the base64 encoding of exactly 32 bytes');
  }
  const badProxies = malformedProxyEntries(cfg.STORE_TRUSTED_PROXIES);
  if (badProxies.length > 0) {
    // Proxy addresses are not secrets, and naming the bad entry is what makes the refusal actionable.
    problems.push(
      `STORE_TRUSTED_PROXIES must list IP addresses or CIDR blocks separated by commas; not: ${badProxies.join(', ')}`,
    );
  }
  const badDomains = malformedDomains(cfg.STORE_DOMAIN);
  if (badDomains.length > 0) {
    problems.push(
      `STORE_DOMAIN must list DNS names (no port, scheme or IP address) separated by commas; not: ${badDomains.join(', ')}`,
    );
  }
  const mountProblem = mountPathProblem(cfg.MOUNT_PATH);
  if (mountProblem) problems.push(mountProblem);
  problems.push(...webhookProblems(cfg));
  problems.push(...backupProblems(cfg));
  problems.push(...replicationProblems(cfg));
  problems.push(...initBucketsProblems(cfg));
  return problems;
}

function describeSchemaError(key: string, schema: { description?: string } | undefined): string {
  return `${key} is invalid${schema?.description ? ` (${schema.description})` : ''}`;
}

/**
 * Reads and validates the configuration from an environment. Throws ConfigError listing every problem
 * (a missing required key, a malformed value, a weak secret) without echoing any value.
 */
export function loadConfig(env: NodeJS.ProcessEnv): Config {
  const raw: Record<string, unknown> = {};
  for (const key of KEYS) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const problems: string[] = [];
  for (const key of REQUIRED) {
    if (raw[key] === undefined) problems.push(`${key} is required but not set`);
  }
  if (problems.length > 0) throw new ConfigError(problems);

  // Integers must be written as plain decimal digits. TypeBox's Convert would truncate '80.5' to 80 and read
  // '1e3' as 1 and '0x10' as 16, so integer keys are parsed here and anything else is refused as it stands.
  const seen = new Set<string>();
  for (const key of INTEGER_KEYS) {
    const value = raw[key];
    if (typeof value !== 'string') continue;
    if (/^[0-9]{1,15}$/.test(value)) {
      raw[key] = Number(value);
    } else {
      seen.add(key);
      problems.push(describeSchemaError(key, ConfigSchema.properties[key] as { description?: string }));
    }
  }
  // Booleans are exactly 'true' or 'false': Convert would also take '1', 'yes'-like values silently.
  for (const key of BOOLEAN_KEYS) {
    const value = raw[key];
    if (typeof value !== 'string') continue;
    if (value === 'true' || value === 'false') {
      raw[key] = value === 'true';
    } else {
      seen.add(key);
      problems.push(describeSchemaError(key, ConfigSchema.properties[key] as { description?: string }));
    }
  }
  const candidate = Value.Convert(ConfigSchema, Value.Default(ConfigSchema, raw));
  for (const error of Value.Errors(ConfigSchema, candidate)) {
    const key = error.path.replace(/^\//, '').split('/')[0] ?? error.path;
    if (seen.has(key)) continue;
    seen.add(key);
    const prop = ConfigSchema.properties[key as keyof Config] as { description?: string } | undefined;
    problems.push(describeSchemaError(key, prop));
  }
  if (problems.length > 0) throw new ConfigError(problems);

  const cfg = candidate as Config;
  cfg.MOUNT_PATH = normaliseMountPath(cfg.MOUNT_PATH);
  problems.push(...semanticProblems(cfg));
  if (problems.length > 0) throw new ConfigError(problems);
  return cfg;
}
