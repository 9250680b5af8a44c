// The replication and tiering keys of the environment schema (SPEC "Replication configuration", "Tiering and
// scheduled backup configuration", "Limits") and their boot refusals. Messages name keys, never values: the
// endpoint may carry credentials and the secret is a secret.

import { Type, type Static } from '@sinclair/typebox';

const MIB = 1024 * 1024;

export const REPLICATION_KEYS = {
  STORE_REPLICATION_ENABLED: Type.Boolean({
    default: false,
    description: 'true or false: mirror every committed change to the remote target',
  }),
  STORE_REPLICATION_BUCKET: Type.Optional(Type.String({ description: 'Target bucket (must already exist)' })),
  STORE_REPLICATION_ACCESS_KEY_ID: Type.Optional(Type.String({ description: 'Target access key id' })),
  STORE_REPLICATION_SECRET_ACCESS_KEY: Type.Optional(Type.String({ description: 'Target secret access key' })),
  STORE_REPLICATION_ENDPOINT: Type.Optional(
    Type.String({ description: 'Target endpoint URL; unset for the default cloud S3 endpoint' }),
  ),
  STORE_REPLICATION_REGION: Type.Optional(
    Type.String({ pattern: '^[a-z0-9-]{1,32}$', description: 'Target region (default us-east-1)' }),
  ),
  STORE_REPLICATION_FORCE_PATH_STYLE: Type.Optional(
    Type.Boolean({ description: 'true or false: path-style requests (default true when an endpoint is set)' }),
  ),
  STORE_REPLICATION_MAX_ATTEMPTS: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 12,
    description: 'Attempts before an intent is dead-lettered (1 to 1000)',
  }),
  STORE_REPLICATION_DRAIN_INTERVAL_MS: Type.Integer({
    minimum: 10,
    maximum: 3_600_000,
    default: 5000,
    description: 'Drain worker tick (10 ms to 1 h)',
  }),
  STORE_REPLICATION_BATCH_KEYS: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 50,
    description: 'Distinct keys claimed per tick (1 to 10,000)',
  }),
  STORE_REPLICATION_LARGE_OBJECT_THRESHOLD_BYTES: Type.Integer({
    minimum: 5 * MIB,
    maximum: 5 * 1024 * MIB,
    default: 64 * MIB,
    description: 'Objects above this go as a streamed multipart upload (5 MiB to 5 GiB)',
  }),
  STORE_REPLICATION_RETRY_BASE_MS: Type.Integer({
    minimum: 1,
    maximum: 3_600_000,
    default: 2000,
    description: 'Base of the full-jitter exponential retry backoff (capped at 1 h)',
  }),
  STORE_REPLICATION_REQUEST_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 3_600_000,
    default: 30_000,
    description:
      'A request to the remote target fails when idle this long, or unanswered this long plus its body at 64 KiB/s (100 ms to 1 h)',
  }),
  STORE_TIER_ENABLED: Type.Boolean({
    default: false,
    description: 'true or false: lifecycle transitions offload objects to the remote target',
  }),
  STORE_TIER_READTHROUGH_TIMEOUT_MS: Type.Integer({
    minimum: 1,
    maximum: 3_600_000,
    default: 30_000,
    description: 'Rehydration on read, at most (1 ms to 1 h)',
  }),
  STORE_TIER_MAX_CONCURRENT_REHYDRATE: Type.Integer({
    minimum: 1,
    maximum: 256,
    default: 8,
    description: 'Rehydrations at once (1 to 256)',
  }),
  STORE_TIER_PRESIGN_TTL_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 604_800,
    default: 300,
    description: 'Validity of the redirect for large tiered objects (1 s to 7 days)',
  }),
  STORE_TIER_INLINE_MAX_BYTES: Type.Integer({
    minimum: 0,
    maximum: 5 * 1024 * 1024 * MIB,
    default: 256 * MIB,
    description: 'Tiered objects up to this size are rehydrated on read; larger ones are redirected',
  }),
};

const ReplicationConfig = Type.Object(REPLICATION_KEYS);
export type ReplicationConfig = Static<typeof ReplicationConfig>;

/** The remote target as the client needs it; only built when every required key is present. */
export interface RemoteTargetConfig {
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  endpoint: string | undefined;
  region: string;
  forcePathStyle: boolean;
}

const REMOTE_REQUIRED = [
  'STORE_REPLICATION_BUCKET',
  'STORE_REPLICATION_ACCESS_KEY_ID',
  'STORE_REPLICATION_SECRET_ACCESS_KEY',
] as const;

/** True when the endpoint is a plaintext http URL (a boot-time warning; tolerated for a trusted LAN). */
export function isPlaintextEndpoint(cfg: Pick<ReplicationConfig, 'STORE_REPLICATION_ENDPOINT'>): boolean {
  return cfg.STORE_REPLICATION_ENDPOINT !== undefined && /^http:/i.test(cfg.STORE_REPLICATION_ENDPOINT);
}

/**
 * The boot refusals: replication or tiering on without the bucket and both credentials (a partial
 * configuration), an endpoint that is not an http(s) URL, a bucket name S3 would refuse.
 */
export function replicationProblems(cfg: ReplicationConfig): string[] {
  const problems: string[] = [];
  const wanted = cfg.STORE_REPLICATION_ENABLED || cfg.STORE_TIER_ENABLED;
  const missing = REMOTE_REQUIRED.filter((key) => cfg[key] === undefined);
  if (wanted && missing.length > 0) {
    const by = cfg.STORE_REPLICATION_ENABLED
      ? 'STORE_REPLICATION_ENABLED'
      : 'STORE_TIER_ENABLED (tiering reuses the replication target)';
    problems.push(`${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} required when ${by} is true`);
  }
  if (cfg.STORE_REPLICATION_ENDPOINT !== undefined) {
    let ok = false;
    try {
      const url = new URL(cfg.STORE_REPLICATION_ENDPOINT);
      ok = (url.protocol === 'https:' || url.protocol === 'http:') && url.search === '' && url.hash === '';
    } catch {
      ok = false;
    }
    if (!ok) problems.push('STORE_REPLICATION_ENDPOINT must be an http:// or https:// URL without a query');
  }
  const bucket = cfg.STORE_REPLICATION_BUCKET;
  if (bucket !== undefined && !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    problems.push(
      'STORE_REPLICATION_BUCKET must be a valid S3 bucket name (3-63 lowercase letters, digits, dots, hyphens)',
    );
  }
  return problems;
}

/** The remote target, or undefined when replication and tiering are both off. Call after validation. */
export function remoteTargetOf(cfg: ReplicationConfig): RemoteTargetConfig | undefined {
  if (!cfg.STORE_REPLICATION_ENABLED && !cfg.STORE_TIER_ENABLED) return undefined;
  const {
    STORE_REPLICATION_BUCKET: bucket,
    STORE_REPLICATION_ACCESS_KEY_ID: accessKeyId,
    STORE_REPLICATION_SECRET_ACCESS_KEY: secretAccessKey,
  } = cfg;
  if (bucket === undefined || accessKeyId === undefined || secretAccessKey === undefined) return undefined;
  const endpoint = cfg.STORE_REPLICATION_ENDPOINT;
  return {
    bucket,
    accessKeyId,
    secretAccessKey,
    endpoint,
    region: cfg.STORE_REPLICATION_REGION ?? 'us-east-1',
    forcePathStyle: cfg.STORE_REPLICATION_FORCE_PATH_STYLE ?? endpoint !== undefined,
  };
}
