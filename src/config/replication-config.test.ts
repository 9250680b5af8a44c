// The replication and tiering keys through loadConfig: spec defaults, the partial-configuration refusal, tiering
// without a target, malformed endpoints; no value is ever echoed.

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { configEnv as env, configProblems as problems } from '../../test/helpers/config-env.js';
import { loadConfig } from './config.js';
import { isPlaintextEndpoint, remoteTargetOf } from './replication-config.js';

const REMOTE_SECRET = randomBytes(30).toString('base64url');
const FULL = {
  STORE_REPLICATION_ENABLED: 'true',
  STORE_REPLICATION_BUCKET: 'mirror-bucket',
  STORE_REPLICATION_ACCESS_KEY_ID: 'AKIAREMOTEKEY12345',
  STORE_REPLICATION_SECRET_ACCESS_KEY: REMOTE_SECRET,
};

describe('replication configuration', () => {
  it('is off by default, with the spec defaults and no remote', () => {
    const cfg = loadConfig(env({}));
    expect(cfg).toMatchObject({
      STORE_REPLICATION_ENABLED: false,
      STORE_REPLICATION_MAX_ATTEMPTS: 12,
      STORE_REPLICATION_DRAIN_INTERVAL_MS: 5000,
      STORE_REPLICATION_BATCH_KEYS: 50,
      STORE_REPLICATION_LARGE_OBJECT_THRESHOLD_BYTES: 64 * 1024 * 1024,
      STORE_TIER_ENABLED: false,
      STORE_TIER_READTHROUGH_TIMEOUT_MS: 30_000,
      STORE_TIER_MAX_CONCURRENT_REHYDRATE: 8,
      STORE_TIER_PRESIGN_TTL_SECONDS: 300,
      STORE_TIER_INLINE_MAX_BYTES: 256 * 1024 * 1024,
      STORE_REPLICATION_REQUEST_TIMEOUT_MS: 30_000,
    });
    expect(remoteTargetOf(cfg)).toBeUndefined();
  });

  it('builds the target: region us-east-1 and path-style when an endpoint is set, virtual-hosted otherwise', () => {
    expect(
      remoteTargetOf(loadConfig(env({ ...FULL, STORE_REPLICATION_ENDPOINT: 'https://s3.lan:9000' }))),
    ).toMatchObject({
      bucket: 'mirror-bucket',
      region: 'us-east-1',
      forcePathStyle: true,
      endpoint: 'https://s3.lan:9000',
    });
    expect(remoteTargetOf(loadConfig(env({ ...FULL, STORE_REPLICATION_REGION: 'eu-west-1' })))).toMatchObject({
      forcePathStyle: false,
      region: 'eu-west-1',
    });
    expect(
      remoteTargetOf(
        loadConfig(
          env({ ...FULL, STORE_REPLICATION_ENDPOINT: 'http://s3.lan', STORE_REPLICATION_FORCE_PATH_STYLE: 'false' }),
        ),
      )?.forcePathStyle,
    ).toBe(false);
  });

  it('refuses a partial configuration, naming the missing keys and never a value', () => {
    const found = problems({ STORE_REPLICATION_ENABLED: 'true', STORE_REPLICATION_SECRET_ACCESS_KEY: REMOTE_SECRET });
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(
      'STORE_REPLICATION_BUCKET, STORE_REPLICATION_ACCESS_KEY_ID are required when STORE_REPLICATION_ENABLED',
    );
    expect(found.join()).not.toContain(REMOTE_SECRET);
  });

  it('refuses tiering without a target, and accepts tiering alone with one', () => {
    expect(problems({ STORE_TIER_ENABLED: 'true' })[0]).toContain('required when STORE_TIER_ENABLED');
    const cfg = loadConfig(env({ ...FULL, STORE_REPLICATION_ENABLED: 'false', STORE_TIER_ENABLED: 'true' }));
    expect(remoteTargetOf(cfg)?.bucket).toBe('mirror-bucket');
  });

  it('refuses an endpoint that is not an http(s) URL and a malformed bucket, without echoing them', () => {
    const found = problems({
      ...FULL,
      STORE_REPLICATION_ENDPOINT: 'ftp://user:pw@host',
      STORE_REPLICATION_BUCKET: 'Bad_Bucket',
    });
    expect(found).toEqual([
      'STORE_REPLICATION_ENDPOINT must be an http:// or https:// URL without a query',
      'STORE_REPLICATION_BUCKET must be a valid S3 bucket name (3-63 lowercase letters, digits, dots, hyphens)',
    ]);
    expect(problems({ ...FULL, STORE_REPLICATION_LARGE_OBJECT_THRESHOLD_BYTES: '1024' })[0]).toContain(
      'STORE_REPLICATION_LARGE_OBJECT_THRESHOLD_BYTES is invalid',
    );
  });

  it('tells a plaintext http endpoint apart (a boot-time warning)', () => {
    expect(isPlaintextEndpoint({ STORE_REPLICATION_ENDPOINT: 'http://10.0.0.5:9000' })).toBe(true);
    expect(isPlaintextEndpoint({ STORE_REPLICATION_ENDPOINT: 'https://s3.amazonaws.com' })).toBe(false);
    expect(isPlaintextEndpoint({ STORE_REPLICATION_ENDPOINT: undefined })).toBe(false);
  });
});
